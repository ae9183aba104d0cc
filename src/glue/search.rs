//! `GET /search?q=…&k=…`: parse → run → respond. Retrieval only (ranked
//! passages with scores and provenance), behind the same Turnstile check
//! (a `CF-Turnstile-Response` header) and rate limit as `/ask`
//! and, on the Workers AI engine, the same reserve → run → settle path, run
//! to its end inside `waitUntil` so a hang-up cannot leave a reservation open.

use futures::channel::oneshot;
use serde::Serialize;
use worker::{Context, Env, Request, Response};

use super::ask::with_limit_headers;
use super::ports::WorkerPorts;
use crate::api::error::ApiError;
use crate::api::request::SearchRequest;
use crate::api::response::{Cost, EngineInfo, Retrieved};
use crate::config::Config;
use crate::cost;
use crate::flow::{Flow, Found, SearchInput};
use crate::ports::{Notifier, Ports};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchResponse {
    request_id: String,
    query: String,
    k: usize,
    results: Vec<Retrieved>,
    engine: EngineInfo,
    cost: Cost,
    corpus_version: String,
}

pub async fn search(req: Request, env: Env, ctx: &Context, request_id: String) -> Response {
    let (sender, receiver) = oneshot::channel();
    let id = request_id.clone();
    ctx.wait_until(async move {
        run(&req, &env, &id, |found| {
            // The client may be gone: the search has still run to its end.
            let _ = sender.send(found);
        })
        .await;
    });
    match receiver.await {
        Ok(Ok(found)) => {
            let limits = found.limits;
            let Found { query, k, results, meter, engine, corpus_version, .. } = found;
            let cost = Cost { neurons: meter.neurons, usd: cost::usd(meter.neurons), calls: meter.calls };
            let body = SearchResponse { request_id, query, k, results, engine, cost, corpus_version };
            with_limit_headers(super::json(200, &body), limits)
        }
        Ok(Err(err)) => super::error_response(&err, &request_id),
        Err(oneshot::Canceled) => super::error_response(&ApiError::Dependency("the search ended without an answer".into()), &request_id),
    }
}

/// Runs one search, hands its outcome to `deliver`, then sends the
/// escalations it raised (a spend alarm).
async fn run(req: &Request, env: &Env, request_id: &str, deliver: impl FnOnce(Result<Found, ApiError>)) {
    let config = match super::config(env) {
        Ok(config) => config,
        Err(e) => return deliver(Err(e)),
    };
    let ports = match WorkerPorts::new(env, &config, worker::js_sys::Date::now() + f64::from(config.request_deadline_ms)) {
        Ok(ports) => ports,
        Err(e) => return deliver(Err(e)),
    };
    deliver(search_with(req, env, &ports, &config, request_id).await);
    ports.notifier().send(super::now()).await;
}

async fn search_with(req: &Request, env: &Env, ports: &WorkerPorts<'_>, config: &Config, request_id: &str) -> Result<Found, ApiError> {
    let url = req.url().map_err(|_| ApiError::BadRequest("the URL could not be read".into()))?;
    let pairs: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    let query = SearchRequest::parse(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let admin = super::is_admin(req, env);
    let client_ip = req.headers().get("cf-connecting-ip").ok().flatten();
    let workspace_secret = super::workspace_secret(req);
    let flow = Flow { ports, config };
    let token = super::header(req, super::TURNSTILE_HEADER);
    let input = SearchInput {
        request_id,
        query,
        admin,
        token: token.as_deref(),
        client_ip: client_ip.as_deref(),
        workspace_secret: workspace_secret.as_deref(),
    };
    flow.search(input).await
}
