//! D1: the passage store behind [`Corpus`], and the ingest writer. Every failure
//! becomes [`ApiError::Dependency`] with the D1 message for the log only.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, D1Result, Env};

use crate::api::error::{ApiError, DocumentError};
use crate::corpus::ingest::{Digest, IngestPlan, StoredPassage};
use crate::corpus::paging;
use crate::corpus::references::Patterns;
use crate::api::response::Origin;
use crate::corpus::workspace::{self, Limits, Scope, WorkspaceState};
use crate::ports::{Corpus, CorpusState};
use crate::ports::{Lookup, Query, StoredHit};
use crate::stages::retrieve;

/// The `DB` binding.
pub struct D1Corpus {
    db: D1Database,
}

/// How long an isolate trusts the corpus state it last read. Every request
/// needs it (it is part of the cache key) and only an ingest changes it: the
/// isolate that ran the ingest sees the new state at once, any other within
/// this window. One read a second instead of one per request is the larger
/// part of a cache hit's cost.
const STATE_TTL_MS: f64 = 1_000.0;

thread_local! {
    /// The corpus state this isolate last read or wrote, and when.
    static REMEMBERED: RefCell<Option<(f64, CorpusState)>> = const { RefCell::new(None) };
}

thread_local! {
    /// The shared passage count this isolate last read, and the corpus
    /// version it was read under: only a commit changes it, so `/health`
    /// counts once per version, not on every call.
    static COUNTED: RefCell<Option<(String, u32)>> = const { RefCell::new(None) };
}

fn remember(state: &CorpusState) {
    REMEMBERED.with(|r| *r.borrow_mut() = Some((worker::js_sys::Date::now(), state.clone())));
}

fn remembered() -> Option<CorpusState> {
    let now = worker::js_sys::Date::now();
    REMEMBERED.with(|r| r.borrow().as_ref().filter(|(at, _)| now - at < STATE_TTL_MS).map(|(_, state)| state.clone()))
}

/// A D1 failure as an `ApiError::Dependency`: the message, with what was being
/// done, is for the log only.
pub(super) fn dependency(context: &str) -> impl Fn(worker::Error) -> ApiError + '_ {
    move |e| ApiError::Dependency(format!("D1 {context}: {e}"))
}

/// The `i`-th result of a batch; `what` names the batch in the error.
pub(super) fn nth<'r>(results: &'r [D1Result], i: usize, what: &str) -> Result<&'r D1Result, ApiError> {
    results.get(i).ok_or_else(|| ApiError::Dependency(format!("D1 {what}: no result {i}")))
}

/// Every row a statement returns, decoded; `what` names the read in the log.
pub(super) async fn rows<T: DeserializeOwned>(statement: D1PreparedStatement, what: &str) -> Result<Vec<T>, ApiError> {
    statement.all().await.map_err(dependency(what))?.results().map_err(dependency(what))
}

/// The `DB` binding; its absence is a configuration error.
pub(super) fn database(env: &Env) -> Result<D1Database, ApiError> {
    env.d1("DB").map_err(|_| ApiError::Misconfigured("the D1 binding DB is missing".into()))
}

#[derive(Deserialize)]
pub(super) struct Count {
    pub n: u32,
}

#[derive(Deserialize)]
struct Meta {
    key: String,
    value: String,
}

impl D1Corpus {
    pub fn new(env: &Env) -> Result<Self, ApiError> {
        Ok(D1Corpus { db: database(env)? })
    }

    pub(super) fn statement(&self, sql: &str, args: &[JsValue]) -> Result<D1PreparedStatement, ApiError> {
        self.db.prepare(sql).bind(args).map_err(dependency("bind"))
    }

    /// Every stored passage's id, document and hash, of the shared corpus
    /// (`None`) or of one workspace.
    pub async fn stored(&self, workspace: Option<&str>) -> Result<Vec<StoredPassage>, ApiError> {
        // `IS` compares NULL as a value: `workspace IS NULL` for the shared corpus.
        rows(self.statement("SELECT id, doc, hash, origin FROM passages WHERE workspace IS ?1 ORDER BY id", &[optional(workspace)])?, "passages").await
    }

