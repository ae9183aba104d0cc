//! The paged ingest of the shared corpus (admin routes) over D1: the routes
//! parse, run [`crate::ingesting`]'s use cases and respond; [`D1Staging`]
//! is its [`Staging`] port (the staged rows, the commit's transaction, the
//! vectors and the ledger). The one-shot `POST /admin/ingest` is the same
//! three steps with one page. The limits are in `crate::corpus::paging`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use worker::wasm_bindgen::JsValue;
use worker::{Context, D1PreparedStatement, Env, Request, Response};

use super::admin::require_admin;
use super::d1::{database, dependency, nth, rows, Count, D1Corpus, PassageWriter};
use super::ledger::D1Ledger;
use super::ports::workers_ai;
use super::webhooks;
use super::{config, json, new_request_id, now, read_json_body, vectorize, vectors};
use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::config::{Config, Engine};
use crate::corpus::ingest::{Digest, IngestPlan, StoredPassage};
use crate::corpus::paging::{self, BeginRequest, IngestRequest, PageRequest, StoredText, MAX_PAGE_BODY};
use crate::corpus::workspace::{self, Scope};
use crate::escalation::Escalation;
use crate::ingesting::{self, Applied, Commit, CommitBasis, Committed, Opened, PageBasis, Staging};
use crate::ports::CorpusState;

