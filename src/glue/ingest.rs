//! The paged ingest of the shared corpus (admin routes). `begin` opens (or
//! resumes) an ingest; each page diffs its documents against what is stored,
//! embeds and upserts their vectors, and stages its rows; `commit` applies
//! every staged row and the new version in one D1 transaction. Until then
//! `/ask` sees the corpus as it was. The one-shot `POST /admin/ingest` is the
//! same three steps with one page. The limits are in `crate::corpus::paging`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use worker::wasm_bindgen::JsValue;
use worker::{Context, D1PreparedStatement, Env, Request, Response};

use super::admin::require_admin;
use super::d1::{database, dependency, rows, Count, D1Corpus, PassageWriter};
use super::ledger::D1Ledger;
use super::ports::workers_ai;
use super::webhooks;
use super::{config, json, new_request_id, read_json_body, vectorize, vectors};
use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::config::Engine;
use crate::corpus::ingest::{self, Digest, IngestPlan, StoredPassage};
use crate::corpus::references::Patterns;
use crate::corpus::paging::{self, BeginRequest, IngestRequest, PageReport, PageRequest, StoredText, MAX_PAGE_BODY};
use crate::corpus::vocabulary::Vocabulary;
use crate::corpus::workspace::{self, Scope};
use crate::escalation::Escalation;
use crate::ports::CorpusState;

/// Largest one-shot ingest body.
const MAX_INGEST_BODY: usize = 8 * 1024 * 1024;
/// How long an unfinished ingest's staged pages are kept (the cron drops them).
const ABANDONED_AFTER_SECONDS: u64 = 86_400;

fn now() -> u64 {
    (worker::js_sys::Date::now() / 1000.0) as u64
}

/// `/admin/ingest/…`: begin, pages, commit.
pub async fn route(req: &mut Request, env: &Env, ctx: &Context, path: &str) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let parts: Vec<&str> = path.trim_start_matches("/admin/ingest/").split('/').collect();
    if req.method() != worker::Method::Post {
        return Err(ApiError::MethodNotAllowed { allow: "POST" });
    }
    match parts.as_slice() {
        ["begin"] => {
            let request = BeginRequest::parse(&read_json_body(req, MAX_PAGE_BODY).await?)?;
            Ok(json(200, &Staging::new(env)?.begin(&request).await?))
        }
        [id, "pages", n] => {
            paging::check_id(id)?;
            let page: u32 = n.parse().ok().filter(|n| *n < 1_000_000).ok_or(ApiError::NotFound)?;
            let request = PageRequest::parse(&read_json_body(req, MAX_PAGE_BODY).await?)?;
            let staging = Staging::new(env)?;
            let report = staging.page(env, id, page, &request, Origin::Corpus).await?;
            Ok(json(200, &report))
        }
        [id, "commit"] => {
            paging::check_id(id)?;
            Ok(json(200, &Staging::new(env)?.commit_or_escalate(env, ctx, id, None).await?))
        }
        _ => Err(ApiError::NotFound),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IngestReport {
    added: Vec<String>,
    updated: Vec<String>,
    unchanged: usize,
    removed: Vec<String>,
    passages: u64,
    corpus_version: String,
    /// The hash of the corpus's vocabulary ("none" without one).
    vocabulary: String,
    /// What embedding the changed passages cost (Workers AI engine; 0 locally),
    /// recorded in the day's ledger as a line of its own.
    embedding_neurons: f64,
}

/// `POST /admin/ingest`: a corpus small enough for one request, as one page.
pub async fn one_shot(req: &mut Request, env: &Env, ctx: &Context) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, MAX_INGEST_BODY).await?;
    let staging = Staging::new(env)?;
    let (begin, mut page) = IngestRequest::parse(&body, new_request_id())?;
    page.remove = staging.begin(&begin).await?.remove;
    let report = staging.page(env, &begin.ingest, 0, &page, Origin::Corpus).await?;
    let committed = staging.commit_or_escalate(env, ctx, &begin.ingest, None).await?;
    Ok(json(
        200,
        &IngestReport {
            added: report.added,
            updated: report.updated,
            unchanged: report.unchanged,
            removed: report.removed,
            passages: committed.passages,
            corpus_version: committed.corpus_version,
            vocabulary: committed.vocabulary,
            embedding_neurons: report.embedding_neurons,
        },
    ))
}

