//! [`RateLimiter`] over D1: one atomic upsert per request counts and decides,
//! so concurrent requests can never read the same count.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::D1Database;

use super::d1::dependency;
use crate::api::error::ApiError;
use crate::guards::rate_limit::Window;
use crate::ports::RateLimiter;

/// The `rate_limits` table.
pub struct D1Limiter {
    pub db: D1Database,
}

#[derive(Deserialize)]
struct Count {
    count: u32,
}

impl RateLimiter for D1Limiter {
    async fn count(&self, client: &str, window: Window) -> Result<u32, ApiError> {
        let row: Option<Count> = self
            .db
            .prepare(
                "INSERT INTO rate_limits (client_key, window_start, count) VALUES (?1, ?2, 1) \
                 ON CONFLICT (client_key, window_start) DO UPDATE SET count = count + 1 \
                 RETURNING count",
            )
            .bind(&[client.into(), JsValue::from(window.start as f64)])
            .map_err(dependency("bind rate limit"))?
            .first(None)
            .await
            .map_err(dependency("rate limit"))?;
        Ok(row.ok_or_else(|| ApiError::Dependency("D1 rate limit: no row returned".into()))?.count)
    }
}

/// Deletes windows that have ended.
pub async fn prune(db: &D1Database, window_seconds: u64, now: u64) -> Result<(), ApiError> {
    db.prepare("DELETE FROM rate_limits WHERE window_start + ?1 <= ?2")
        .bind(&[JsValue::from(window_seconds as f64), JsValue::from(now as f64)])
        .map_err(dependency("bind prune"))?
        .run()
        .await
        .map_err(dependency("prune windows"))?;
    Ok(())
}
