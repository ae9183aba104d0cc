//! Re-ingest as a diff: which passages to add, update, keep and remove, and the
//! corpus version that results. The version comes from an order-independent
//! [`Digest`], so a paged ingest can add up its pages' changes and commit the
//! version of any number of passages without reading them back.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use crate::corpus::chunk::{self, Passage};
use crate::api::response::Origin;
use crate::corpus::vocabulary::Vocabulary;

/// One Markdown document.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub name: String,
    pub text: String,
}


/// A passage as stored: its id, document, content hash and origin.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct StoredPassage {
    pub id: String,
    pub doc: String,
    pub hash: String,
    #[serde(default)]
    pub origin: Origin,
}

/// What re-ingesting changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IngestPlan {
    pub added: Vec<Passage>,
    pub updated: Vec<Passage>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
    /// The vocabulary once the plan is applied.
    pub vocabulary: Vocabulary,
    /// The version of `stored` once the plan is applied.
    pub version: String,
    /// What the plan changes in the digest of the passages it was diffed against.
    pub delta: Digest,
}

impl IngestPlan {
    /// Writes the unchanged passages of `incoming` again, as updates: their
    /// references and anchors are derived anew (the corpus's reference words
    /// changed) while the digest, which their hashes make, stays as it is.
    pub fn restage(&mut self, incoming: &[Passage]) {
        let unchanged = std::mem::take(&mut self.unchanged);
        self.updated.extend(incoming.iter().filter(|p| unchanged.contains(&p.id)).cloned());
    }
}

/// Diffs `incoming` against `stored`. Stored passages of the documents in `scope`
/// that are not incoming are removed; with `complete`, every stored passage that is
/// not incoming is, except an operator's approved answers, which only an
/// operator retires. `vocabulary` is the corpus's vocabulary after the ingest.
pub fn plan(stored: &[StoredPassage], incoming: Vec<Passage>, scope: &BTreeSet<String>, complete: bool, vocabulary: &Vocabulary) -> IngestPlan {
    let stored_hashes: BTreeMap<&str, &str> = stored.iter().map(|s| (s.id.as_str(), s.hash.as_str())).collect();
    let incoming_ids: BTreeSet<String> = incoming.iter().map(|p| p.id.clone()).collect();
    let mut result = IngestPlan::default();
    let mut after = Digest::default();

    for passage in incoming {
        let hash = passage.content_hash();
        match stored_hashes.get(passage.id.as_str()) {
            None => {
                result.delta.add(&passage.id, &hash);
                result.added.push(passage.clone());
            }
            Some(old) if *old == hash => result.unchanged.push(passage.id.clone()),
            Some(old) => {
                result.delta.remove(&passage.id, old);
                result.delta.add(&passage.id, &hash);
                result.updated.push(passage.clone());
            }
        }
        after.add(&passage.id, &hash);
    }
    for old in stored {
        if incoming_ids.contains(&old.id) {
            continue;
        }
        if old.origin != Origin::Operator && (complete || scope.contains(&old.doc)) {
            result.delta.remove(&old.id, &old.hash);
            result.removed.push(old.id.clone());
        } else {
            after.add(&old.id, &old.hash);
        }
    }
    result.version = after.version(vocabulary);
    result.vocabulary = vocabulary.clone();
    result
}

/// The corpus version of every (id, content hash) in `hashes`.
pub fn corpus_version(hashes: &BTreeMap<String, String>, vocabulary: &Vocabulary) -> String {
    let mut digest = Digest::default();
    for (id, hash) in hashes {
        digest.add(id, hash);
    }
    digest.version(vocabulary)
}

/// An order-independent digest of a set of passages: how many, and the sum
/// (mod 2^128) of a 128-bit SHA-256 prefix of each one's id and content hash.
/// Adding or removing a passage is O(1) and the order never matters, so the
/// pages of an ingest add up to the digest a one-shot ingest computes. It
/// names versions; it is not a defence against someone crafting collisions.
/// A delta may hold a "negative" count: the arithmetic wraps, as the sum's does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digest {
    count: u64,
    sum: u128,
}