/// Writes an operator's change to the shared corpus (an approved passage,
/// or one retired) as a page of its own, committed at once; `docs` are the
/// documents it touches. Its vectors are the caller's to add; a commit
/// removes those of removed passages.
pub async fn write_shared(env: &Env, ctx: &Context, plan: &IngestPlan, docs: &BTreeSet<String>, origin: Origin) -> Result<Committed, ApiError> {
    let staging = Staging::new(env)?;
    let begin = BeginRequest { ingest: new_request_id(), complete: false, vocabulary: None, documents: Vec::new() };
    staging.begin(&begin).await?;
    let old: Vec<StoredText> = rows(staging.corpus.stored_of(docs)?, "read stored text").await?;
    let words = staging.corpus.fresh_state().await?.vocabulary.references;
    let rows = paging::staged_rows(plan, origin, &Patterns::new(&words), None)?;
    staging.stage(&begin.ingest, 0, plan, rows, &old, docs).await?;
    staging.commit_or_escalate(env, ctx, &begin.ingest, Some(docs)).await
}

/// What `begin` answers: the pages already staged (a resumed ingest skips
/// them) and the stored documents the ingest's pages must remove.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Begun {
    ingest: String,
    base: String,
    pages_done: Vec<u32>,
    remove: Vec<String>,
}

/// What a commit answers.
#[derive(Serialize)]
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

/// References nothing in the corpus answers to.
const UNRESOLVED: &str = "FROM passage_refs r WHERE NOT EXISTS (SELECT 1 FROM passage_anchors a WHERE a.anchor = r.target)";

#[derive(Deserialize)]
struct IngestRow {
    base: String,
    vocabulary: String,
}

#[derive(Deserialize)]
struct PageRow {
    page: u32,
}

#[derive(Deserialize)]
struct DeltaRow {
    delta: String,
}

#[derive(Deserialize)]
struct DocRow {
    doc: String,
}

#[derive(Deserialize)]
struct IdRow {
    id: String,
}

#[derive(Deserialize)]
struct HashRow {
    id: String,
    hash: String,
}

#[derive(Deserialize)]
struct ValueRow {
    value: String,
}

/// The D1 side of a paged ingest.
struct Staging {
    corpus: D1Corpus,
}

impl Staging {
    fn new(env: &Env) -> Result<Self, ApiError> {
        Ok(Staging { corpus: D1Corpus::new(env)? })
    }

    fn statement(&self, sql: &str, args: &[JsValue]) -> Result<D1PreparedStatement, ApiError> {
        self.corpus.db().prepare(sql).bind(args).map_err(dependency("bind ingest"))
    }

    /// The shared corpus's documents that an ingest may remove (not an
    /// operator's approved answers).
    async fn stored_docs(&self) -> Result<BTreeSet<String>, ApiError> {
        let sql = "SELECT DISTINCT doc FROM passages WHERE workspace IS NULL AND origin != 'operator'";
        let rows: Vec<DocRow> = rows(self.statement(sql, &[])?, "read documents").await?;
        Ok(rows.into_iter().map(|r| r.doc).collect())
    }

    /// Opens the ingest, or resumes it if it was begun against the corpus as
    /// it is now; one begun against an older corpus starts over.
    async fn begin(&self, request: &BeginRequest) -> Result<Begun, ApiError> {
        let state = self.corpus.fresh_state().await?;
        let id = request.ingest.as_str();
        let existing: Option<IngestRow> = self
            .statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?
            .first(None)
            .await
            .map_err(dependency("read ingest"))?;
        let vocabulary = request.vocabulary_after(&state.vocabulary).canonical();
        let pages_done = match existing {
            Some(row) if row.base == state.version && row.vocabulary == vocabulary => {
                let rows: Vec<PageRow> = rows(self.statement("SELECT page FROM ingest_pages WHERE ingest = ?1 ORDER BY page", &[id.into()])?, "read pages").await?;
                rows.into_iter().map(|r| r.page).collect()
            }
            _ => {
                let mut batch = self.forget(id)?;
                batch.push(self.statement(
                    "INSERT INTO ingests (id, base, vocabulary, created_at) VALUES (?1, ?2, ?3, ?4)",
                    &[id.into(), state.version.as_str().into(), vocabulary.into(), JsValue::from(now() as f64)],
                )?);
                self.corpus.db().batch(batch).await.map_err(dependency("begin ingest"))?;
                Vec::new()
            }
        };
        let remove = request.to_remove(&self.stored_docs().await?);
        Ok(Begun { ingest: id.to_string(), base: state.version, pages_done, remove })
    }

