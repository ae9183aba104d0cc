//! The D1 halves of the rate limit and the answer cache, and the Cache API tier.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{Cache, Env, Headers, Response};

use super::d1::{database, dependency};
use crate::guards::cache::Tier;
use crate::api::error::ApiError;
use crate::guards::rate_limit::{self, Decision};

#[derive(Deserialize)]
struct Count {
    count: u32,
}

/// Counts this request in its client's window, in one atomic statement, and
/// decides. A D1 failure fails closed (the caller answers 503).
pub async fn count_request(env: &Env, client_key: &str, limit: u32, window_seconds: u64, now: u64) -> Result<Decision, ApiError> {
    let window = rate_limit::window(now, window_seconds);
    let row: Option<Count> = database(env)?
        .prepare(
            "INSERT INTO rate_limits (client_key, window_start, count) VALUES (?1, ?2, 1) \
             ON CONFLICT (client_key, window_start) DO UPDATE SET count = count + 1 \
             RETURNING count",
        )
        .bind(&[client_key.into(), JsValue::from(window.start as f64)])
        .map_err(dependency("bind rate limit"))?
        .first(None)
        .await
        .map_err(dependency("rate limit"))?;
    let count = row.ok_or_else(|| ApiError::Dependency("D1 rate limit: no row returned".into()))?.count;
    Ok(rate_limit::decide(count, limit, window))
}

