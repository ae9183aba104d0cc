//! The tamper-evident audit log, the parts that are not IO: a request's record
//! in canonical JSON (sorted keys, no whitespace), the chain hash
//! `SHA-256(prev_hash || canonical_json)`, and the walk that finds the first row
//! whose body, hash or place in the chain does not check out.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// Walks rows in `seq` order; `Ok(count)` when every row chains to the one before.
pub fn verify(rows: &[Row]) -> Result<usize, Break> {
    let mut expected_prev = GENESIS.to_string();
    for (i, row) in rows.iter().enumerate() {
        let expected_seq = i as u64 + 1;
        if row.seq != expected_seq {
            return Err(Break { seq: row.seq, why: format!("row {expected_seq} is missing") });
        }
        if row.prev_hash != expected_prev {
            return Err(Break { seq: row.seq, why: "prev_hash does not match the previous row's hash".into() });
        }
        if chain_hash(&row.prev_hash, &row.body) != row.hash {
            return Err(Break { seq: row.seq, why: "hash does not match the row's body".into() });
        }
        expected_prev = row.hash.clone();
    }
    Ok(rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
