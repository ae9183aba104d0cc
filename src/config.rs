//! `[vars]` parsed once into typed settings. A value that does not parse is an
//! error naming the variable (the worker answers 503 `misconfigured`), never a
//! silent fallback to a default.

use std::str::FromStr;

use crate::api::error::ApiError;

use crate::corpus::workspace::Limits;
use crate::escalation::Settings;
use crate::models::Role;

/// Which engine answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// BM25 over D1 FTS5, extractive answers, deterministic scoring. Zero cost.
    Local,
    /// Workers AI embeddings over Vectorize fused with BM25, a generation model,
    /// and a judge model for decomposition and entailment. Paid, behind the cap.
    WorkersAi,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Local => "local",
            Engine::WorkersAi => "workers-ai",
        }
    }
}

/// Default models: the judge is of another family than the generator, since a
/// model grading its own output is a known weakness.
pub const DEFAULT_EMBEDDING_MODEL: &str = "@cf/baai/bge-base-en-v1.5";
pub const DEFAULT_GENERATION_MODEL: &str = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
pub const DEFAULT_JUDGE_MODEL: &str = "@cf/mistralai/mistral-small-3.1-24b-instruct";
/// The query rewrite's model: a small one, since it only rewords a question.
pub const DEFAULT_REWRITE_MODEL: &str = "@cf/meta/llama-3.2-3b-instruct";

/// Neurons per million (input, output) tokens of the default models, from the
/// Workers AI pricing page; `PRICES` overrides or extends them.
/// Neurons per million tokens for one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

fn default_prices() -> Vec<(String, Price)> {
    vec![
        (DEFAULT_EMBEDDING_MODEL.into(), Price { input: 6058.0, output: 0.0 }),
        (DEFAULT_GENERATION_MODEL.into(), Price { input: 26668.0, output: 204805.0 }),
        (DEFAULT_JUDGE_MODEL.into(), Price { input: 31876.0, output: 50488.0 }),
        (DEFAULT_REWRITE_MODEL.into(), Price { input: 4625.0, output: 30475.0 }),
    ]
}

