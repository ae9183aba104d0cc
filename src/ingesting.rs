//! A paged ingest of the shared corpus, as a use case over the [`Staging`]
//! port: `begin` opens an ingest (or resumes one begun on the corpus as it
//! is), each `page` diffs its documents against what is stored, embeds what
//! changed and stages its rows, and `commit` applies every staged row with
//! the new version in one transaction, when the corpus is still the one the
//! ingest began on. The glue keeps the D1 statements and the bindings; the
//! decisions are here, tested natively. The limits are in
//! [`crate::corpus::paging`].

use std::collections::BTreeSet;

use serde::Serialize;

use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::corpus::ingest::{self, Digest, IngestPlan, StoredPassage};
use crate::corpus::paging::{self, BeginRequest, PageReport, PageRequest, StoredText};
use crate::corpus::references::Patterns;
use crate::corpus::vocabulary::Vocabulary;
use crate::ports::CorpusState;

/// An ingest as `begin` opened it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The corpus version its pages are diffed against.
    pub base: String,
    /// The vocabulary it commits (canonical JSON).
    pub vocabulary: String,
}

/// What one page is diffed against, read at once.
#[derive(Debug, Default)]
pub struct PageBasis {
    pub opened: Option<Opened>,
    /// A document of this page that another page of the ingest holds.
    pub conflict: Option<String>,
    /// The stored passages of the page's documents, and their text.
    pub stored: Vec<StoredPassage>,
    pub old: Vec<StoredText>,
    /// The vocabulary of the corpus as committed (canonical JSON).
    pub committed_vocabulary: Option<String>,
}

/// What a commit is computed from, read at once.
#[derive(Debug, Clone, Default)]
pub struct CommitBasis {
    pub opened: Option<Opened>,
    /// Each staged page's change to the digest (encoded).
    pub deltas: Vec<String>,
    /// The corpus's stored digest (encoded), when one was stored.
    pub stored_digest: Option<String>,
    /// The passages the staged pages remove.
    pub removed: Vec<String>,
    /// The version the stored term statistics are complete for.
    pub stats_of: Option<String>,
}

/// One commit, as the transaction writes it.
#[derive(Debug, Clone, Copy)]
pub struct Commit<'a> {
    pub id: &'a str,
    pub base: &'a str,
    pub version: &'a str,
    pub digest: &'a Digest,
    pub vocabulary: &'a Vocabulary,
    /// `vocabulary` as canonical JSON, as it is stored.
    pub vocabulary_json: &'a str,
    /// The version the term statistics are complete for, or "incomplete".
    pub stats_version: &'a str,
    pub removed: &'a [String],
    /// An operator's write, which changes only these documents: ingests in
    /// flight that staged none of them are moved on to the new version.
    pub carry: Option<&'a BTreeSet<String>>,
}

/// What the commit's transaction reports of the corpus's references.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub references: u32,
    pub unresolved: u32,
    pub unresolved_first: Vec<String>,
}

