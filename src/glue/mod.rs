//! The edge: the only code that touches JS. It turns a `Request` into typed
//! input, runs the pure core, and turns the outcome into a `Response`. Every
//! error leaves as JSON with a stable code; detail of 5xx goes to the log only.

mod d1;

use serde::Serialize;
use worker::{console_error, event, Context, Env, Headers, Method, Request, Response};

use crate::auth;
use crate::chunk::hex;
use crate::config::Config;
use crate::error::ApiError;
use crate::ingest::{self, IngestRequest};
use crate::pipeline::{Clock, Corpus, Pipeline};
use crate::request::{self, AskRequest, MAX_ASK_BODY};
use crate::response::{ErrorBody, Stage, StageStatus};
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
async fn fetch(mut req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let request_id = new_request_id();
    let response = match route(&mut req, &env, &request_id).await {
        Ok(response) => response,
        Err(err) => error_response(&err, &request_id),
    };
    Ok(response)
}

async fn route(req: &mut Request, env: &Env, request_id: &str) -> Result<Response, ApiError> {
    match req.path().as_str() {
        "/ask" => ask(req, env, request_id).await,
        "/admin/ingest" => admin_ingest(req, env).await,
        "/health" if req.method() == Method::Get => health(env).await,
        "/health" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        _ => Err(ApiError::NotFound),
    }
}

async fn ask(req: &mut Request, env: &Env, request_id: &str) -> Result<Response, ApiError> {
    let clock = JsClock;
    let started = clock.now_ms();
    let body = read_json_body(req, MAX_ASK_BODY).await?;
    let question = AskRequest::parse(&body)?;
    let config = config(env)?;
    let corpus = D1Corpus::new(env)?;
    let validate = Stage {
        name: "validate",
        status: StageStatus::Passed,
        ms: (clock.now_ms() - started).max(0.0) as u64,
        detail: format!("question of {} characters", question.question.chars().count()),
    };
    // Seam for the guards: Turnstile, rate limit, cache and spend cap run here, in
    // that order, and append their stages before the answering stages.
    let version = corpus.version().await?;
    let pipeline = Pipeline { corpus: &corpus, clock: &clock, config: &config };
    let answer = pipeline.run(request_id, &question.question, &version, vec![validate]).await?;
    Ok(json(200, &answer))
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
}

async fn admin_ingest(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, MAX_INGEST_BODY).await?;
    let request = IngestRequest::parse(&body)?;
    let corpus = D1Corpus::new(env)?;
    let stored = corpus.stored().await?;
    let plan = ingest::plan(&stored, request.passages(), &request.stems(), request.complete);
    corpus.apply(&plan).await?;
    let ids = |ps: &[crate::chunk::Passage]| ps.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    let report = IngestReport {
        added: ids(&plan.added),
        updated: ids(&plan.updated),
        unchanged: plan.unchanged.len(),
        passages: stored.len() + plan.added.len() - plan.removed.len(),
        removed: plan.removed,
        corpus_version: plan.version,
    };
    Ok(json(200, &report))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    status: &'static str,
    engine: &'static str,
    corpus_version: String,
    passages: u32,
}

async fn health(env: &Env) -> Result<Response, ApiError> {
    let config = config(env)?;
    let corpus = D1Corpus::new(env)?;
    let health = Health {
        status: "ok",
        engine: config.engine.as_str(),
        corpus_version: corpus.version().await?,
        passages: corpus.passage_count().await?,
    };
    Ok(json(200, &health))
}

/// Admin routes fail closed: no `ADMIN_TOKEN` configured means no admin access.
fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    let expected = env.secret("ADMIN_TOKEN").map(|s| s.to_string()).unwrap_or_default();
    if expected.is_empty() {
        return Err(ApiError::Misconfigured("the ADMIN_TOKEN secret is not set".into()));
    }
    let presented = req.headers().get("authorization").ok().flatten();
    if auth::bearer_matches(presented.as_deref(), &expected) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized)
    }
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

fn error_response(err: &ApiError, request_id: &str) -> Response {
    if err.status() >= 500 {
        console_error!("{request_id} {err}");
    }
    let mut response = json(err.status(), &ErrorBody::new(err, request_id));
    if let ApiError::MethodNotAllowed { allow } = err {
        let _ = response.headers_mut().set("allow", allow);
    }
    response
}

/// 16 random bytes as hex; falls back to the clock if randomness is unavailable.
fn new_request_id() -> String {
    let mut bytes = [0u8; 16];
    match getrandom::getrandom(&mut bytes) {
        Ok(()) => hex(&bytes),
        Err(_) => format!("t{}", worker::js_sys::Date::now() as u64),
    }
}