    /// Diffs one page against the stored passages of its documents, embeds
    /// and upserts what changed (Workers AI engine, its cost in the ledger),
    /// and stages its rows. Sending a page again replaces it.
    async fn page(&self, env: &Env, id: &str, page: u32, request: &PageRequest, origin: Origin) -> Result<PageReport, ApiError> {
        let stems = request.stems();
        let docs = serde_json::to_string(&stems).unwrap_or_else(|_| "[]".into());
        let reads = vec![
            self.statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?,
            self.statement(
                "SELECT d.value AS value FROM ingest_pages p, json_each(p.docs) d \
                 WHERE p.ingest = ?1 AND p.page != ?2 AND d.value IN (SELECT value FROM json_each(?3)) LIMIT 1",
                &[id.into(), JsValue::from(page), docs.as_str().into()],
            )?,
            self.corpus.stored_of(&stems)?,
            self.statement("SELECT value FROM meta WHERE key = 'vocabulary'", &[])?,
        ];
        let results = self.corpus.db().batch(reads).await.map_err(dependency("read page"))?;
        let result = |i: usize| results.get(i).ok_or_else(|| ApiError::Dependency(format!("D1 read page: no result {i}")));
        let ingest: Vec<IngestRow> = result(0)?.results().map_err(dependency("decode ingest"))?;
        if ingest.is_empty() {
            return Err(ApiError::IngestUnknown);
        }
        let conflicts: Vec<ValueRow> = result(1)?.results().map_err(dependency("decode conflicts"))?;
        if let Some(doc) = conflicts.first() {
            return Err(ApiError::IngestConflict(format!("the document {:?} is in another page of this ingest", doc.value)));
        }
        let stored: Vec<StoredPassage> = result(2)?.results().map_err(dependency("decode stored"))?;
        let old: Vec<StoredText> = result(2)?.results().map_err(dependency("decode stored text"))?;
        let committed: Vec<ValueRow> = result(3)?.results().map_err(dependency("decode vocabulary"))?;
        // Only vocabularies that passed their checks are stored.
        let vocabulary = |json: Option<&str>| json.and_then(|v| serde_json::from_str::<Vocabulary>(v).ok()).unwrap_or_default();
        let words = vocabulary(Some(&ingest[0].vocabulary)).references;
        let incoming = request.passages();
        let mut plan = ingest::plan(&stored, incoming.clone(), &stems, false, &Vocabulary::default());
        if words != vocabulary(committed.first().map(|r| r.value.as_str())).references {
            plan.restage(&incoming);
        }
        let neurons = self.embed(env, &plan).await?;
        let rows = paging::staged_rows(&plan, origin, &Patterns::new(&words), None)?;
        self.stage(id, page, &plan, rows, &old, &stems).await?;
        Ok(PageReport::new(page, &plan, neurons))
    }

    /// On the Workers AI engine: embeds and upserts the plan's changed
    /// passages, and records what that cost. Vectors of passages not yet
    /// committed are harmless: D1 holds the text, and a vector hit with no
    /// committed row is dropped.
    async fn embed(&self, env: &Env, plan: &IngestPlan) -> Result<f64, ApiError> {
        let config = config(env)?;
        if config.engine != Engine::WorkersAi {
            return Ok(0.0);
        }
        let billed = vectors::upsert(&workers_ai(env, &config, f64::INFINITY)?, plan, None).await;
        D1Ledger { db: database(env)? }.record_billed(&format!("ingest-{}", new_request_id()), billed, now()).await
    }

