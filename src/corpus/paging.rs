//! A paged ingest of the shared corpus: begin, any number of pages (each
//! staged, resumable, idempotent), one commit. What a page may hold is sized
//! to the platform's limits on both plans, so what runs locally (where SQLite
//! enforces none of them) also runs on Cloudflare:
//!
//! - a page's body is at most [`MAX_PAGE_BODY`]; `scripts/ingest` sends about
//!   256 KB of Markdown per page;
//! - its staged rows travel as JSON arrays of at most [`STATEMENT_BYTES`], one
//!   D1 statement each (D1: 100 KB per statement, 100 bound parameters: each
//!   statement binds four);
//! - a page writes at most [`MAX_PAGE_STATEMENTS`] statements, and reads three,
//!   so with the spend ledger's line it stays far inside the Free plan's 50
//!   queries per invocation;
//! - embeddings go 100 texts per Workers AI call, vectors 1,000 per Vectorize
//!   upsert or delete: a page's few calls are inside the Free plan's 50
//!   subrequests.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::corpus::chunk::{self, Passage};
use crate::corpus::ingest::{Document, IngestPlan};
use crate::corpus::references::{self, Patterns};
use crate::corpus::vocabulary::Vocabulary;

/// The one-shot admin ingest body: `{"documents": [{"name": "pricing.md",
/// "text": "…"}], "vocabulary": {"synonyms": {…}}, "complete": true}`, run
/// as a paged ingest of one page.
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

impl IngestRequest {
    /// Parses and checks the body as a begin and its one page (whose
    /// removals the begin decides): names must give distinct, non-empty stems.
    pub fn parse(body: &[u8], ingest: String) -> Result<(BeginRequest, PageRequest), ApiError> {
        let request: IngestRequest = serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("ingest body: {e}")))?;
        let page = PageRequest { documents: request.documents, remove: Vec::new() };
        page.check()?;
        let documents = page.documents.iter().map(|d| d.name.clone()).collect();
        let begin = BeginRequest { ingest, complete: request.complete, vocabulary: request.vocabulary, documents };
        if let Some(vocabulary) = &begin.vocabulary {
            vocabulary.check()?;
        }
        Ok((begin, page))
    }
}

/// Largest page body.
pub const MAX_PAGE_BODY: usize = 4 * 1024 * 1024;
/// Largest JSON argument of one staging statement.
pub const STATEMENT_BYTES: usize = 90 * 1024;
/// Most staging statements one page may write.
pub const MAX_PAGE_STATEMENTS: usize = 40;
/// Vectorize takes at most this many vectors (or ids) per call from a Worker.
pub const VECTOR_BATCH: usize = 1000;

/// `POST /admin/ingest/begin`: `{"ingest": "<id>", "complete": true,
/// "vocabulary": {…}}`. The id is the client's (`scripts/ingest` hashes what
/// it sends), so running the same ingest again finds the pages that landed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeginRequest {
    pub ingest: String,
    /// The pages will hold the whole corpus: a vocabulary not sent is cleared.
    #[serde(default)]
    pub complete: bool,
    /// The corpus's vocabulary; when absent, a partial ingest keeps the stored one.
    #[serde(default)]
    pub vocabulary: Option<Vocabulary>,
    /// The names of the documents the pages will hold: with `complete`, the
    /// stored documents not among them are the ones to remove.
    #[serde(default)]
    pub documents: Vec<String>,
}

impl BeginRequest {
    /// The stored documents (stems) this ingest removes: with `complete`,
    /// every one it does not send; otherwise none.
    pub fn to_remove(&self, stored: &BTreeSet<String>) -> Vec<String> {
        if !self.complete {
            return Vec::new();
        }
        let sent: BTreeSet<String> = self.documents.iter().map(|name| chunk::doc_stem(name)).collect();
        stored.difference(&sent).cloned().collect()
    }

    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        let request: BeginRequest = serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("begin body: {e}")))?;
        check_id(&request.ingest)?;
        if let Some(vocabulary) = &request.vocabulary {
            vocabulary.check()?;
        }
        Ok(request)
    }

    /// The vocabulary once this ingest is committed over `stored`.
    pub fn vocabulary_after(&self, stored: &Vocabulary) -> Vocabulary {
        match (&self.vocabulary, self.complete) {
            (Some(sent), _) => sent.clone(),
            (None, true) => Vocabulary::default(),
            (None, false) => stored.clone(),
        }
    }
}

