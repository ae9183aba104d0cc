//! The workspace routes: `POST /workspaces` creates one (its id and secret;
//! the secret also as an `HttpOnly` cookie for the demo page), `POST
//! /workspaces/{id}/documents?name=…` uploads a file to it, `GET
//! /workspaces/{id}` describes it and `DELETE /workspaces/{id}` deletes it.
//! Every route but create needs the workspace's secret. The rules (scope,
//! limits, the upload's plan) are in `corpus::workspace`; the cron deletes
//! expired workspaces through [`expire`].

use serde::{Deserialize, Serialize};
use worker::wasm_bindgen::JsValue;
use worker::{Context, D1Database, Env, Method, Request, Response};

use super::d1::{database, dependency, rows, D1Corpus};
use super::ports::{workers_ai, WorkerPorts};
use super::{cache, config, header, is_admin, json, now, vectorize, vectors, workspace_secret, TURNSTILE_HEADER};
use crate::api::error::{ApiError, DocumentError};
use crate::api::response::Origin;
use crate::config::Engine;
use crate::corpus::chunk;
use crate::corpus::workspace::{self, Document, DocumentKind, Limits};
use crate::cost;
use crate::flow::Flow;
use crate::guards::spend;
use crate::ports::{Corpus, Ports};

/// Expired workspaces deleted per cron run, all in one set-based delete
/// (about ten D1 queries, whatever the count): 2,400 a day at one run every
/// 30 minutes, more than `WORKSPACES_LIVE_MAX` lets anyone create.
const EXPIRE_PER_RUN: u32 = 50;
/// Vectorize deletes at most this many ids per call.
const DELETE_BATCH: usize = 1000;
/// Edge-cache copies a `DELETE` drops (one subrequest each); the cron's
/// expiry drops none, to stay within an invocation's subrequests.
const EDGE_FORGET_PER_DELETE: u32 = 20;

