//! [`Notifier`] over a signed webhook (`ESCALATION_WEBHOOK_URL`, signed with
//! `ESCALATION_WEBHOOK_SECRET`). An escalation is written to D1 once (its key
//! deduplicates it), then posted; one that fails waits there, and the cron
//! tries it again with backoff. What is sent, and how it is signed, is
//! [`crate::escalation`]'s; this is only the fetch and the queue.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::join_all;
use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{console_error, AbortController, Context, D1Database, Env, Fetch, Headers, Method, Request, RequestInit};

use super::d1::{database, dependency, rows};
use super::{now, random_bytes, secret, within};
use crate::api::error::ApiError;
use crate::config::Config;
use crate::corpus::chunk::hex;
use crate::escalation::{self, Envelope, Escalation, Settings};
use crate::ports::Notifier;

/// Deliveries the cron tries again per run (at once, each bounded in time).
const RETRIES_PER_RUN: u32 = 20;
/// How long a delivery's row (and so its key's deduplication) is kept.
const KEPT_SECONDS: u64 = 7 * 86_400;
/// Keys this isolate has queued, remembered so a repeated event (the cap,
/// reached again by every request after it) costs no D1 write; forgotten
/// whole past this many.
const KEYS_REMEMBERED: usize = 1024;

thread_local! {
    static QUEUED: RefCell<std::collections::HashSet<String>> = RefCell::default();
}

/// Whether this isolate queued `key` before.
fn queued_before(key: &str) -> bool {
    QUEUED.with(|queued| queued.borrow().contains(key))
}

fn remember(key: String) {
    QUEUED.with(|queued| {
        let mut queued = queued.borrow_mut();
        if queued.len() >= KEYS_REMEMBERED {
            queued.clear();
        }
        queued.insert(key);
    });
}

/// Where escalations go; cheap to clone (clones share what was noted), so
/// a handler can send them in `waitUntil`.
#[derive(Clone)]
pub struct Webhook {
    hook: Option<Rc<Hook>>,
    /// The worker's public origin, for links to the operator page.
    origin: Option<String>,
    noted: Rc<RefCell<Vec<Escalation>>>,
}

/// A configured webhook.
struct Hook {
    url: String,
    secret: String,
    settings: Settings,
    db: D1Database,
}

impl Webhook {
    /// The webhook `env` configures, if any (a URL without a signing secret
    /// sends nothing, and says so).
    pub fn new(env: &Env, config: &Config) -> Webhook {
        let hook = match (secret(env, "ESCALATION_WEBHOOK_URL"), secret(env, "ESCALATION_WEBHOOK_SECRET")) {
            (Some(url), Some(secret)) => database(env).ok().map(|db| Rc::new(Hook { url, secret, settings: config.escalation.clone(), db })),
            (Some(_), None) => {
                console_error!("alarm: ESCALATION_WEBHOOK_URL is set without ESCALATION_WEBHOOK_SECRET: no escalation is sent");
                None
            }
            _ => None,
        };
        Webhook { hook, origin: None, noted: Rc::default() }
    }

    /// Links to the operator page go to the origin `req` came to.
    pub fn linked_from(mut self, req: &Request) -> Webhook {
        self.origin = req.url().ok().map(|url| url.origin().ascii_serialization());
        self
    }

    /// Sends what was noted once `ctx`'s response is on its way.
    pub fn send_later(self, ctx: &Context) {
        if self.noted.borrow().is_empty() {
            return;
        }
        ctx.wait_until(async move { self.send(now()).await });
    }
}

/// Notes `event` and sends it once `ctx`'s response is on its way.
pub fn escalate(ctx: &Context, env: &Env, event: Escalation) {
    let Ok(config) = super::config(env) else { return };
    let webhook = Webhook::new(env, &config);
    webhook.notify(event);
    webhook.send_later(ctx);
}

impl Notifier for Webhook {
    fn notify(&self, event: Escalation) {
        if self.hook.as_ref().is_some_and(|hook| hook.settings.sends(event.kind())) {
            self.noted.borrow_mut().push(event);
        }
    }

    async fn send(&self, now: u64) {
        let Some(hook) = &self.hook else { return };
        let noted: Vec<Escalation> = self.noted.borrow_mut().drain(..).collect();
        for event in noted {
            if let Err(e) = hook.first(&event, now, self.origin.as_deref()).await {
                console_error!("alarm: escalation {} not queued: {e}", event.kind().name());
            }
        }
    }
}

/// A delivery as the queue holds it.
#[derive(Deserialize)]
struct Due {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    body: String,
    attempts: u32,
}

