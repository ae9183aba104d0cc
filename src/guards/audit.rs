//! The tamper-evident audit log, the parts that are not IO: a request's record
//! in canonical JSON (sorted keys, no whitespace), the chain hash
//! `SHA-256(prev_hash || canonical_json)`, and the walk that finds the first row
//! whose body, hash or place in the chain does not check out.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::response::{wire_name as wire, AskResponse};
use crate::corpus::chunk::hex;



/// The hash that precedes the first row.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What is recorded for one `/ask`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub request_id: String,
    /// Unix milliseconds.
    pub time: u64,
    /// HMAC of the client IP (never the IP).
    pub client_key: Option<String>,
    /// SHA-256 of the normalized question (never the question).
    pub question_hash: Option<String>,
    /// answered | refused | blocked | error
    pub outcome: String,
    pub reason: Option<String>,
    pub groundedness: Option<f64>,
    pub passages: Vec<String>,
    pub neurons: f64,
    /// `name:status` of every stage that ran.
    pub stages: Vec<String>,
}

impl Record {
    /// The record of a request admitted at `time` (unix ms), before its outcome is known.
    pub fn admitted(request_id: &str, time: u64, client_key: Option<String>, question_hash: Option<String>) -> Record {
        Record {
            request_id: request_id.to_string(),
            time,
            client_key,
            question_hash,
            outcome: "error".into(),
            reason: None,
            groundedness: None,
            passages: Vec::new(),
            neurons: 0.0,
            stages: Vec::new(),
        }
    }

    /// What the audit keeps of an answer, fresh or served from the cache.
    pub fn answered(mut self, answer: &AskResponse) -> Record {
        self.outcome = wire(answer.status);
        self.reason = answer.reason.map(wire);
        self.groundedness = answer.groundedness.as_ref().map(|g| g.mean);
        self.passages = answer.citations.iter().map(|c| c.passage_id.clone()).collect();
        self.neurons = answer.cost.neurons;
        self.stages = answer.stages.iter().map(|s| format!("{}:{}", wire(s.name), wire(s.status))).collect();
        self
    }

    /// An admitted request that ended in an error, by its stable code.
    pub fn failed(mut self, code: &str) -> Record {
        self.outcome = "error".into();
        self.reason = Some(code.to_string());
        self
    }

    /// Canonical JSON: keys sorted (serde_json's map is ordered), no whitespace.
    pub fn canonical(&self) -> String {
        // Serializing plain data into a Value cannot fail.
        serde_json::to_value(self).map(|v| v.to_string()).unwrap_or_default()
    }
}

/// SHA-256 over the previous row's hash and this row's canonical body, in hex.
pub fn chain_hash(prev_hash: &str, canonical: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(canonical.as_bytes());
    hex(&hasher.finalize())
}

/// A request id: 32 hex digits, the first 12 the unix milliseconds it was
/// issued at, the other 20 random (80 bits, unguessable). The time lets
/// `GET /audit/{id}` tell a record pruned past its retention from one that
/// never was.
pub fn request_id(now_ms: u64, random: &[u8; 10]) -> String {
    format!("{:012x}{}", now_ms & 0xffff_ffff_ffff, hex(random))
}

/// When the request id was issued (unix ms); `None` for what is not one.
pub fn issued_at(request_id: &str) -> Option<u64> {
    let valid = request_id.len() == 32 && request_id.bytes().all(|b| b.is_ascii_hexdigit());
    valid.then(|| u64::from_str_radix(&request_id[..12], 16).ok()).flatten()
}

/// A stored row.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Row {
    pub seq: u64,
    pub body: String,
    pub prev_hash: String,
    pub hash: String,
}

/// The first row that does not check out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Break {
    pub seq: u64,
    pub why: String,
}

/// Where a walk of the chain starts: the genesis, or the checkpoint the
/// retention prune left (the last pruned row's seq and hash).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Checkpoint {
    pub seq: u64,
    pub hash: String,
}

impl Checkpoint {
    pub fn genesis() -> Checkpoint {
        Checkpoint { seq: 0, hash: GENESIS.to_string() }
    }
}

/// A walk of the chain, page by page, so verification never holds every row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    last: Checkpoint,
    rows: usize,
}

impl Walk {
    pub fn from(start: Checkpoint) -> Walk {
        Walk { last: start, rows: 0 }
    }