    /// The shared corpus's stored passages of these documents.
    pub async fn stored_in(&self, docs: &BTreeSet<String>) -> Result<Vec<StoredPassage>, ApiError> {
        rows(self.stored_of(docs)?, "passages").await
    }

    /// The statement that reads [`Self::stored_in`].
    pub fn stored_of(&self, docs: &BTreeSet<String>) -> Result<D1PreparedStatement, ApiError> {
        let docs = serde_json::to_string(docs).unwrap_or_else(|_| "[]".into());
        self.statement(
            "SELECT id, doc, hash, origin, section, text FROM passages WHERE workspace IS NULL AND doc IN (SELECT value FROM json_each(?1)) ORDER BY id",
            &[docs.into()],
        )
    }

    pub(super) fn db(&self) -> &D1Database {
        &self.db
    }

    /// The shared corpus's state as D1 has it now (not this isolate's memory).
    pub async fn fresh_state(&self) -> Result<CorpusState, ApiError> {
        let meta: Vec<Meta> = rows(self.db.prepare("SELECT key, value FROM meta WHERE key IN ('corpus_version', 'vocabulary')"), "corpus state").await?;
        let value = |key: &str| meta.iter().find(|r| r.key == key).map(|r| r.value.as_str());
        Ok(CorpusState {
            version: value("corpus_version").unwrap_or("empty").to_string(),
            // Only a vocabulary that passed ingest's checks is ever stored.
            vocabulary: value("vocabulary").and_then(|v| serde_json::from_str(v).ok()).unwrap_or_default(),
            scope: Scope::Shared,
            committed: value("corpus_version").is_some(),
        })
    }

    /// Remembers the state an ingest just committed: this isolate sees it at once.
    pub fn committed(&self, state: &CorpusState) {
        remember(state);
    }

    /// The shared corpus's passage count under `version`.
    pub async fn passage_count(&self, version: &str) -> Result<u32, ApiError> {
        let counted = COUNTED.with(|c| c.borrow().as_ref().filter(|(v, _)| v == version).map(|(_, n)| *n));
        if let Some(n) = counted {
            return Ok(n);
        }
        let row: Option<Count> =
            self.db.prepare("SELECT count(*) AS n FROM passages WHERE workspace IS NULL").first(None).await.map_err(dependency("count"))?;
        let n = row.map_or(0, |r| r.n);
        COUNTED.with(|c| *c.borrow_mut() = Some((version.to_string(), n)));
        Ok(n)
    }

    /// Applies a plan to a workspace (an upload, or an approved answer) and
    /// records its new version, in one transaction under the workspace caps
    /// (`migrations/0013`): the batch sets them from `limits` first, and a
    /// trigger refuses a new passage past either cap, or for a workspace
    /// that is gone, which rolls the whole batch back.
    pub async fn apply_to_workspace(&self, plan: &IngestPlan, workspace: &str, origin: Origin, limits: &Limits) -> Result<(), ApiError> {
        let mut batch = vec![
            self.statement("UPDATE workspaces SET max_passages = ?2 WHERE id = ?1", &[workspace.into(), JsValue::from(limits.max_passages as f64)])?,
            self.statement("UPDATE workspace_totals SET cap = ?1 WHERE id = 1", &[JsValue::from(limits.max_total_passages as f64)])?,
        ];
        batch.extend(self.changes(plan, workspace, origin)?);
        batch.push(self.statement("UPDATE workspaces SET version = ?2 WHERE id = ?1", &[workspace.into(), plan.version.as_str().into()])?);
        self.db.batch(batch).await.map_err(|e| refused_write(e, limits))?;
        Ok(())
    }

