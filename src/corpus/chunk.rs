//! Markdown documents into passages.
//!
//! `##` headings are hard boundaries; a section longer than [`MAX_PASSAGE_CHARS`]
//! is split on paragraphs, an over-long paragraph on sentences, and an
//! over-long sentence between words. A passage's id is `{doc-stem}-{NN}`, NN
//! its 1-based ordinal in the document, so ids are readable and stay put while
//! earlier sections keep their size. A PDF's passages are numbered per page,
//! `{doc-stem}:{page}:{NN}`, so an id (and a citation) says where to look; a
//! stem never holds a colon, so the page is read back from the id alone.
//!
//! Every size here is a hard bound, in bytes of UTF-8: a passage's text, its
//! heading and its document stem never exceed their maximum, whatever the
//! input. The spend cap's per-request bound rests on them.

use sha2::{Digest, Sha256};

use crate::text;

/// Sections longer than this (bytes) are split; short enough to quote, long
/// enough to keep a policy's sentences together.
pub const MAX_PASSAGE_CHARS: usize = 1200;
/// Longest heading kept (bytes); a longer one is cut at a character boundary.
pub const MAX_HEADING_CHARS: usize = 160;
/// Longest document stem (bytes): short enough that every passage id fits
/// [`MAX_ID_BYTES`], a workspace's prefix and a PDF's page included.
pub const MAX_STEM_CHARS: usize = 36;
/// Longest passage id (bytes): Vectorize's limit on a vector id, which is the
/// passage id.
pub const MAX_ID_BYTES: usize = 64;

/// One retrievable unit of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// `{doc-stem}-{NN}`, or `{doc-stem}:{page}:{NN}` for a PDF's.
    pub id: String,
    /// The document stem (`pricing` for `pricing.md`).
    pub doc: String,
    /// The `##` heading the passage sits under (the `#` title before the first one).
    pub section: String,
    /// The passage's prose, paragraphs joined by a blank line.
    pub text: String,
}

impl Passage {
    /// SHA-256 (hex) of everything that makes up the passage and of the rules
    /// that index it ([`text::RULES_VERSION`]); equal hashes mean an unchanged
    /// passage on re-ingest, and a new tokenizer re-indexes every passage.
    pub fn content_hash(&self) -> String {
        let mut hasher = Sha256::new();
        for part in [text::RULES_VERSION, &self.id, &self.doc, &self.section, &self.text] {
            hasher.update(part.as_bytes());
            hasher.update([0u8]);
        }
        hex(&hasher.finalize())
    }

    /// The normalized terms of its text: the index's `terms` column.
    pub fn body_terms(&self) -> String {
        text::terms(&self.text).join(" ")
    }

    /// The normalized terms of its heading: the index's `heading` column,
    /// weighted by `HEADING_WEIGHT` in BM25.
    pub fn heading_terms(&self) -> String {
        text::terms(&self.section).join(" ")
    }
}

/// All of a passage's index terms, heading and text: what document
/// frequencies count.
pub fn index_terms(section: &str, text: &str) -> Vec<String> {
    text::terms(&format!("{section}\n{text}"))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The document stem of a file name: `Late Fees.md` -> `late-fees`. A stem
/// longer than [`MAX_STEM_CHARS`] keeps its start and ends with 8 hex digits
/// of its SHA-256, so two long names that share a beginning stay two documents.
pub fn doc_stem(file_name: &str) -> String {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    let without_ext = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let mut stem = String::new();
    for c in without_ext.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            stem.push(c);
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.len() <= MAX_STEM_CHARS {
        return stem.to_string();
    }
    let digest = hex(&Sha256::digest(stem.as_bytes())[..4]);
    format!("{}-{digest}", truncate(stem, MAX_STEM_CHARS - digest.len() - 1).trim_end_matches('-'))
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Splits one Markdown document into passages.
pub fn chunk_document(file_name: &str, markdown: &str) -> Vec<Passage> {
    chunk_within(file_name, markdown, MAX_PASSAGE_CHARS)
}

/// [`chunk_document`] with passages of at most `max` bytes (never more than
/// [`MAX_PASSAGE_CHARS`]): what `scripts/bench-retrieval` sweeps.
pub fn chunk_within(file_name: &str, markdown: &str, max: usize) -> Vec<Passage> {
    let max = max.clamp(1, MAX_PASSAGE_CHARS);
    let doc = doc_stem(file_name);
    let mut title = doc.clone();
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut paragraph = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix("## ") {
            flush_paragraph(&mut paragraph, &mut sections, &title);
            sections.push((truncate(heading.trim(), MAX_HEADING_CHARS).to_string(), Vec::new()));
        } else if let Some(heading) = trimmed.strip_prefix("# ").filter(|_| sections.is_empty()) {
            flush_paragraph(&mut paragraph, &mut sections, &title);
            title = truncate(heading.trim(), MAX_HEADING_CHARS).to_string();
        } else if trimmed.is_empty() {
            flush_paragraph(&mut paragraph, &mut sections, &title);
        } else {
            if !paragraph.is_empty() {
                paragraph.push(' ');
            }
            paragraph.push_str(trimmed.trim_start_matches('#').trim());
        }
    }
    flush_paragraph(&mut paragraph, &mut sections, &title);

    let mut passages = Vec::new();
    for (section, paragraphs) in sections {
        for text in pack(&paragraphs, max) {
            let id = format!("{doc}-{:02}", passages.len() + 1);
            passages.push(Passage { id, doc: doc.clone(), section: section.clone(), text });
        }
    }
    passages
}

/// A PDF's pages as passages, numbered per page (`{doc}:{page}:{NN}`); each
/// page is plain text under the document's title.
pub fn chunk_pages<'a>(file_name: &str, pages: impl Iterator<Item = (u32, &'a str)>) -> Vec<Passage> {
    let doc = doc_stem(file_name);
    pages
        .flat_map(|(page, text)| {
            let doc = doc.clone();
            chunk_document(file_name, &plain_text(&doc, text))
                .into_iter()
                .enumerate()
                .map(move |(i, p)| Passage { id: format!("{doc}:{page}:{:02}", i + 1), ..p })
        })
        .collect()
}

