//! The audit log in D1. Appending is one atomic INSERT (no race for the tail on
//! the request's path); sealing then fills `prev_hash` and `hash` in seq order
//! for every unsealed row after the last sealed one. Two sealers compute the
//! same values and each row is written only while unsealed, so the chain never
//! forks however many requests append at once.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env};

use super::d1::{database, dependency};
use crate::guards::audit::{self, Record, Row};
use crate::api::error::ApiError;

/// Rows sealed per round; a backlog is sealed over several rounds.
const SEAL_BATCH: u32 = 200;

/// Appends `record` and seals the chain up to it.
pub async fn append(env: &Env, record: &Record) -> Result<(), ApiError> {
    let db = database(env)?;
    db.prepare("INSERT INTO audit_log (body) VALUES (?1)")
        .bind(&[record.canonical().into()])
        .map_err(dependency("bind audit"))?
        .run()
        .await
        .map_err(dependency("audit append"))?;
    seal(&db).await
}

#[derive(Deserialize)]
struct Unsealed {
    seq: u64,
    body: String,
}

#[derive(Deserialize)]
struct Sealed {
    hash: Option<String>,
}

/// Seals every row after the last sealed one, in order.
async fn seal(db: &D1Database) -> Result<(), ApiError> {
    loop {
        let pending: Vec<Unsealed> = db
            .prepare(
                "SELECT seq, body FROM audit_log WHERE hash IS NULL \
                 AND seq > coalesce((SELECT max(seq) FROM audit_log WHERE hash IS NOT NULL), 0) ORDER BY seq LIMIT ?1",
            )
            .bind(&[JsValue::from(SEAL_BATCH)])
            .map_err(dependency("bind seal"))?
            .all()
            .await
            .map_err(dependency("seal read"))?
            .results()
            .map_err(dependency("seal decode"))?;
        let Some(first) = pending.first() else { return Ok(()) };
        let mut prev = if first.seq == 1 {
            audit::GENESIS.to_string()
        } else {
            let before: Option<Sealed> = db
                .prepare("SELECT hash FROM audit_log WHERE seq = ?1")
                .bind(&[JsValue::from((first.seq - 1) as f64)])
                .map_err(dependency("bind seal"))?
                .first(None)
                .await
                .map_err(dependency("seal read"))?;
            // A missing or unsealed predecessor is a broken chain: leave it for verify to report.
            match before.and_then(|b| b.hash) {
                Some(hash) => hash,
                None => return Ok(()),
            }
        };
        let mut statements = Vec::with_capacity(pending.len());
        for row in &pending {
            let hash = audit::chain_hash(&prev, &row.body);
            statements.push(
                db.prepare("UPDATE audit_log SET prev_hash = ?2, hash = ?3 WHERE seq = ?1 AND hash IS NULL")
                    .bind(&[JsValue::from(row.seq as f64), prev.as_str().into(), hash.as_str().into()])
                    .map_err(dependency("bind seal"))?,
            );
            prev = hash;
        }
        db.batch(statements).await.map_err(dependency("seal write"))?;
        if pending.len() < SEAL_BATCH as usize {
            return Ok(());
        }
    }
}

/// Seals what is pending, then returns every row in order (unsealed ones with
/// empty hashes, which verification reports).
pub async fn rows(env: &Env) -> Result<Vec<Row>, ApiError> {
    let db = database(env)?;
    seal(&db).await?;
    db.prepare("SELECT seq, body, coalesce(prev_hash, '') AS prev_hash, coalesce(hash, '') AS hash FROM audit_log ORDER BY seq")
        .all()
        .await
        .map_err(dependency("audit read"))?
        .results()
        .map_err(dependency("audit decode"))
}
