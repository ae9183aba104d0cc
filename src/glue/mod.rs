//! The edge: the only code that touches JS. It turns a `Request` into typed
//! input, runs the pure core, and turns the outcome into a `Response`. Every
//! error leaves as JSON with a stable code; detail of 5xx goes to the log only.

mod ai;
mod ask;
mod audit;
mod d1;
mod guards;
mod js;
mod models;
mod search;
mod stream;
mod turnstile;
mod vectorize;
mod vectors;

use serde::Serialize;
use worker::{console_error, event, Context, Env, Headers, Method, Request, Response};

use crate::api::auth;
use crate::api::cors;
use crate::corpus::chunk::hex;
use crate::config::{Config, Engine};
use crate::guards::spend;
use crate::api::error::ApiError;
use crate::corpus::ingest::{self, IngestRequest};
use crate::stages::pipeline::{Clock, Corpus};
use crate::api::request;
use crate::api::response::ErrorBody;
use d1::D1Corpus;

/// Largest ingest body: a corpus of Markdown sent in one request.
const MAX_INGEST_BODY: usize = 8 * 1024 * 1024;

/// `Date.now()`: in Workers it advances across I/O, which is what stage timings measure.
struct JsClock;

impl Clock for JsClock {
    fn now_ms(&self) -> f64 {
        worker::js_sys::Date::now()
    }
}

#[event(fetch)]
async fn fetch(mut req: Request, env: Env, ctx: Context) -> worker::Result<Response> {
    let request_id = new_request_id();
    let path = req.path();
    let origin = req.headers().get("origin").ok().flatten();
    let preflight = req.method() == Method::Options;
    let response = if stream::wants_events(&req) && !preflight {
        stream::ask(req, env.clone(), &ctx, request_id).await
    } else {
        match route(&mut req, &env, &request_id).await {
            Ok(response) => response,
            Err(err) => error_response(&err, &request_id),
        }
    };
    Ok(with_cors(response, &path, origin.as_deref(), preflight, &env))
}

async fn route(req: &mut Request, env: &Env, request_id: &str) -> Result<Response, ApiError> {
    let path = req.path();
    if req.method() == Method::Options && cors::PUBLIC_ROUTES.contains(&path.as_str()) {
        // A preflight; `with_cors` adds the headers if the origin is allowed.
        return Ok(Response::builder().with_status(204).empty());
    }
    match path.as_str() {
        "/ask" => ask::ask(req, env, request_id, None).await.map(ask::Answered::into_response),
        "/admin/ingest" if req.method() == Method::Post => admin_ingest(req, env).await,
        "/admin/spend" if req.method() == Method::Get => admin_spend(req, env).await,
        "/admin/spend" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/admin/spend/release" if req.method() == Method::Post => admin_release(req, env).await,
        "/admin/cache/pin" if req.method() == Method::Post => admin_pin(req, env).await,
        "/admin/ingest" | "/admin/spend/release" | "/admin/cache/pin" => Err(ApiError::MethodNotAllowed { allow: "POST" }),
        "/admin/audit/verify" if req.method() == Method::Get => admin_verify(req, env).await,
        "/admin/audit/verify" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/search" if req.method() == Method::Get => search::search(req, env, request_id).await,
        "/search" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/health" if req.method() == Method::Get => health(env).await,
        "/health" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
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
    passages: usize,
    corpus_version: String,
    /// The hash of the corpus's vocabulary ("none" without one).
    vocabulary: String,
    /// What embedding the changed passages cost (Workers AI engine; 0 locally).
    embedding_neurons: f64,
}

async fn admin_ingest(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, MAX_INGEST_BODY).await?;
    let request = IngestRequest::parse(&body)?;
    let corpus = D1Corpus::new(env)?;
    let stored = corpus.stored().await?;
    let vocabulary = request.vocabulary_after(&corpus.vocabulary().await?);
    let plan = ingest::plan(&stored, request.passages(), &request.stems(), request.complete, &vocabulary);
    let config = config(env)?;
    let embedding_neurons = match config.engine {
        Engine::Local => 0.0,
        Engine::WorkersAi => vectors::sync(&ask::workers_ai(env, &config)?, &plan).await?,
    };
    corpus.apply(&plan).await?;
    let ids = |ps: &[crate::corpus::chunk::Passage]| ps.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    let report = IngestReport {
        added: ids(&plan.added),
        updated: ids(&plan.updated),
        unchanged: plan.unchanged.len(),
        passages: stored.len() + plan.added.len() - plan.removed.len(),
        vocabulary: plan.vocabulary.hash(),
        removed: plan.removed,
        corpus_version: plan.version,
        embedding_neurons,
    };
    Ok(json(200, &report))
}