/// An ingest id: 16 to 64 lowercase hex digits.
pub fn check_id(id: &str) -> Result<(), ApiError> {
    let ok = (16..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if ok {
        Ok(())
    } else {
        Err(ApiError::BadRequest("an ingest id is 16 to 64 lowercase hex digits".into()))
    }
}

/// `POST /admin/ingest/{id}/pages/{n}`: documents to write, and the stems of
/// documents to remove. A document belongs to one page of an ingest.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageRequest {
    #[serde(default)]
    pub documents: Vec<Document>,
    #[serde(default)]
    pub remove: Vec<String>,
}

impl PageRequest {
    /// Parses and checks: distinct, non-empty stems across both lists.
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        let request: PageRequest = serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("page body: {e}")))?;
        request.check()?;
        Ok(request)
    }

    pub fn check(&self) -> Result<(), ApiError> {
        let mut stems = BTreeSet::new();
        let mut claim = |stem: String, name: &str| {
            if stem.is_empty() {
                return Err(ApiError::BadRequest(format!("document name {name:?} has no usable stem")));
            }
            if !stems.insert(stem.clone()) {
                return Err(ApiError::BadRequest(format!("two documents share the stem {stem:?}")));
            }
            Ok(())
        };
        for doc in &self.documents {
            claim(chunk::doc_stem(&doc.name), &doc.name)?;
        }
        for stem in &self.remove {
            let canonical = if chunk::doc_stem(stem) == *stem { stem.clone() } else { String::new() };
            claim(canonical, stem)?;
        }
        Ok(())
    }

    /// Every stem the page touches: what it writes, what it removes.
    pub fn stems(&self) -> BTreeSet<String> {
        self.documents.iter().map(|d| chunk::doc_stem(&d.name)).chain(self.remove.iter().cloned()).collect()
    }

    /// All passages of the page's documents, in document order.
    pub fn passages(&self) -> Vec<Passage> {
        self.documents.iter().flat_map(|d| chunk::chunk_document(&d.name, &d.text)).collect()
    }
}

/// One staged row: a passage to write, or (only `id`) one to remove.
#[derive(Serialize)]
struct StagedRow<'a> {
    id: &'a str,
    #[serde(flatten)]
    passage: Option<Written<'a>>,
}

#[derive(Serialize)]
struct Written<'a> {
    doc: &'a str,
    section: &'a str,
    text: &'a str,
    hash: String,
    origin: &'a str,
    /// The index terms of its text and of its heading, computed once here,
    /// so the commit is plain SQL.
    terms: String,
    heading: String,
    /// What its text refers to, and what it answers to.
    refs: Vec<String>,
    anchors: Vec<String>,
}

/// A plan's changes as JSON arrays of staged rows, each at most
/// [`STATEMENT_BYTES`]: a page's of the shared corpus, or (`workspace`) an
/// upload's, whose reference keys are its workspace's own.
pub fn staged_rows(plan: &IngestPlan, origin: Origin, patterns: &Patterns, workspace: Option<&str>) -> Result<Vec<String>, ApiError> {
    let written = plan.added.iter().chain(&plan.updated).map(|p| StagedRow {
        id: &p.id,
        passage: Some(Written {
            doc: &p.doc,
            section: &p.section,
            text: &p.text,
            hash: p.content_hash(),
            origin: origin.as_str(),
            terms: p.body_terms(),
            heading: p.heading_terms(),
            refs: references::scoped(references::references(p, patterns), workspace),
            anchors: references::scoped(references::anchors(p, patterns), workspace),
        }),
    });
    let removed = plan.removed.iter().map(|id| StagedRow { id, passage: None });
    // A row is a few KB at most (a passage is bounded by the chunker).
    let rows = written.chain(removed).map(|row| serde_json::to_string(&row)).collect::<Result<Vec<_>, _>>();
    Ok(pack(rows.map_err(|e| ApiError::BadRequest(format!("staged row: {e}")))?, ('[', ']')))
}

/// The stored passages a plan replaces or removes, as JSON arrays of
/// `{"id", "hash"}` (no hash: removed), at most [`STATEMENT_BYTES`] each:
/// what a workspace write deletes first, once for the plan, rather than once
/// for each array of its rows.
pub fn touched_rows(plan: &IngestPlan) -> Vec<String> {
    let updated = plan.updated.iter().map(|p| serde_json::json!({ "id": p.id, "hash": p.content_hash() }).to_string());
    let removed = plan.removed.iter().map(|id| serde_json::json!({ "id": id }).to_string());
    pack(updated.chain(removed).collect(), ('[', ']'))
}