    /// The statements that write a plan into a workspace with
    /// [`PassageWriter`]: the deletes once, over the passages it replaces or
    /// removes (none for a new document), then the inserts over its rows as a
    /// page stages them (text, index terms, references and anchors, keys
    /// scoped to the workspace), in JSON arrays of at most
    /// [`paging::STATEMENT_BYTES`]: the largest upload the default limits
    /// allow, re-uploaded, stays inside the Free plan's 50 D1 queries per
    /// invocation. An upload's references use the general words only: a
    /// corpus's own are the corpus's.
    fn changes(&self, plan: &IngestPlan, workspace: &str, origin: Origin) -> Result<Vec<D1PreparedStatement>, ApiError> {
        let scope = workspace::token(Some(workspace));
        let args = |rows: &str| [rows.into(), workspace.into(), scope.as_str().into()];
        let writer = PassageWriter::Json;
        let mut batch = Vec::new();
        for touched in paging::touched_rows(plan) {
            batch.extend(writer.statements(self, &args(&touched), PassageWriter::DELETES)?);
        }
        for rows in paging::staged_rows(plan, origin, &Patterns::default(), Some(workspace))? {
            batch.extend(writer.statements(self, &args(&rows), PassageWriter::WRITES)?);
        }
        Ok(batch)
    }
}

/// A workspace write's error: a cap's trigger (by the message it raised),
/// or D1 failing.
fn refused_write(e: worker::Error, limits: &Limits) -> ApiError {
    let message = e.to_string();
    if message.contains("workspace_gone") {
        ApiError::WorkspaceUnknown
    } else if message.contains("workspaces_full") {
        ApiError::WorkspaceCapacity
    } else if message.contains("workspace_full") {
        DocumentError::WorkspaceFull { limit: limits.max_passages }.into()
    } else {
        dependency("apply upload")(e)
    }
}

/// The one writer of passages, for the shared corpus (a commit) and for
/// workspaces (an upload) alike: every touched passage's index rows (keyed by
/// its passage's rowid) and edges out, removed passages out, written ones
/// upserted, indexed and linked, each step one set-based statement over the
/// rows, wherever they come from. Its statements bind `?1` the rows (an
/// ingest's id, or a JSON array), `?2` the workspace (NULL: shared), `?3`
/// the index scope.
pub(super) enum PassageWriter {
    /// An ingest's staged rows.
    Staged,
    /// One JSON array of rows, as [`paging::staged_rows`] makes them.
    Json,
}

impl PassageWriter {
    /// The statements that delete (the touched passages' index rows, edges,
    /// and the removed passages), and those that write; together, all.
    pub(super) const DELETES: std::ops::Range<usize> = 0..4;
    pub(super) const WRITES: std::ops::Range<usize> = 4..8;
    pub(super) const ALL: std::ops::Range<usize> = 0..8;

