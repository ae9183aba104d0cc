//! The review inbox over D1: [`ReviewQueue`] for the flow, and the admin
//! routes an operator works it with (`GET /admin/review`, `POST
//! /admin/review/{id}/approve`, `POST /admin/review/{id}/dismiss`). The rules
//! (what is queued, the passage an approval writes) are in `crate::review`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use worker::wasm_bindgen::JsValue;
use worker::{Context, D1Database, Env, Method, Request, Response};

use super::admin::require_admin;
use super::audit::D1Audit;
use super::d1::{database, dependency, rows, D1Corpus};
use super::ingest;
use super::ledger::D1Ledger;
use super::ports::workers_ai;
use super::{cache, config, json, now, now_ms, read_json_body, vectors};
use crate::api::error::ApiError;
use crate::api::response::Origin;
use crate::config::{Config, Engine};
use crate::corpus::ingest::{IngestPlan, StoredPassage};
use crate::corpus::vocabulary::Vocabulary;
use crate::ports::ReviewQueue;
use crate::review::{self, Approval, Closing, Desk, Enqueued, Evidence, OpenItem, Queued};

/// Largest approval body.
const MAX_APPROVAL_BODY: usize = 16 * 1024;

pub struct D1Review {
    pub db: D1Database,
}

impl ReviewQueue for D1Review {
    async fn enqueue(&self, item: &Queued, now: u64) -> Result<Enqueued, ApiError> {
        let evidence = serde_json::to_string(&item.evidence).unwrap_or_else(|_| "[]".into());
        let workspace = item.workspace.as_deref().map_or(JsValue::NULL, JsValue::from);
        let statement = self
            .db
            .prepare(
                "INSERT INTO review_queue (question_key, question, workspace, reason, evidence, first_at, last_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) \
                 ON CONFLICT (question_key) DO UPDATE SET count = count + 1, last_at = excluded.last_at, \
                 reason = excluded.reason, evidence = excluded.evidence \
                 RETURNING id, count, status = 'open' AS open",
            )
            .bind(&[
                item.question_key.as_str().into(),
                item.question.as_str().into(),
                workspace,
                item.reason.as_str().into(),
                evidence.into(),
                JsValue::from(now as f64),
            ])
            .map_err(dependency("bind review"))?;
        let queued: Vec<QueuedRow> = rows(statement, "review enqueue").await?;
        let row = queued.first().ok_or_else(|| ApiError::Dependency("D1 review enqueue: no row returned".into()))?;
        Ok(Enqueued { item: row.id, count: row.count, open: row.open != 0 })
    }
}

#[derive(Deserialize)]
struct QueuedRow {
    id: u64,
    count: u32,
    open: u8,
}

/// Routes `/admin/review` and below (the admin token is checked first).
pub async fn route(req: &mut Request, env: &Env, ctx: &Context) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let path = req.path();
    let parts: Vec<&str> = path.trim_start_matches("/admin/review").split('/').filter(|p| !p.is_empty()).collect();
    let item = |raw: &str| raw.parse::<u64>().map_err(|_| ApiError::NotFound);
    match (parts.as_slice(), req.method()) {
        ([], Method::Get) => list(env).await,
        ([], _) => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        ([id, "approve"], Method::Post) => approve(req, env, ctx, item(id)?).await,
        ([id, "dismiss"], Method::Post) => dismiss(env, ctx, item(id)?).await,
        ([_, "approve" | "dismiss"], _) => Err(ApiError::MethodNotAllowed { allow: "POST" }),
        _ => Err(ApiError::NotFound),
    }
}

#[derive(Deserialize)]
struct ItemRow {
    id: u64,
    question: String,
    workspace: Option<String>,
    reason: String,
    evidence: String,
    count: u32,
    first_at: u64,
    last_at: u64,
    status: String,
    passage_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    id: u64,
    question: String,
    workspace: Option<String>,
    reason: String,
    evidence: Vec<Evidence>,
    /// How many times it was asked and refused.
    count: u32,
    first_at: u64,
    last_at: u64,
    status: String,
    passage_id: Option<String>,
}

impl From<ItemRow> for Item {
    fn from(r: ItemRow) -> Item {
        Item {
            evidence: serde_json::from_str(&r.evidence).unwrap_or_default(),
            id: r.id,
            question: r.question,
            workspace: r.workspace,
            reason: r.reason,
            count: r.count,
            first_at: r.first_at,
            last_at: r.last_at,
            status: r.status,
            passage_id: r.passage_id,
        }
    }
}