/// JSON entries packed into containers (`[…]` or `{…}`) of at most
/// [`STATEMENT_BYTES`] each.
fn pack(entries: Vec<String>, (open, close): (char, char)) -> Vec<String> {
    let mut chunks: Vec<String> = Vec::new();
    let mut current = String::new();
    for entry in entries {
        if !current.is_empty() && current.len() + entry.len() + 2 > STATEMENT_BYTES {
            current.push(close);
            chunks.push(std::mem::take(&mut current));
        }
        current.push(if current.is_empty() { open } else { ',' });
        current.push_str(&entry);
    }
    if !current.is_empty() {
        current.push(close);
        chunks.push(current);
    }
    chunks
}

/// A stored passage's heading and text: what its index terms were.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredText {
    pub id: String,
    pub section: String,
    pub text: String,
}

/// How many passages gain (or lose) each index term once the plan is
/// applied: +1 per distinct term of a written passage, -1 per distinct term
/// of the stored passage it replaces or of one removed. `old` holds the
/// stored passages of the plan's documents.
pub fn term_deltas(plan: &IngestPlan, old: &[StoredText]) -> BTreeMap<String, i64> {
    let mut deltas: BTreeMap<String, i64> = BTreeMap::new();
    let mut count = |terms: Vec<String>, by: i64| {
        let distinct: BTreeSet<String> = terms.into_iter().collect();
        for term in distinct {
            *deltas.entry(term).or_default() += by;
        }
    };
    for p in plan.added.iter().chain(&plan.updated) {
        count(chunk::index_terms(&p.section, &p.text), 1);
    }
    let replaced: BTreeSet<&str> = plan.updated.iter().map(|p| p.id.as_str()).chain(plan.removed.iter().map(String::as_str)).collect();
    for stored in old.iter().filter(|s| replaced.contains(s.id.as_str())) {
        count(chunk::index_terms(&stored.section, &stored.text), -1);
    }
    deltas.retain(|_, n| *n != 0);
    deltas
}

/// Term deltas as JSON objects of at most [`STATEMENT_BYTES`], one staging
/// statement each.
pub fn staged_terms(deltas: &BTreeMap<String, i64>) -> Vec<String> {
    // Terms are the tokenizer's letters and digits; serde quotes them anyway.
    pack(deltas.iter().map(|(term, delta)| format!("{}:{delta}", serde_json::Value::from(term.as_str()))).collect(), ('{', '}'))
}

/// Every statement a page stages: its rows, then its term deltas; more than
/// [`MAX_PAGE_STATEMENTS`] is a page too large (send smaller pages).
pub fn check_statements(rows: &[String], terms: &[String]) -> Result<(), ApiError> {
    let statements = rows.len() + terms.len();
    if statements > MAX_PAGE_STATEMENTS {
        return Err(ApiError::PageTooLarge { statements, limit: MAX_PAGE_STATEMENTS });
    }
    Ok(())
}

/// What one page changed, as `scripts/ingest` sums it up.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageReport {
    pub page: u32,
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: usize,
    pub removed: Vec<String>,
    /// What embedding the page's changed passages cost (Workers AI engine).
    pub embedding_neurons: f64,
}