/// Routes `/workspaces` and below.
pub async fn route(req: &mut Request, env: &Env, ctx: &Context, request_id: &str) -> Result<Response, ApiError> {
    let path = req.path();
    let rest = path.strip_prefix("/workspaces").unwrap_or_default();
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    match (parts.as_slice(), req.method()) {
        ([], Method::Post) => create(req, env).await,
        ([], _) => Err(ApiError::MethodNotAllowed { allow: "POST" }),
        ([id], Method::Get) if workspace::is_id(id) => describe(req, env, id).await,
        ([id], Method::Delete) if workspace::is_id(id) => delete_route(req, env, id).await,
        ([id], _) if workspace::is_id(id) => Err(ApiError::MethodNotAllowed { allow: "GET, DELETE" }),
        ([id, "documents"], Method::Post) if workspace::is_id(id) => upload(req, env, ctx, id, request_id).await,
        ([id, "documents"], _) if workspace::is_id(id) => Err(ApiError::MethodNotAllowed { allow: "POST" }),
        _ => Err(ApiError::NotFound),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Created {
    id: String,
    /// Shown once: send it as the `Workspace-Secret` header (the page keeps it in a cookie).
    secret: String,
    /// Unix seconds.
    expires_at: u64,
    limits: LimitsBody,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LimitsBody {
    max_file_bytes: usize,
    max_chars: usize,
    max_passages: usize,
}

/// `POST /workspaces`: a new workspace, for a client Turnstile verified,
/// within its daily limit (neither for the admin token).
async fn create(req: &Request, env: &Env) -> Result<Response, ApiError> {
    let config = config(env)?;
    let limits = config.workspaces;
    let db = database(env)?;
    let now = now();
    if !is_admin(req, env) {
        let ports = WorkerPorts::new(env, &config, f64::INFINITY)?;
        let flow = Flow { ports: &ports, config: &config };
        let client_ip = header(req, "cf-connecting-ip");
        flow.verify(false, header(req, TURNSTILE_HEADER).as_deref(), client_ip.as_deref()).await?;
        count_creation(&db, &flow.client_key(client_ip.as_deref())?, &spend::utc_day(now), limits.per_client_per_day).await?;
    }
    let (id, secret) = credentials()?;
    let expires_at = now + limits.ttl_seconds;
    // One statement, so concurrent creations cannot pass the live cap together.
    let created: Option<serde_json::Value> = db
        .prepare(
            "INSERT INTO workspaces (id, secret_hash, created_at, expires_at, max_passages) SELECT ?1, ?2, ?3, ?4, ?5 \
             WHERE (SELECT count(*) FROM workspaces WHERE expires_at > ?3) < ?6 RETURNING id",
        )
        .bind(&[
            id.as_str().into(),
            workspace::secret_hash(&secret).into(),
            JsValue::from(now as f64),
            JsValue::from(expires_at as f64),
            JsValue::from(limits.max_passages as f64),
            JsValue::from(limits.max_live),
        ])
        .map_err(dependency("bind workspace"))?
        .first(None)
        .await
        .map_err(dependency("create workspace"))?;
    created.ok_or(ApiError::WorkspaceCapacity)?;
    let limits_body = LimitsBody { max_file_bytes: limits.max_file_bytes, max_chars: limits.max_chars, max_passages: limits.max_passages };
    let mut response = json(201, &Created { id, secret: secret.clone(), expires_at, limits: limits_body });
    if cookie_allowed(req) {
        let _ = response.headers_mut().set("set-cookie", &workspace::cookie(&secret, limits.ttl_seconds));
    }
    Ok(response)
}

/// [`workspace::cookie_allowed`] for this request.
fn cookie_allowed(req: &Request) -> bool {
    let Ok(url) = req.url() else { return false };
    workspace::cookie_allowed(&url.origin().ascii_serialization(), header(req, "origin").as_deref(), header(req, "sec-fetch-site").as_deref())
}

/// Counts one creation against the client's day: one conditional upsert,
/// so concurrent requests cannot pass the limit together.
async fn count_creation(db: &D1Database, client: &str, day: &str, limit: u32) -> Result<(), ApiError> {
    if limit == 0 {
        return Err(ApiError::WorkspaceLimit { limit });
    }
    // A row comes back only when the count was under the limit.
    let counted: Option<serde_json::Value> = db
        .prepare(
            "INSERT INTO workspace_creations (client_key, day, count) VALUES (?1, ?2, 1) \
             ON CONFLICT (client_key, day) DO UPDATE SET count = count + 1 WHERE count < ?3 RETURNING count",
        )
        .bind(&[client.into(), day.into(), JsValue::from(limit)])
        .map_err(dependency("bind workspace count"))?
        .first(None)
        .await
        .map_err(dependency("count workspaces"))?;
    counted.map(|_| ()).ok_or(ApiError::WorkspaceLimit { limit })
}

/// A new id and secret from the platform's CSPRNG. Without randomness there
/// is no workspace: a guessable secret would be no isolation at all.
fn credentials() -> Result<(String, String), ApiError> {
    let mut id = [0u8; 8];
    let mut secret = [0u8; 32];
    getrandom::getrandom(&mut id)
        .and_then(|()| getrandom::getrandom(&mut secret))
        .map_err(|e| ApiError::Dependency(format!("crypto.getRandomValues: {e}")))?;
    Ok((workspace::new_id(&id), workspace::new_secret(&secret)))
}

/// The live workspace `id`, if the request holds its secret.
async fn authorize(req: &Request, corpus: &D1Corpus, id: &str) -> Result<workspace::WorkspaceState, ApiError> {
    let secret = workspace_secret(req).filter(|s| workspace::is_secret(s)).ok_or(ApiError::WorkspaceUnknown)?;
    let found = corpus.workspace(&workspace::secret_hash(&secret), now()).await?;
    match found {
        Some(workspace) if workspace.id == id => Ok(workspace),
        Some(_) => Err(ApiError::WorkspaceMismatch),
        None => Err(ApiError::WorkspaceUnknown),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Uploaded {
    workspace: String,
    document: String,
    added: usize,
    updated: usize,
    unchanged: usize,
    removed: usize,
    /// Passages the workspace holds now.
    passages: usize,
    version: String,
    /// What embedding the new passages cost (Workers AI engine; 0 locally).
    embedding_neurons: f64,
}

/// `POST /workspaces/{id}/documents?name=…`: the body is the file, its
/// content type says what it is. A file of the same name is replaced.
async fn upload(req: &mut Request, env: &Env, ctx: &Context, id: &str, request_id: &str) -> Result<Response, ApiError> {
    let config = config(env)?;
    let limits = config.workspaces;
    let deadline = worker::js_sys::Date::now() + f64::from(config.request_deadline_ms);
    let ports = WorkerPorts::new(env, &config, deadline)?;
    let flow = Flow { ports: &ports, config: &config };
    let admin = is_admin(req, env);
    let client_ip = header(req, "cf-connecting-ip");
    // Before any D1 work: an unverified client costs one siteverify call.
    flow.verify(admin, header(req, TURNSTILE_HEADER).as_deref(), client_ip.as_deref()).await?;
    let corpus = D1Corpus::new(env)?;
    authorize(req, &corpus, id).await?;
    let name = file_name(req)?;
    let kind = DocumentKind::from_content_type(req.headers().get("content-type").ok().flatten().as_deref())?;
    let bytes = read_file(req, &limits).await?;
    let document = Document::read(kind, &name, bytes)?;
    let stored = corpus.stored(Some(id)).await?;
    let plan = workspace::plan_upload(id, &name, &document, &stored, &limits)?;
    let embedding_neurons = match config.engine {
        Engine::Local => 0.0,
        Engine::WorkersAi => {
            let client = match admin {
                true => None,
                false => Some(flow.client_key(client_ip.as_deref())?),
            };
            let models = workers_ai(env, &config, deadline)?;
            let amount = cost::embedding_bound(&config, &vectors::texts(&plan));
            // A failed run is charged its whole reservation by `pay_for`.
            let embed = async {
                let billed = vectors::sync(&models, &plan, Some(id)).await;
                billed.outcome.map(|()| (billed.neurons, billed.neurons))
            };
            let paid = flow.pay_for(request_id, client.as_deref(), amount, embed).await;
            ports.notifier().clone().send_later(ctx);
            paid?
        }
    };
    if let Err(refused) = corpus.apply_to_workspace(&plan, id, Origin::Upload, &limits).await {
        // Nothing was written: the new passages' vectors would be orphans.
        let added: Vec<String> = plan.added.iter().map(|p| p.id.clone()).collect();
        if let Err(e) = forget_vectors(env, &added).await {
            worker::console_error!("vectors of a refused upload stay in the index: {e}");
        }
        return Err(refused);
    }
    let kept = stored.len() - plan.removed.len() - plan.updated.len() - plan.unchanged.len();
    let body = Uploaded {
        workspace: id.to_string(),
        document: chunk::doc_stem(&name),
        added: plan.added.len(),
        updated: plan.updated.len(),
        unchanged: plan.unchanged.len(),
        removed: plan.removed.len(),
        passages: kept + plan.added.len() + plan.updated.len() + plan.unchanged.len(),
        version: plan.version,
        embedding_neurons,
    };
    Ok(json(200, &body))
}

/// The `name` query parameter: the file's name, which names its document.
fn file_name(req: &Request) -> Result<String, ApiError> {
    let url = req.url().map_err(|_| ApiError::BadRequest("the URL could not be read".into()))?;
    let name = url.query_pairs().find(|(k, _)| k == "name").map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    match name.chars().count() {
        0 => Err(ApiError::BadRequest("`name` (the file's name) is required".into())),
        n if n > 200 => Err(ApiError::BadRequest("`name` is longer than 200 characters".into())),
        _ => Ok(name),
    }
}

/// The body, refused before it is read when its declared length is over the
/// limit, and again if what arrives is.
async fn read_file(req: &mut Request, limits: &Limits) -> Result<Vec<u8>, ApiError> {
    let too_large = || ApiError::from(DocumentError::TooLarge { limit: limits.max_file_bytes });
    let declared = req.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    if declared > limits.max_file_bytes {
        return Err(too_large());
    }
    let bytes = req.bytes().await.map_err(|e| ApiError::BadRequest(format!("the body could not be read: {e}")))?;
    if bytes.len() > limits.max_file_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Described {
    id: String,
    expires_at: u64,
    version: String,
    documents: Vec<DocumentRow>,
}

#[derive(Serialize, Deserialize)]
struct DocumentRow {
    #[serde(rename(serialize = "name"))]
    doc: String,
    passages: u32,
}

/// `GET /workspaces/{id}`: its documents and version.
async fn describe(req: &Request, env: &Env, id: &str) -> Result<Response, ApiError> {
    let corpus = D1Corpus::new(env)?;
    let workspace = authorize(req, &corpus, id).await?;
    let statement = database(env)?
        .prepare("SELECT doc, count(*) AS passages FROM passages WHERE workspace = ?1 GROUP BY doc ORDER BY doc")
        .bind(&[id.into()])
        .map_err(dependency("bind documents"))?;
    let documents: Vec<DocumentRow> = rows(statement, "documents").await?;
    Ok(json(200, &Described { id: workspace.id, expires_at: workspace.expires_at, version: workspace.version, documents }))
}

/// `DELETE /workspaces/{id}`: everything of it, now, the edge tier's copies
/// of its cached answers too; the cookie is cleared.
async fn delete_route(req: &Request, env: &Env, id: &str) -> Result<Response, ApiError> {
    authorize(req, &D1Corpus::new(env)?, id).await?;
    for key in delete(env, &[id.to_string()]).await? {
        cache::forget_edge(&key).await;
    }
    let mut response = json(200, &serde_json::json!({ "id": id, "deleted": true }));
    let _ = response.headers_mut().set("set-cookie", &workspace::cookie("", 0));
    Ok(response)
}

#[derive(Deserialize)]
struct IdRow {
    id: String,
}

#[derive(Deserialize)]
struct KeyRow {
    key: String,
}

/// Deletes workspaces' vectors (when there is an index), then in one batch
/// their references, index rows, passages, cached answers, review items and
/// rows: set-based statements over the ids, so the D1 queries do not grow
/// with the count. Returns the keys (up to [`EDGE_FORGET_PER_DELETE`]) of
/// the cached answers whose edge copies remain: made under a workspace's
/// version, no request can reach them again, and they expire with the
/// cache's TTL.
async fn delete(env: &Env, ids: &[String]) -> Result<Vec<String>, ApiError> {
    let db = database(env)?;
    let ids = serde_json::to_string(ids).map_err(|e| ApiError::Dependency(format!("workspace ids: {e}")))?;
    let statement = |sql: &str| db.prepare(sql).bind(&[ids.as_str().into()]).map_err(dependency("bind delete workspaces"));
    const THEIRS: &str = "workspace IN (SELECT value FROM json_each(?1))";
    let cached = db
        .prepare(format!("SELECT key FROM answer_cache WHERE {THEIRS} LIMIT ?2"))
        .bind(&[ids.as_str().into(), JsValue::from(EDGE_FORGET_PER_DELETE)])
        .map_err(dependency("bind workspace answers"))?;
    let cached: Vec<KeyRow> = rows(cached, "workspace answers").await?;
    if vectorize::from_env(env).is_some() {
        let passages: Vec<IdRow> = rows(statement(&format!("SELECT id FROM passages WHERE {THEIRS}"))?, "workspace passages").await?;
        forget_vectors(env, &passages.into_iter().map(|r| r.id).collect::<Vec<_>>()).await?;
    }
    let batch = [
        format!("DELETE FROM passage_refs WHERE passage IN (SELECT id FROM passages WHERE {THEIRS})"),
        format!("DELETE FROM passage_anchors WHERE passage IN (SELECT id FROM passages WHERE {THEIRS})"),
        // An index row has its passage's rowid.
        format!("DELETE FROM passages_fts WHERE rowid IN (SELECT rowid FROM passages WHERE {THEIRS})"),
        format!("DELETE FROM passages WHERE {THEIRS}"),
        format!("DELETE FROM answer_cache WHERE {THEIRS}"),
        format!("DELETE FROM review_queue WHERE {THEIRS}"),
        "DELETE FROM workspaces WHERE id IN (SELECT value FROM json_each(?1))".to_string(),
    ]
    .iter()
    .map(|sql| statement(sql))
    .collect::<Result<Vec<_>, _>>()?;
    db.batch(batch).await.map_err(dependency("delete workspaces"))?;
    Ok(cached.into_iter().map(|row| row.key).collect())
}

/// Removes passages' vectors from the index, when there is one.
async fn forget_vectors(env: &Env, ids: &[String]) -> Result<(), ApiError> {
    let Some(index) = vectorize::from_env(env) else { return Ok(()) };
    for batch in ids.chunks(DELETE_BATCH) {
        index.remove(batch).await.map_err(|e| ApiError::Dependency(format!("Vectorize delete: {}", e.0)))?;
    }
    Ok(())
}

/// The cron's part: deletes up to [`EXPIRE_PER_RUN`] expired workspaces and
/// the creation counts of days gone by.
pub async fn expire(env: &Env) -> Result<(), ApiError> {
    let db = database(env)?;
    let now = now();
    let statement = db
        .prepare("SELECT id FROM workspaces WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2")
        .bind(&[JsValue::from(now as f64), JsValue::from(EXPIRE_PER_RUN)])
        .map_err(dependency("bind expired"))?;
    let expired: Vec<IdRow> = rows(statement, "expired workspaces").await?;
    if !expired.is_empty() {
        delete(env, &expired.into_iter().map(|row| row.id).collect::<Vec<_>>()).await?;
    }
    db.prepare("DELETE FROM workspace_creations WHERE day < ?1")
        .bind(&[spend::utc_day(now).into()])
        .map_err(dependency("bind prune creations"))?
        .run()
        .await
        .map_err(dependency("prune creations"))?;
    Ok(())
}
