//! Markdown documents into passages.
//!
//! `##` headings are hard boundaries; a section longer than [`MAX_PASSAGE_CHARS`]
//! is split on paragraphs (and a single over-long paragraph on sentences). A
//! passage's id is `{doc-stem}-{NN}`, NN its 1-based ordinal in the document, so
//! ids are readable and stay put while earlier sections keep their size.

use sha2::{Digest, Sha256};

use crate::text;

/// Sections longer than this are split; short enough to quote, long enough to
/// keep a policy's sentences together.
pub const MAX_PASSAGE_CHARS: usize = 1200;

/// One retrievable unit of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// `{doc-stem}-{NN}`.
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

    /// The normalized terms stored in the full-text index: heading and text.
    pub fn index_terms(&self) -> String {
        text::terms(&format!("{}\n{}", self.section, self.text)).join(" ")
    }
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The document stem of a file name: `Late Fees.md` -> `late-fees`.
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
    stem.trim_end_matches('-').to_string()
}

/// Splits one Markdown document into passages.
pub fn chunk_document(file_name: &str, markdown: &str) -> Vec<Passage> {
    let doc = doc_stem(file_name);
    let mut title = doc.clone();
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut paragraph = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix("## ") {
            flush_paragraph(&mut paragraph, &mut sections, &title);
            sections.push((heading.trim().to_string(), Vec::new()));
        } else if let Some(heading) = trimmed.strip_prefix("# ").filter(|_| sections.is_empty()) {
            flush_paragraph(&mut paragraph, &mut sections, &title);
            title = heading.trim().to_string();
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
        for text in pack(&paragraphs) {
            let id = format!("{doc}-{:02}", passages.len() + 1);
            passages.push(Passage { id, doc: doc.clone(), section: section.clone(), text });
        }
    }
    passages
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

/// Packs paragraphs into passages of at most [`MAX_PASSAGE_CHARS`].
fn pack(paragraphs: &[String]) -> Vec<String> {
    let pieces = paragraphs.iter().flat_map(|p| {
        if p.len() <= MAX_PASSAGE_CHARS {
            vec![p.clone()]
        } else {
            pack_sentences(p)
        }
    });
    let mut out: Vec<String> = Vec::new();
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.len() + 2 + piece.len() <= MAX_PASSAGE_CHARS => {
                last.push_str("\n\n");
                last.push_str(&piece);
            }
            _ => out.push(piece),
        }
    }
    out
}

fn pack_sentences(paragraph: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sentence in text::sentences(paragraph) {
        match out.last_mut() {
            Some(last) if last.len() + 1 + sentence.len() <= MAX_PASSAGE_CHARS => {
                last.push(' ');
                last.push_str(sentence);
            }
            _ => out.push(sentence.to_string()),
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