impl Digest {
    fn element(id: &str, hash: &str) -> u128 {
        let bytes = Sha256::digest(format!("{id} {hash}\n").as_bytes());
        let mut prefix = [0u8; 16];
        prefix.copy_from_slice(&bytes[..16]);
        u128::from_be_bytes(prefix)
    }

    pub fn add(&mut self, id: &str, hash: &str) {
        self.count = self.count.wrapping_add(1);
        self.sum = self.sum.wrapping_add(Self::element(id, hash));
    }

    pub fn remove(&mut self, id: &str, hash: &str) {
        self.count = self.count.wrapping_sub(1);
        self.sum = self.sum.wrapping_sub(Self::element(id, hash));
    }

    /// This digest with `delta` applied.
    pub fn plus(self, delta: Digest) -> Digest {
        Digest { count: self.count.wrapping_add(delta.count), sum: self.sum.wrapping_add(delta.sum) }
    }

    /// How many passages (of a digest, not a delta).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The corpus version: changes exactly when some passage's content, the
    /// rules that index it, or the corpus's synonyms do; `empty` with no passages.
    pub fn version(&self, vocabulary: &Vocabulary) -> String {
        if self.count == 0 {
            return "empty".to_string();
        }
        let mut hasher = Sha256::new();
        hasher.update(format!("vocabulary {}\npassages {} {:032x}\n", vocabulary.hash(), self.count, self.sum).as_bytes());
        chunk::hex(&hasher.finalize()[..8])
    }

    /// As stored: 16 hex digits of count, 32 of sum.
    pub fn encode(&self) -> String {
        format!("{:016x}{:032x}", self.count, self.sum)
    }