/// The stores a paged ingest runs over (D1, Vectorize and the ledger in the
/// worker; memory in tests).
#[allow(async_fn_in_trait)] // Single-threaded wasm: no Send bound is wanted.
pub trait Staging {
    /// The shared corpus as it is now (read afresh).
    async fn state(&self) -> Result<CorpusState, ApiError>;
    async fn opened(&self, id: &str) -> Result<Option<Opened>, ApiError>;
    async fn pages_done(&self, id: &str) -> Result<Vec<u32>, ApiError>;
    /// Drops whatever ingest `id` staged and opens it on `base`.
    async fn open(&self, id: &str, base: &str, vocabulary: &str) -> Result<(), ApiError>;
    /// The shared documents an ingest may remove (not an operator's).
    async fn removable_docs(&self) -> Result<BTreeSet<String>, ApiError>;
    async fn page_basis(&self, id: &str, page: u32, stems: &BTreeSet<String>) -> Result<PageBasis, ApiError>;
    /// Embeds what the plan writes (Workers AI engine), its cost recorded; its neurons.
    async fn embed(&self, plan: &IngestPlan) -> Result<f64, ApiError>;
    /// Replaces page `page`'s staged rows, term deltas and digest delta.
    async fn stage(&self, id: &str, page: u32, plan: &IngestPlan, rows: Vec<String>, old: &[StoredText], stems: &BTreeSet<String>)
        -> Result<(), ApiError>;
    async fn commit_basis(&self, id: &str) -> Result<CommitBasis, ApiError>;
    /// The shared corpus's digest from its rows (a corpus stored before digests were).
    async fn digest_from_rows(&self) -> Result<Digest, ApiError>;
    /// Applies the commit in one transaction; `IngestStale` when the corpus
    /// moved since its base (checked inside the transaction).
    async fn apply(&self, commit: &Commit<'_>) -> Result<Applied, ApiError>;
    /// Drops ingest `id` and everything it staged.
    async fn forget(&self, id: &str) -> Result<(), ApiError>;
}

/// What `begin` answers: the pages already staged (a resumed ingest skips
/// them) and the stored documents the ingest's pages must remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Begun {
    pub ingest: String,
    pub base: String,
    pub pages_done: Vec<u32>,
    pub remove: Vec<String>,
}

/// What a commit answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Committed {
    pub corpus_version: String,
    pub passages: u64,
    pub vocabulary: String,
    pub pages: usize,
    /// Explicit references between shared passages, after the commit.
    pub references: u32,
    /// How many of them nothing in the corpus answers to, and the first few
    /// (`passage -> key`): kept, not errors.
    pub unresolved: u32,
    pub unresolved_first: Vec<String>,
}

/// Opens the ingest, or resumes it if it was begun on the corpus as it is
/// now with the same vocabulary; one begun on an older corpus starts over.
pub async fn begin(staging: &impl Staging, request: &BeginRequest) -> Result<Begun, ApiError> {
    let state = staging.state().await?;
    let id = request.ingest.as_str();
    let vocabulary = request.vocabulary_after(&state.vocabulary).canonical();
    let pages_done = match staging.opened(id).await? {
        Some(opened) if opened.base == state.version && opened.vocabulary == vocabulary => staging.pages_done(id).await?,
        _ => {
            staging.open(id, &state.version, &vocabulary).await?;
            Vec::new()
        }
    };
    let remove = request.to_remove(&staging.removable_docs().await?);
    Ok(Begun { ingest: id.to_string(), base: state.version, pages_done, remove })
}

/// Diffs one page against the stored passages of its documents, embeds what
/// changed and stages its rows; sending a page again replaces it. When the
/// corpus's reference words change, its unchanged passages are staged again
/// too, so their references are derived anew.
pub async fn page(staging: &impl Staging, id: &str, page: u32, request: &PageRequest, origin: Origin) -> Result<PageReport, ApiError> {
    let stems = request.stems();
    let basis = staging.page_basis(id, page, &stems).await?;
    let opened = basis.opened.ok_or(ApiError::IngestUnknown)?;
    if let Some(doc) = basis.conflict {
        return Err(ApiError::IngestConflict(format!("the document {doc:?} is in another page of this ingest")));
    }
    // Only vocabularies that passed their checks are stored.
    let vocabulary = |json: Option<&str>| json.and_then(|v| serde_json::from_str::<Vocabulary>(v).ok()).unwrap_or_default();
    let words = vocabulary(Some(&opened.vocabulary)).references;
    let incoming = request.passages();
    let mut plan = ingest::plan(&basis.stored, incoming.clone(), &stems, false, &Vocabulary::default());
    if words != vocabulary(basis.committed_vocabulary.as_deref()).references {
        plan.restage(&incoming);
    }
    let neurons = staging.embed(&plan).await?;
    let rows = paging::staged_rows(&plan, origin, &Patterns::new(&words), None)?;
    staging.stage(id, page, &plan, rows, &basis.old, &stems).await?;
    Ok(PageReport::new(page, &plan, neurons))
}

