//! The answer cache, the parts that are not IO: the key, what may be cached, and
//! how a stored answer is served again. The glue keeps two tiers: the Cache API
//! (per location, fast) in front of a D1 table (durable, with TTL and pinned rows).

use sha2::{Digest, Sha256};

use crate::api::response::{AskResponse, CacheInfo, Cost, Reason, Stage, Status, Tier};
use crate::config::Config;
use crate::corpus::chunk::hex;

/// This build's answering rules: the crate's version, the tokenizer's
/// version and the answering rules' version. Part of every cache key, so a
/// deploy that changes how answers are made never serves answers made the old way.
pub fn build_id() -> String {
    format!("{}+rules.{}+answers.{}", env!("CARGO_PKG_VERSION"), crate::text::RULES_VERSION, crate::stages::ANSWERING_RULES)
}

/// The question as the cache sees it: lowercase, single spaces, no trailing
/// punctuation. "How much is a Day Pass?" and "how much is a day pass" share a key.
pub fn normalize_question(question: &str) -> String {
    let lower = question.to_lowercase();
    let squashed = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    squashed.trim_end_matches(['?', '!', '.', ' ']).to_string()
}

/// SHA-256 over the normalized question, the corpus version, the build that
/// answers ([`build_id`]) and every setting that changes answers, so a new
/// corpus, deploy or threshold never serves a stale answer.
pub fn key(question: &str, corpus_version: &str, build: &str, config: &Config) -> String {
    let mut hasher = Sha256::new();
    for part in [normalize_question(question), corpus_version.to_string(), build.to_string(), config.answer_fingerprint()] {
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

/// A stored answer served for a new request: its own request id, the stages
/// this request ran (guards and the cache hit) followed by the stored
/// answering stages (the stored guard stages belonged to another request),
/// `cache.hit` with its tier, and a cost of nothing (no paid call was made).
pub fn serve(mut stored: AskResponse, request_id: &str, stages_run: &[Stage], tier: Tier) -> AskResponse {
    let answering = stored.stages.into_iter().filter(|s| s.name.is_answering());
    stored.stages = stages_run.iter().cloned().chain(answering).collect();
    stored.request_id = request_id.to_string();
    stored.cache = CacheInfo { hit: true, tier: Some(tier) };
    stored.cost = Cost { neurons: 0.0, usd: 0.0, calls: 0 };
    stored
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::response::{EngineInfo, StageName, StageStatus};

    #[test]
    fn equivalent_questions_share_a_key() {
        let cfg = Config::default();
        let build = build_id();
        let a = key("How much is a Day Pass?", "v1", &build, &cfg);
        assert_eq!(a, key("  how much is a day   pass ", "v1", &build, &cfg));
        assert_ne!(a, key("How much is a Day Pass?", "v2", &build, &cfg), "a new corpus version is a new key");
        assert_ne!(a, key("How much is a Day Pass?", "v1", "0.0.1+rules.1", &cfg), "a new build is a new key");
        let stricter = Config { gate_min_mean: 0.8, ..Config::default() };
        assert_ne!(a, key("How much is a Day Pass?", "v1", &build, &stricter), "a new threshold is a new key");
        assert_ne!(a, key("How much is a Day Pass for two?", "v1", &build, &cfg));
    }

    #[test]
    fn only_answers_and_refusals_are_cached() {
        assert!(cacheable(Status::Answered, None));
        assert!(cacheable(Status::Refused, Some(Reason::NoEvidence)));
        assert!(!cacheable(Status::Refused, Some(Reason::ModelUnavailable)));
        assert!(!cacheable(Status::Refused, Some(Reason::ModelOutputInvalid)));
        assert!(!cacheable(Status::Blocked, None));
    }

    fn stage(name: StageName) -> Stage {
        Stage { name, status: StageStatus::Passed, ms: 1, detail: String::new() }
    }

    /// A hit keeps the stored answer, with this request's id, guard stages and no cost.
    #[test]
    fn a_hit_gets_its_own_id_and_stages() {
        let stored = AskResponse {
            request_id: "old".into(),
            status: Status::Answered,
            reason: None,
            answer: Some("A Day Pass costs $35.".into()),
            citations: vec![],
            claims: vec![],
            groundedness: None,
            retrieval: vec![],
            stages: [StageName::Validate, StageName::Turnstile, StageName::Cache, StageName::Retrieve, StageName::Gate].map(stage).to_vec(),
            cache: CacheInfo { hit: false, tier: None },
            cost: Cost { neurons: 59.1, usd: 0.0007, calls: 4 },
            engine: EngineInfo::LOCAL,
            corpus_version: "v1".into(),
        };
        let round_trip: AskResponse = serde_json::from_str(&serde_json::to_string(&stored).unwrap()).unwrap();
        assert_eq!(round_trip, stored, "an answer survives the cache unchanged");
        let served = serve(stored.clone(), "new", &[stage(StageName::Cache)], Tier::D1);
        assert_eq!(served.request_id, "new");
        assert_eq!(served.cache, CacheInfo { hit: true, tier: Some(Tier::D1) });
        assert_eq!(served.cost.calls, 0);
        assert_eq!(served.stages.iter().map(|s| s.name).collect::<Vec<_>>(), [StageName::Cache, StageName::Retrieve, StageName::Gate]);
        assert_eq!(served.answer, stored.answer);
        assert_eq!(serde_json::to_value(&served).unwrap()["cache"], serde_json::json!({"hit": true, "tier": "d1"}));
    }
}