const COLUMNS: &str = "id, question, workspace, reason, evidence, count, first_at, last_at, status, passage_id";

/// `GET /admin/review`: the open items, most asked first.
async fn list(env: &Env) -> Result<Response, ApiError> {
    let rows: Vec<ItemRow> = database(env)?
        .prepare(format!("SELECT {COLUMNS} FROM review_queue WHERE status = 'open' ORDER BY count DESC, last_at DESC LIMIT 200"))
        .all()
        .await
        .map_err(dependency("read review"))?
        .results()
        .map_err(dependency("decode review"))?;
    let items: Vec<Item> = rows.into_iter().map(Item::from).collect();
    Ok(json(200, &serde_json::json!({ "items": items })))
}

/// [`Desk`] over the bindings: the review queue, the corpus (a commit, or a
/// workspace write), the vectors, the ledger, the cache and the audit log.
struct D1Desk<'a> {
    env: &'a Env,
    ctx: &'a Context,
    config: Config,
    db: D1Database,
    corpus: D1Corpus,
}

impl<'a> D1Desk<'a> {
    fn new(env: &'a Env, ctx: &'a Context) -> Result<D1Desk<'a>, ApiError> {
        Ok(D1Desk { env, ctx, config: config(env)?, db: database(env)?, corpus: D1Corpus::new(env)? })
    }
}

impl Desk for D1Desk<'_> {
    async fn open_item(&self, id: u64) -> Result<OpenItem, ApiError> {
        let row: Option<ItemRow> = self
            .db
            .prepare(format!("SELECT {COLUMNS} FROM review_queue WHERE id = ?1"))
            .bind(&[JsValue::from(id as f64)])
            .map_err(dependency("bind review item"))?
            .first(None)
            .await
            .map_err(dependency("read review item"))?;
        let row = row.ok_or(ApiError::NotFound)?;
        if row.status != "open" {
            return Err(ApiError::BadRequest(format!("item {id} is {} already", row.status)));
        }
        Ok(OpenItem { question: row.question, workspace: row.workspace })
    }

    async fn workspace_live(&self, id: &str) -> Result<bool, ApiError> {
        let live = self
            .db
            .prepare("SELECT id FROM workspaces WHERE id = ?1 AND expires_at > ?2")
            .bind(&[id.into(), JsValue::from(now() as f64)])
            .map_err(dependency("bind workspace"))?
            .first::<serde_json::Value>(None)
            .await
            .map_err(dependency("read workspace"))?;
        Ok(live.is_some())
    }

    async fn shared_state(&self) -> Result<(String, Vocabulary), ApiError> {
        let state = self.corpus.fresh_state().await?;
        Ok((state.version, state.vocabulary))
    }

    async fn stored(&self, workspace: Option<&str>) -> Result<Vec<StoredPassage>, ApiError> {
        match workspace {
            Some(ws) => self.corpus.stored(Some(ws)).await,
            None => self.corpus.stored_in(&operator_doc()).await,
        }
    }

    async fn embed(&self, plan: &IngestPlan, workspace: Option<&str>, line: &str) -> Result<f64, ApiError> {
        if self.config.engine != Engine::WorkersAi {
            return Ok(0.0);
        }
        let billed = vectors::sync(&workers_ai(self.env, &self.config, f64::INFINITY)?, plan, workspace).await;
        D1Ledger { db: database(self.env)? }.record_billed(line, billed, now()).await
    }

    async fn write(&self, plan: &IngestPlan, workspace: Option<&str>) -> Result<String, ApiError> {
        match workspace {
            None => Ok(ingest::write_shared(self.env, self.ctx, plan, &operator_doc()).await?.corpus_version),
            Some(ws) => {
                self.corpus.apply_to_workspace(plan, ws, Origin::Operator, &self.config.workspaces).await?;
                Ok(plan.version.clone())
            }
        }
    }

    async fn forget_answer(&self, key: &str) -> Result<(), ApiError> {
        cache::forget(&self.db, key).await
    }

    async fn close(&self, id: u64, closing: &Closing) -> Result<(), ApiError> {
        let (status, passage) = match closing {
            Closing::Approved(passage) => ("approved", JsValue::from(passage.as_str())),
            Closing::Dismissed => ("dismissed", JsValue::NULL),
        };
        self.db
            .prepare("UPDATE review_queue SET status = ?2, passage_id = ?3 WHERE id = ?1")
            .bind(&[JsValue::from(id as f64), status.into(), passage])
            .map_err(dependency("bind close review"))?
            .run()
            .await
            .map_err(dependency("close review"))?;
        Ok(())
    }

    async fn record(&self, event: &str, now_ms: u64) -> Result<(), ApiError> {
        D1Audit { db: database(self.env)? }.append_body(event, now_ms, None).await
    }
}