async fn admin_spend(req: &Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let config = config(env)?;
    let day = spend::utc_day((worker::js_sys::Date::now() / 1000.0) as u64);
    let ledger = guards::ledger(env, &day, config.daily_cap_neurons(), crate::cost::request_upper_bound(&config)).await?;
    Ok(json(200, &ledger))
}

/// `GET /admin/audit/verify`: walks the chain; OK with the row count, or the
/// first row whose body, hash or place does not check out.
async fn admin_verify(req: &Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let rows = audit::rows(env).await?;
    let body = match crate::guards::audit::verify(&rows) {
        Ok(count) => serde_json::json!({ "ok": true, "rows": count }),
        Err(broken) => serde_json::json!({ "ok": false, "rows": rows.len(), "firstBadRow": broken.seq, "why": broken.why }),
    };
    Ok(json(200, &body))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PinRequest {
    questions: Vec<String>,
}

/// `POST /admin/cache/pin {"questions": [...]}`: pins the cached answers of these
/// questions (under the current corpus version and configuration) so they never
/// expire: the answers served when the day's budget is gone. Questions without a
/// cached answer are listed as not pinned; ask them first (scripts/warm-cache).
async fn admin_pin(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, 256 * 1024).await?;
    let PinRequest { questions } = serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("pin body: {e}")))?;
    let config = config(env)?;
    let version = D1Corpus::new(env)?.version().await?;
    let keys: Vec<String> = questions.iter().map(|q| crate::guards::cache::key(q, &version, &config)).collect();
    let pinned = guards::pin(env, &keys).await?;
    Ok(json(200, &serde_json::json!({ "questions": questions.len(), "pinned": pinned, "corpusVersion": version })))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReleaseRequest {
    request_id: String,
}

/// `POST /admin/spend/release {"requestId"}`: settles a stuck reservation once.
async fn admin_release(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, 1024).await?;
    let ReleaseRequest { request_id } =
        serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("release body: {e}")))?;
    let released = guards::release(env, &request_id, (worker::js_sys::Date::now() / 1000.0) as u64).await?;
    Ok(json(200, &serde_json::json!({ "requestId": request_id, "released": released })))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    status: &'static str,
    engine: &'static str,
    /// The models the engine calls (Workers AI engine only).
    models: Option<Models>,
    bindings: Bindings,
    corpus_version: String,
    passages: u32,
    turnstile: TurnstileInfo,
}

/// What a page needs to render the widget, and whether `/ask` will check it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnstileInfo {
    site_key: Option<String>,
    enforced: bool,
}

#[derive(Serialize)]
struct Models {
    embedding: String,
    generation: String,
    judge: String,
}

#[derive(Serialize)]
struct Bindings {
    db: bool,
    ai: bool,
    vectorize: bool,
}

async fn health(env: &Env) -> Result<Response, ApiError> {
    let config = config(env)?;
    let corpus = D1Corpus::new(env)?;
    let models = (config.engine == Engine::WorkersAi).then(|| Models {
        embedding: config.embedding_model.clone(),
        generation: config.generation_model.clone(),
        judge: config.judge_model.clone(),
    });
    let health = Health {
        status: "ok",
        engine: config.engine.as_str(),
        models,
        bindings: Bindings { db: true, ai: ai::from_env(env).is_some(), vectorize: vectorize::from_env(env).is_some() },
        corpus_version: corpus.version().await?,
        passages: corpus.passage_count().await?,
        turnstile: TurnstileInfo { enforced: secret(env, "TURNSTILE_SECRET").is_some(), site_key: config.turnstile_site_key },
    };
    Ok(json(200, &health))
}

/// Admin routes fail closed: no `ADMIN_TOKEN` configured means no admin access.
fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    if secret(env, "ADMIN_TOKEN").is_none() {
        return Err(ApiError::Misconfigured("the ADMIN_TOKEN secret is not set".into()));
    }
    if is_admin(req, env) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized)
    }
}

/// True when the request carries the configured admin bearer token.
fn is_admin(req: &Request, env: &Env) -> bool {
    let expected = secret(env, "ADMIN_TOKEN").unwrap_or_default();
    let presented = req.headers().get("authorization").ok().flatten();
    auth::bearer_matches(presented.as_deref(), &expected)
}

/// A secret (or, locally, a var of that name); `None` when unset or empty.
fn secret(env: &Env, name: &str) -> Option<String> {
    env.secret(name).map(|s| s.to_string()).ok().filter(|s| !s.is_empty())
}

fn config(env: &Env) -> Result<Config, ApiError> {
    Config::from_vars(|name| env.var(name).ok().map(|v| v.to_string()))
}