/// Plain text as Markdown: under a `title`, its lines' leading `#`s dropped
/// so that none reads as a heading.
pub fn plain_text(title: &str, text: &str) -> String {
    let body: Vec<&str> = text.lines().map(|l| l.trim_start().trim_start_matches('#')).collect();
    format!("# {title}\n\n{}", body.join("\n"))
}

/// The page a PDF passage's id names (`…:{page}:{NN}`); `None` for others.
pub fn page_of(id: &str) -> Option<u32> {
    let mut parts = id.rsplitn(3, ':');
    let (_ordinal, page, _doc) = (parts.next()?, parts.next()?, parts.next()?);
    page.parse().ok()
}

/// Whether a passage is its document's first: what a link to the document
/// (`[terms](pricing.md)`) lands on.
pub fn opens_document(passage: &Passage) -> bool {
    let id = passage.id.as_str();
    id.ends_with(&format!("{}-01", passage.doc)) || id.ends_with(&format!("{}:1:01", passage.doc))
}

fn flush_paragraph(paragraph: &mut String, sections: &mut Vec<(String, Vec<String>)>, title: &str) {
    if paragraph.is_empty() {
        return;
    }
    if sections.is_empty() {
        sections.push((title.to_string(), Vec::new()));
    }
    if let Some((_, paragraphs)) = sections.last_mut() {
        paragraphs.push(std::mem::take(paragraph));
    }
}

/// Packs paragraphs into passages of at most `max` bytes.
fn pack(paragraphs: &[String], max: usize) -> Vec<String> {
    let pieces = paragraphs.iter().flat_map(|p| {
        if p.len() <= max {
            vec![p.clone()]
        } else {
            pack_sentences(p, max)
        }
    });
    pack_pieces(pieces, "\n\n", max)
}

fn pack_sentences(paragraph: &str, max: usize) -> Vec<String> {
    pack_pieces(text::sentences(paragraph).into_iter().flat_map(|s| split_words(s, max)), " ", max)
}

/// An over-long sentence, split between words (a word longer than the whole
/// limit is cut at a character boundary): quoting a fragment is better than
/// a passage that breaks the size every bound relies on.
fn split_words(sentence: &str, max: usize) -> Vec<String> {
    if sentence.len() <= max {
        return vec![sentence.to_string()];
    }
    let mut words: Vec<&str> = Vec::new();
    for word in sentence.split_whitespace() {
        let mut rest = word;
        while rest.len() > max {
            let head = truncate(rest, max);
            // A character wider than `max` bytes: take it whole rather than loop.
            let head = if head.is_empty() { &rest[..rest.chars().next().map_or(rest.len(), char::len_utf8)] } else { head };
            words.push(head);
            rest = &rest[head.len()..];
        }
        words.push(rest);
    }
    pack_pieces(words.into_iter().map(String::from), " ", max)
}