/// The one document every operator passage of the shared corpus belongs to.
fn operator_doc() -> BTreeSet<String> {
    BTreeSet::from([review::OPERATOR_DOC.to_string()])
}

/// `POST /admin/review/{id}/approve`: [`review::approve`].
async fn approve(req: &mut Request, env: &Env, ctx: &Context, id: u64) -> Result<Response, ApiError> {
    let approval = Approval::parse(&read_json_body(req, MAX_APPROVAL_BODY).await?)?;
    let desk = D1Desk::new(env, ctx)?;
    Ok(json(200, &review::approve(&desk, &desk.config, id, &approval, now_ms()).await?))
}

/// Routes `/admin/passages` and below (the admin token is checked first):
/// the operator's approved passages in the shared corpus, listed and retired.
pub async fn passages(req: &Request, env: &Env, ctx: &Context) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let path = req.path();
    match (path.trim_start_matches("/admin/passages").trim_start_matches('/'), req.method()) {
        ("", Method::Get) => operator_passages(req, env).await,
        ("", _) => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        (id, Method::Delete) if !id.contains('/') => retire(env, ctx, id).await,
        (id, _) if !id.contains('/') => Err(ApiError::MethodNotAllowed { allow: "DELETE" }),
        _ => Err(ApiError::NotFound),
    }
}

#[derive(Serialize, Deserialize)]
struct OperatorPassage {
    id: String,
    section: String,
    text: String,
}

/// `GET /admin/passages?origin=operator`: every approved passage of the
/// shared corpus (the only origin listed: the corpus's own come from ingest).
async fn operator_passages(req: &Request, env: &Env) -> Result<Response, ApiError> {
    let url = req.url().map_err(|_| ApiError::BadRequest("the URL could not be read".into()))?;
    if url.query_pairs().find(|(k, _)| k == "origin").map(|(_, v)| v.into_owned()).as_deref() != Some("operator") {
        return Err(ApiError::BadRequest("list with `origin=operator`: only an operator's passages are listed and retired here".into()));
    }
    let statement = database(env)?.prepare(
        "SELECT id, section, text FROM passages WHERE workspace IS NULL AND origin = 'operator' ORDER BY id",
    );
    let passages: Vec<OperatorPassage> = super::d1::rows(statement, "operator passages").await?;
    Ok(json(200, &serde_json::json!({ "passages": passages })))
}

/// `DELETE /admin/passages/{id}`: [`review::retire_passage`].
async fn retire(env: &Env, ctx: &Context, id: &str) -> Result<Response, ApiError> {
    let version = review::retire_passage(&D1Desk::new(env, ctx)?, id, now_ms()).await?;
    Ok(json(200, &serde_json::json!({ "id": id, "retired": true, "corpusVersion": version })))
}

/// `POST /admin/review/{id}/dismiss`: [`review::dismiss`].
async fn dismiss(env: &Env, ctx: &Context, id: u64) -> Result<Response, ApiError> {
    review::dismiss(&D1Desk::new(env, ctx)?, id).await?;
    Ok(json(200, &serde_json::json!({ "id": id, "status": "dismissed" })))
}

/// The cron's part: items untouched since `before` (unix seconds) are
/// deleted, whatever their status (their question text goes with them).
pub async fn prune(env: &Env, before: u64) -> Result<(), ApiError> {
    database(env)?
        .prepare("DELETE FROM review_queue WHERE last_at < ?1")
        .bind(&[JsValue::from(before as f64)])
        .map_err(dependency("bind prune review"))?
        .run()
        .await
        .map_err(dependency("prune review"))?;
    Ok(())
}
