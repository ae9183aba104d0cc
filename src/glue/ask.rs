//! `POST /ask`: parse → run → respond. The request runs to its end inside
//! `waitUntil`, JSON or streamed alike, so a client that hangs up can never
//! cancel its settle, its cache write or its audit record; the response is
//! handed back the moment the flow has one, and the writes after it leave the
//! critical path.

use futures::channel::oneshot;
use worker::{Context, Env, Request, Response};

use super::ports::WorkerPorts;
use crate::api::error::ApiError;
use crate::api::request::MAX_ASK_BODY;
use crate::flow::{AskInput, Answered, Flow, Progress};
use crate::guards::rate_limit::Decision;

/// Runs one `/ask` to its end: the flow, the answer handed to `deliver`, then
/// the writes after it.
pub async fn run(mut req: Request, env: Env, request_id: String, progress: &dyn Progress, deliver: impl FnOnce(Result<Answered, ApiError>)) {
    let started = worker::js_sys::Date::now();
    let config = match super::config(&env) {
        Ok(config) => config,
        Err(e) => return deliver(Err(e)),
    };
    let ports = match WorkerPorts::new(&env, &config, started + f64::from(config.request_deadline_ms)) {
        Ok(ports) => ports.linked_from(&req),
        Err(e) => return deliver(Err(e)),
    };
    let admin = super::is_admin(&req, &env);
    let client_ip = req.headers().get("cf-connecting-ip").ok().flatten();
    let workspace_secret = super::workspace_secret(&req);
    let body = super::read_json_body(&mut req, MAX_ASK_BODY).await;
    let flow = Flow { ports: &ports, config: &config };
    let input = AskInput {
        request_id: &request_id,
        body: body.as_deref().map_err(Clone::clone),
        admin,
        client_ip: client_ip.as_deref(),
        workspace_secret: workspace_secret.as_deref(),
    };
    let finished = flow.ask(&input, progress).await;
    deliver(finished.result);
    flow.after(finished.after).await;
}

/// The JSON `/ask`: the answer as soon as the request has one.
pub async fn ask(req: Request, env: Env, ctx: &Context, request_id: String) -> Response {
    let (sender, receiver) = oneshot::channel();
    let id = request_id.clone();
    ctx.wait_until(async move {
        run(req, env, id, &(), |result| {
            // The client may be gone: the request has still run to its end.
            let _ = sender.send(result);
        })
        .await;
    });
    match receiver.await {
        Ok(Ok(answered)) => with_limit_headers(super::json(200, &answered.answer), answered.limits),
        Ok(Err(err)) => super::error_response(&err, &request_id),
        Err(oneshot::Canceled) => super::error_response(&ApiError::Dependency("the request ended without an answer".into()), &request_id),
    }
}

/// Adds the `RateLimit-*` headers of an admitted request.
pub fn with_limit_headers(mut response: Response, decision: Option<Decision>) -> Response {
    for (name, value) in decision.iter().flat_map(Decision::headers) {
        let _ = response.headers_mut().set(name, &value);
    }
    response
}