/// Applies every staged page and the new version in one transaction, if the
/// corpus is still the one the ingest began on: checked first (the common
/// case, before any work), and again inside the transaction, where no other
/// commit can slip between. A stale ingest is dropped: it must begin again.
pub async fn commit(staging: &impl Staging, id: &str, carry: Option<&BTreeSet<String>>) -> Result<Committed, ApiError> {
    let basis = staging.commit_basis(id).await?;
    let opened = basis.opened.ok_or(ApiError::IngestUnknown)?;
    if staging.state().await?.version != opened.base {
        return stale(staging, id).await;
    }
    let base = match basis.stored_digest.as_deref().and_then(Digest::decode) {
        Some(digest) => digest,
        None => staging.digest_from_rows().await?,
    };
    // The statistics stay complete if they were for the corpus this ingest
    // changes (or it was empty); a corpus committed before they existed is
    // counted live until it is ingested afresh.
    let stats_complete = base.count() == 0 || basis.stats_of.as_deref() == Some(opened.base.as_str());
    let digest = basis.deltas.iter().filter_map(|d| Digest::decode(d)).fold(base, Digest::plus);
    let vocabulary: Vocabulary = serde_json::from_str(&opened.vocabulary).unwrap_or_default();
    let version = digest.version(&vocabulary);
    let stats_version = if stats_complete { version.clone() } else { "incomplete".to_string() };
    let commit = Commit {
        id,
        base: &opened.base,
        version: &version,
        digest: &digest,
        vocabulary: &vocabulary,
        vocabulary_json: &opened.vocabulary,
        stats_version: &stats_version,
        removed: &basis.removed,
        carry,
    };
    let applied = match staging.apply(&commit).await {
        Err(ApiError::IngestStale) => return stale(staging, id).await,
        applied => applied?,
    };
    Ok(Committed {
        corpus_version: version,
        passages: digest.count(),
        vocabulary: vocabulary.hash(),
        pages: basis.deltas.len(),
        references: applied.references,
        unresolved: applied.unresolved,
        unresolved_first: applied.unresolved_first,
    })
}

async fn stale<T>(staging: &impl Staging, id: &str) -> Result<T, ApiError> {
    staging.forget(id).await?;
    Err(ApiError::IngestStale)
}