    /// Goes on from where a walk handed out `cursor` stopped.
    pub fn resume(cursor: &str) -> Option<Walk> {
        let mut parts = cursor.splitn(3, '-');
        let seq = parts.next()?.parse().ok()?;
        let rows = parts.next()?.parse().ok()?;
        let hash = parts.next()?;
        let valid = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        valid.then(|| Walk { last: Checkpoint { seq, hash: hash.to_string() }, rows })
    }

    /// Where this walk stands, for [`Walk::resume`] in a later call: the last
    /// row checked (its seq and hash) and the rows walked so far.
    pub fn cursor(&self) -> String {
        format!("{}-{}-{}", self.last.seq, self.rows, self.last.hash)
    }

    /// The seq the next page starts after.
    pub fn after(&self) -> u64 {
        self.last.seq
    }

    /// Rows walked so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Checks the next rows, in `seq` order: each must come next, chain to the
    /// one before and hash its body.
    pub fn feed(&mut self, rows: &[Row]) -> Result<(), Break> {
        for row in rows {
            let expected_seq = self.last.seq + 1;
            if row.seq != expected_seq {
                return Err(Break { seq: row.seq, why: format!("row {expected_seq} is missing") });
            }
            if row.prev_hash != self.last.hash {
                return Err(Break { seq: row.seq, why: "prev_hash does not match the previous row's hash".into() });
            }
            if chain_hash(&row.prev_hash, &row.body) != row.hash {
                return Err(Break { seq: row.seq, why: "hash does not match the row's body".into() });
            }
            self.last = Checkpoint { seq: row.seq, hash: row.hash.clone() };
            self.rows += 1;
        }
        Ok(())
    }
}

/// Walks rows in `seq` order from the genesis; `Ok(count)` when every row
/// chains to the one before.
pub fn verify(rows: &[Row]) -> Result<usize, Break> {
    let mut walk = Walk::from(Checkpoint::genesis());
    walk.feed(rows)?;
    Ok(walk.rows())
}

/// The audit row of one window's requests refused before admission: how many,
/// by error code (canonical JSON, like a [`Record`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejections {
    /// Unix seconds.
    pub window_start: u64,
    pub window_seconds: u64,
    pub rejected: std::collections::BTreeMap<String, u64>,
}

impl Rejections {
    pub fn canonical(&self) -> String {
        serde_json::to_value(self).map(|v| v.to_string()).unwrap_or_default()
    }
}

/// Requests refused before admission, counted in memory between writes: a
/// flood of them costs D1 one write per batch, not one per request. The
/// rejection that opens a batch writes it, a while later (in its
/// `waitUntil`); the ones after it only add to it.
#[derive(Debug, Default)]
pub struct Tally {
    counts: std::collections::BTreeMap<(u64, String), u64>,
}

impl Tally {
    /// Counts one refusal of `code` in the window starting `window_start`;
    /// `true` when it opens a batch, which its caller then writes.
    pub fn add(&mut self, window_start: u64, code: &str) -> bool {
        let opens = self.counts.is_empty();
        *self.counts.entry((window_start, code.to_string())).or_default() += 1;
        opens
    }

