//! An in-memory [`Corpus`]: the native stand-in for D1 FTS5, used by the native
//! tests and offline tools. It indexes the same terms and ranks with the same
//! function (BM25, k1 = 1.2, b = 0.75, FTS5's defaults), so the pipeline's
//! decisions here match those under workerd up to BM25 ties. Workspaces are
//! kept beside the shared passages and every lookup is restricted to its
//! scope, as the D1 index restricts its matches.

use std::collections::HashMap;
use std::path::Path;

use crate::corpus::chunk::{self, Passage};
use crate::corpus::references::{self, Patterns};
use crate::api::error::ApiError;
use crate::corpus::workspace::{self, Scope, WorkspaceState};
use crate::api::response::Origin;
use crate::ports::{Corpus, CorpusState};
use crate::ports::{Lookup, Query, StoredHit};
use crate::text;
use crate::stages::retrieve;
use crate::corpus::vocabulary::Vocabulary;

/// Files in a corpus folder that describe the corpus and are not part of it.
pub const NOT_CORPUS: &[&str] = &["COVERAGE.md", "README.md"];
/// The corpus's vocabulary, beside its documents (optional).
pub const VOCABULARY_FILE: &str = "vocabulary.json";

/// A passage with its index terms.
type Indexed = (Passage, Vec<String>);

/// One workspace: its state, the hash of its secret, its passages.
struct Workspace {
    state: WorkspaceState,
    secret_hash: String,
    passages: Vec<Indexed>,
}

/// Passages with their index terms.
pub struct MemoryCorpus {
    passages: Vec<Indexed>,
    /// Shared passages containing each term, counted once at load.
    doc_freqs: HashMap<String, u32>,
    avg_len: f64,
    /// Shared passages by the anchors they answer to (their indexes).
    anchors: HashMap<String, Vec<usize>>,
    vocabulary: Vocabulary,
    workspaces: Vec<Workspace>,
}

impl MemoryCorpus {
    /// Chunks `(file name, markdown)` documents.
    pub fn new(documents: &[(String, String)]) -> MemoryCorpus {
        MemoryCorpus::chunked(documents, chunk::MAX_PASSAGE_CHARS)
    }

    /// Chunks documents into passages of at most `max` bytes.
    pub fn chunked(documents: &[(String, String)], max: usize) -> MemoryCorpus {
        let passages: Vec<Indexed> = documents
            .iter()
            .flat_map(|(name, text)| chunk::chunk_within(name, text, max))
            .map(|p| {
                let terms = chunk::index_terms(&p.section, &p.text);
                (p, terms)
            })
            .collect();
        let mut doc_freqs: HashMap<String, u32> = HashMap::new();
        for (_, terms) in &passages {
            let mut distinct: Vec<&String> = terms.iter().collect();
            distinct.sort_unstable();
            distinct.dedup();
            for term in distinct {
                *doc_freqs.entry(term.clone()).or_default() += 1;
            }
        }
        let total: usize = passages.iter().map(|(_, t)| t.len()).sum();
        let avg_len = total as f64 / passages.len().max(1) as f64;
        let anchors = anchor_index(&passages, &Patterns::default());
        MemoryCorpus { passages, doc_freqs, avg_len, anchors, vocabulary: Vocabulary::default(), workspaces: Vec::new() }
    }

    /// Adds a workspace holding `documents`, reached with `secret`.
    pub fn with_workspace(mut self, id: &str, secret: &str, documents: &[(String, String)], expires_at: u64) -> MemoryCorpus {
        let passages: Vec<Indexed> = documents
            .iter()
            .flat_map(|(name, text)| workspace::plan_upload(id, name, &workspace::Document::Markdown(text.clone()), &[], &workspace::Limits::default()).map(|p| p.added).unwrap_or_default())
            .map(|p| {
                let terms = chunk::index_terms(&p.section, &p.text);
                (p, terms)
            })
            .collect();
        let hashes = passages.iter().map(|(p, _)| (p.id.clone(), p.content_hash())).collect();
        let state = WorkspaceState { id: id.to_string(), version: crate::corpus::ingest::corpus_version(&hashes, &Vocabulary::default()), expires_at };
        self.workspaces.push(Workspace { state, secret_hash: workspace::secret_hash(secret), passages });
        self
    }