    fn rows(&self) -> &'static str {
        match self {
            PassageWriter::Staged => "(SELECT id, doc, section, text, hash, origin, terms, heading, refs, anchors FROM staged WHERE ingest = ?1)",
            PassageWriter::Json => {
                "(SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.doc') AS doc, \
                 json_extract(value, '$.section') AS section, json_extract(value, '$.text') AS text, \
                 json_extract(value, '$.hash') AS hash, json_extract(value, '$.origin') AS origin, \
                 json_extract(value, '$.terms') AS terms, json_extract(value, '$.heading') AS heading, \
                 json_extract(value, '$.refs') AS refs, json_extract(value, '$.anchors') AS anchors FROM json_each(?1))"
            }
        }
    }

    /// The statements `steps` names, bound to `args` (each given the
    /// parameters it uses).
    pub(super) fn statements(&self, corpus: &D1Corpus, args: &[JsValue; 3], steps: std::ops::Range<usize>) -> Result<Vec<D1PreparedStatement>, ApiError> {
        let rows = self.rows();
        let sql = [
            format!("DELETE FROM passages_fts WHERE rowid IN (SELECT p.rowid FROM passages p WHERE p.id IN (SELECT id FROM {rows}))"),
            format!("DELETE FROM passage_refs WHERE passage IN (SELECT id FROM {rows})"),
            format!("DELETE FROM passage_anchors WHERE passage IN (SELECT id FROM {rows})"),
            format!("DELETE FROM passages WHERE workspace IS ?2 AND id IN (SELECT id FROM {rows} WHERE hash IS NULL)"),
            // `AND true` tells SQLite's parser the ON CONFLICT is the upsert's.
            format!(
                "INSERT INTO passages (id, doc, section, text, hash, workspace, origin) \
                 SELECT id, doc, section, text, hash, ?2, origin FROM {rows} WHERE hash IS NOT NULL AND true \
                 ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, section = excluded.section, text = excluded.text, \
                 hash = excluded.hash, origin = excluded.origin"
            ),
            format!(
                "INSERT INTO passages_fts (rowid, id, scope, terms, heading) SELECT p.rowid, s.id, ?3, s.terms, s.heading \
                 FROM {rows} s JOIN passages p ON p.id = s.id WHERE s.hash IS NOT NULL"
            ),
            format!("INSERT OR IGNORE INTO passage_refs (passage, target) SELECT s.id, r.value FROM {rows} s, json_each(s.refs) r WHERE s.hash IS NOT NULL"),
            format!(
                "INSERT OR IGNORE INTO passage_anchors (anchor, passage) SELECT a.value, s.id FROM {rows} s, json_each(s.anchors) a \
                 WHERE s.hash IS NOT NULL"
            ),
        ];
        // D1 wants exactly as many arguments as the highest parameter a statement names.
        let used = |sql: &str| (1..=3).rev().find(|n| sql.contains(&format!("?{n}"))).unwrap_or(0);
        sql[steps].iter().map(|sql| corpus.statement(sql, &args[..used(sql)])).collect()
    }
}

/// A nullable text argument.
fn optional(value: Option<&str>) -> JsValue {
    value.map_or(JsValue::NULL, JsValue::from)
}

/// The SQL condition on `passages.workspace` for `scope`, its workspace id
/// bound as `?1`.
fn in_scope(scope: &Scope) -> &'static str {
    match scope {
        Scope::Shared => "workspace IS NULL",
        Scope::With(_) => "(workspace IS NULL OR workspace = ?1)",
        Scope::Only(_) => "workspace = ?1",
    }
}