    /// The batch to write, as JSON `[[window_start, code, count], …]`; the
    /// tally starts again empty.
    pub fn take(&mut self) -> String {
        let rows: Vec<serde_json::Value> =
            std::mem::take(&mut self.counts).into_iter().map(|((window, code), n)| serde_json::json!([window, code, n])).collect();
        serde_json::Value::Array(rows).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_refusals_is_one_batch_opened_by_its_first() {
        let mut tally = Tally::default();
        let opened: Vec<bool> = (0..1000).map(|i| tally.add(3600 * (i / 600), if i % 2 == 0 { "bad_request" } else { "turnstile_failed" })).collect();
        assert_eq!(opened.iter().filter(|o| **o).count(), 1);
        assert!(opened[0]);
        let batch: serde_json::Value = serde_json::from_str(&tally.take()).unwrap();
        assert_eq!(
            batch,
            serde_json::json!([[0, "bad_request", 300], [0, "turnstile_failed", 300], [3600, "bad_request", 200], [3600, "turnstile_failed", 200]])
        );
        assert_eq!(tally.take(), "[]");
        assert!(tally.add(0, "bad_request"), "after a write, the next refusal opens a batch again");
    }

    #[test]
    fn a_walk_resumed_from_its_cursor_checks_what_one_whole_walk_does() {
        let rows = chain(5);
        let mut first = Walk::from(Checkpoint::genesis());
        first.feed(&rows[..2]).unwrap();
        let mut rest = Walk::resume(&first.cursor()).unwrap();
        rest.feed(&rows[2..]).unwrap();
        let mut whole = Walk::from(Checkpoint::genesis());
        whole.feed(&rows).unwrap();
        assert_eq!(rest, whole);
        assert_eq!(rest.rows(), 5);
        // The cursor carries the last hash: one that is not the chain's breaks the next row.
        let forged = format!("2-2-{}", "a".repeat(64));
        assert_eq!(Walk::resume(&forged).unwrap().feed(&rows[2..]).unwrap_err().seq, 3);
        assert_eq!(Walk::resume("3-2-xyz"), None);
        assert_eq!(Walk::resume("nonsense"), None);
    }

    #[test]
    fn a_request_id_carries_when_it_was_issued() {
        let id = request_id(1_764_633_600_123, &[0xab; 10]);
        assert_eq!(id, format!("{:012x}{}", 1_764_633_600_123u64, "ab".repeat(10)));
        assert_eq!(issued_at(&id), Some(1_764_633_600_123));
        assert!(request_id(1, &[0; 10]) < request_id(2, &[0xff; 10]), "ids sort by time");
        assert_eq!(issued_at("xyz"), None);
        assert_eq!(issued_at(&"g".repeat(32)), None);
    }

    fn record(id: &str) -> Record {
        Record {
            request_id: id.into(),
            time: 1,
            client_key: Some("k".into()),
            question_hash: None,
            outcome: "answered".into(),
            reason: None,
            groundedness: Some(1.0),
            passages: vec!["pricing-02".into()],
            neurons: 0.0,
            stages: vec!["gate:passed".into()],
        }
    }

    fn chain(n: usize) -> Vec<Row> {
        let mut rows = Vec::new();
        let mut prev = GENESIS.to_string();
        for i in 0..n {
            let body = record(&format!("r{i}")).canonical();
            let hash = chain_hash(&prev, &body);
            rows.push(Row { seq: i as u64 + 1, body, prev_hash: prev.clone(), hash: hash.clone() });
            prev = hash;
        }
        rows
    }

    #[test]
    fn canonical_json_is_sorted_and_compact() {
        let json = record("r").canonical();
        assert!(json.starts_with(r#"{"clientKey":"k","groundedness":1.0,"neurons":0.0,"outcome":"answered""#), "{json}");
        assert!(!json.contains(' '));
    }

    /// Each kind of tampering is reported at the exact row.
    #[test]
    fn tampering_is_found_at_its_row() {
        assert_eq!(verify(&chain(4)), Ok(4));
        let mut body = chain(4);
        body[1].body = body[1].body.replace("answered", "refused");
        assert_eq!(verify(&body).unwrap_err().seq, 2);
        let mut hash = chain(4);
        hash[2].hash = GENESIS.into();
        assert_eq!(verify(&hash).unwrap_err(), Break { seq: 3, why: "hash does not match the row's body".into() });
        let mut deleted = chain(4);
        deleted.remove(1);
        assert_eq!(verify(&deleted).unwrap_err(), Break { seq: 3, why: "row 2 is missing".into() });
        let mut last_gone = chain(4);
        last_gone.pop();
        assert_eq!(verify(&last_gone), Ok(3), "a truncated tail is a shorter, valid chain");
    }

    /// After a retention prune the chain verifies from its checkpoint, page by page.
    #[test]
    fn a_pruned_chain_verifies_from_its_checkpoint() {
        let rows = chain(6);
        let mut walk = Walk::from(Checkpoint { seq: 2, hash: rows[1].hash.clone() });
        walk.feed(&rows[2..4]).unwrap();
        assert_eq!(walk.after(), 4);
        walk.feed(&rows[4..]).unwrap();
        assert_eq!(walk.rows(), 4);
        let mut wrong = Walk::from(Checkpoint { seq: 2, hash: GENESIS.into() });
        assert_eq!(wrong.feed(&rows[2..]).unwrap_err().seq, 3);
    }
}