    /// Every passage in `scope`, with its terms.
    fn in_scope<'a>(&'a self, scope: &'a Scope) -> impl Iterator<Item = (&'a Indexed, Origin)> + 'a {
        let shared = self.passages.iter().filter(move |_| scope.allows(None)).map(|p| (p, Origin::Corpus));
        shared.chain(self.workspaces_in(scope).flat_map(|w| w.passages.iter()).map(|p| (p, Origin::Upload)))
    }

    fn workspaces_in<'a>(&'a self, scope: &'a Scope) -> impl Iterator<Item = &'a Workspace> + 'a {
        self.workspaces.iter().filter(move |w| scope.allows(Some(&w.state.id)))
    }

    /// The same corpus with a vocabulary (its reference words re-anchor it).
    pub fn with_vocabulary(self, vocabulary: Vocabulary) -> MemoryCorpus {
        let anchors = anchor_index(&self.passages, &Patterns::new(&vocabulary.references));
        MemoryCorpus { vocabulary, anchors, ..self }
    }

    /// Loads every `*.md` file of `dir` except [`NOT_CORPUS`], and its
    /// [`VOCABULARY_FILE`] if there is one, as `scripts/ingest` does.
    pub fn load(dir: &Path) -> std::io::Result<MemoryCorpus> {
        MemoryCorpus::load_chunked(dir, chunk::MAX_PASSAGE_CHARS)
    }

    /// [`MemoryCorpus::load`] with passages of at most `max` bytes.
    pub fn load_chunked(dir: &Path, max: usize) -> std::io::Result<MemoryCorpus> {
        let mut documents = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if name.ends_with(".md") && !NOT_CORPUS.contains(&name.as_str()) {
                documents.push((name, std::fs::read_to_string(&path)?));
            }
        }
        documents.sort();
        let vocabulary = match std::fs::read_to_string(dir.join(VOCABULARY_FILE)) {
            Ok(json) => Vocabulary::parse(&json).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vocabulary::default(),
            Err(e) => return Err(e),
        };
        Ok(MemoryCorpus::chunked(&documents, max).with_vocabulary(vocabulary))
    }

    pub fn passages(&self) -> impl Iterator<Item = &Passage> {
        self.passages.iter().map(|(p, _)| p)
    }

    /// Passages in `scope` containing `term`.
    fn doc_freq(&self, scope: &Scope, term: &str) -> u32 {
        let shared = if scope.allows(None) { self.doc_freqs.get(term).copied().unwrap_or(0) } else { 0 };
        let own = self.workspaces_in(scope).flat_map(|w| w.passages.iter()).filter(|(_, terms)| terms.iter().any(|t| t == term)).count() as u32;
        shared + own
    }

    /// FTS5's BM25 over the `terms` and `heading` columns: a term's frequency
    /// is its count in the text plus `heading_weight` times its count in the
    /// heading; the length is the two columns together.
    fn bm25(&self, scope: &Scope, terms: &[String], passage_terms: &[String], heading: &[String], heading_weight: f64) -> f64 {
        let n = self.passages.len() as f64;
        let len = passage_terms.len() as f64;
        terms
            .iter()
            .map(|t| {
                let in_heading = heading.iter().filter(|x| *x == t).count() as f64;
                let tf = passage_terms.iter().filter(|x| *x == t).count() as f64 + (heading_weight - 1.0) * in_heading;
                let df = f64::from(self.doc_freq(scope, t));
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / self.avg_len))
            })
            .sum()
    }
}

/// Shared passages by the anchors they answer to (their indexes).
fn anchor_index(passages: &[Indexed], patterns: &Patterns) -> HashMap<String, Vec<usize>> {
    let mut anchors: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, (p, _)) in passages.iter().enumerate() {
        for key in references::anchors(p, patterns) {
            anchors.entry(key).or_default().push(i);
        }
    }
    anchors
}

