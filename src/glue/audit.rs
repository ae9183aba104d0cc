//! [`AuditLog`] over D1. Appending is one atomic INSERT (no race for the tail);
//! sealing fills `prev_hash` and `hash` in seq order for every unsealed row
//! after the last sealed one. Two sealers compute the same values and each row
//! is written only while unsealed, so the chain never forks however many
//! requests append at once. Every [`SEAL_EVERY`]th append seals, as do the cron
//! and verification: one seal of a batch costs what one seal per row did.
//!
//! The cron keeps the log bounded: each ended window's count of requests
//! refused before admission becomes one row, and rows older than the retention
//! window are pruned behind a checkpoint (the last pruned row's seq and hash)
//! from which the rest still verifies.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::D1Database;

use super::d1::dependency;
use crate::api::error::ApiError;
use crate::guards::audit::{self, Break, Checkpoint, Record, Rejections, Row, Tally, Walk};
use crate::ports::AuditLog;

/// Rows sealed, and verified, per round; a backlog takes several rounds.
const PAGE: u32 = 200;
/// Pages one verification call reads: with its seal, well inside the Free
/// plan's 50 queries per invocation. A longer chain is walked across calls.
const PAGES_PER_CALL: u32 = 10;
/// Seal rounds (at most four queries each) per invocation: a backlog of any
/// length is sealed across cron runs, never in one invocation past the Free
/// plan's 50 queries. The cron's leaves room for the roll-up; verification's
/// for its walk; a proof's covers the rows since the last append's seal.
pub const CRON_SEAL_ROUNDS: u32 = 8;
const VERIFY_SEAL_ROUNDS: u32 = 4;
const PROOF_SEAL_ROUNDS: u32 = 1;

/// One verification call's outcome.
pub struct Verified {
    /// The rows walked so far (this call and those it resumed), or the first break.
    pub walked: Result<usize, Break>,
    /// The seq of the row holding the hash asked about, if this call read it.
    pub found: Option<u64>,
    /// Where to go on from when rows remain.
    pub next: Option<String>,
}

/// An append whose seq is a multiple of this seals the rows before it. Each
/// seal reads the tail (three reads) and writes a batch, so sealing per row
/// quadrupled an append's D1 work; an unsealed row is at most this many
/// appends (or one cron run) from its hash.
const SEAL_EVERY: u64 = 16;
/// Most rows an append seals: one interval's, so the request stays within
/// the Free plan's 50 D1 queries; a backlog (racing appends) is the cron's.
const APPEND_SEAL_ROWS: u32 = SEAL_EVERY as u32;

pub struct D1Audit {
    pub db: D1Database,
}

/// How long a batch of refusals gathers before it is written: a flood costs
/// an isolate one D1 write per this, well inside `waitUntil`'s 30 s.
const TALLY_WRITE_MS: u64 = 5000;

thread_local! {
    /// This isolate's refusals not written yet (one isolate, one thread).
    static TALLY: std::cell::RefCell<Tally> = std::cell::RefCell::default();
}

impl AuditLog for D1Audit {
    async fn append(&self, record: &Record) -> Result<(), ApiError> {
        self.append_body(&record.canonical(), record.time, Some(&record.request_id)).await
    }

    /// Counts the refusal in this isolate's tally; the refusal that opens a
    /// batch waits [`TALLY_WRITE_MS`] (in its `waitUntil`), then writes the
    /// whole batch in one statement.
    async fn reject(&self, window_start: u64, code: &str) -> Result<(), ApiError> {
        if !TALLY.with(|t| t.borrow_mut().add(window_start, code)) {
            return Ok(());
        }
        worker::Delay::from(std::time::Duration::from_millis(TALLY_WRITE_MS)).await;
        let batch = TALLY.with(|t| t.borrow_mut().take());
        self.db
            .prepare(
                "INSERT INTO audit_rejected (window_start, code, count) \
                 SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?1) WHERE true \
                 ON CONFLICT (window_start, code) DO UPDATE SET count = count + excluded.count",
            )
            .bind(&[batch.into()])
            .map_err(dependency("bind audit reject"))?
            .run()
            .await
            .map_err(dependency("audit reject"))?;
        Ok(())
    }
}