impl Corpus for D1Corpus {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        if let Some(state) = remembered() {
            return Ok(state);
        }
        let state = self.fresh_state().await?;
        remember(&state);
        Ok(state)
    }

    async fn workspace(&self, secret_hash: &str, now: u64) -> Result<Option<WorkspaceState>, ApiError> {
        let row: Option<WorkspaceRow> = self
            .statement(
                "SELECT id, version, expires_at FROM workspaces WHERE secret_hash = ?1 AND expires_at > ?2",
                &[secret_hash.into(), JsValue::from(now as f64)],
            )?
            .first(None)
            .await
            .map_err(dependency("read workspace"))?;
        Ok(row.map(|r| WorkspaceState { id: r.id, version: r.version, expires_at: r.expires_at }))
    }

    async fn passages(&self, scope: &Scope, ids: &[String]) -> Result<Vec<StoredHit>, ApiError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = (2..ids.len() + 2).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let args: Vec<JsValue> = std::iter::once(optional(scope.workspace())).chain(ids.iter().map(|id| id.as_str().into())).collect();
        let sql = format!("SELECT id, doc, section, text, origin FROM passages WHERE id IN ({placeholders}) AND {}", in_scope(scope));
        let found: Vec<HitRow> = rows(self.statement(&sql, &args)?, "passages").await?;
        Ok(found.into_iter().map(HitRow::into_hit).collect())
    }

    async fn references(&self, scope: &Scope, from: &[String]) -> Result<Vec<(String, StoredHit)>, ApiError> {
        let sql = format!(
            "SELECT DISTINCT r.passage AS source, p.id, p.doc, p.section, p.text, p.origin FROM passage_refs r \
             JOIN passage_anchors a ON a.anchor = r.target JOIN passages p ON p.id = a.passage \
             WHERE r.passage IN (SELECT value FROM json_each(?2)) AND p.id != r.passage AND {} \
             ORDER BY r.passage, p.id LIMIT 64",
            in_scope(scope)
        );
        let from = serde_json::to_string(from).unwrap_or_else(|_| "[]".into());
        let edges: Vec<EdgeRow> = rows(self.statement(&sql, &[optional(scope.workspace()), from.into()])?, "references").await?;
        Ok(edges.into_iter().map(EdgeRow::into_edge).collect())
    }

    /// Two round trips: the statistics, then the ranking over a candidate
    /// set they bound ([`retrieve::candidate_terms`]). The shared corpus's
    /// size is its stored digest's count and its document frequencies are
    /// rows of `term_stats`; only a workspace's own passages are counted.
    async fn lookup(&self, scope: &Scope, query: &Query<'_>) -> Result<Lookup, ApiError> {
        let Query { terms, expression, k, heading_weight } = *query;
        let workspace = scope.workspace();
        let mut batch = vec![
            self.statement(
                "SELECT (SELECT value FROM meta WHERE key = 'corpus_digest') AS digest, \
                 (SELECT value FROM meta WHERE key = 'term_stats') = (SELECT value FROM meta WHERE key = 'corpus_version') AS stats_ready, \
                 (SELECT count(*) FROM passages WHERE workspace = ?1) AS workspace_passages",
                &[optional(workspace)],
            )?,
            self.statement(
                "SELECT term, passages FROM term_stats WHERE term IN (SELECT value FROM json_each(?1))",
                &[serde_json::to_string(terms).unwrap_or_else(|_| "[]".into()).into()],
            )?,
        ];
        if let Some(id) = workspace {
            batch.push(self.counts(&Scope::Only(id.to_string()), terms)?);
        }
        let results = self.db.batch(batch).await.map_err(dependency("lookup statistics"))?;
        let result = |i: usize| nth(&results, i, "lookup");
        let sizes: Vec<Sizes> = result(0)?.results().map_err(dependency("decode sizes"))?;
        let sizes = sizes.into_iter().next().unwrap_or_default();
        let own_freqs = match workspace {
            Some(_) => counted(result(2)?, terms)?,
            None => vec![0; terms.len()],
        };
        let (shared, shared_freqs) = if matches!(scope, Scope::Only(_)) {
            (0, vec![0; terms.len()])
        } else {
            match (sizes.stats_ready == Some(1), sizes.digest.as_deref().and_then(Digest::decode)) {
                (true, Some(digest)) => {
                    let rows: Vec<TermRow> = result(1)?.results().map_err(dependency("decode term stats"))?;
                    let freq = |t: &String| rows.iter().find(|r| &r.term == t).map_or(0, |r| r.passages);
                    (u32::try_from(digest.count()).unwrap_or(u32::MAX), terms.iter().map(freq).collect())
                }
                _ => self.count_shared(terms).await?,
            }
        };
        let total_passages = shared + sizes.workspace_passages;
        let doc_freqs: Vec<u32> = shared_freqs.iter().zip(&own_freqs).map(|(a, b)| a + b).collect();
        if k == 0 {
            return Ok(Lookup { total_passages, doc_freqs, hits: Vec::new() });
        }
        let ranked = match retrieve::candidate_terms(terms, &doc_freqs) {
            Some(chosen) => retrieve::bounded_expression(&chosen, expression),
            None => expression.to_string(),
        };
        // bm25 weighs `terms` and `heading` (id 0, scope 0: the scope filter matches every row alike).
        let ranking = self.statement(
            "SELECT p.id, p.doc, p.section, p.text, p.origin FROM passages_fts \
             JOIN passages p ON p.id = passages_fts.id \
             WHERE passages_fts MATCH ?1 ORDER BY bm25(passages_fts, 0.0, 0.0, 1.0, ?3), p.id LIMIT ?2",
            &[scope.restrict(&ranked).into(), JsValue::from(k as u32), JsValue::from(heading_weight)],
        )?;
        let hits: Vec<HitRow> = rows(ranking, "lookup").await?;
        Ok(Lookup { total_passages, doc_freqs, hits: hits.into_iter().map(HitRow::into_hit).collect() })
    }
}