impl Corpus for MemoryCorpus {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        let hashes = self.passages.iter().map(|(p, _)| (p.id.clone(), p.content_hash())).collect();
        let version = crate::corpus::ingest::corpus_version(&hashes, &self.vocabulary);
        Ok(CorpusState { version, vocabulary: self.vocabulary.clone(), scope: Scope::Shared, committed: true })
    }

    async fn workspace(&self, secret_hash: &str, now: u64) -> Result<Option<WorkspaceState>, ApiError> {
        Ok(self.workspaces.iter().find(|w| w.secret_hash == secret_hash && w.state.expires_at > now).map(|w| w.state.clone()))
    }

    async fn passages(&self, scope: &Scope, ids: &[String]) -> Result<Vec<StoredHit>, ApiError> {
        Ok(self.in_scope(scope).filter(|((p, _), _)| ids.contains(&p.id)).map(|((p, _), origin)| stored(p, origin)).collect())
    }

    async fn references(&self, scope: &Scope, from: &[String]) -> Result<Vec<(String, StoredHit)>, ApiError> {
        // A reference resolves among its own documents: a shared passage's
        // in the shared corpus (with its vocabulary's words), an upload's in
        // its workspace (general words only), as the D1 keys are scoped.
        let shared_patterns = Patterns::new(&self.vocabulary.references);
        let general = Patterns::default();
        let mut edges: Vec<(String, StoredHit)> = Vec::new();
        if scope.allows(None) {
            for (p, _) in self.passages.iter().filter(|(p, _)| from.contains(&p.id)) {
                for key in references::references(p, &shared_patterns) {
                    let targets = self.anchors.get(&key).into_iter().flatten().map(|&i| &self.passages[i].0);
                    edges.extend(targets.filter(|q| q.id != p.id).map(|q| (p.id.clone(), stored(q, Origin::Corpus))));
                }
            }
        }
        for w in self.workspaces_in(scope) {
            let anchored: Vec<(&Passage, Vec<String>)> = w.passages.iter().map(|(q, _)| (q, references::anchors(q, &general))).collect();
            for (p, _) in w.passages.iter().filter(|(p, _)| from.contains(&p.id)) {
                for key in references::references(p, &general) {
                    let targets = anchored.iter().filter(|(q, keys)| q.id != p.id && keys.contains(&key));
                    edges.extend(targets.map(|(q, _)| (p.id.clone(), stored(q, Origin::Upload))));
                }
            }
        }
        edges.sort_by(|a, b| (&a.0, &a.1.id).cmp(&(&b.0, &b.1.id)));
        edges.dedup_by(|a, b| a.0 == b.0 && a.1.id == b.1.id);
        Ok(edges)
    }

    async fn lookup(&self, scope: &Scope, query: &Query<'_>) -> Result<Lookup, ApiError> {
        let Query { terms, k, heading_weight, .. } = *query;
        let doc_freqs: Vec<u32> = terms.iter().map(|t| self.doc_freq(scope, t)).collect();
        // As the D1 lookup ranks: over a bounded candidate set, on every
        // term, the candidate-picking terms counted twice.
        let chosen: Option<Vec<String>> = retrieve::candidate_terms(terms, &doc_freqs).map(|c| c.into_iter().cloned().collect());
        let mut scored: Vec<(f64, &Passage, Origin)> = self
            .in_scope(scope)
            .filter(|((_, passage_terms), _)| chosen.as_ref().is_none_or(|c| c.iter().any(|t| passage_terms.contains(t))))
            .map(|((p, passage_terms), origin)| {
                // Heading terms count only when they weigh differently from text.
                let heading = if heading_weight == 1.0 { Vec::new() } else { text::terms(&p.section) };
                let score = |ts: &[String]| self.bm25(scope, ts, passage_terms, &heading, heading_weight);
                (score(terms) + chosen.as_deref().map_or(0.0, score), p, origin)
            })
            .filter(|(score, _, _)| *score > 0.0)
            .collect();
        // Best first; ties in corpus order, as FTS5 returns them by rowid.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(Lookup {
            total_passages: self.in_scope(scope).count() as u32,
            doc_freqs,
            hits: scored.into_iter().take(k).map(|(_, p, origin)| stored(p, origin)).collect(),
        })
    }
}

fn stored(p: &Passage, origin: Origin) -> StoredHit {
    StoredHit { id: p.id.clone(), doc: p.doc.clone(), section: p.section.clone(), text: p.text.clone(), origin }
}