    /// Replaces the page's staged rows (`rows`, from
    /// [`paging::staged_rows`]) and term deltas and records its documents
    /// and digest delta, in one transaction. `old` holds the stored
    /// passages of its documents (their terms leave the statistics).
    async fn stage(&self, id: &str, page: u32, plan: &IngestPlan, rows: Vec<String>, old: &[StoredText], stems: &BTreeSet<String>) -> Result<(), ApiError> {
        let page_arg = JsValue::from(page);
        let terms = paging::staged_terms(&paging::term_deltas(plan, old));
        paging::check_statements(&rows, &terms)?;
        let mut batch = vec![
            self.statement("DELETE FROM staged WHERE ingest = ?1 AND page = ?2", &[id.into(), page_arg.clone()])?,
            self.statement("DELETE FROM staged_terms WHERE ingest = ?1 AND page = ?2", &[id.into(), page_arg.clone()])?,
        ];
        for deltas in terms {
            batch.push(self.statement(
                "INSERT INTO staged_terms (ingest, page, term, delta) SELECT ?1, ?2, key, value FROM json_each(?3)",
                &[id.into(), page_arg.clone(), deltas.into()],
            )?);
        }
        for rows in rows {
            batch.push(self.statement(
                "INSERT INTO staged (ingest, page, id, doc, section, text, hash, origin, terms, heading, refs, anchors) \
                 SELECT ?1, ?2, json_extract(value, '$.id'), json_extract(value, '$.doc'), json_extract(value, '$.section'), \
                 json_extract(value, '$.text'), json_extract(value, '$.hash'), json_extract(value, '$.origin'), \
                 json_extract(value, '$.terms'), json_extract(value, '$.heading'), json_extract(value, '$.refs'), \
                 json_extract(value, '$.anchors') FROM json_each(?3)",
                &[id.into(), page_arg.clone(), rows.into()],
            )?);
        }
        let docs = serde_json::to_string(stems).unwrap_or_else(|_| "[]".into());
        batch.push(self.statement(
            "INSERT INTO ingest_pages (ingest, page, docs, delta) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (ingest, page) DO UPDATE SET docs = excluded.docs, delta = excluded.delta",
            &[id.into(), page_arg, docs.into(), plan.delta.encode().into()],
        )?);
        self.corpus.db().batch(batch).await.map_err(dependency("stage page"))?;
        Ok(())
    }

    /// Commits ingest `id`; the operator is told when it goes stale or fails
    /// (not when the id is unknown: nothing was lost).
    async fn commit_or_escalate(&self, env: &Env, ctx: &Context, id: &str, carry: Option<&BTreeSet<String>>) -> Result<Committed, ApiError> {
        let committed = self.commit(env, id, carry).await;
        if let Err(e @ (ApiError::IngestStale | ApiError::Dependency(_))) = &committed {
            let failed = Escalation::IngestFailed { ingest: id.to_string(), code: e.code(), message: e.public_message() };
            webhooks::escalate(ctx, env, failed);
        }
        committed
    }