/// Each term's matches in `terms` order, from a [`D1Corpus::counts`] result.
fn counted(result: &worker::D1Result, terms: &[String]) -> Result<Vec<u32>, ApiError> {
    let rows: Vec<TermRow> = result.results().map_err(dependency("decode counts"))?;
    Ok(terms.iter().map(|t| rows.iter().find(|r| &r.term == t).map_or(0, |r| r.passages)).collect())
}

impl D1Corpus {
    /// One statement that counts, within `scope`, the passages holding each
    /// term: the match expression is built per term in SQL, so the query
    /// count does not grow with the question. Terms are the tokenizer's
    /// (letters and digits); quotes are stripped anyway.
    fn counts(&self, scope: &Scope, terms: &[String]) -> Result<D1PreparedStatement, ApiError> {
        self.statement(
            "SELECT value AS term, (SELECT count(*) FROM passages_fts WHERE passages_fts MATCH \
             ?2 || ' AND {terms heading} : (\"' || replace(value, '\"', '') || '\")') AS passages FROM json_each(?1)",
            &[serde_json::to_string(terms).unwrap_or_else(|_| "[]".into()).into(), scope.everything().into()],
        )
    }

    /// The shared corpus's size and document frequencies, counted: for a
    /// corpus committed before `term_stats` existed.
    async fn count_shared(&self, terms: &[String]) -> Result<(u32, Vec<u32>), ApiError> {
        let shared = Scope::Shared;
        let batch = vec![
            self.statement("SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH ?1", &[shared.everything().into()])?,
            self.counts(&shared, terms)?,
        ];
        let results = self.db.batch(batch).await.map_err(dependency("count shared"))?;
        let result = |i: usize| nth(&results, i, "count shared");
        let rows: Vec<Count> = result(0)?.results().map_err(dependency("decode count"))?;
        Ok((rows.first().map_or(0, |r| r.n), counted(result(1)?, terms)?))
    }
}

#[derive(Deserialize)]
struct TermRow {
    term: String,
    passages: u32,
}

/// The sizes a lookup's IDF needs.
#[derive(Deserialize, Default)]
struct Sizes {
    digest: Option<String>,
    /// 1 when `term_stats` describes the committed corpus.
    stats_ready: Option<u32>,
    workspace_passages: u32,
}

#[derive(Deserialize)]
struct WorkspaceRow {
    id: String,
    version: String,
    expires_at: u64,
}

#[derive(Deserialize)]
struct EdgeRow {
    source: String,
    id: String,
    doc: String,
    section: String,
    text: String,
    origin: String,
}

impl EdgeRow {
    /// The referrer and the passage it refers to. (Not `#[serde(flatten)]`
    /// over a `HitRow`: that buffers every row and adds 6.6 KB of wasm.)
    fn into_edge(self) -> (String, StoredHit) {
        (self.source, HitRow { id: self.id, doc: self.doc, section: self.section, text: self.text, origin: self.origin }.into_hit())
    }
}

#[derive(Deserialize)]
struct HitRow {
    id: String,
    doc: String,
    section: String,
    text: String,
    origin: String,
}

impl HitRow {
    fn into_hit(self) -> StoredHit {
        StoredHit { id: self.id, doc: self.doc, section: self.section, text: self.text, origin: Origin::parse(&self.origin) }
    }
}