/// Deletes windows that have ended and cache rows that have expired.
pub async fn prune(env: &Env, window_seconds: u64, now: u64) -> Result<(), ApiError> {
    let db = database(env)?;
    let statements = vec![
        db.prepare("DELETE FROM rate_limits WHERE window_start + ?1 <= ?2")
            .bind(&[JsValue::from(window_seconds as f64), JsValue::from(now as f64)])
            .map_err(dependency("bind prune"))?,
        db.prepare("DELETE FROM answer_cache WHERE pinned = 0 AND expires_at <= ?1")
            .bind(&[JsValue::from(now as f64)])
            .map_err(dependency("bind prune"))?,
    ];
    db.batch(statements).await.map_err(dependency("prune"))?;
    Ok(())
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

/// The stored response JSON for `key`: the Cache API first, then D1 (refilling
/// the Cache API). Read failures are logged and count as a miss: the cache is an
/// optimisation, never a reason to fail a request.
pub async fn lookup(env: &Env, key: &str, now: u64, ttl: u64) -> Option<(String, Tier)> {
    let edge = Cache::default();
    if let Ok(Some(mut hit)) = edge.get(edge_url(key).as_str(), false).await {
        if let Ok(text) = hit.text().await {
            return Some((text, Tier::Edge));
        }
    }
    let row: Option<StoredAnswer> = match database(env).ok()?
        .prepare("SELECT response FROM answer_cache WHERE key = ?1 AND (pinned = 1 OR expires_at > ?2)")
        .bind(&[key.into(), JsValue::from(now as f64)])
        .ok()?
        .first(None)
        .await
    {
        Ok(row) => row,
        Err(e) => {
            worker::console_warn!("cache read failed, treated as a miss: {e}");
            None
        }
    };
    let stored = row?.response;
    put_edge(key, &stored, ttl).await;
    Some((stored, Tier::D1))
}

/// Stores an answer in both tiers. A pinned row is never overwritten.
pub async fn store(env: &Env, key: &str, status: &str, response: &str, now: u64, ttl: u64) {
    let statement = database(env).and_then(|db| {
        db.prepare(
            "INSERT INTO answer_cache (key, status, response, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT (key) DO UPDATE SET status = excluded.status, response = excluded.response, \
             created_at = excluded.created_at, expires_at = excluded.expires_at WHERE answer_cache.pinned = 0",
        )
        .bind(&[key.into(), status.into(), response.into(), JsValue::from(now as f64), JsValue::from((now + ttl) as f64)])
        .map_err(dependency("bind cache"))
    });
    let written = match statement {
        Ok(statement) => statement.run().await.map_err(dependency("cache write")).map(|_| ()),
        Err(e) => Err(e),
    };
    if let Err(e) = written {
        worker::console_warn!("cache write failed, answer served uncached: {e}");
    }
    put_edge(key, response, ttl).await;
}

/// Pins the stored answers under `keys` so they never expire; returns how many
/// rows were pinned (a key with no stored answer pins nothing).
pub async fn pin(env: &Env, keys: &[String]) -> Result<usize, ApiError> {
    let db = database(env)?;
    let mut statements = Vec::new();
    for key in keys {
        statements.push(
            db.prepare("UPDATE answer_cache SET pinned = 1 WHERE key = ?1")
                .bind(&[key.as_str().into()])
                .map_err(dependency("bind pin"))?,
        );
    }
    if statements.is_empty() {
        return Ok(0);
    }
    let results = db.batch(statements).await.map_err(dependency("pin"))?;
    Ok(results.iter().filter_map(|r| r.meta().ok().flatten()).filter_map(|m| m.changes).sum())
}

async fn put_edge(key: &str, body: &str, ttl: u64) {
    let headers = Headers::new();
    let _ = headers.set("content-type", "application/json");
    // The Cache API only keeps responses that say how long they may live.
    let _ = headers.set("cache-control", &format!("max-age={ttl}"));
    let response = Response::builder().with_headers(headers).fixed(body.as_bytes().to_vec());
    if let Err(e) = Cache::default().put(edge_url(key).as_str(), response).await {
        worker::console_warn!("edge cache write failed: {e}");
    }
}

#[derive(Deserialize)]
struct DayRow {
    reserved: f64,
    spent: f64,
    requests: u32,
}

/// Reserves `amount` neurons for `request_id` on `day` if it fits under `cap`,
/// in one batch (one transaction): the conditional update and the charge row
/// stand or fall together. `Ok(false)`: the cap would be passed.
pub async fn reserve(env: &Env, day: &str, request_id: &str, amount: f64, cap: f64) -> Result<bool, ApiError> {
    let db = database(env)?;
    let bind = |sql: &str, args: &[JsValue]| db.prepare(sql).bind(args).map_err(dependency("bind reserve"));
    let statements = vec![
        bind("INSERT OR IGNORE INTO spend_days (day) VALUES (?1)", &[day.into()])?,
        bind(
            "UPDATE spend_days SET reserved = reserved + ?2, requests = requests + 1 \
             WHERE day = ?1 AND reserved + spent + ?2 <= ?3",
            &[day.into(), amount.into(), cap.into()],
        )?,
        bind(
            "INSERT INTO spend_charges (request_id, day, reserved) SELECT ?1, ?2, ?3 WHERE changes() = 1",
            &[request_id.into(), day.into(), amount.into()],
        )?,
    ];
    let results = db.batch(statements).await.map_err(dependency("reserve"))?;
    let written = results.get(2).and_then(|r| r.meta().ok().flatten()).and_then(|m| m.changes).unwrap_or(0);
    Ok(written == 1)
}

/// Charges `charged` neurons and releases the rest of `request_id`'s
/// reservation. Idempotent: a settled request is never charged again.
pub async fn settle(env: &Env, request_id: &str, charged: f64, now: u64) -> Result<(), ApiError> {
    let db = database(env)?;
    let bind = |sql: &str, args: &[JsValue]| db.prepare(sql).bind(args).map_err(dependency("bind settle"));
    let open = "FROM spend_charges WHERE request_id = ?1 AND settled_at IS NULL";
    let statements = vec![
        bind(
            &format!(
                "UPDATE spend_days SET reserved = reserved - (SELECT reserved {open}), spent = spent + ?2 \
                 WHERE day = (SELECT day {open})"
            ),
            &[request_id.into(), charged.into()],
        )?,
        bind(
            "UPDATE spend_charges SET charged = ?2, settled_at = ?3 WHERE request_id = ?1 AND settled_at IS NULL",
            &[request_id.into(), charged.into(), JsValue::from(now as f64)],
        )?,
    ];
    db.batch(statements).await.map_err(dependency("settle"))?;
    Ok(())
}

#[derive(Deserialize)]
struct OpenCharge {
    reserved: f64,
}

/// Settles a reservation whose request never settled (its worker died, or D1
/// failed twice), charging the whole reservation since its usage is unknown.
/// `Ok(false)` if the request has no open reservation (never made, or settled).
pub async fn release(env: &Env, request_id: &str, now: u64) -> Result<bool, ApiError> {
    let open: Option<OpenCharge> = database(env)?
        .prepare("SELECT reserved FROM spend_charges WHERE request_id = ?1 AND settled_at IS NULL")
        .bind(&[request_id.into()])
        .map_err(dependency("bind release"))?
        .first(None)
        .await
        .map_err(dependency("release"))?;
    let Some(open) = open else { return Ok(false) };
    settle(env, request_id, open.reserved, now).await?;
    Ok(true)
}

/// The day's ledger.
pub async fn ledger(env: &Env, day: &str, cap: f64, request_bound: f64) -> Result<crate::guards::spend::Ledger, ApiError> {
    let row: Option<DayRow> = database(env)?
        .prepare("SELECT reserved, spent, requests FROM spend_days WHERE day = ?1")
        .bind(&[day.into()])
        .map_err(dependency("bind ledger"))?
        .first(None)
        .await
        .map_err(dependency("ledger"))?;
    let row = row.unwrap_or(DayRow { reserved: 0.0, spent: 0.0, requests: 0 });
    Ok(crate::guards::spend::Ledger {
        day: day.to_string(),
        cap_neurons: cap,
        cap_usd: crate::cost::usd(cap),
        reserved_neurons: row.reserved,
        spent_neurons: row.spent,
        spent_usd: crate::cost::usd(row.spent),
        requests: row.requests,
        request_bound_neurons: request_bound,
    })
}