/// Largest one-shot ingest body.
const MAX_INGEST_BODY: usize = 8 * 1024 * 1024;
/// How long an unfinished ingest's staged pages are kept (the cron drops them).
const ABANDONED_AFTER_SECONDS: u64 = 86_400;

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
            Ok(json(200, &ingesting::begin(&D1Staging::new(env)?, &request).await?))
        }
        [id, "pages", n] => {
            paging::check_id(id)?;
            let page: u32 = n.parse().ok().filter(|n| *n < 1_000_000).ok_or(ApiError::NotFound)?;
            let request = PageRequest::parse(&read_json_body(req, MAX_PAGE_BODY).await?)?;
            Ok(json(200, &ingesting::page(&D1Staging::new(env)?, id, page, &request, Origin::Corpus).await?))
        }
        [id, "commit"] => {
            paging::check_id(id)?;
            Ok(json(200, &escalated(env, ctx, id, ingesting::commit(&D1Staging::new(env)?, id, None).await)?))
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
    let staging = D1Staging::new(env)?;
    let (begin, mut page) = IngestRequest::parse(&body, new_request_id())?;
    page.remove = ingesting::begin(&staging, &begin).await?.remove;
    let report = ingesting::page(&staging, &begin.ingest, 0, &page, Origin::Corpus).await?;
    let committed = escalated(env, ctx, &begin.ingest, ingesting::commit(&staging, &begin.ingest, None).await)?;
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
/// or one retired) with [`ingesting::write_operator`]. Its vectors are the
/// caller's to add; a commit removes those of removed passages.
pub async fn write_shared(env: &Env, ctx: &Context, plan: &IngestPlan, docs: &BTreeSet<String>) -> Result<Committed, ApiError> {
    let id = new_request_id();
    escalated(env, ctx, &id, ingesting::write_operator(&D1Staging::new(env)?, &id, plan, docs).await)
}

/// A commit's outcome; the operator is told when it went stale or failed
/// (not when the id is unknown: nothing was lost).
fn escalated(env: &Env, ctx: &Context, id: &str, committed: Result<Committed, ApiError>) -> Result<Committed, ApiError> {
    if let Err(e @ (ApiError::IngestStale | ApiError::Dependency(_))) = &committed {
        let failed = Escalation::IngestFailed { ingest: id.to_string(), code: e.code(), message: e.public_message() };
        webhooks::escalate(ctx, env, failed);
    }
    committed
}

/// References nothing in the corpus answers to.
const UNRESOLVED: &str = "FROM passage_refs r WHERE NOT EXISTS (SELECT 1 FROM passage_anchors a WHERE a.anchor = r.target)";

#[derive(Deserialize)]
struct IngestRow {
    base: String,
    vocabulary: String,
}

impl From<IngestRow> for Opened {
    fn from(row: IngestRow) -> Opened {
        Opened { base: row.base, vocabulary: row.vocabulary }
    }
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

/// [`Staging`] over D1 (and, on the Workers AI engine, Vectorize and the ledger).
struct D1Staging<'a> {
    env: &'a Env,
    config: Config,
    corpus: D1Corpus,
}

impl<'a> D1Staging<'a> {
    fn new(env: &'a Env) -> Result<Self, ApiError> {
        Ok(D1Staging { env, config: config(env)?, corpus: D1Corpus::new(env)? })
    }

    fn statement(&self, sql: &str, args: &[JsValue]) -> Result<D1PreparedStatement, ApiError> {
        self.corpus.db().prepare(sql).bind(args).map_err(dependency("bind ingest"))
    }

    /// The results of a batch of reads, by position.
    async fn read(&self, reads: Vec<D1PreparedStatement>, what: &'static str) -> Result<Vec<worker::D1Result>, ApiError> {
        self.corpus.db().batch(reads).await.map_err(dependency(what))
    }

    fn forget_statements(&self, id: &str) -> Result<Vec<D1PreparedStatement>, ApiError> {
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

    /// The statements that apply an ingest's staged rows: the one passage
    /// writer's, over the staged rows, into the shared corpus, then the term
    /// statistics. Each is one set-based statement, whatever the page count.
    fn apply_staged(&self, id: &str) -> Result<Vec<D1PreparedStatement>, ApiError> {
        let args = [id.into(), JsValue::NULL, workspace::token(None).into()];
        let mut statements = PassageWriter::Staged.statements(&self.corpus, &args, PassageWriter::ALL)?;
        statements.push(self.statement(
            "INSERT INTO term_stats (term, passages) SELECT term, sum(delta) FROM staged_terms WHERE ingest = ?1 GROUP BY term \
             ON CONFLICT (term) DO UPDATE SET passages = passages + excluded.passages",
            &[id.into()],
        )?);
        statements.push(self.statement("DELETE FROM term_stats WHERE passages <= 0", &[])?);
        Ok(statements)
    }
}

/// The first row of a read's results, decoded.
fn first<T: serde::de::DeserializeOwned>(result: &worker::D1Result, what: &'static str) -> Result<Option<T>, ApiError> {
    Ok(all::<T>(result, what)?.into_iter().next())
}

fn all<T: serde::de::DeserializeOwned>(result: &worker::D1Result, what: &'static str) -> Result<Vec<T>, ApiError> {
    result.results().map_err(dependency(what))
}

impl Staging for D1Staging<'_> {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        self.corpus.fresh_state().await
    }

    async fn opened(&self, id: &str) -> Result<Option<Opened>, ApiError> {
        let row: Option<IngestRow> = self
            .statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?
            .first(None)
            .await
            .map_err(dependency("read ingest"))?;
        Ok(row.map(Opened::from))
    }

    async fn pages_done(&self, id: &str) -> Result<Vec<u32>, ApiError> {
        let rows: Vec<PageRow> = rows(self.statement("SELECT page FROM ingest_pages WHERE ingest = ?1 ORDER BY page", &[id.into()])?, "read pages").await?;
        Ok(rows.into_iter().map(|r| r.page).collect())
    }

    async fn open(&self, id: &str, base: &str, vocabulary: &str) -> Result<(), ApiError> {
        let mut batch = self.forget_statements(id)?;
        batch.push(self.statement(
            "INSERT INTO ingests (id, base, vocabulary, created_at) VALUES (?1, ?2, ?3, ?4)",
            &[id.into(), base.into(), vocabulary.into(), JsValue::from(now() as f64)],
        )?);
        self.corpus.db().batch(batch).await.map_err(dependency("begin ingest"))?;
        Ok(())
    }

    async fn removable_docs(&self) -> Result<BTreeSet<String>, ApiError> {
        let sql = "SELECT DISTINCT doc FROM passages WHERE workspace IS NULL AND origin != 'operator'";
        let rows: Vec<DocRow> = rows(self.statement(sql, &[])?, "read documents").await?;
        Ok(rows.into_iter().map(|r| r.doc).collect())
    }

    async fn page_basis(&self, id: &str, page: u32, stems: &BTreeSet<String>) -> Result<PageBasis, ApiError> {
        let docs = serde_json::to_string(stems).unwrap_or_else(|_| "[]".into());
        let reads = vec![
            self.statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?,
            self.statement(
                "SELECT d.value AS value FROM ingest_pages p, json_each(p.docs) d \
                 WHERE p.ingest = ?1 AND p.page != ?2 AND d.value IN (SELECT value FROM json_each(?3)) LIMIT 1",
                &[id.into(), JsValue::from(page), docs.as_str().into()],
            )?,
            self.corpus.stored_of(stems)?,
            self.statement("SELECT value FROM meta WHERE key = 'vocabulary'", &[])?,
        ];
        let results = self.read(reads, "read page").await?;
        let stored = nth(&results, 2, "read page")?;
        Ok(PageBasis {
            opened: first::<IngestRow>(nth(&results, 0, "read page")?, "decode ingest")?.map(Opened::from),
            conflict: first::<ValueRow>(nth(&results, 1, "read page")?, "decode conflicts")?.map(|r| r.value),
            stored: all::<StoredPassage>(stored, "decode stored")?,
            old: all::<StoredText>(stored, "decode stored text")?,
            committed_vocabulary: first::<ValueRow>(nth(&results, 3, "read page")?, "decode vocabulary")?.map(|r| r.value),
        })
    }

    /// On the Workers AI engine: embeds and upserts the plan's changed
    /// passages, and records what that cost. Vectors of passages not yet
    /// committed are harmless: D1 holds the text, and a vector hit with no
    /// committed row is dropped.
    async fn embed(&self, plan: &IngestPlan) -> Result<f64, ApiError> {
        if self.config.engine != Engine::WorkersAi {
            return Ok(0.0);
        }
        let billed = vectors::upsert(&workers_ai(self.env, &self.config, f64::INFINITY)?, plan, None).await;
        D1Ledger { db: database(self.env)? }.record_billed(&format!("ingest-{}", new_request_id()), billed, now()).await
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

    async fn commit_basis(&self, id: &str) -> Result<CommitBasis, ApiError> {
        let reads = vec![
            self.statement("SELECT base, vocabulary FROM ingests WHERE id = ?1", &[id.into()])?,
            self.statement("SELECT delta FROM ingest_pages WHERE ingest = ?1", &[id.into()])?,
            self.statement("SELECT value FROM meta WHERE key = 'corpus_digest'", &[])?,
            self.statement("SELECT id FROM staged WHERE ingest = ?1 AND hash IS NULL", &[id.into()])?,
            self.statement("SELECT value FROM meta WHERE key = 'term_stats'", &[])?,
        ];
        let results = self.read(reads, "read commit").await?;
        let result = |i: usize| nth(&results, i, "read commit");
        Ok(CommitBasis {
            opened: first::<IngestRow>(result(0)?, "decode ingest")?.map(Opened::from),
            deltas: all::<DeltaRow>(result(1)?, "decode deltas")?.into_iter().map(|r| r.delta).collect(),
            stored_digest: first::<ValueRow>(result(2)?, "decode digest")?.map(|r| r.value),
            removed: all::<IdRow>(result(3)?, "decode removed")?.into_iter().map(|r| r.id).collect(),
            stats_of: first::<ValueRow>(result(4)?, "decode term stats")?.map(|r| r.value),
        })
    }

    async fn digest_from_rows(&self) -> Result<Digest, ApiError> {
        let rows: Vec<HashRow> = rows(self.statement("SELECT id, hash FROM passages WHERE workspace IS NULL", &[])?, "read hashes").await?;
        let mut digest = Digest::default();
        for row in rows {
            digest.add(&row.id, &row.hash);
        }
        Ok(digest)
    }

    /// One transaction: its first statement checks the base (`migrations/0015`),
    /// then the staged rows, the new version, digest, vocabulary and term
    /// statistics, the ingests an operator's write carries along, and the
    /// ingest's own rows out; the reference counts are read in it too. Only
    /// once its rows are gone do the removed passages' vectors go: a stale
    /// commit must not take vectors its passages still need.
    async fn apply(&self, commit: &Commit<'_>) -> Result<Applied, ApiError> {
        let id = commit.id;
        let index = match self.config.engine {
            Engine::WorkersAi if !commit.removed.is_empty() => {
                Some(vectorize::from_env(self.env).ok_or_else(|| ApiError::Misconfigured("the VECTORIZE binding is missing".into()))?)
            }
            _ => None,
        };
        let mut batch = vec![self.statement("INSERT INTO commit_checks (base) VALUES (?1)", &[commit.base.into()])?];
        batch.extend(self.apply_staged(id)?);
        for (key, value) in [
            ("vocabulary", commit.vocabulary_json.to_string()),
            ("corpus_version", commit.version.to_string()),
            ("corpus_digest", commit.digest.encode()),
            ("term_stats", commit.stats_version.to_string()),
        ] {
            batch.push(self.statement(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[key.into(), value.into()],
            )?);
        }
        if let Some(docs) = commit.carry {
            let docs = serde_json::to_string(docs).unwrap_or_else(|_| "[]".into());
            batch.push(self.statement(
                "UPDATE ingests SET base = ?1 WHERE id != ?2 AND base = ?3 AND NOT EXISTS \
                 (SELECT 1 FROM ingest_pages p, json_each(p.docs) d WHERE p.ingest = ingests.id AND d.value IN (SELECT value FROM json_each(?4)))",
                &[commit.version.into(), id.into(), commit.base.into(), docs.into()],
            )?);
        }
        batch.extend(self.forget_statements(id)?);
        batch.push(self.statement("DELETE FROM commit_checks", &[])?);
        let reports = batch.len();
        batch.push(self.statement("SELECT count(*) AS n FROM passage_refs", &[])?);
        batch.push(self.statement(&format!("SELECT count(*) AS n {UNRESOLVED}"), &[])?);
        batch.push(self.statement(&format!("SELECT r.passage || ' -> ' || r.target AS value {UNRESOLVED} ORDER BY r.passage, r.target LIMIT 5"), &[])?);
        let results = match self.corpus.db().batch(batch).await {
            Err(e) if e.to_string().contains("ingest_stale") => return Err(ApiError::IngestStale),
            written => written.map_err(dependency("commit ingest"))?,
        };
        // Vectors left by a failure here match no row, and a lookup drops them.
        if let Some(index) = index {
            if let Err(e) = vectors::remove(&index, commit.removed).await {
                worker::console_error!("commit {id}: vectors of removed passages stay in the index: {e}");
            }
        }
        let state = CorpusState { version: commit.version.to_string(), vocabulary: commit.vocabulary.clone(), scope: Scope::Shared, committed: true };
        self.corpus.committed(&state);
        let count = |i: usize| -> Result<u32, ApiError> { Ok(first::<Count>(nth(&results, reports + i, "commit")?, "decode references")?.map_or(0, |r| r.n)) };
        Ok(Applied {
            references: count(0)?,
            unresolved: count(1)?,
            unresolved_first: all::<ValueRow>(nth(&results, reports + 2, "commit")?, "decode unresolved")?.into_iter().map(|r| r.value).collect(),
        })
    }

    async fn forget(&self, id: &str) -> Result<(), ApiError> {
        self.corpus.db().batch(self.forget_statements(id)?).await.map_err(dependency("drop stale ingest"))?;
        Ok(())
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