/// Where a request's record sits in the chain.
#[derive(Deserialize)]
pub struct Proof {
    pub seq: u64,
    pub hash: String,
    pub prev_hash: String,
}

#[derive(Deserialize)]
struct Appended {
    seq: u64,
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

#[derive(Deserialize)]
struct Rejected {
    window_start: u64,
    code: String,
    count: u64,
}

#[derive(Deserialize)]
struct Last {
    seq: Option<u64>,
}

#[derive(Deserialize)]
struct Pruned {
    /// The newest `created_at` (unix ms) of the rows pruned so far.
    pruned_through: Option<u64>,
}

impl D1Audit {
    /// Appends one row (a record, a rejection roll-up, an operator's action).
    pub async fn append_body(&self, body: &str, time_ms: u64, request_id: Option<&str>) -> Result<(), ApiError> {
        let request = request_id.map_or(JsValue::NULL, JsValue::from);
        let appended: Option<Appended> = self
            .db
            // The next seq follows the last row, or the checkpoint when
            // pruning has left none: a seq is never used twice.
            .prepare(
                "INSERT INTO audit_log (seq, body, created_at, request_id) VALUES \
                 (max(coalesce((SELECT max(seq) FROM audit_log), 0), coalesce((SELECT seq FROM audit_checkpoint WHERE id = 1), 0)) + 1, \
                 ?1, ?2, ?3) RETURNING seq",
            )
            .bind(&[body.into(), JsValue::from(time_ms as f64), request])
            .map_err(dependency("bind audit"))?
            .first(None)
            .await
            .map_err(dependency("audit append"))?;
        match appended {
            Some(Appended { seq }) if seq % SEAL_EVERY != 0 => Ok(()),
            // One round, of a bounded size: a request stays inside its D1
            // query budget however long the backlog; the cron seals the rest.
            _ => self.seal_rounds(APPEND_SEAL_ROWS, 1).await,
        }
    }

    /// Where the chain starts: the retention checkpoint, or the genesis.
    async fn checkpoint(&self) -> Result<Checkpoint, ApiError> {
        let row: Option<Checkpoint> = self
            .db
            .prepare("SELECT seq, hash FROM audit_checkpoint WHERE id = 1")
            .first(None)
            .await
            .map_err(dependency("audit checkpoint"))?;
        Ok(row.unwrap_or_else(Checkpoint::genesis))
    }

    /// Seals the rows after the last sealed one, in order, for at most
    /// `rounds` rounds of a page each; the rest wait for the next call.
    pub async fn seal(&self, rounds: u32) -> Result<(), ApiError> {
        self.seal_rounds(PAGE, rounds).await
    }