    /// Applies every staged page and the new version in one transaction, if
    /// the corpus is still the one the ingest began against: checked first
    /// (the common case, before any work), and again inside the transaction
    /// (`migrations/0015`), where no other commit can slip between.
    ///
    /// `carry`: an operator's write, which changes only these documents (its
    /// own, which no ingest removes). Ingests in flight that staged none of
    /// them stay good on the new version, so they are moved on to it rather
    /// than made stale: an approval during a long ingest does not make it
    /// start over (and embed everything again).
    async fn commit(&self, env: &Env, id: &str, carry: Option<&BTreeSet<String>>) -> Result<Committed, ApiError> {
        let reads = vec![
            self.statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?,
            self.statement("SELECT delta FROM ingest_pages WHERE ingest = ?1", &[id.into()])?,
            self.statement("SELECT value FROM meta WHERE key = 'corpus_digest'", &[])?,
            self.statement("SELECT id FROM staged WHERE ingest = ?1 AND hash IS NULL", &[id.into()])?,
            self.statement("SELECT value FROM meta WHERE key = 'term_stats'", &[])?,
        ];
        let results = self.corpus.db().batch(reads).await.map_err(dependency("read commit"))?;
        let result = |i: usize| results.get(i).ok_or_else(|| ApiError::Dependency(format!("D1 read commit: no result {i}")));
        let ingest: Vec<IngestRow> = result(0)?.results().map_err(dependency("decode ingest"))?;
        let ingest = ingest.into_iter().next().ok_or(ApiError::IngestUnknown)?;
        let deltas: Vec<DeltaRow> = result(1)?.results().map_err(dependency("decode deltas"))?;
        let stored_digest: Vec<ValueRow> = result(2)?.results().map_err(dependency("decode digest"))?;
        let removed: Vec<IdRow> = result(3)?.results().map_err(dependency("decode removed"))?;
        let stats_of: Vec<ValueRow> = result(4)?.results().map_err(dependency("decode term stats"))?;

        if self.corpus.fresh_state().await?.version != ingest.base {
            return self.stale(id).await;
        }
        let base = match stored_digest.first().and_then(|r| Digest::decode(&r.value)) {
            Some(digest) => digest,
            None => self.digest_from_rows().await?,
        };
        let digest = deltas.iter().filter_map(|d| Digest::decode(&d.delta)).fold(base, Digest::plus);
        let vocabulary: Vocabulary = serde_json::from_str(&ingest.vocabulary).unwrap_or_default();
        let version = digest.version(&vocabulary);

        let index = match config(env)?.engine {
            Engine::WorkersAi if !removed.is_empty() => {
                Some(vectorize::from_env(env).ok_or_else(|| ApiError::Misconfigured("the VECTORIZE binding is missing".into()))?)
            }
            _ => None,
        };
        // The statistics stay complete if they were for the corpus this
        // ingest changes (or it was empty); a corpus committed before they
        // existed is counted live until it is ingested afresh.
        let stats_complete = base.count() == 0 || stats_of.first().is_some_and(|r| r.value == ingest.base);
        let stats_version = if stats_complete { version.clone() } else { "incomplete".to_string() };
        let mut batch = vec![self.statement("INSERT INTO commit_checks (base) VALUES (?1)", &[ingest.base.as_str().into()])?];
        batch.extend(self.apply(id)?);
        for (key, value) in [
            ("vocabulary", ingest.vocabulary.clone()),
            ("corpus_version", version.clone()),
            ("corpus_digest", digest.encode()),
            ("term_stats", stats_version),
        ] {
            batch.push(self.statement(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[key.into(), value.into()],
            )?);
        }
        if let Some(docs) = carry {
            let docs = serde_json::to_string(docs).unwrap_or_else(|_| "[]".into());
            batch.push(self.statement(
                "UPDATE ingests SET base = ?1 WHERE id != ?2 AND base = ?3 AND NOT EXISTS \
                 (SELECT 1 FROM ingest_pages p, json_each(p.docs) d WHERE p.ingest = ingests.id AND d.value IN (SELECT value FROM json_each(?4)))",
                &[version.as_str().into(), id.into(), ingest.base.as_str().into(), docs.into()],
            )?);
        }
        batch.extend(self.forget(id)?);
        batch.push(self.statement("DELETE FROM commit_checks", &[])?);
        let reports = batch.len();
        batch.push(self.statement("SELECT count(*) AS n FROM passage_refs", &[])?);
        batch.push(self.statement(&format!("SELECT count(*) AS n {UNRESOLVED}"), &[])?);
        batch.push(self.statement(&format!("SELECT r.passage || ' -> ' || r.target AS value {UNRESOLVED} ORDER BY r.passage, r.target LIMIT 5"), &[])?);
        let results = match self.corpus.db().batch(batch).await {
            Err(e) if e.to_string().contains("ingest_stale") => return self.stale(id).await,
            written => written.map_err(dependency("commit ingest"))?,
        };
        // Only once the rows are gone: a stale commit must not take vectors
        // its passages still need. Vectors left by a failure here match no
        // row, and a lookup drops them.
        if let Some(index) = index {
            if let Err(e) = vectors::remove(&index, &removed.into_iter().map(|r| r.id).collect::<Vec<_>>()).await {
                worker::console_error!("commit {id}: vectors of removed passages stay in the index: {e}");
            }
        }
        self.corpus.committed(&CorpusState { version: version.clone(), vocabulary: vocabulary.clone(), scope: Scope::Shared, committed: true });
        let result = |i: usize| results.get(reports + i).ok_or_else(|| ApiError::Dependency(format!("D1 commit: no result {i}")));
        let count = |i: usize| -> Result<u32, ApiError> {
            let rows: Vec<Count> = result(i)?.results().map_err(dependency("decode references"))?;
            Ok(rows.first().map_or(0, |r| r.n))
        };
        let first: Vec<ValueRow> = result(2)?.results().map_err(dependency("decode unresolved"))?;
        Ok(Committed {
            corpus_version: version,
            passages: digest.count(),
            vocabulary: vocabulary.hash(),
            pages: deltas.len(),
            references: count(0)?,
            unresolved: count(1)?,
            unresolved_first: first.into_iter().map(|r| r.value).collect(),
        })
    }

