//! Re-ingest as a diff: which passages to add, update, keep and remove, and the
//! corpus version that results. The glue applies the plan in one D1 batch.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::corpus::chunk::{self, Passage};
use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::corpus::vocabulary::Vocabulary;

/// The admin ingest body: `{"documents": [{"name": "pricing.md", "text": "…"}],
/// "vocabulary": {"synonyms": {…}}, "complete": true}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    pub documents: Vec<Document>,
    /// The documents are the whole corpus: passages of documents not sent are
    /// removed, and a vocabulary not sent is cleared.
    #[serde(default)]
    pub complete: bool,
    /// The corpus's vocabulary; when absent, a partial ingest keeps the stored one.
    #[serde(default)]
    pub vocabulary: Option<Vocabulary>,
}

/// One Markdown document.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub name: String,
    pub text: String,
}

impl IngestRequest {
    /// Parses and checks the body: names must give distinct, non-empty stems.
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        let request: IngestRequest = serde_json::from_slice(body)
            .map_err(|e| ApiError::BadRequest(format!("ingest body: {e}")))?;
        let mut stems = BTreeSet::new();
        for doc in &request.documents {
            let stem = chunk::doc_stem(&doc.name);
            if stem.is_empty() {
                return Err(ApiError::BadRequest(format!("document name {:?} has no usable stem", doc.name)));
            }
            if !stems.insert(stem.clone()) {
                return Err(ApiError::BadRequest(format!("two documents share the stem {stem:?}")));
            }
        }
        if let Some(vocabulary) = &request.vocabulary {
            vocabulary.check()?;
        }
        Ok(request)
    }

    /// The vocabulary once this ingest is applied over `stored`.
    pub fn vocabulary_after(&self, stored: &Vocabulary) -> Vocabulary {
        match (&self.vocabulary, self.complete) {
            (Some(sent), _) => sent.clone(),
            (None, true) => Vocabulary::default(),
            (None, false) => stored.clone(),
        }
    }

    /// All passages of all documents, in document order.
    pub fn passages(&self) -> Vec<Passage> {
        self.documents.iter().flat_map(|d| chunk::chunk_document(&d.name, &d.text)).collect()
    }

    /// The stems of the documents sent.
    pub fn stems(&self) -> BTreeSet<String> {
        self.documents.iter().map(|d| chunk::doc_stem(&d.name)).collect()
    }
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
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IngestPlan {
    pub added: Vec<Passage>,
    pub updated: Vec<Passage>,
    pub unchanged: Vec<String>,
    pub removed: Vec<String>,
    /// The vocabulary once the plan is applied.
    pub vocabulary: Vocabulary,
    /// The corpus version once the plan is applied.
    pub version: String,
}

/// Diffs `incoming` against `stored`. Stored passages of the documents in `scope`
/// that are not incoming are removed; with `complete`, every stored passage that is
/// not incoming is, except an operator's approved answers, which only an
/// operator retires. `vocabulary` is the corpus's vocabulary after the ingest.
pub fn plan(stored: &[StoredPassage], incoming: Vec<Passage>, scope: &BTreeSet<String>, complete: bool, vocabulary: &Vocabulary) -> IngestPlan {
    let stored_hashes: BTreeMap<&str, &str> = stored.iter().map(|s| (s.id.as_str(), s.hash.as_str())).collect();
    let incoming_ids: BTreeSet<String> = incoming.iter().map(|p| p.id.clone()).collect();
    let mut result = IngestPlan::default();
    let mut final_hashes: BTreeMap<String, String> = BTreeMap::new();

    for passage in incoming {
        let hash = passage.content_hash();
        match stored_hashes.get(passage.id.as_str()) {
            None => result.added.push(passage.clone()),
            Some(old) if *old == hash => result.unchanged.push(passage.id.clone()),
            Some(_) => result.updated.push(passage.clone()),
        }
        final_hashes.insert(passage.id, hash);
    }
    for old in stored {
        if incoming_ids.contains(&old.id) {
            continue;
        }
        if old.origin != Origin::Operator && (complete || scope.contains(&old.doc)) {
            result.removed.push(old.id.clone());
        } else {
            final_hashes.insert(old.id.clone(), old.hash.clone());
        }
    }
    result.version = corpus_version(&final_hashes, vocabulary);
    result.vocabulary = vocabulary.clone();
    result
}

/// The corpus version: a hash over every (id, content hash) and the
/// vocabulary's hash, so it changes exactly when some passage's content, the
/// rules that index it, or the corpus's synonyms do.
pub fn corpus_version(hashes: &BTreeMap<String, String>, vocabulary: &Vocabulary) -> String {
    if hashes.is_empty() {
        return "empty".to_string();
    }
    let mut hasher = Sha256::new();
    hasher.update(format!("vocabulary {}\n", vocabulary.hash()).as_bytes());
    for (id, hash) in hashes {
        hasher.update(format!("{id} {hash}\n").as_bytes());
    }
    chunk::hex(&hasher.finalize()[..8])
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

    #[test]
    fn duplicate_stems_and_bad_bodies_are_rejected() {
        let dup = br#"{"documents":[{"name":"a.md","text":""},{"name":"A.md","text":""}]}"#;
        assert!(matches!(IngestRequest::parse(dup), Err(ApiError::BadRequest(_))));
        assert!(matches!(IngestRequest::parse(b"[]"), Err(ApiError::BadRequest(_))));
        assert!(matches!(IngestRequest::parse(br#"{"documents":[{"name":"..md","text":""}]}"#), Err(ApiError::BadRequest(_))));
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

    #[test]
    fn empty_corpus_has_a_fixed_version() {
        assert_eq!(corpus_version(&BTreeMap::new(), &Vocabulary::default()), "empty");
    }
}
