//! A corpus's own vocabulary: the words its readers use for the words its
//! documents use ("hot desk" for "Flex Desk"). It ships beside the corpus as
//! `vocabulary.json`, is ingested with it and is versioned with it; nothing
//! corpus-specific lives in code.
//!
//! ```json
//! {"synonyms": {"hot desk": "Flex Desk", "money back": "refund"},
//!  "references": {"numbered": ["rule"], "named": ["exhibit"], "pointers": ["as provided in"]},
//!  "hosts": ["Harbor Commons"]}
//! ```
//!
//! A synonym rewrites the question, never the documents: a question that says
//! "hot desk" is looked up, gated and checked as one that says "Flex Desk".
//! Each entry widens what counts as "the same term", so a wrong entry turns an
//! honest refusal into a fabricated answer: keep it to true equivalents.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::corpus::chunk::hex;
use crate::api::error::ApiError;
use crate::text;

/// Longest vocabulary accepted, in bytes of JSON.
pub const MAX_VOCABULARY_BYTES: usize = 64 * 1024;

/// A corpus's vocabulary (empty when the corpus ships none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// A reader's word or phrase -> the corpus's word or phrase.
    #[serde(default)]
    pub synonyms: BTreeMap<String, String>,
    /// The corpus's own reference words, beside the general ones
    /// (`corpus::references`).
    #[serde(default, skip_serializing_if = "ReferenceWords::is_empty")]
    pub references: ReferenceWords,
    /// The names the corpus's own publisher and service go by ("Billwren",
    /// "Wrenfield Labs"): the party every passage speaks for, so a sentence
    /// naming it is about the asked subject, not another one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

/// Words a corpus refers to its own parts with, beyond English's general ones
/// ("Section", "Annex", "see"): a change re-stages every passage it ingests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceWords {
    /// Words before a number that is a heading's number on its own ("Rule 7"
    /// for the heading "7 Guests").
    #[serde(default)]
    pub numbered: Vec<String>,
    /// Words whose number means something only with them ("Exhibit C" for
    /// the heading "Exhibit C: Fees").
    #[serde(default)]
    pub named: Vec<String>,
    /// Phrases that introduce a heading by name ("as provided in").
    #[serde(default)]
    pub pointers: Vec<String>,
}

impl ReferenceWords {
    pub fn is_empty(&self) -> bool {
        self.numbered.is_empty() && self.named.is_empty() && self.pointers.is_empty()
    }
}

impl Vocabulary {
    /// Parses and checks a vocabulary: every phrase must have topic words.
    pub fn parse(json: &str) -> Result<Vocabulary, ApiError> {
        if json.len() > MAX_VOCABULARY_BYTES {
            return Err(ApiError::BadRequest(format!("the vocabulary is over {MAX_VOCABULARY_BYTES} bytes")));
        }
        let vocabulary: Vocabulary = serde_json::from_str(json).map_err(|e| ApiError::BadRequest(format!("vocabulary: {e}")))?;
        vocabulary.check()?;
        Ok(vocabulary)
    }

    /// Every phrase on both sides names something the tokenizer keeps; a
    /// reference word is one word, a pointer at most four.
    pub fn check(&self) -> Result<(), ApiError> {
        for (from, to) in &self.synonyms {
            if text::terms(from).is_empty() || text::terms(to).is_empty() {
                return Err(ApiError::BadRequest(format!("vocabulary synonym {from:?} -> {to:?} has no topic words")));
            }
        }
        let words = self.references.numbered.iter().chain(&self.references.named);
        if let Some(bad) = words.clone().find(|w| w.split_whitespace().count() != 1) {
            return Err(ApiError::BadRequest(format!("vocabulary reference word {bad:?} is not one word")));
        }
        if let Some(bad) = self.references.pointers.iter().find(|p| !(1..=4).contains(&p.split_whitespace().count())) {
            return Err(ApiError::BadRequest(format!("vocabulary pointer {bad:?} is not one to four words")));
        }
        if let Some(bad) = self.hosts.iter().find(|h| text::terms(h).is_empty()) {
            return Err(ApiError::BadRequest(format!("vocabulary host {bad:?} has no topic words")));
        }
        Ok(())
    }

