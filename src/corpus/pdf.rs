//! Text from an uploaded PDF, in pure Rust (lopdf). An upload is untrusted
//! input: a malformed, truncated or hostile file is an `unreadable_pdf`, a
//! scan with no text layer is `no_text`, and neither may panic the isolate.

use lopdf::{Document, LoadOptions, ObjectId};

use crate::api::error::DocumentError;

/// Only the first this-many pages are read: it bounds the CPU one upload can
/// take (lopdf still parses every object of the file when it loads it).
pub const MAX_PAGES: usize = 200;

/// The most any one stream may inflate to. lopdf's default (256 MiB) is twice
/// a Worker's whole memory, so a small deflate bomb would kill the isolate;
/// no real page's content comes near 16 MiB.
pub const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;

/// The text of one page, and its number (1-based, as a reader counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub number: u32,
    pub text: String,
}

/// The text of the first [`MAX_PAGES`] pages, in page order; pages with no
/// text are skipped.
pub fn extract(bytes: &[u8]) -> Result<Vec<Page>, DocumentError> {
    let unreadable = || DocumentError::UnreadablePdf("it is malformed or truncated".into());
    let encrypted = || DocumentError::UnreadablePdf("it is encrypted; upload an unprotected copy".into());
    let options = LoadOptions { max_decompressed_size: Some(MAX_STREAM_BYTES), ..Default::default() };
    let doc = match Document::load_mem_with_options(bytes, options) {
        Ok(doc) => doc,
        Err(lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword) => return Err(encrypted()),
        Err(_) => return Err(unreadable()),
    };
    // lopdf opens a file whose user password is empty (and drops /Encrypt
    // from its trailer): every encrypted file is refused alike; none is decrypted.
    if doc.was_encrypted() || doc.trailer.has(b"Encrypt") {
        return Err(encrypted());
    }
    // Lenient loading rebuilds a damaged xref; with no page tree even then,
    // there is no document.
    let pages: Vec<(u32, ObjectId)> = doc.get_pages().into_iter().take(MAX_PAGES).collect();
    if pages.is_empty() {
        return Err(unreadable());
    }
    let mut out: Vec<Page> = Vec::new();
    let mut failed = false;
    for (page, id) in pages {
        // A page or content stream the file lacks (a truncated upload) would
        // otherwise read as a blank page and pass a broken file off as a scan.
        if std::iter::once(id).chain(doc.get_page_contents(id)).any(|id| !doc.objects.contains_key(&id)) {
            failed = true;
            continue;
        }
        // Chunks are per font run: one bad font must not cost the whole document.
        let mut text = String::new();
        for chunk in doc.extract_text_chunks_with_limit(&[page], MAX_STREAM_BYTES) {
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
