//! Text from an uploaded PDF, in pure Rust (lopdf). An upload is untrusted
//! input: a malformed, truncated or hostile file is an `unreadable_pdf`, a
//! scan with no text layer is `no_text`, and neither may panic the isolate.

use std::collections::HashSet;

use lopdf::{Document, LoadOptions, Object, ObjectId};

use crate::api::error::DocumentError;

/// Only the first this-many pages are read: it bounds the CPU one upload can
/// take (lopdf still parses every object of the file when it loads it).
pub const MAX_PAGES: usize = 200;

/// The most any one stream may inflate to. lopdf's default (256 MiB) is twice
/// a Worker's whole memory, so a small deflate bomb would kill the isolate;
/// no real page's content comes near 16 MiB.
pub const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// The most content one page may inflate to; a dense page of text is tens
/// of KiB. A page past it is unreadable, the others still count.
pub const MAX_PAGE_CONTENT_BYTES: usize = 512 * 1024;

/// The most operators one page may hold. Text extraction decodes a page's
/// content into memory whole, about 530 bytes per operator at worst
/// (`scripts/bench-hostile`), so this bounds an upload's peak near 21 MiB; a
/// dense page of text has a few thousand. A page past it is unreadable.
pub const MAX_PAGE_OPERATORS: usize = 40_000;

/// The most operators all pages together may hold, counted before any is
/// decoded: past it the file is refused whole. It bounds the decoding time.
pub const MAX_OPERATORS: usize = 1_000_000;

/// The most content all pages together may inflate to, measured before any
/// is decoded: past it the file is refused whole. It is far more than the
/// text an upload may hold (`WORKSPACE_MAX_CHARS`) ever needs.
pub const MAX_CONTENT_BYTES: usize = 16 * 1024 * 1024;

/// The text of one page, and its number (1-based, as a reader counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub number: u32,
    pub text: String,
}

/// The text of the first [`MAX_PAGES`] pages, in page order; pages with no
/// text are skipped.
pub fn extract(bytes: &[u8]) -> Result<Vec<Page>, DocumentError> {
    let mut doc = load(bytes)?;
    // Lenient loading rebuilds a damaged xref; with no page tree even then,
    // there is no document.
    let pages: Vec<(u32, ObjectId)> = doc.get_pages().into_iter().take(MAX_PAGES).collect();
    if pages.is_empty() {
        return Err(unreadable());
    }
    flatten(&mut doc, &pages);
    let Sized { readable, mut failed } = measure(&doc, &pages)?;
    let mut out: Vec<Page> = Vec::new();
    for page in readable {
        // Chunks are per font run: one bad font must not cost the whole document.
        let mut text = String::new();
        for chunk in doc.extract_text_chunks_with_limit(&[page], MAX_PAGE_CONTENT_BYTES) {
            match chunk {
                Ok(s) => text.push_str(&s),
                Err(_) => failed = true,
            }
        }
        let text = text.trim();
        if !text.is_empty() {
            out.push(Page { number: page, text: text.to_owned() });
        }
    }
    match (out.is_empty(), failed) {
        (false, _) => Ok(out),
        // Nothing read and something failed: the text may be there, unreadable.
        (true, true) => Err(unreadable()),
        (true, false) => Err(DocumentError::NoText),
    }
}

/// Hangs the pages read straight under the tree's root, in order. lopdf walks
/// the whole page tree again for every page it extracts, so a tree of 200
/// pages each 100 nodes deep (a 1.7 MB upload) took 2.6 s; flat, the walk is
/// the pages alone. Each page keeps its `/Parent`, through which inherited
/// resources are still found. A root that cannot be found is left alone.
fn flatten(doc: &mut Document, pages: &[(u32, ObjectId)]) {
    let Ok(root) = doc.catalog().and_then(|c| c.get(b"Pages")).and_then(Object::as_reference) else { return };
    if let Ok(node) = doc.get_object_mut(root).and_then(Object::as_dict_mut) {
        node.set("Kids", Object::Array(pages.iter().map(|(_, id)| Object::Reference(*id)).collect()));
        node.set("Count", pages.len() as i64);
    }
}

fn unreadable() -> DocumentError {
    DocumentError::UnreadablePdf("it is malformed or truncated".into())
}

