//! [`AnswerCache`] in two tiers: the Cache API (per location, fast) in front of
//! a D1 table (durable, with a TTL and pinned rows). Read failures are a miss
//! and write failures a log line: the cache never fails a request.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{Cache, D1Database, Headers, Response};

use super::d1::dependency;
use crate::api::error::ApiError;
use crate::api::response::{AskResponse, Tier};
use crate::ports::{AnswerCache, Cached};

pub struct TwoTierCache {
    pub db: D1Database,
    /// How long a stored answer lives (seconds); pinned rows never expire.
    pub ttl: u64,
}

/// The Cache API key for an answer key. Any URL works as a Cache API key; this
/// host is never fetched.
fn edge_url(key: &str) -> String {
    format!("https://groundgate.cache/answers/{key}")
}

#[derive(Deserialize)]
struct StoredAnswer {
    response: String,
}

impl AnswerCache for TwoTierCache {
    async fn get(&self, key: &str, now: u64) -> Option<(AskResponse, Tier)> {
        if let Ok(Some(mut hit)) = Cache::default().get(edge_url(key).as_str(), false).await {
            if let Some(answer) = hit.text().await.ok().and_then(|t| serde_json::from_str(&t).ok()) {
                return Some((answer, Tier::Edge));
            }
        }
        let read = self
            .db
            .prepare("SELECT response FROM answer_cache WHERE key = ?1 AND (pinned = 1 OR expires_at > ?2)")
            .bind(&[key.into(), JsValue::from(now as f64)])
            .ok()?
            .first::<StoredAnswer>(None)
            .await;
        let stored = match read {
            Ok(row) => row?.response,
            Err(e) => {
                worker::console_warn!("cache read failed, treated as a miss: {e}");
                return None;
            }
        };
        let answer: AskResponse = serde_json::from_str(&stored).ok()?;
        self.put_edge(key, &stored).await;
        Some((answer, Tier::D1))
    }

    async fn put(&self, entry: &Cached, now: u64) {
        let Cached { key, workspace, answer } = entry;
        let Ok(text) = serde_json::to_string(answer) else { return };
        let status = crate::api::response::wire_name(answer.status);
        let written = match self
            .db
            .prepare(
                "INSERT INTO answer_cache (key, status, response, created_at, expires_at, workspace) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT (key) DO UPDATE SET status = excluded.status, response = excluded.response, \
                 created_at = excluded.created_at, expires_at = excluded.expires_at WHERE answer_cache.pinned = 0",
            )
            .bind(&[
                key.as_str().into(),
                status.into(),
                text.as_str().into(),
                JsValue::from(now as f64),
                JsValue::from((now + self.ttl) as f64),
                workspace.as_deref().map_or(JsValue::NULL, JsValue::from),
            ])
            .map_err(dependency("bind cache"))
        {
            Ok(statement) => statement.run().await.map(|_| ()).map_err(dependency("cache write")),
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            worker::console_warn!("cache write failed, answer served uncached: {e}");
        }
        self.put_edge(key, &text).await;
    }
}

impl TwoTierCache {
    async fn put_edge(&self, key: &str, body: &str) {
        let headers = Headers::new();
        let _ = headers.set("content-type", "application/json");
        // The Cache API only keeps responses that say how long they may live.
        let _ = headers.set("cache-control", &format!("max-age={}", self.ttl));
        let response = Response::builder().with_headers(headers).fixed(body.as_bytes().to_vec());
        if let Err(e) = Cache::default().put(edge_url(key).as_str(), response).await {
            worker::console_warn!("edge cache write failed: {e}");
        }
    }
}

/// A pinned answer the current build did not make: its question, to ask again.
#[derive(Deserialize)]
pub struct StalePin {
    pub key: String,
    pub question: String,
}

/// Pins the stored answers under `keys` (with the question each answers and
/// the build that made it) so they never expire; returns how many rows were
/// pinned (a key with no stored answer pins nothing).
pub async fn pin(db: &D1Database, pins: &[(String, String)], build: &str) -> Result<usize, ApiError> {
    let mut statements = Vec::new();
    for (key, question) in pins {
        statements.push(
            db.prepare("UPDATE answer_cache SET pinned = 1, question = ?2, build = ?3 WHERE key = ?1")
                .bind(&[key.as_str().into(), question.as_str().into(), build.into()])
                .map_err(dependency("bind pin"))?,
        );
    }
    if statements.is_empty() {
        return Ok(0);
    }
    let results = db.batch(statements).await.map_err(dependency("pin"))?;
    Ok(results.iter().filter_map(|r| r.meta().ok().flatten()).filter_map(|m| m.changes).sum())
}

/// Up to `limit` pinned answers made by another build than `build`.
pub async fn stale_pins(db: &D1Database, build: &str, limit: u32) -> Result<Vec<StalePin>, ApiError> {
    db.prepare("SELECT key, question FROM answer_cache WHERE pinned = 1 AND question IS NOT NULL AND coalesce(build, '') != ?1 LIMIT ?2")
        .bind(&[build.into(), JsValue::from(limit)])
        .map_err(dependency("bind stale pins"))?
        .all()
        .await
        .map_err(dependency("stale pins"))?
        .results()
        .map_err(dependency("decode stale pins"))
}

/// Drops the answer under `key` from both tiers, pinned or not (an older
/// build's pinned answer; a refusal an operator has since answered).
pub async fn forget(db: &D1Database, key: &str) -> Result<(), ApiError> {
    db.prepare("DELETE FROM answer_cache WHERE key = ?1")
        .bind(&[key.into()])
        .map_err(dependency("bind forget"))?
        .run()
        .await
        .map_err(dependency("forget"))?;
    forget_edge(key).await;
    Ok(())
}

/// Drops the edge tier's copy of `key`. A failure is logged: the copy
/// expires with its TTL, and its key is unreachable once the D1 row is gone
/// only if the corpus version it was made under is gone too.
pub async fn forget_edge(key: &str) {
    if let Err(e) = Cache::default().delete(edge_url(key).as_str(), false).await {
        worker::console_warn!("edge cache delete failed (it expires with its TTL): {e}");
    }
}

/// Deletes expired rows (pinned rows never expire).
pub async fn prune(db: &D1Database, now: u64) -> Result<(), ApiError> {
    db.prepare("DELETE FROM answer_cache WHERE pinned = 0 AND expires_at <= ?1")
        .bind(&[JsValue::from(now as f64)])
        .map_err(dependency("bind prune"))?
        .run()
        .await
        .map_err(dependency("prune cache"))?;
    Ok(())
}