/// The thresholds and limits the pipeline runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub engine: Engine,
    /// `ENVIRONMENT = "production"` makes missing secrets fatal.
    pub production: bool,
    /// Passages retrieved per question.
    pub top_k: usize,
    /// Slots reserved for passages the top hits refer to (one hop), beyond
    /// `top_k`; 0 follows no reference.
    pub hop_slots: usize,
    /// A followed passage's score: its referrer's, times this.
    pub hop_decay: f64,
    /// What a question term in a passage's heading weighs in BM25 against
    /// one in its text.
    pub heading_weight: f64,
    /// Evidence gate: share (IDF-weighted) of the question's terms the retrieved
    /// passages must contain before an answer is composed. 0.5 is the paired
    /// bench's choice on its dev split: the most right answers shown with the
    /// wrong ones refused, while at least 90% of wrong answers stay caught
    /// (docs/evals.md, "Since stop 46").
    pub evidence_min_coverage: f64,
    /// Final gate: share of the question's terms the answer itself must contain,
    /// so a supported sentence that answers another question is refused.
    pub answer_min_coverage: f64,
    /// Final gate: mean claim score.
    pub gate_min_mean: f64,
    /// Final gate: weakest claim score.
    pub gate_min_claim: f64,
    /// Most sentences the extractive answerer quotes.
    pub max_answer_sentences: usize,
    /// Turnstile siteverify endpoint (a variable so tests can point at a fake).
    pub siteverify_url: String,
    /// Expected Turnstile `action` and `hostname`, checked where set.
    pub turnstile_action: Option<String>,
    pub turnstile_hostname: Option<String>,
    /// Bound on one siteverify call.
    pub turnstile_timeout_ms: u32,
    /// The widget's public site key, handed to the demo page by `/health`.
    pub turnstile_site_key: Option<String>,
    /// Origins whose pages may call the public routes (`CORS_ORIGINS`).
    pub cors_origins: Vec<String>,
    /// Requests per client per window.
    pub rate_limit: u32,
    pub rate_limit_window_seconds: u64,
    /// How long a cached answer lives (pinned ones never expire).
    pub cache_ttl_seconds: u64,
    pub embedding_model: String,
    /// Vectorize index dimensions; must match the embedding model's output.
    pub embedding_dimensions: usize,
    pub generation_model: String,
    pub judge_model: String,
    /// Rewrites the question once when the evidence is weak (`REWRITE_MODEL`).
    pub rewrite_model: String,
    /// `max_tokens` of every generation, judge and rewrite call.
    pub max_tokens: u32,
    /// Evidence gate (Workers AI): the best vector match must score at least this.
    pub vector_min_score: f64,
    /// Bound on one AI or Vectorize call.
    pub ai_timeout_ms: u32,
    /// Bound on all of one request's model calls together: the platform runs
    /// a request's `waitUntil` work for at most 30 s after its response, so a
    /// request whose client hung up still settles and audits inside it.
    pub request_deadline_ms: u32,
    /// How long audit rows are kept (days) before the cron prunes them behind
    /// a checkpoint.
    pub audit_retention_days: u32,
    /// How long the spend ledger's days, charges and client shares are kept
    /// (days) before the cron drops them.
    pub spend_retention_days: u32,
    /// Neurons per million tokens, per model.
    pub prices: Vec<(String, Price)>,
    /// The day's (UTC) spend cap, in dollars of Workers AI usage.
    pub daily_cap_usd: f64,
    /// When the cap is reached, answer with the zero-cost local engine instead of 503.
    pub budget_fallback_local: bool,
    /// The share of the day's cap one client may reserve (`DAILY_CLIENT_SHARE`),
    /// so no single client can drain the day.
    pub daily_client_share: f64,
    /// Workspace limits (`WORKSPACE_*`).
    pub workspaces: Limits,
    /// Queue refused questions for an operator (`REVIEW_INBOX = "on"`).
    pub review_inbox: bool,
    /// On weak evidence, rewrite the question once and look it up again
    /// before refusing: its uncovered words on the local engine, the
    /// rewrite model's query on Workers AI (`QUERY_REWRITE = "off"` turns it off).
    pub query_rewrite: bool,
    /// How long a queued question is kept untouched before the cron prunes it.
    pub review_retention_days: u32,
    /// Every model call goes through this AI Gateway when set (`AI_GATEWAY_ID`).
    pub ai_gateway_id: Option<String>,
    /// Which escalations the webhook sends, and how (`ESCALATION_*`).
    pub escalation: Settings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            engine: Engine::Local,
            production: false,
            top_k: 4,
            hop_slots: 1,
            hop_decay: 0.5,
            heading_weight: 1.0,
            evidence_min_coverage: 0.5,
            answer_min_coverage: 0.75,
            gate_min_mean: 0.70,
            gate_min_claim: 0.40,
            max_answer_sentences: 3,
            siteverify_url: "https://challenges.cloudflare.com/turnstile/v0/siteverify".into(),
            turnstile_action: None,
            turnstile_hostname: None,
            turnstile_timeout_ms: 3000,
            turnstile_site_key: None,
            cors_origins: Vec::new(),
            rate_limit: 10,
            rate_limit_window_seconds: 3600,
            cache_ttl_seconds: 86400,
            embedding_model: DEFAULT_EMBEDDING_MODEL.into(),
            embedding_dimensions: 768,
            generation_model: DEFAULT_GENERATION_MODEL.into(),
            judge_model: DEFAULT_JUDGE_MODEL.into(),
            rewrite_model: DEFAULT_REWRITE_MODEL.into(),
            max_tokens: 512,
            vector_min_score: 0.55,
            ai_timeout_ms: 20_000,
            request_deadline_ms: 25_000,
            audit_retention_days: 30,
            spend_retention_days: 90,
            prices: default_prices(),
            daily_cap_usd: 1.0,
            budget_fallback_local: false,
            daily_client_share: 0.10,
            workspaces: Limits::default(),
            review_inbox: false,
            query_rewrite: true,
            review_retention_days: 30,
            ai_gateway_id: None,
            escalation: Settings::default(),
        }
    }
}