/// Joins pieces with `separator` into runs of at most `max` bytes.
fn pack_pieces(pieces: impl Iterator<Item = String>, separator: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.len() + separator.len() + piece.len() <= max => {
                last.push_str(separator);
                last.push_str(&piece);
            }
            _ => out.push(piece),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Headings are hard boundaries, ids are ordinal, the title names a preamble.
    #[test]
    fn sections_become_passages_with_ordinal_ids() {
        let md = "# Pricing\n\nIntro line.\n\n## Day Pass\nA day pass costs $25.\nIt includes coffee.\n\n## Dedicated Desk\n\nA desk costs $450.\n\nSecond paragraph.\n";
        let passages = chunk_document("pricing.md", md);
        let summary: Vec<_> = passages.iter().map(|p| (p.id.as_str(), p.section.as_str(), p.text.as_str())).collect();
        assert_eq!(
            summary,
            [
                ("pricing-01", "Pricing", "Intro line."),
                ("pricing-02", "Day Pass", "A day pass costs $25. It includes coffee."),
                ("pricing-03", "Dedicated Desk", "A desk costs $450.\n\nSecond paragraph."),
            ]
        );
    }

    #[test]
    fn empty_sections_and_documents_yield_nothing() {
        assert!(chunk_document("x.md", "").is_empty());
        assert!(chunk_document("x.md", "# Title\n\n## Empty\n\n").is_empty());
    }

    #[test]
    fn long_sections_split_on_paragraphs_then_sentences() {
        let para = "Word ".repeat(200).trim().to_string() + ".";
        let md = format!("## Long\n\n{para}\n\n{para}\n\n{}", "A sentence here. ".repeat(100));
        let passages = chunk_document("long.md", &md);
        assert!(passages.len() >= 3, "{}", passages.len());
        assert!(passages.iter().all(|p| p.text.len() <= MAX_PASSAGE_CHARS));
        assert!(passages.iter().all(|p| p.section == "Long"));
        assert_eq!(passages[2].id, "long-03");
    }

    /// No input makes a passage, heading or stem larger than its bound.
    #[test]
    fn sizes_are_hard_bounds() {
        let long_sentence = "word ".repeat(600);
        let long_word = "é".repeat(2000);
        let md = format!("# {}\n\n## {}\n\n{long_sentence}\n\n{long_word}", "T".repeat(500), "H".repeat(500));
        let passages = chunk_document(&format!("{}.md", "s".repeat(300)), &md);
        assert!(passages.len() >= 3);
        for p in &passages {
            assert!(p.text.len() <= MAX_PASSAGE_CHARS && p.section.len() <= MAX_HEADING_CHARS && p.doc.len() <= MAX_STEM_CHARS, "{p:?}");
        }
    }

    /// Every id fits a vector id: the longest stem, in a workspace, on a PDF's
    /// last page, with a five-digit ordinal.
    #[test]
    fn ids_fit_vectorize() {
        assert!(doc_stem(&format!("{}.pdf", "Quarterly report ".repeat(10))).len() <= MAX_STEM_CHARS);
        let worst = format!("w{}-{}:{}:{}", "f".repeat(16), "s".repeat(MAX_STEM_CHARS), crate::corpus::pdf::MAX_PAGES, 99_999);
        assert!(worst.len() <= MAX_ID_BYTES, "{} bytes: {worst}", worst.len());
    }

    /// Long names keep their start and stay apart by a digest of the whole.
    #[test]
    fn long_stems_stay_distinct() {
        let a = doc_stem("Quarterly report for the northern region 2026 Q1.md");
        let b = doc_stem("Quarterly report for the northern region 2026 Q2.md");
        assert!(a.starts_with("quarterly-report-for-the") && a.len() <= MAX_STEM_CHARS, "{a}");
        assert_ne!(a, b);
        assert_eq!(a, doc_stem("quarterly report for the northern region 2026 q1.txt"), "the stem, not the spelling");
        assert_eq!(doc_stem("Late Fees.md"), "late-fees");
    }

    #[test]
    fn stems_are_slugs() {
        assert_eq!(doc_stem("Late Fees.md"), "late-fees");
        assert_eq!(doc_stem("dir/House_Rules.markdown"), "house-rules");
    }

    #[test]
    fn hash_changes_with_text_only() {
        let a = chunk_document("a.md", "## S\n\nOne.");
        let b = chunk_document("a.md", "## S\n\nOne.");
        let c = chunk_document("a.md", "## S\n\nTwo.");
        assert_eq!(a[0].content_hash(), b[0].content_hash());
        assert_ne!(a[0].content_hash(), c[0].content_hash());
    }
}
