//! The answer cache, the parts that are not IO: the key, what may be cached, and
//! how a stored answer is served again. The glue keeps two tiers: the Cache API
//! (per location, fast) in front of a D1 table (durable, with TTL and pinned rows).

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::corpus::chunk::hex;
use crate::config::Config;
use crate::stages::pipeline::ANSWERING_STAGES;
use crate::api::response::{Reason, Stage, Status};

/// The question as the cache sees it: lowercase, single spaces, no trailing
/// punctuation. "How much is a Day Pass?" and "how much is a day pass" share a key.
pub fn normalize_question(question: &str) -> String {
    let lower = question.to_lowercase();
    let squashed = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    squashed.trim_end_matches(['?', '!', '.', ' ']).to_string()
}

/// SHA-256 over the normalized question, the corpus version and every setting
/// that changes answers, so a new corpus or threshold never serves a stale answer.
pub fn key(question: &str, corpus_version: &str, config: &Config) -> String {
    let mut hasher = Sha256::new();
    for part in [normalize_question(question), corpus_version.to_string(), config.answer_fingerprint()] {
        hasher.update(part.as_bytes());
        hasher.update([0u8]);
    }
    hex(&hasher.finalize())
}

/// Only answers and refusals about the question are cached; blocks and
/// refusals caused by a failing model never are.
pub fn cacheable(status: Status, reason: Option<Reason>) -> bool {
    match status {
        Status::Answered => true,
        Status::Refused => reason.is_some_and(Reason::is_about_the_question),
        Status::Blocked => false,
    }
}

/// Which tier served a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Edge,
    D1,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Edge => "edge",
            Tier::D1 => "d1",
        }
    }
}

/// A stored `AskResponse` served for a new request: its own request id, the
/// stages this request ran (guards and the cache hit) followed by the stored
/// answering stages (the stored guard stages belonged to another request),
/// `cache.hit = true`, and a cost of nothing (this request made no paid call). `None` if the stored JSON is not a
/// response object (treated as a miss).
pub fn serve(stored: &str, request_id: &str, stages_run: &[Stage], tier: Tier) -> Option<Value> {
    let mut response: Value = serde_json::from_str(stored).ok()?;
    let object = response.as_object_mut()?;
    let stored_stages = object.get("stages")?.as_array()?.clone();
    let answering = stored_stages
        .into_iter()
        .filter(|s| s.get("name").and_then(Value::as_str).is_some_and(|n| ANSWERING_STAGES.contains(&n)));
    let mut stages: Vec<Value> = stages_run.iter().filter_map(|s| serde_json::to_value(s).ok()).collect();
    stages.extend(answering);
    object.insert("requestId".into(), Value::from(request_id));
    object.insert("stages".into(), Value::from(stages));
    object.insert("cache".into(), serde_json::json!({ "hit": true, "tier": tier.as_str() }));
    object.insert("cost".into(), serde_json::json!({ "neurons": 0.0, "usd": 0.0, "calls": 0 }));
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::response::StageStatus;

    #[test]
    fn equivalent_questions_share_a_key() {
        let cfg = Config::default();
        let a = key("How much is a Day Pass?", "v1", &cfg);
        assert_eq!(a, key("  how much is a day   pass ", "v1", &cfg));
        assert_ne!(a, key("How much is a Day Pass?", "v2", &cfg), "a new corpus version is a new key");
        let stricter = Config { gate_min_mean: 0.8, ..Config::default() };
        assert_ne!(a, key("How much is a Day Pass?", "v1", &stricter), "a new threshold is a new key");
        assert_ne!(a, key("How much is a Day Pass for two?", "v1", &cfg));
    }

    #[test]
    fn only_answers_and_refusals_are_cached() {
        assert!(cacheable(Status::Answered, None));
        assert!(cacheable(Status::Refused, Some(Reason::NoEvidence)));
        assert!(!cacheable(Status::Refused, Some(Reason::ModelUnavailable)));
        assert!(!cacheable(Status::Refused, Some(Reason::ModelOutputInvalid)));
        assert!(!cacheable(Status::Blocked, None));
    }

    #[test]
    fn a_hit_gets_its_own_id_and_stages() {
        let stored = r#"{"requestId":"old","status":"answered","stages":[{"name":"validate"},{"name":"turnstile"},{"name":"cache"},{"name":"retrieve"},{"name":"gate","status":"passed"}],"cache":{"hit":false},"cost":{"neurons":59.1,"usd":0.0007,"calls":4}}"#;
        let run = [Stage { name: "cache", status: StageStatus::Passed, ms: 1, detail: "hit".into() }];
        let served = serve(stored, "new", &run, Tier::D1).unwrap();
        assert_eq!(served["requestId"], "new");
        assert_eq!(served["cache"], serde_json::json!({"hit": true, "tier": "d1"}));
        assert_eq!(served["cost"]["calls"], 0);
        let names: Vec<&str> = served["stages"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["cache", "retrieve", "gate"]);
        assert!(serve("not json", "x", &run, Tier::Edge).is_none());
        assert!(serve("[1]", "x", &run, Tier::Edge).is_none());
    }
}