/// The parsed file; an encrypted one is refused, never decrypted.
fn load(bytes: &[u8]) -> Result<Document, DocumentError> {
    let encrypted = || DocumentError::UnreadablePdf("it is encrypted; upload an unprotected copy".into());
    let options = LoadOptions { max_decompressed_size: Some(MAX_STREAM_BYTES), ..Default::default() };
    let doc = match Document::load_mem_with_options(bytes, options) {
        Ok(doc) => doc,
        Err(lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword) => return Err(encrypted()),
        Err(_) => return Err(unreadable()),
    };
    // lopdf opens a file whose user password is empty (and drops /Encrypt
    // from its trailer): every encrypted file is refused alike.
    if doc.was_encrypted() || doc.trailer.has(b"Encrypt") {
        return Err(encrypted());
    }
    Ok(doc)
}

/// The pages worth decoding, and whether any page failed.
struct Sized {
    readable: Vec<u32>,
    failed: bool,
}

/// Inflates each page's content once and counts its operators, without
/// decoding it, to find the pages worth decoding: a page whose content
/// streams another page already showed adds no text, only work (one small
/// deflate stream shared by every page), and one past
/// [`MAX_PAGE_CONTENT_BYTES`] or [`MAX_PAGE_OPERATORS`] is unreadable.
/// Refuses the file when its pages pass [`MAX_CONTENT_BYTES`] or
/// [`MAX_OPERATORS`] together.
fn measure(doc: &Document, pages: &[(u32, ObjectId)]) -> Result<Sized, DocumentError> {
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let (mut readable, mut failed, mut inflated, mut operators) = (Vec::new(), false, 0usize, 0usize);
    for &(page, id) in pages {
        let streams = doc.get_page_contents(id);
        // A page or content stream the file lacks (a truncated upload) would
        // otherwise read as a blank page and pass a broken file off as a scan.
        if std::iter::once(id).chain(streams.iter().copied()).any(|id| !doc.objects.contains_key(&id)) {
            failed = true;
            continue;
        }
        let fresh = streams.iter().filter(|stream| seen.insert(**stream)).count();
        if fresh == 0 && !streams.is_empty() {
            continue;
        }
        let Ok(content) = doc.get_page_content_with_limit(id, MAX_PAGE_CONTENT_BYTES) else {
            failed = true;
            continue;
        };
        let count = count_operators(&content);
        if count > MAX_PAGE_OPERATORS {
            failed = true;
            continue;
        }
        (inflated, operators) = (inflated + content.len(), operators + count);
        if inflated > MAX_CONTENT_BYTES || operators > MAX_OPERATORS {
            let limit = MAX_CONTENT_BYTES / (1024 * 1024);
            return Err(DocumentError::UnreadablePdf(format!(
                "its pages hold more than {limit} MiB of content or {MAX_OPERATORS} operators; upload fewer pages at a time"
            )));
        }
        readable.push(page);
    }
    Ok(Sized { readable, failed })
}

/// The operators in a content stream, counted without decoding it: the
/// tokens that begin with a letter (or are `'` and `"`) outside strings,
/// hex strings, names and comments. Keywords among operands (`true`, inline image data) count too:
/// the count errs high, which only makes a bound hold sooner.
fn count_operators(content: &[u8]) -> usize {
    let (mut count, mut depth, mut i) = (0, 0usize, 0);
    let mut in_token = false;
    while i < content.len() {
        let b = content[i];
        if depth > 0 {
            match b {
                b'\\' => i += 1,
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
        } else if b == b'(' {
            depth = 1;
            in_token = false;
        } else if b == b'%' {
            while i < content.len() && content[i] != b'\n' && content[i] != b'\r' {
                i += 1;
            }
            in_token = false;
        } else if b == b'<' && content.get(i + 1) == Some(&b'<') {
            i += 1;
            in_token = false;
        } else if b == b'<' {
            // A hex string: its digits are no operator.
            while i < content.len() && content[i] != b'>' {
                i += 1;
            }
            in_token = false;
        } else if b.is_ascii_whitespace() || b"[]<>{}/".contains(&b) {
            in_token = matches!(b, b'/');
        } else if !in_token {
            in_token = true;
            count += usize::from(b.is_ascii_alphabetic() || b == b'\'' || b == b'"');
        }
        i += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::count_operators;

    #[test]
    fn operators_are_counted_outside_strings_names_and_comments() {
        assert_eq!(count_operators(b"BT /F1 12 Tf 72 720 Td (a Tj (nested) ET) Tj ET"), 5);
        assert_eq!(count_operators(b"[(W)120(ord)]TJ q Q % Tj Tj\n' \""), 5);
        assert_eq!(count_operators(b"(escaped \\) Tj) Tj"), 1);
        assert_eq!(count_operators(b"[<AB12>-20<cd>] TJ << /MCID 0 >> BDC EMC"), 3);
        assert_eq!(count_operators(b"q Q ".repeat(1000).as_slice()), 2000);
    }
}
