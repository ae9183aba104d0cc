//! The audit log in D1: append one record per `/ask`, guarded on the chain's
//! tail so concurrent requests never fork it, and read it back for verification.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::Env;

use crate::audit::{self, Record, Row};
use crate::error::ApiError;

/// Appends under contention: each lost race re-reads the tail.
const MAX_ATTEMPTS: usize = 50;

fn dependency(context: &'static str) -> impl Fn(worker::Error) -> ApiError {
    move |e| ApiError::Dependency(format!("D1 {context}: {e}"))
}

#[derive(Deserialize)]
struct Tail {
    seq: u64,
    hash: String,
}

/// Appends `record` after the current tail. The insert only happens if no row
/// took that place meanwhile; otherwise it re-reads the tail and tries again.
pub async fn append(env: &Env, record: &Record) -> Result<u64, ApiError> {
    let db = env.d1("DB").map_err(|_| ApiError::Misconfigured("the D1 binding DB is missing".into()))?;
    let body = record.canonical();
    for _ in 0..MAX_ATTEMPTS {
        let tail: Option<Tail> = db
            .prepare("SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1")
            .first(None)
            .await
            .map_err(dependency("audit tail"))?;
        let (prev_seq, prev_hash) = tail.map_or((0, audit::GENESIS.to_string()), |t| (t.seq, t.hash));
        let seq = prev_seq + 1;
        let hash = audit::chain_hash(&prev_hash, &body);
        let result = db
            .prepare(
                "INSERT INTO audit_log (seq, body, prev_hash, hash) SELECT ?1, ?2, ?3, ?4 \
                 WHERE NOT EXISTS (SELECT 1 FROM audit_log WHERE seq >= ?1)",
            )
            .bind(&[JsValue::from(seq as f64), body.as_str().into(), prev_hash.as_str().into(), hash.as_str().into()])
            .map_err(dependency("bind audit"))?
            .run()
            .await
            .map_err(dependency("audit append"))?;
        if result.meta().ok().flatten().and_then(|m| m.changes) == Some(1) {
            return Ok(seq);
        }
    }
    Err(ApiError::Dependency(format!("audit append lost {MAX_ATTEMPTS} races for the tail")))
}

/// Every row, in order.
pub async fn rows(env: &Env) -> Result<Vec<Row>, ApiError> {
    let db = env.d1("DB").map_err(|_| ApiError::Misconfigured("the D1 binding DB is missing".into()))?;
    let result = db
        .prepare("SELECT seq, body, prev_hash, hash FROM audit_log ORDER BY seq")
        .all()
        .await
        .map_err(dependency("audit read"))?;
    result.results().map_err(dependency("audit decode"))
}
