//! `POST /ask` with `Accept: text/event-stream`: the same request, streamed.
//! One `stage` event per finished stage, then one `result` event carrying the
//! `AskResponse` exactly as the JSON answer would (or one `error` event if a
//! dependency fails once the stream has begun).
//!
//! The request runs in `waitUntil` like every `/ask` ([`super::ask::run`]).
//! Until the guards have let it through, nothing is sent, so a 400, 403, 429
//! or 503 is still a plain JSON error with its status and headers.

use std::cell::RefCell;

use futures::channel::{mpsc, oneshot};
use futures::StreamExt;
use serde::Serialize;
use worker::{Context, Env, Headers, Request, Response};

use super::ask::{self, with_limit_headers};
use crate::api::error::ApiError;
use crate::api::response::{ErrorBody, Stage};
use crate::flow::{Answered, Progress};
use crate::guards::rate_limit::Decision;

/// Whether the request asks for the streamed form.
pub fn wants_events(req: &Request) -> bool {
    let accept = req.headers().get("accept").ok().flatten().unwrap_or_default();
    req.path() == "/ask" && accept.contains("text/event-stream")
}

/// How admission ended: streaming with these rate limits, or an error to send as JSON.
type Admission = Result<Option<Decision>, ApiError>;

/// Where the running request sends its events.
struct Live {
    events: mpsc::UnboundedSender<String>,
    /// Fired once: the guards passed (stream, with these limits) or an error came first.
    admitted: RefCell<Option<oneshot::Sender<Admission>>>,
}

impl Progress for Live {
    fn stage(&self, stage: &Stage) {
        self.send("stage", stage);
    }

    fn admitted(&self, limits: Option<Decision>) {
        if let Some(admitted) = self.admitted.take() {
            let _ = admitted.send(Ok(limits));
        }
    }
}

impl Live {
    /// The last event: the result, or the error (as JSON if nothing was streamed yet).
    fn finish(&self, result: Result<Answered, ApiError>, request_id: &str) {
        match result {
            Ok(answered) => {
                self.admitted(answered.limits);
                self.send("result", &answered.answer);
            }
            Err(err) => match self.admitted.take() {
                Some(admitted) => {
                    let _ = admitted.send(Err(err));
                }
                None => {
                    super::log_failure(&err, request_id);
                    self.send("error", &ErrorBody::new(&err, request_id));
                }
            },
        }
    }

    /// One event; serde_json's compact output has no newline, so `data` is one line.
    /// A client that went away makes this a no-op.
    fn send(&self, event: &str, data: &impl Serialize) {
        let data = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
        let _ = self.events.unbounded_send(format!("event: {event}\ndata: {data}\n\n"));
    }
}

/// Starts the request and answers as soon as it is admitted (a stream) or fails (JSON).
pub async fn ask(req: Request, env: Env, ctx: &Context, request_id: String) -> Response {
    let (events, received) = mpsc::unbounded();
    let (admitted, admission) = oneshot::channel();
    let live = Live { events, admitted: RefCell::new(Some(admitted)) };
    let id = request_id.clone();
    ctx.wait_until(async move {
        ask::run(req, env, id.clone(), &live, |result| live.finish(result, &id)).await;
    });
    let err = match admission.await {
        Ok(Ok(limits)) => match event_stream(received) {
            Ok(response) => return with_limit_headers(response, limits),
            Err(e) => ApiError::Dependency(format!("event stream: {e}")),
        },
        Ok(Err(err)) => err,
        Err(oneshot::Canceled) => ApiError::Dependency("the request ended before it was admitted".into()),
    };
    super::error_response(&err, &request_id)
}

fn event_stream(events: mpsc::UnboundedReceiver<String>) -> worker::Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", "text/event-stream; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    Ok(Response::from_stream(events.map(Ok::<String, worker::Error>))?.with_headers(headers))
}