impl PageReport {
    pub fn new(page: u32, plan: &IngestPlan, embedding_neurons: f64) -> Self {
        let ids = |ps: &[Passage]| ps.iter().map(|p| p.id.clone()).collect();
        PageReport {
            page,
            added: ids(&plan.added),
            updated: ids(&plan.updated),
            unchanged: plan.unchanged.len(),
            removed: plan.removed.clone(),
            embedding_neurons,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn duplicate_stems_and_bad_bodies_are_rejected() {
        let parse = |body: &[u8]| IngestRequest::parse(body, "0".repeat(16));
        let dup = br#"{"documents":[{"name":"a.md","text":""},{"name":"A.md","text":""}]}"#;
        assert!(matches!(parse(dup), Err(ApiError::BadRequest(_))));
        assert!(matches!(parse(b"[]"), Err(ApiError::BadRequest(_))));
        assert!(matches!(parse(br#"{"documents":[{"name":"..md","text":""}]}"#), Err(ApiError::BadRequest(_))));
    }

    use super::*;
    use crate::corpus::ingest::{plan, StoredPassage};

    fn page(json: &str) -> Result<PageRequest, ApiError> {
        PageRequest::parse(json.as_bytes())
    }

    #[test]
    fn ids_are_bounded_lowercase_hex() {
        assert!(check_id("0123456789abcdef").is_ok());
        for bad in ["", "0123456789abcde", "0123456789ABCDEF", "0123456789abcdeg", &"a".repeat(65), "../../etc/passwd0000"] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_complete_ingest_removes_the_stored_documents_it_does_not_send() {
        let stored = BTreeSet::from(["a".to_string(), "b".to_string(), "late-fees".to_string()]);
        let begin = |complete| BeginRequest { ingest: "0".repeat(16), complete, vocabulary: None, documents: vec!["Late Fees.md".into(), "c.md".into()] };
        assert_eq!(begin(true).to_remove(&stored), ["a", "b"]);
        assert!(begin(false).to_remove(&stored).is_empty());
    }

    #[test]
    fn a_page_names_each_document_once() {
        assert!(page(r#"{"documents":[{"name":"a.md","text":"x"}],"remove":["b"]}"#).is_ok());
        assert!(page(r#"{"documents":[{"name":"a.md","text":"x"}],"remove":["a"]}"#).is_err());
        assert!(page(r#"{"remove":["b","b"]}"#).is_err());
        assert!(page(r#"{"remove":["Not A Stem"]}"#).is_err());
        assert!(page(r#"{"documents":[],"extra":1}"#).is_err());
        assert_eq!(page(r#"{"documents":[{"name":"A b.md","text":"x"}],"remove":["c"]}"#).unwrap().stems(), BTreeSet::from(["a-b".to_string(), "c".to_string()]));
    }

    /// Rows split at the statement size; every row lands in exactly one chunk;
    /// removals carry only their id.
    #[test]
    fn staged_rows_are_split_by_size() {
        let text: String = (0..400).map(|i| format!("## Part {i}\n\nSentence number {i} of a long document.\n\n")).collect();
        let passages = chunk::chunk_document("long.md", &text);
        let stored = vec![StoredPassage { id: "gone-01".into(), doc: "gone".into(), hash: "h".into(), origin: Origin::Corpus }];
        let scope = BTreeSet::from(["long".to_string(), "gone".to_string()]);
        let plan = plan(&stored, passages.clone(), &scope, false, &Vocabulary::default());
        let chunks = staged_rows(&plan, Origin::Corpus, &Patterns::default(), None).unwrap();
        assert!(chunks.iter().all(|c| c.len() <= STATEMENT_BYTES));
        let rows: Vec<serde_json::Value> = chunks.iter().flat_map(|c| serde_json::from_str::<Vec<serde_json::Value>>(c).unwrap()).collect();
        assert_eq!(rows.len(), passages.len() + 1);
        assert_eq!((&rows[0]["terms"], &rows[0]["heading"]), (&passages[0].body_terms().into(), &passages[0].heading_terms().into()));
        assert_eq!(rows.last().unwrap(), &serde_json::json!({ "id": "gone-01" }));
    }

    #[test]
    fn a_page_over_the_statement_budget_is_refused() {
        let text: String = (0..4000).map(|i| format!("## Part {i}\n\n{}\n\n", "word ".repeat(200))).collect();
        let plan = plan(&[], chunk::chunk_document("huge.md", &text), &BTreeSet::new(), false, &Vocabulary::default());
        let rows = staged_rows(&plan, Origin::Corpus, &Patterns::default(), None).unwrap();
        assert!(matches!(check_statements(&rows, &[]), Err(ApiError::PageTooLarge { .. })));
        assert!(check_statements(&rows[..MAX_PAGE_STATEMENTS], &[]).is_ok());
    }

    /// Document frequencies move by distinct terms: an edit moves only the
    /// terms it adds or drops, a removal takes its terms away.
    #[test]
    fn term_deltas_count_passages_not_occurrences() {
        let before = chunk::chunk_document("a.md", "## Ferry\n\nThe ferry ferry leaves at noon.\n\n## Bus\n\nThe bus leaves at nine.");
        let stored: Vec<StoredPassage> = before.iter().map(|p| StoredPassage { id: p.id.clone(), doc: p.doc.clone(), hash: p.content_hash(), origin: Origin::Corpus }).collect();
        let old: Vec<StoredText> = before.iter().map(|p| StoredText { id: p.id.clone(), section: p.section.clone(), text: p.text.clone() }).collect();
        let first = term_deltas(&plan(&[], before.clone(), &BTreeSet::new(), false, &Vocabulary::default()), &[]);
        assert_eq!((first["ferri"], first["leav"], first["bus"]), (1, 2, 1));
        let after = chunk::chunk_document("a.md", "## Ferry\n\nThe ferry leaves at dawn.");
        let edit = plan(&stored, after, &BTreeSet::from(["a".to_string()]), false, &Vocabulary::default());
        let deltas = term_deltas(&edit, &old);
        assert_eq!(deltas.get("dawn"), Some(&1));
        assert_eq!(deltas.get("noon"), Some(&-1));
        assert_eq!((deltas.get("bus"), deltas.get("leav"), deltas.get("ferri")), (Some(&-1), Some(&-1), None));
        let chunks = staged_terms(&deltas);
        let parsed: BTreeMap<String, i64> = serde_json::from_str(&chunks[0]).unwrap();
        assert_eq!(parsed, deltas);
    }
}