    /// The statements that apply an ingest's staged rows: the one passage
    /// writer's, over the staged rows, into the shared corpus, then the term
    /// statistics. Each is one set-based statement, whatever the page count.
    fn apply(&self, id: &str) -> Result<Vec<D1PreparedStatement>, ApiError> {
        let args = [id.into(), JsValue::NULL, workspace::token(None).into()];
        let mut statements = PassageWriter::Staged.statements(&self.corpus, &args, 0)?;
        statements.push(self.statement(
            "INSERT INTO term_stats (term, passages) SELECT term, sum(delta) FROM staged_terms WHERE ingest = ?1 GROUP BY term \
             ON CONFLICT (term) DO UPDATE SET passages = passages + excluded.passages",
            &[id.into()],
        )?);
        statements.push(self.statement("DELETE FROM term_stats WHERE passages <= 0", &[])?);
        Ok(statements)
    }

    /// The statements that drop an ingest and everything it staged.
    /// Drops a stale ingest's staged pages: it must begin again.
    async fn stale<T>(&self, id: &str) -> Result<T, ApiError> {
        self.corpus.db().batch(self.forget(id)?).await.map_err(dependency("drop stale ingest"))?;
        Err(ApiError::IngestStale)
    }

    fn forget(&self, id: &str) -> Result<Vec<D1PreparedStatement>, ApiError> {
        [
            "DELETE FROM staged WHERE ingest = ?1",
            "DELETE FROM staged_terms WHERE ingest = ?1",
            "DELETE FROM ingest_pages WHERE ingest = ?1",
            "DELETE FROM ingests WHERE id = ?1",
        ]
            .iter()
            .map(|sql| self.statement(sql, &[id.into()]))
            .collect()
    }

    /// The digest of the shared corpus from its rows: once, for a corpus
    /// ingested before digests were stored.
    async fn digest_from_rows(&self) -> Result<Digest, ApiError> {
        let rows: Vec<HashRow> = rows(self.statement("SELECT id, hash FROM passages WHERE workspace IS NULL", &[])?, "read hashes").await?;
        let mut digest = Digest::default();
        for row in rows {
            digest.add(&row.id, &row.hash);
        }
        Ok(digest)
    }
}

/// The cron's part: ingests begun more than a day ago and never committed
/// are dropped with their staged rows.
pub async fn prune(env: &Env) -> Result<(), ApiError> {
    let cutoff = JsValue::from(now().saturating_sub(ABANDONED_AFTER_SECONDS) as f64);
    let db = database(env)?;
    let old = "SELECT id FROM ingests WHERE created_at < ?1";
    let statements = [
        format!("DELETE FROM staged WHERE ingest IN ({old})"),
        format!("DELETE FROM staged_terms WHERE ingest IN ({old})"),
        format!("DELETE FROM ingest_pages WHERE ingest IN ({old})"),
        "DELETE FROM ingests WHERE created_at < ?1".to_string(),
    ]
    .iter()
    .map(|sql| db.prepare(sql).bind(std::slice::from_ref(&cutoff)).map_err(dependency("bind prune ingests")))
    .collect::<Result<Vec<_>, _>>()?;
    db.batch(statements).await.map_err(dependency("prune ingests"))?;
    Ok(())
}