    pub fn decode(text: &str) -> Option<Digest> {
        if text.len() != 48 || !text.is_ascii() {
            return None;
        }
        Some(Digest { count: u64::from_str_radix(&text[..16], 16).ok()?, sum: u128::from_str_radix(&text[16..], 16).ok()? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(passages: &[Passage]) -> Vec<StoredPassage> {
        passages
            .iter()
            .map(|p| StoredPassage { id: p.id.clone(), doc: p.doc.clone(), hash: p.content_hash(), origin: Origin::Corpus })
            .collect()
    }

    fn scope(stems: &[&str]) -> BTreeSet<String> {
        stems.iter().map(|s| s.to_string()).collect()
    }

    const PRICING: &str = "## A\n\nOne.\n\n## B\n\nTwo.\n\n## C\n\nThree.";

    /// A second ingest of the same text changes nothing, version included.
    #[test]
    fn reingest_is_idempotent() {
        let first = plan(&[], chunk::chunk_document("pricing.md", PRICING), &scope(&["pricing"]), true, &Vocabulary::default());
        assert_eq!(first.added.len(), 3);
        let again = plan(&stored(&first.added), chunk::chunk_document("pricing.md", PRICING), &scope(&["pricing"]), true, &Vocabulary::default());
        assert_eq!((again.added.len(), again.updated.len(), again.unchanged.len(), again.removed.len()), (0, 0, 3, 0));
        assert_eq!(again.version, first.version);
    }

    /// Editing one section updates exactly that passage; dropping one removes it.
    #[test]
    fn edits_touch_exactly_their_passages() {
        let before = chunk::chunk_document("pricing.md", PRICING);
        let edited = chunk::chunk_document("pricing.md", "## A\n\nOne.\n\n## B\n\nTwo, changed.");
        let result = plan(&stored(&before), edited, &scope(&["pricing"]), false, &Vocabulary::default());
        assert_eq!(result.updated.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["pricing-02"]);
        assert_eq!(result.unchanged, ["pricing-01"]);
        assert_eq!(result.removed, ["pricing-03"]);
        let base = plan(&[], before, &scope(&["pricing"]), true, &Vocabulary::default());
        assert_ne!(result.version, base.version);
    }

    /// Without `complete`, documents not sent are left alone.
    #[test]
    fn partial_ingest_keeps_other_documents() {
        let mut all = chunk::chunk_document("pricing.md", PRICING);
        all.extend(chunk::chunk_document("hours.md", "## Open\n\nNine to five."));
        let sent = chunk::chunk_document("hours.md", "## Open\n\nNine to five.");
        let partial = plan(&stored(&all), sent.clone(), &scope(&["hours"]), false, &Vocabulary::default());
        assert!(partial.removed.is_empty());
        assert_eq!(partial.version, plan(&[], all, &scope(&["pricing", "hours"]), true, &Vocabulary::default()).version);
        let complete = plan(&stored(&chunk::chunk_document("pricing.md", PRICING)), sent, &scope(&["hours"]), true, &Vocabulary::default());
        assert_eq!(complete.removed, ["pricing-01", "pricing-02", "pricing-03"]);
    }

    /// A new vocabulary is a new corpus version; the passages are untouched.
    #[test]
    fn the_vocabulary_is_versioned_with_the_corpus() {
        let passages = chunk::chunk_document("pricing.md", PRICING);
        let plain = plan(&[], passages.clone(), &scope(&["pricing"]), true, &Vocabulary::default());
        let synonyms = Vocabulary::parse(r#"{"synonyms": {"hot desk": "flex desk"}}"#).unwrap();
        let with = plan(&stored(&plain.added), passages, &scope(&["pricing"]), true, &synonyms);
        assert_ne!(plain.version, with.version);
        assert_eq!(with.unchanged.len(), 3);
        assert_eq!(with.vocabulary, synonyms);
    }

    /// Pages in any order, each diffed against only its own documents, add
    /// up to the version of the whole corpus ingested at once; so do edits.
    #[test]
    fn paged_deltas_add_up_to_the_one_shot_version() {
        let docs = [("a.md", PRICING), ("b.md", "## Open\n\nNine to five."), ("c.md", "## X\n\nOne.\n\n## Y\n\nTwo.")];
        let all: Vec<Passage> = docs.iter().flat_map(|(n, t)| chunk::chunk_document(n, t)).collect();
        let whole = plan(&[], all.clone(), &scope(&["a", "b", "c"]), true, &Vocabulary::default());
        let mut paged = Digest::default();
        for (name, text) in docs.iter().rev() {
            let page = plan(&[], chunk::chunk_document(name, text), &scope(&[&chunk::doc_stem(name)]), false, &Vocabulary::default());
            paged = paged.plus(page.delta);
        }
        assert_eq!(paged.version(&Vocabulary::default()), whole.version);
        assert_eq!(paged.count(), all.len() as u64);
        // Edit b and drop c, each as a page of its own, against what is stored.
        let stored_all = stored(&all);
        let of = |doc: &str| stored_all.iter().filter(|s| s.doc == doc).cloned().collect::<Vec<_>>();
        let edit = plan(&of("b"), chunk::chunk_document("b.md", "## Open\n\nTen to six."), &scope(&["b"]), false, &Vocabulary::default());
        let drop = plan(&of("c"), Vec::new(), &scope(&["c"]), false, &Vocabulary::default());
        let after = paged.plus(edit.delta).plus(drop.delta);
        let mut expected = chunk::chunk_document("a.md", PRICING);
        expected.extend(chunk::chunk_document("b.md", "## Open\n\nTen to six."));
        assert_eq!(after.version(&Vocabulary::default()), plan(&[], expected, &scope(&[]), true, &Vocabulary::default()).version);
        assert_eq!(Digest::decode(&after.encode()), Some(after));
        assert_eq!(Digest::decode("zz"), None);
    }

    #[test]
    fn empty_corpus_has_a_fixed_version() {
        assert_eq!(corpus_version(&BTreeMap::new(), &Vocabulary::default()), "empty");
    }
}