impl Config {
    /// Reads every setting through `var` (the glue passes `env.var`); unset
    /// variables take the defaults above.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config, ApiError> {
        let d = Config::default();
        let engine = match var("ENGINE").as_deref().map(str::trim) {
            None | Some("local") => Engine::Local,
            Some("workers-ai") => Engine::WorkersAi,
            Some(other) => return Err(ApiError::Misconfigured(format!("ENGINE {other:?} is not a known engine"))),
        };
        let mut prices = d.prices.clone();
        if let Some(raw) = text(&var, "PRICES") {
            for (model, price) in parse_prices(&raw)? {
                prices.retain(|(m, _)| *m != model);
                prices.push((model, price));
            }
        }
        let config = Config {
            engine,
            production: var("ENVIRONMENT").is_some_and(|v| v.trim() == "production"),
            top_k: parse(&var, "TOP_K", d.top_k, 1, 20)?,
            hop_slots: parse(&var, "HOP_SLOTS", d.hop_slots, 0, 8)?,
            hop_decay: parse(&var, "HOP_DECAY", d.hop_decay, 0.0, 1.0)?,
            heading_weight: parse(&var, "HEADING_WEIGHT", d.heading_weight, 0.0, 10.0)?,
            evidence_min_coverage: parse(&var, "EVIDENCE_MIN_COVERAGE", d.evidence_min_coverage, 0.0, 1.0)?,
            answer_min_coverage: parse(&var, "ANSWER_MIN_COVERAGE", d.answer_min_coverage, 0.0, 1.0)?,
            gate_min_mean: parse(&var, "GATE_MIN_MEAN", d.gate_min_mean, 0.0, 1.0)?,
            gate_min_claim: parse(&var, "GATE_MIN_CLAIM", d.gate_min_claim, 0.0, 1.0)?,
            max_answer_sentences: parse(&var, "MAX_ANSWER_SENTENCES", d.max_answer_sentences, 1, 10)?,
            siteverify_url: text(&var, "TURNSTILE_SITEVERIFY_URL").unwrap_or(d.siteverify_url),
            turnstile_action: text(&var, "TURNSTILE_ACTION"),
            turnstile_hostname: text(&var, "TURNSTILE_HOSTNAME"),
            turnstile_timeout_ms: parse(&var, "TURNSTILE_TIMEOUT_MS", d.turnstile_timeout_ms, 100, 30_000)?,
            turnstile_site_key: text(&var, "TURNSTILE_SITE_KEY"),
            cors_origins: text(&var, "CORS_ORIGINS").map_or(Ok(d.cors_origins), |raw| crate::api::cors::parse_allowlist(&raw))?,
            rate_limit: parse(&var, "RATE_LIMIT", d.rate_limit, 1, 1_000_000)?,
            rate_limit_window_seconds: parse(&var, "RATE_LIMIT_WINDOW_SECONDS", d.rate_limit_window_seconds, 1, 86_400 * 7)?,
            cache_ttl_seconds: parse(&var, "CACHE_TTL_SECONDS", d.cache_ttl_seconds, 0, 86_400 * 365)?,
            embedding_model: text(&var, "EMBEDDING_MODEL").unwrap_or(d.embedding_model),
            embedding_dimensions: parse(&var, "EMBEDDING_DIMENSIONS", d.embedding_dimensions, 1, 8192)?,
            generation_model: text(&var, "GENERATION_MODEL").unwrap_or(d.generation_model),
            judge_model: text(&var, "JUDGE_MODEL").unwrap_or(d.judge_model),
            rewrite_model: text(&var, "REWRITE_MODEL").unwrap_or(d.rewrite_model),
            max_tokens: parse(&var, "MAX_TOKENS", d.max_tokens, 16, 4096)?,
            vector_min_score: parse(&var, "VECTOR_MIN_SCORE", d.vector_min_score, -1.0, 1.0)?,
            ai_timeout_ms: parse(&var, "AI_TIMEOUT_MS", d.ai_timeout_ms, 100, 120_000)?,
            request_deadline_ms: parse(&var, "REQUEST_DEADLINE_MS", d.request_deadline_ms, 1_000, 28_000)?,
            audit_retention_days: parse(&var, "AUDIT_RETENTION_DAYS", d.audit_retention_days, 1, 3650)?,
            spend_retention_days: parse(&var, "SPEND_RETENTION_DAYS", d.spend_retention_days, 1, 3650)?,
            prices,
            daily_cap_usd: parse(&var, "DAILY_CAP_USD", d.daily_cap_usd, 0.0, 1_000_000.0)?,
            budget_fallback_local: var("BUDGET_FALLBACK").is_some_and(|v| v.trim() == "local"),
            daily_client_share: parse(&var, "DAILY_CLIENT_SHARE", d.daily_client_share, 0.0, 1.0)?,
            workspaces: Limits {
                max_file_bytes: parse(&var, "WORKSPACE_MAX_FILE_BYTES", d.workspaces.max_file_bytes, 1, 50 * 1024 * 1024)?,
                max_chars: parse(&var, "WORKSPACE_MAX_CHARS", d.workspaces.max_chars, 1, 10_000_000)?,
                max_passages: parse(&var, "WORKSPACE_MAX_PASSAGES", d.workspaces.max_passages, 1, 100_000)?,
                per_client_per_day: parse(&var, "WORKSPACES_PER_CLIENT_PER_DAY", d.workspaces.per_client_per_day, 0, 10_000)?,
                ttl_seconds: parse(&var, "WORKSPACE_TTL_HOURS", d.workspaces.ttl_seconds / 3600, 1, 24 * 365)? * 3600,
                max_live: parse(&var, "WORKSPACES_LIVE_MAX", d.workspaces.max_live, 0, 1_000_000)?,
                max_total_passages: parse(&var, "WORKSPACE_PASSAGES_TOTAL", d.workspaces.max_total_passages, 0, 100_000_000)?,
            },
            review_inbox: var("REVIEW_INBOX").is_some_and(|v| v.trim() == "on"),
            query_rewrite: var("QUERY_REWRITE").is_none_or(|v| v.trim() != "off"),
            review_retention_days: parse(&var, "REVIEW_RETENTION_DAYS", d.review_retention_days, 1, 3650)?,
            ai_gateway_id: text(&var, "AI_GATEWAY_ID"),
            escalation: Settings {
                events: text(&var, "ESCALATION_EVENTS").map_or(Ok(d.escalation.events), |raw| Settings::parse_events(&raw)).map_err(ApiError::Misconfigured)?,
                format: text(&var, "ESCALATION_FORMAT").map_or(Ok(d.escalation.format), |raw| Settings::parse_format(&raw)).map_err(ApiError::Misconfigured)?,
                max_attempts: parse(&var, "ESCALATION_MAX_ATTEMPTS", d.escalation.max_attempts, 1, 50)?,
                timeout_ms: parse(&var, "ESCALATION_TIMEOUT_MS", d.escalation.timeout_ms, 100, 10_000)?,
            },
        };
        for model in [&config.embedding_model, &config.generation_model, &config.judge_model, &config.rewrite_model] {
            if !config.prices.iter().any(|(m, _)| m == model) {
                return Err(ApiError::Misconfigured(format!("PRICES has no price for {model}")));
            }
        }
        Ok(config)
    }

    /// The chat model `role` calls.
    pub fn chat_model(&self, role: Role) -> &str {
        match role {
            Role::Generator => &self.generation_model,
            Role::Judge => &self.judge_model,
            Role::Rewrite => &self.rewrite_model,
        }
    }

    /// Every setting that changes what an answer is, for the cache key.
    pub fn answer_fingerprint(&self) -> String {
        let mut fingerprint = format!(
            "engine={} top_k={} hop={}x{} heading={} rewrite={} evidence={} answer={} mean={} claim={} sentences={}",
            self.engine.as_str(),
            self.top_k,
            self.hop_slots,
            self.hop_decay,
            self.heading_weight,
            self.query_rewrite,
            self.evidence_min_coverage,
            self.answer_min_coverage,
            self.gate_min_mean,
            self.gate_min_claim,
            self.max_answer_sentences
        );
        if self.engine == Engine::WorkersAi {
            fingerprint += &format!(
                " embed={} gen={} judge={} rewrite={} max_tokens={} vector_floor={}",
                self.embedding_model, self.generation_model, self.judge_model, self.rewrite_model, self.max_tokens, self.vector_min_score
            );
        }
        fingerprint
    }
}