/// Reads a JSON body after the method, content type and declared length pass,
/// so an oversized body is refused before it is read.
async fn read_json_body(req: &mut Request, limit: usize) -> Result<Vec<u8>, ApiError> {
    let method = req.method().to_string();
    let content_type = req.headers().get("content-type").ok().flatten();
    let declared = req
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    request::check_json_post(&method, content_type.as_deref(), declared, limit)?;
    let body = req.bytes().await.map_err(|e| ApiError::BadRequest(format!("the body could not be read: {e}")))?;
    request::check_json_post(&method, content_type.as_deref(), body.len(), limit)?;
    Ok(body)
}

/// A JSON response. The wire types serialize without error (string keys, and
/// serde_json writes non-finite floats as null); should one ever fail, the client
/// still gets a JSON 500 rather than an empty body.
fn json<T: Serialize>(status: u16, body: &T) -> Response {
    let (status, bytes) = match serde_json::to_vec(body) {
        Ok(bytes) => (status, bytes),
        Err(e) => {
            console_error!("serialize response: {e}");
            (500, br#"{"error":{"code":"internal","message":"the response could not be encoded"}}"#.to_vec())
        }
    };
    let headers = Headers::new();
    // Constant, valid header names and values: `set` cannot fail on them.
    let _ = headers.set("content-type", "application/json; charset=utf-8");
    let _ = headers.set("cache-control", "no-store");
    Response::builder().with_status(status).with_headers(headers).fixed(bytes)
}

/// Server-side failures are logged with their detail (the client sees only the code).
fn log_failure(err: &ApiError, request_id: &str) {
    if err.status() >= 500 {
        console_error!("{request_id} {err}");
    }
}

/// CORS on the public routes: `Vary: Origin` always (the answer depends on it),
/// the allow headers only for an origin on the `CORS_ORIGINS` allowlist.
fn with_cors(mut response: Response, path: &str, origin: Option<&str>, preflight: bool, env: &Env) -> Response {
    if !cors::PUBLIC_ROUTES.contains(&path) {
        return response;
    }
    // Constant, valid header names; values are an allowlisted origin or constants.
    let _ = response.headers_mut().append("vary", "Origin");
    // Requests without an Origin (scripts, servers) never need the allowlist read.
    if origin.is_none() {
        return response;
    }
    let allowlist = config(env).map(|c| c.cors_origins).unwrap_or_default();
    let Some(origin) = cors::allowed(origin, &allowlist) else { return response };
    let headers = response.headers_mut();
    let _ = headers.set("access-control-allow-origin", origin);
    if preflight {
        let _ = headers.set("access-control-allow-methods", cors::ALLOW_METHODS);
        let _ = headers.set("access-control-allow-headers", cors::ALLOW_HEADERS);
        let _ = headers.set("access-control-max-age", cors::MAX_AGE_SECONDS);
    } else {
        let _ = headers.set("access-control-expose-headers", cors::EXPOSE_HEADERS);
    }
    response
}

fn error_response(err: &ApiError, request_id: &str) -> Response {
    log_failure(err, request_id);
    let mut response = json(err.status(), &ErrorBody::new(err, request_id));
    match err {
        ApiError::MethodNotAllowed { allow } => {
            let _ = response.headers_mut().set("allow", allow);
        }
        ApiError::RateLimited(decision) => response = ask::with_limit_headers(response, Some(*decision)),
        _ => {}
    }
    response
}

/// Runs `work` for at most `ms` milliseconds; `None` when the timer won.
async fn within<T>(ms: u32, work: impl std::future::Future<Output = T>) -> Option<T> {
    use futures::future::{select, Either};
    let timer = worker::Delay::from(std::time::Duration::from_millis(u64::from(ms)));
    match select(Box::pin(work), timer).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    }
}

/// 16 random bytes; falls back to the clock if randomness is unavailable.
fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if getrandom::getrandom(&mut bytes).is_err() {
        bytes[..8].copy_from_slice(&(worker::js_sys::Date::now() as u64).to_be_bytes());
    }
    bytes
}

/// A request id: 32 hex digits.
fn new_request_id() -> String {
    hex(&random_bytes())
}

/// A random (version 4) UUID, as siteverify's idempotency key.
fn random_uuid() -> String {
    let mut b = random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// Prunes ended rate-limit windows and expired cache rows (cron in wrangler.toml).
#[event(scheduled)]
async fn scheduled(_event: worker::ScheduledEvent, env: Env, _ctx: worker::ScheduleContext) {
    let now = (worker::js_sys::Date::now() / 1000.0) as u64;
    let result = match config(&env) {
        Ok(config) => guards::prune(&env, config.rate_limit_window_seconds, now).await,
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        console_error!("scheduled prune failed: {e}");
    }
}