/// Writes an operator's change to the shared corpus (an approved passage, or
/// one retired) as an ingest `id` of one page, committed at once; `docs` are
/// the documents it touches (its own, which ingests in flight are moved past).
pub async fn write_operator(staging: &impl Staging, id: &str, plan: &IngestPlan, docs: &BTreeSet<String>) -> Result<Committed, ApiError> {
    let request = BeginRequest { ingest: id.to_string(), complete: false, vocabulary: None, documents: Vec::new() };
    begin(staging, &request).await?;
    let basis = staging.page_basis(id, 0, docs).await?;
    let words = staging.state().await?.vocabulary.references;
    let rows = paging::staged_rows(plan, Origin::Operator, &Patterns::new(&words), None)?;
    staging.stage(id, 0, plan, rows, &basis.old, docs).await?;
    commit(staging, id, Some(docs)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::FakeStaging;
    use futures::executor::block_on;

    fn doc(name: &str, text: &str) -> serde_json::Value {
        serde_json::json!({ "name": name, "text": text })
    }

    fn docs() -> Vec<serde_json::Value> {
        vec![
            doc("pricing.md", "# Pricing\n\n## Desks\n\nA desk costs $300 per month.\n\n## Offices\n\nAn office costs $900 per month."),
            doc("hours.md", "# Hours\n\n## Opening\n\nThe space opens at 8:00 on weekdays."),
            doc("guests.md", "# Guests\n\n## Visitors\n\nA member may bring two guests a day."),
        ]
    }

    fn page_of(documents: &[serde_json::Value]) -> PageRequest {
        PageRequest::parse(serde_json::json!({ "documents": documents }).to_string().as_bytes()).unwrap()
    }

    fn begin_request(id: &str, complete: bool, documents: &[serde_json::Value]) -> BeginRequest {
        let names: Vec<&str> = documents.iter().filter_map(|d| d["name"].as_str()).collect();
        BeginRequest::parse(serde_json::json!({ "ingest": id, "complete": complete, "documents": names }).to_string().as_bytes()).unwrap()
    }

    /// Begins, sends `pages` (each a slice of documents), commits.
    fn ingest(staging: &FakeStaging, id: &str, complete: bool, pages: &[&[serde_json::Value]]) -> Result<Committed, ApiError> {
        let all: Vec<serde_json::Value> = pages.iter().flat_map(|p| p.iter().cloned()).collect();
        block_on(begin(staging, &begin_request(id, complete, &all)))?;
        for (n, documents) in pages.iter().enumerate() {
            block_on(page(staging, id, n as u32, &page_of(documents), Origin::Corpus))?;
        }
        block_on(commit(staging, id, None))
    }

    const A: &str = "aaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbb";

    #[test]
    fn pages_commit_to_the_version_one_page_of_the_same_documents_makes() {
        let docs = docs();
        let paged = FakeStaging::default();
        let in_pages = ingest(&paged, A, true, &[&docs[..1], &docs[1..]]).unwrap();
        let whole = FakeStaging::default();
        let at_once = ingest(&whole, A, true, &[&docs]).unwrap();
        assert_eq!(in_pages.corpus_version, at_once.corpus_version);
        assert_eq!((in_pages.passages, in_pages.pages, at_once.pages), (4, 2, 1));
        assert_eq!(paged.passages.borrow().len(), 4);
        // The same again changes nothing, and embeds nothing.
        let embedded = paged.embedded.get();
        assert_eq!(ingest(&paged, B, true, &[&docs]).unwrap().corpus_version, in_pages.corpus_version);
        assert_eq!(paged.embedded.get(), embedded);
    }

    #[test]
    fn a_resumed_ingest_skips_its_staged_pages_and_one_on_an_older_corpus_starts_over() {
        let docs = docs();
        let staging = FakeStaging::default();
        ingest(&staging, A, true, &[&docs[..1]]).unwrap();
        let request = begin_request(B, true, &docs);
        block_on(begin(&staging, &request)).unwrap();
        block_on(page(&staging, B, 0, &page_of(&docs[..1]), Origin::Corpus)).unwrap();
        assert_eq!(block_on(begin(&staging, &request)).unwrap().pages_done, [0]);
        ingest(&staging, "cccccccccccccccc", false, &[&docs[2..]]).unwrap();
        let again = block_on(begin(&staging, &request)).unwrap();
        assert_eq!(again.pages_done, Vec::<u32>::new(), "begun on an older corpus: it starts over");
        assert_eq!(again.base, *staging.version.borrow().as_ref().unwrap());
    }

    #[test]
    fn a_document_in_two_pages_conflicts_and_an_unknown_ingest_is_refused() {
        let docs = docs();
        let staging = FakeStaging::default();
        block_on(begin(&staging, &begin_request(A, false, &docs))).unwrap();
        block_on(page(&staging, A, 0, &page_of(&docs[..1]), Origin::Corpus)).unwrap();
        let twice = block_on(page(&staging, A, 1, &page_of(&docs[..1]), Origin::Corpus));
        assert!(matches!(twice, Err(ApiError::IngestConflict(_))), "{twice:?}");
        assert!(block_on(page(&staging, A, 0, &page_of(&docs[..1]), Origin::Corpus)).is_ok(), "a page sent again replaces itself");
        assert!(matches!(block_on(page(&staging, B, 0, &page_of(&docs), Origin::Corpus)), Err(ApiError::IngestUnknown)));
        assert!(matches!(block_on(commit(&staging, B, None)), Err(ApiError::IngestUnknown)));
    }

    #[test]
    fn a_stale_commit_is_dropped_whether_caught_before_or_inside_the_transaction() {
        let docs = docs();
        let staging = FakeStaging::default();
        block_on(begin(&staging, &begin_request(A, false, &docs))).unwrap();
        block_on(page(&staging, A, 0, &page_of(&docs[..1]), Origin::Corpus)).unwrap();
        ingest(&staging, B, false, &[&docs[1..2]]).unwrap();
        let version = staging.version.borrow().clone();
        assert!(matches!(block_on(commit(&staging, A, None)), Err(ApiError::IngestStale)));
        assert!(matches!(block_on(commit(&staging, A, None)), Err(ApiError::IngestUnknown)), "dropped: it must begin again");
        assert_eq!(*staging.version.borrow(), version, "nothing applied");

        block_on(begin(&staging, &begin_request(A, false, &docs))).unwrap();
        block_on(page(&staging, A, 0, &page_of(&docs[..1]), Origin::Corpus)).unwrap();
        staging.race.set(true);
        assert!(matches!(block_on(commit(&staging, A, None)), Err(ApiError::IngestStale)));
        assert_eq!(staging.forgotten.borrow().iter().filter(|id| *id == A).count(), 2);
    }

    #[test]
    fn an_operator_write_moves_ingests_in_flight_on_and_they_commit_without_embedding_again() {
        let docs = docs();
        let staging = FakeStaging::default();
        ingest(&staging, A, true, &[&docs[..1]]).unwrap();
        block_on(begin(&staging, &begin_request(B, false, &docs[1..]))).unwrap();
        block_on(page(&staging, B, 0, &page_of(&docs[1..]), Origin::Corpus)).unwrap();
        let embedded = staging.embedded.get();

        let passage = crate::corpus::chunk::Passage {
            id: "operator-1".into(),
            doc: crate::review::OPERATOR_DOC.into(),
            section: "Approved answer".into(),
            text: "Lockers rent for $15 a month.".into(),
        };
        let operator = BTreeSet::from([crate::review::OPERATOR_DOC.to_string()]);
        let stored: Vec<StoredPassage> = staging.passages.borrow().values().map(|(p, _)| p.clone()).filter(|p| p.doc == crate::review::OPERATOR_DOC).collect();
        let plan = crate::review::plan(&stored, passage, &Vocabulary::default());
        block_on(write_operator(&staging, "dddddddddddddddd", &plan, &operator)).unwrap();

        assert_eq!(block_on(begin(&staging, &begin_request(B, false, &docs[1..]))).unwrap().pages_done, [0], "moved on, not stale");
        let committed = block_on(commit(&staging, B, None)).unwrap();
        assert_eq!(staging.embedded.get(), embedded, "nothing embedded again");
        assert_eq!(committed.passages, 5, "the corpus's four and the operator's one");
        assert!(staging.passages.borrow().contains_key("operator-1"));
    }

    #[test]
    fn a_complete_ingest_removes_the_documents_it_does_not_send_but_never_an_operators() {
        let docs = docs();
        let staging = FakeStaging::default();
        ingest(&staging, A, true, &[&docs]).unwrap();
        let passage = crate::corpus::chunk::Passage { id: "operator-2".into(), doc: crate::review::OPERATOR_DOC.into(), section: "S".into(), text: "A fact.".into() };
        let operator = BTreeSet::from([crate::review::OPERATOR_DOC.to_string()]);
        let plan = crate::review::plan(&[], passage, &Vocabulary::default());
        block_on(write_operator(&staging, "dddddddddddddddd", &plan, &operator)).unwrap();
        let begun = block_on(begin(&staging, &begin_request(B, true, &docs[..1]))).unwrap();
        assert_eq!(begun.remove, ["guests", "hours"]);
    }
}