    /// Seals up to `rounds` rounds of `page` rows each.
    async fn seal_rounds(&self, page: u32, rounds: u32) -> Result<(), ApiError> {
        let db = &self.db;
        for _ in 0..rounds {
            let pending: Vec<Unsealed> = db
                .prepare(
                    "SELECT seq, body FROM audit_log WHERE hash IS NULL \
                     AND seq > coalesce((SELECT max(seq) FROM audit_log WHERE hash IS NOT NULL), 0) ORDER BY seq LIMIT ?1",
                )
                .bind(&[JsValue::from(page)])
                .map_err(dependency("bind seal"))?
                .all()
                .await
                .map_err(dependency("seal read"))?
                .results()
                .map_err(dependency("seal decode"))?;
            let Some(first) = pending.first() else { return Ok(()) };
            let checkpoint = self.checkpoint().await?;
            let mut prev = if first.seq == checkpoint.seq + 1 {
                checkpoint.hash
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
            // One statement for the round, over a JSON array of the rows'
            // hashes: a round is one D1 query however many rows it seals.
            let mut sealed = Vec::with_capacity(pending.len());
            for row in &pending {
                let hash = audit::chain_hash(&prev, &row.body);
                sealed.push(serde_json::json!([row.seq, prev, hash]));
                prev = hash;
            }
            let sealed = serde_json::Value::Array(sealed).to_string();
            db.prepare(
                "UPDATE audit_log SET prev_hash = json_extract(s.value, '$[1]'), hash = json_extract(s.value, '$[2]') \
                 FROM json_each(?1) AS s WHERE audit_log.seq = json_extract(s.value, '$[0]') AND audit_log.hash IS NULL",
            )
            .bind(&[sealed.into()])
            .map_err(dependency("bind seal"))?
            .run()
            .await
            .map_err(dependency("seal write"))?;
            if pending.len() < page as usize {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Seals what is pending, then walks the chain from its checkpoint, a page
    /// at a time, or from `resume` (a cursor an earlier call handed out), for
    /// at most [`PAGES_PER_CALL`] pages: `Ok(rows)` when every row checks out,
    /// or the first that does not; and the cursor to go on from, when rows remain.
    pub async fn verify(&self, wanted: Option<&str>, resume: Option<Walk>) -> Result<Verified, ApiError> {
        self.seal(VERIFY_SEAL_ROUNDS).await?;
        let mut walk = match resume {
            Some(walk) => walk,
            None => Walk::from(self.checkpoint().await?),
        };
        let mut found = None;
        for _ in 0..PAGES_PER_CALL {
            let page: Vec<Row> = self
                .db
                .prepare(
                    // Only sealed rows: a backlog not sealed yet is the
                    // chain's unfinished tail, not a break (a row whose hash
                    // was removed leaves a gap, which is).
                    "SELECT seq, body, coalesce(prev_hash, '') AS prev_hash, hash \
                     FROM audit_log WHERE seq > ?1 AND hash IS NOT NULL ORDER BY seq LIMIT ?2",
                )
                .bind(&[JsValue::from(walk.after() as f64), JsValue::from(PAGE)])
                .map_err(dependency("bind audit read"))?
                .all()
                .await
                .map_err(dependency("audit read"))?
                .results()
                .map_err(dependency("audit decode"))?;
            found = found.or_else(|| page.iter().find(|r| Some(r.hash.as_str()) == wanted).map(|r| r.seq));
            if let Err(broken) = walk.feed(&page) {
                return Ok(Verified { walked: Err(broken), found, next: None });
            }
            if page.len() < PAGE as usize {
                // The sealed rows end here; a tail not sealed yet is walked
                // by a later call, which seals more of it first.
                let next = self.unsealed_after(walk.after()).await?.then(|| walk.cursor());
                return Ok(Verified { walked: Ok(walk.rows()), found, next });
            }
        }
        Ok(Verified { walked: Ok(walk.rows()), found, next: Some(walk.cursor()) })
    }

    /// Whether rows after `seq` wait to be sealed.
    async fn unsealed_after(&self, seq: u64) -> Result<bool, ApiError> {
        let row: Option<Last> = self
            .db
            .prepare("SELECT seq FROM audit_log WHERE seq > ?1 AND hash IS NULL LIMIT 1")
            .bind(&[JsValue::from(seq as f64)])
            .map_err(dependency("bind unsealed"))?
            .first(None)
            .await
            .map_err(dependency("unsealed"))?;
        Ok(row.is_some())
    }

    /// The row that records `request_id` (issued at `issued_ms`), sealed: its
    /// place and hash; [`ApiError::AuditPruned`] when retention has removed
    /// it, or [`ApiError::NotFound`] (none yet, or never).
    pub async fn proof(&self, request_id: &str, issued_ms: u64) -> Result<Proof, ApiError> {
        self.seal(PROOF_SEAL_ROUNDS).await?;
        let found: Option<Proof> = self
            .db
            .prepare("SELECT seq, hash, prev_hash FROM audit_log WHERE request_id = ?1 AND hash IS NOT NULL")
            .bind(&[request_id.into()])
            .map_err(dependency("bind proof"))?
            .first(None)
            .await
            .map_err(dependency("read proof"))?;
        if let Some(proof) = found {
            return Ok(proof);
        }
        let pruned: Option<Pruned> = self
            .db
            .prepare("SELECT pruned_through FROM audit_checkpoint WHERE id = 1")
            .first(None)
            .await
            .map_err(dependency("audit checkpoint"))?;
        match pruned.and_then(|p| p.pruned_through) {
            Some(through) if issued_ms <= through => Err(ApiError::AuditPruned),
            _ => Err(ApiError::NotFound),
        }
    }

    /// Turns each ended window's counts of refused requests into one row.
    pub async fn roll_up(&self, current_window: u64, window_seconds: u64) -> Result<(), ApiError> {
        let counted: Vec<Rejected> = self
            .db
            .prepare("SELECT window_start, code, count FROM audit_rejected WHERE window_start < ?1 ORDER BY window_start, code")
            .bind(&[JsValue::from(current_window as f64)])
            .map_err(dependency("bind roll up"))?
            .all()
            .await
            .map_err(dependency("roll up"))?
            .results()
            .map_err(dependency("decode roll up"))?;
        let mut windows: Vec<Rejections> = Vec::new();
        for row in counted {
            match windows.last_mut().filter(|w| w.window_start == row.window_start) {
                Some(window) => {
                    window.rejected.insert(row.code, row.count);
                }
                None => windows.push(Rejections {
                    window_start: row.window_start,
                    window_seconds,
                    rejected: [(row.code, row.count)].into_iter().collect(),
                }),
            }
        }
        for window in windows {
            let end_ms = (window.window_start + window_seconds) * 1000;
            self.append_body(&window.canonical(), end_ms, None).await?;
            self.db
                .prepare("DELETE FROM audit_rejected WHERE window_start = ?1")
                .bind(&[JsValue::from(window.window_start as f64)])
                .map_err(dependency("bind roll up"))?
                .run()
                .await
                .map_err(dependency("roll up"))?;
        }
        Ok(())
    }

    /// Deletes sealed rows appended before `cutoff_ms`, but never the newest
    /// sealed row, in one batch with the checkpoint that carries the last
    /// deleted row's seq and hash and the newest time pruned.
    pub async fn prune(&self, cutoff_ms: u64) -> Result<(), ApiError> {
        let last: Option<Last> = self
            .db
            .prepare(
                "SELECT max(seq) AS seq FROM audit_log WHERE hash IS NOT NULL AND created_at < ?1 \
                 AND seq < (SELECT max(seq) FROM audit_log WHERE hash IS NOT NULL)",
            )
            .bind(&[JsValue::from(cutoff_ms as f64)])
            .map_err(dependency("bind prune"))?
            .first(None)
            .await
            .map_err(dependency("prune"))?;
        let Some(seq) = last.and_then(|l| l.seq) else { return Ok(()) };
        let statements = vec![
            self.db
                .prepare(
                    "INSERT INTO audit_checkpoint (id, seq, hash, pruned_through) \
                     SELECT 1, seq, hash, (SELECT max(created_at) FROM audit_log WHERE seq <= ?1) FROM audit_log WHERE seq = ?1 \
                     ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, \
                     pruned_through = max(coalesce(audit_checkpoint.pruned_through, 0), coalesce(excluded.pruned_through, 0))",
                )
                .bind(&[JsValue::from(seq as f64)])
                .map_err(dependency("bind prune"))?,
            self.db.prepare("DELETE FROM audit_log WHERE seq <= ?1").bind(&[JsValue::from(seq as f64)]).map_err(dependency("bind prune"))?,
        ];
        self.db.batch(statements).await.map_err(dependency("prune"))?;
        Ok(())
    }
}