/// `PRICES`: a JSON object of model -> [input, output] neurons per million tokens.
fn parse_prices(raw: &str) -> Result<Vec<(String, Price)>, ApiError> {
    let bad = || ApiError::Misconfigured("PRICES must be a JSON object of model -> [input, output] neurons per million tokens".into());
    let table: std::collections::BTreeMap<String, [f64; 2]> = serde_json::from_str(raw).map_err(|_| bad())?;
    if table.values().flatten().any(|n| !n.is_finite() || *n < 0.0) {
        return Err(bad());
    }
    Ok(table.into_iter().map(|(model, [input, output])| (model, Price { input, output })).collect())
}

/// A non-empty text variable.
fn text(var: &impl Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    var(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn parse<T>(var: &impl Fn(&str) -> Option<String>, name: &str, default: T, min: T, max: T) -> Result<T, ApiError>
where
    T: FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let Some(raw) = var(name) else { return Ok(default) };
    let value: T = raw
        .trim()
        .parse()
        .map_err(|_| ApiError::Misconfigured(format!("{name} = {raw:?} is not a number")))?;
    if !(min..=max).contains(&value) {
        return Err(ApiError::Misconfigured(format!("{name} = {raw} is outside {min}..={max}")));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn unset_vars_take_defaults() {
        assert_eq!(Config::from_vars(vars(&[])).unwrap(), Config::default());
    }

    #[test]
    fn models_need_prices() {
        let cfg = Config::from_vars(vars(&[("ENGINE", "workers-ai"), ("JUDGE_MODEL", "@cf/x/judge"), ("PRICES", r#"{"@cf/x/judge": [10, 20]}"#)])).unwrap();
        assert_eq!(cfg.engine, Engine::WorkersAi);
        assert!(cfg.prices.iter().any(|(m, p)| m == "@cf/x/judge" && p.output == 20.0));
        let err = Config::from_vars(vars(&[("JUDGE_MODEL", "@cf/x/unpriced")])).unwrap_err();
        assert!(err.public_message().contains("@cf/x/unpriced"));
        assert!(Config::from_vars(vars(&[("PRICES", "[1]")])).is_err());
        let cap = Config::from_vars(vars(&[("DAILY_CAP_USD", "0.011")])).unwrap();
        assert!((crate::cost::daily_cap_neurons(&cap) - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn set_vars_override_and_bad_ones_are_named() {
        let cfg = Config::from_vars(vars(&[("TOP_K", "6"), ("GATE_MIN_MEAN", "0.8"), ("ENVIRONMENT", "production")])).unwrap();
        assert_eq!((cfg.top_k, cfg.gate_min_mean, cfg.production), (6, 0.8, true));
        for (name, value) in [("TOP_K", "zero"), ("TOP_K", "0"), ("GATE_MIN_CLAIM", "NaN"), ("GATE_MIN_MEAN", "1.5"), ("ENGINE", "gpt")] {
            let err = Config::from_vars(vars(&[(name, value)])).unwrap_err();
            assert!(err.public_message().contains(name), "{err}");
        }
    }
}