    /// Canonical JSON (sorted keys): what is stored and hashed.
    pub fn canonical(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// SHA-256 of the canonical JSON, in hex; "none" for an empty vocabulary.
    pub fn hash(&self) -> String {
        if self.synonyms.is_empty() && self.references.is_empty() && self.hosts.is_empty() {
            return "none".into();
        }
        hex(&Sha256::digest(self.canonical().as_bytes())[..8])
    }

    /// The distinct topic terms of a question, with the words it wrote, after
    /// its synonyms are rewritten into the corpus's own terms.
    pub fn question_terms(&self, question: &str) -> Vec<(String, String)> {
        let mut keyed = text::keyed_terms_with_repeats(question);
        for (from, to) in &self.synonyms {
            let from_terms = text::terms(from);
            let to_keyed = text::keyed_terms_with_repeats(to);
            while let Some(at) = keyed.windows(from_terms.len()).position(|w| w.iter().map(|(t, _)| t).eq(from_terms.iter())) {
                let said = keyed[at..at + from_terms.len()].iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join(" ");
                let replacement: Vec<(String, String)> = to_keyed.iter().map(|(t, _)| (t.clone(), said.clone())).collect();
                keyed.splice(at..at + from_terms.len(), replacement);
            }
        }
        text::distinct(keyed)
    }

    /// The question with each synonym written as the corpus writes it ("how
    /// much is a hot desk?" is "how much is a Flex Desk?"), so what reads its
    /// words (names, phrases) reads the corpus's.
    pub fn rewrite(&self, question: &str) -> String {
        let mut out = question.to_string();
        for (from, to) in &self.synonyms {
            let from_terms = text::terms(from);
            // Bounded: each pass replaces one occurrence, and a question holds few.
            for _ in 0..8 {
                let spans = term_spans(&out);
                let Some(at) = spans.windows(from_terms.len()).position(|w| w.iter().map(|(t, _)| t).eq(from_terms.iter())) else { break };
                let (start, end) = (spans[at].1.start, spans[at + from_terms.len() - 1].1.end);
                out.replace_range(start..end, to);
            }
        }
        out
    }
}

/// The topic terms of a text with the byte range of the word each came from
/// (a hyphenated word's parts each their own).
fn term_spans(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let part = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        match (part, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                if let Some(term) = text::terms(&text[from..at]).into_iter().next() {
                    spans.push((term, from..at));
                }
                start = None;
            }
            _ => {}
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary(json: &str) -> Vocabulary {
        Vocabulary::parse(json).unwrap()
    }

    #[test]
    fn synonyms_rewrite_the_question_into_the_corpus_terms() {
        let v = vocabulary(r#"{"synonyms": {"hot desk": "Flex Desk", "money back": "refund"}}"#);
        let terms: Vec<String> = v.question_terms("How much is a hot desk?").into_iter().map(|(t, _)| t).collect();
        assert_eq!(terms, text::distinct_terms("How much is a Flex Desk?"));
        let keyed = v.question_terms("Can I get my money back?");
        assert!(keyed.contains(&("refund".to_string(), "money back".to_string())), "{keyed:?}");
        assert_eq!(Vocabulary::default().question_terms("hot desk"), text::keyed_terms("hot desk"));
    }

    #[test]
    fn synonyms_rewrite_the_question_text() {
        let v = vocabulary(r#"{"synonyms": {"hot desk": "Flex Desk", "money back": "refund"}}"#);
        assert_eq!(v.rewrite("How much is a hot-desk, or two hot desks?"), "How much is a Flex Desk, or two Flex Desk?");
        assert_eq!(v.rewrite("Can I get my money back?"), "Can I get my refund?");
        assert_eq!(v.rewrite("Is the desk hot?"), "Is the desk hot?");
    }

    #[test]
    fn the_hash_follows_the_content() {
        let a = vocabulary(r#"{"synonyms": {"hot desk": "flex desk"}}"#);
        assert_eq!(a.hash(), vocabulary(r#"{"synonyms": {"hot desk": "flex desk"}}"#).hash());
        assert_ne!(a.hash(), vocabulary(r#"{"synonyms": {"hot desk": "dedicated desk"}}"#).hash());
        assert_eq!(Vocabulary::default().hash(), "none");
        let words = vocabulary(r#"{"references": {"numbered": ["rule"]}}"#);
        assert_ne!(words.hash(), "none", "reference words version the corpus");
        assert_ne!(vocabulary(r#"{"hosts": ["Billwren"]}"#).hash(), "none", "hosts version the corpus");
        assert_eq!(a.canonical(), r#"{"synonyms":{"hot desk":"flex desk"}}"#, "no reference words, canonical JSON as before");
    }

    #[test]
    fn bad_vocabularies_are_refused() {
        assert!(Vocabulary::parse(r#"{"synonyms": {"the": "cost"}}"#).is_err(), "no topic words");
        assert!(Vocabulary::parse(r#"{"words": {}}"#).is_err(), "unknown field");
        assert!(Vocabulary::parse("not json").is_err());
        assert!(Vocabulary::parse(r#"{"references": {"numbered": ["two words"]}}"#).is_err());
        assert!(Vocabulary::parse(r#"{"references": {"pointers": [""]}}"#).is_err());
        assert!(Vocabulary::parse(r#"{"references": {"rules": []}}"#).is_err(), "unknown field");
        assert!(Vocabulary::parse(r#"{"hosts": ["the"]}"#).is_err(), "a host with no topic words");
    }
}
