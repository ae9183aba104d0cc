//! The edge: the only code that touches JS. It turns a `Request` into typed
//! input, runs the pure core, and turns the outcome into a `Response`. Every
//! error leaves as JSON with a stable code; detail of 5xx goes to the log only.

mod admin;
mod ai;
mod ask;
mod audit;
mod cache;
mod d1;
mod ingest;
mod js;
mod ledger;
mod maintenance;
mod models;
mod ports;
mod rate_limit;
mod review;
mod search;
mod stream;
mod turnstile;
mod vectorize;
mod vectors;
mod webhooks;
mod workspaces;

use serde::Serialize;
use worker::{console_error, event, Context, Env, Headers, Method, Request, Response};

use crate::api::cors;
use crate::api::error::ApiError;
use crate::api::request;
use crate::api::response::ErrorBody;
use crate::config::Config;
use crate::corpus::chunk::hex;
use crate::ports::Clock;
use admin::is_admin;

/// `Date.now()`: in Workers it advances across I/O, which is what stage timings measure.
pub struct JsClock;

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
    let response = if preflight && cors::is_public(&path) {
        // A preflight; `with_cors` adds the headers if the origin is allowed.
        Response::builder().with_status(204).empty()
    } else if path == "/ask" && stream::wants_events(&req) {
        stream::ask(req, env.clone(), &ctx, request_id).await
    } else if path == "/ask" {
        ask::ask(req, env.clone(), &ctx, request_id).await
    } else if path == "/search" && req.method() == Method::Get {
        search::search(req, env.clone(), &ctx, request_id).await
    } else {
        match route(&mut req, &env, &ctx, &request_id).await {
            Ok(response) => response,
            Err(err) => error_response(&err, &request_id),
        }
    };
    Ok(with_cors(response, &path, origin.as_deref(), preflight, &env))
}

/// The routes that run inline: admin, health, and every method not allowed.
async fn route(req: &mut Request, env: &Env, ctx: &Context, request_id: &str) -> Result<Response, ApiError> {
    match req.path().as_str() {
        "/admin/ingest" if req.method() == Method::Post => ingest::one_shot(req, env, ctx).await,
        path if path.starts_with("/admin/ingest/") => ingest::route(req, env, ctx, path).await,
        "/admin/spend" if req.method() == Method::Get => admin::spend(req, env).await,
        "/admin/spend" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/admin/spend/release" if req.method() == Method::Post => admin::release(req, env).await,
        "/admin/cache/pin" if req.method() == Method::Post => admin::pin(req, env).await,
        "/admin/ingest" | "/admin/spend/release" | "/admin/cache/pin" => Err(ApiError::MethodNotAllowed { allow: "POST" }),
        "/admin/audit/verify" if req.method() == Method::Get => admin::verify(req, env, ctx).await,
        "/admin/audit/verify" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/search" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        "/health" if req.method() == Method::Get => admin::health(env).await,
        "/health" => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        path if path == "/admin/review" || path.starts_with("/admin/review/") => review::route(req, env, ctx).await,
        path if path == "/admin/passages" || path.starts_with("/admin/passages/") => review::passages(req, env, ctx).await,
        path if path.starts_with("/audit/") && req.method() == Method::Get => admin::proof(env, &path["/audit/".len()..]).await,
        path if path.starts_with("/audit/") => Err(ApiError::MethodNotAllowed { allow: "GET" }),
        path if path == "/workspaces" || path.starts_with("/workspaces/") => workspaces::route(req, env, ctx, request_id).await,
        _ => Err(ApiError::NotFound),
    }
}

/// The workspace secret the request carries (header, else cookie).
fn workspace_secret(req: &Request) -> Option<String> {
    let headers = req.headers();
    let cookies = headers.get("cookie").ok().flatten();
    request::workspace_secret(headers.get(request::WORKSPACE_HEADER).ok().flatten(), cookies.as_deref())
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
    if !cors::is_public(path) {
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
        // A secret that matches no live workspace will never match one again:
        // the page's cookie goes, so its next question searches the shared corpus.
        ApiError::WorkspaceUnknown => {
            let _ = response.headers_mut().set("set-cookie", &crate::corpus::workspace::cookie("", 0));
        }
        _ => {}
    }
    response
}

/// Where a request whose body is not JSON (`/search`, workspace creation,
/// uploads) carries its Turnstile token: the name of the widget's form field.
const TURNSTILE_HEADER: &str = "cf-turnstile-response";

/// A request header's value, if it has one.
fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// Unix seconds, now.
fn now() -> u64 {
    now_ms() / 1000
}

/// Unix milliseconds, now.
fn now_ms() -> u64 {
    worker::js_sys::Date::now() as u64
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
        bytes[..8].copy_from_slice(&now_ms().to_be_bytes());
    }
    bytes
}

/// A request id ([`crate::guards::audit::request_id`]): the time, then 80 random bits.
fn new_request_id() -> String {
    let random = random_bytes();
    let mut tail = [0u8; 10];
    tail.copy_from_slice(&random[..10]);
    crate::guards::audit::request_id(now_ms(), &tail)
}

/// A random (version 4) UUID, as siteverify's idempotency key.
fn random_uuid() -> String {
    let mut b = random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}