impl Hook {
    /// Queues `event` unless its key was queued before, then tries it.
    async fn first(&self, event: &Escalation, now: u64, origin: Option<&str>) -> Result<(), ApiError> {
        let key = event.key();
        if queued_before(&key) {
            return Ok(());
        }
        let id = hex(&random_bytes());
        let envelope = Envelope { id: &id, created_at: now, format: self.settings.format, origin };
        let body = event.body(&envelope);
        let kind = event.kind().name();
        let queued = self
            .db
            .prepare(
                "INSERT INTO webhook_deliveries (key, id, type, body, created_at, next_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) \
                 ON CONFLICT (key) DO NOTHING",
            )
            .bind(&[key.as_str().into(), id.as_str().into(), kind.into(), body.as_str().into(), JsValue::from(now as f64)])
            .map_err(dependency("bind delivery"))?
            .run()
            .await
            .map_err(dependency("queue delivery"))?;
        remember(key);
        if queued.meta().ok().flatten().and_then(|m| m.changes).unwrap_or(0) == 0 {
            return Ok(()); // Sent (or queued) before.
        }
        self.attempt(&Due { id, kind: kind.to_string(), body, attempts: 0 }, now).await
    }

    /// One attempt at `due`, and its outcome written back.
    async fn attempt(&self, due: &Due, now: u64) -> Result<(), ApiError> {
        let attempts = due.attempts + 1;
        let statement = match self.post(due, now).await {
            Ok(()) => self
                .db
                .prepare("UPDATE webhook_deliveries SET attempts = ?2, delivered_at = ?3, last_error = NULL WHERE id = ?1")
                .bind(&[due.id.as_str().into(), attempts.into(), JsValue::from(now as f64)]),
            Err(why) => {
                if attempts >= self.settings.max_attempts {
                    console_error!("alarm: escalation delivery {} given up after {attempts} attempts: {why}", due.id);
                }
                let next = escalation::retry_at(attempts, now);
                self.db
                    .prepare("UPDATE webhook_deliveries SET attempts = ?2, next_at = ?3, last_error = ?4 WHERE id = ?1")
                    .bind(&[due.id.as_str().into(), attempts.into(), JsValue::from(next as f64), why.into()])
            }
        };
        statement.map_err(dependency("bind attempt"))?.run().await.map_err(dependency("record attempt"))?;
        Ok(())
    }

    /// POSTs `due`, signed now; `Err` says why it did not land (a status, a
    /// timeout, a network failure). The response's body is never read.
    async fn post(&self, due: &Due, now: u64) -> Result<(), String> {
        let headers = Headers::new();
        for (name, value) in [
            ("content-type", "application/json"),
            ("user-agent", "groundgate-escalation/1"),
            (escalation::SIGNATURE_HEADER, &escalation::sign(&self.secret, now, &due.body)),
            (escalation::DELIVERY_HEADER, &due.id),
            (escalation::EVENT_HEADER, &due.kind),
        ] {
            headers.set(name, value).map_err(|e| format!("header {name}: {e}"))?;
        }
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_headers(headers).with_body(Some(due.body.as_str().into()));
        let request = Request::new_with_init(&self.url, &init).map_err(|_| "the webhook URL is not valid".to_string())?;
        let controller = AbortController::default();
        let signal = controller.signal();
        let call = async move { Fetch::Request(request).send_with_signal(&signal).await.map(|r| r.status_code()) };
        match within(self.settings.timeout_ms, call).await {
            Some(Ok(status)) if (200..300).contains(&status) => Ok(()),
            Some(Ok(status)) => Err(format!("HTTP {status}")),
            Some(Err(_)) => Err("unreachable".into()),
            None => {
                controller.abort();
                Err("timeout".into())
            }
        }
    }
}

/// The cron: deliveries due again are tried (at once), and rows past their
/// keeping time go.
pub async fn retry(env: &Env, config: &Config, now: u64) -> Result<(), ApiError> {
    let db = database(env)?;
    db.prepare("DELETE FROM webhook_deliveries WHERE created_at < ?1")
        .bind(&[JsValue::from(now.saturating_sub(KEPT_SECONDS) as f64)])
        .map_err(dependency("bind delivery prune"))?
        .run()
        .await
        .map_err(dependency("prune deliveries"))?;
    let Some(hook) = Webhook::new(env, config).hook else { return Ok(()) };
    let statement = db
        .prepare(
            "SELECT id, type, body, attempts FROM webhook_deliveries \
             WHERE delivered_at IS NULL AND next_at <= ?1 AND attempts < ?2 ORDER BY next_at LIMIT ?3",
        )
        .bind(&[JsValue::from(now as f64), config.escalation.max_attempts.into(), RETRIES_PER_RUN.into()])
        .map_err(dependency("bind due deliveries"))?;
    let due: Vec<Due> = rows(statement, "due deliveries").await?;
    let attempts = join_all(due.iter().map(|d| hook.attempt(d, now))).await;
    attempts.into_iter().find(Result::is_err).unwrap_or(Ok(()))
}
