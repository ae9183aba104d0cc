//! `[vars]` parsed once into typed settings. A value that does not parse is an
//! error naming the variable (the worker answers 503 `misconfigured`), never a
//! silent fallback to a default.

use std::str::FromStr;

use crate::error::ApiError;

/// Which engine answers. Only the local engine exists so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// BM25 over D1 FTS5, extractive answers, deterministic scoring. Zero cost.
    Local,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Local => "local",
        }
    }
}

/// The thresholds and limits the pipeline runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub engine: Engine,
    /// `ENVIRONMENT = "production"` makes missing secrets fatal.
    pub production: bool,
    /// Passages retrieved per question.
    pub top_k: usize,
    /// Evidence gate: share (IDF-weighted) of the question's terms the retrieved
    /// passages must contain before an answer is composed.
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
    /// Requests per client per window.
    pub rate_limit: u32,
    pub rate_limit_window_seconds: u64,
    /// How long a cached answer lives (pinned ones never expire).
    pub cache_ttl_seconds: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            engine: Engine::Local,
            production: false,
            top_k: 4,
            evidence_min_coverage: 0.6,
            answer_min_coverage: 0.75,
            gate_min_mean: 0.70,
            gate_min_claim: 0.40,
            max_answer_sentences: 3,
            siteverify_url: "https://challenges.cloudflare.com/turnstile/v0/siteverify".into(),
            turnstile_action: None,
            turnstile_hostname: None,
            turnstile_timeout_ms: 3000,
            rate_limit: 10,
            rate_limit_window_seconds: 3600,
            cache_ttl_seconds: 86400,
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
            Some(other) => return Err(ApiError::Misconfigured(format!("ENGINE {other:?} is not a known engine"))),
        };
        Ok(Config {
            engine,
            production: var("ENVIRONMENT").is_some_and(|v| v.trim() == "production"),
            top_k: parse(&var, "TOP_K", d.top_k, 1, 20)?,
            evidence_min_coverage: parse(&var, "EVIDENCE_MIN_COVERAGE", d.evidence_min_coverage, 0.0, 1.0)?,
            answer_min_coverage: parse(&var, "ANSWER_MIN_COVERAGE", d.answer_min_coverage, 0.0, 1.0)?,
            gate_min_mean: parse(&var, "GATE_MIN_MEAN", d.gate_min_mean, 0.0, 1.0)?,
            gate_min_claim: parse(&var, "GATE_MIN_CLAIM", d.gate_min_claim, 0.0, 1.0)?,
            max_answer_sentences: parse(&var, "MAX_ANSWER_SENTENCES", d.max_answer_sentences, 1, 10)?,
            siteverify_url: text(&var, "TURNSTILE_SITEVERIFY_URL").unwrap_or(d.siteverify_url),
            turnstile_action: text(&var, "TURNSTILE_ACTION"),
            turnstile_hostname: text(&var, "TURNSTILE_HOSTNAME"),
            turnstile_timeout_ms: parse(&var, "TURNSTILE_TIMEOUT_MS", d.turnstile_timeout_ms, 100, 30_000)?,
            rate_limit: parse(&var, "RATE_LIMIT", d.rate_limit, 1, 1_000_000)?,
            rate_limit_window_seconds: parse(&var, "RATE_LIMIT_WINDOW_SECONDS", d.rate_limit_window_seconds, 1, 86_400 * 7)?,
            cache_ttl_seconds: parse(&var, "CACHE_TTL_SECONDS", d.cache_ttl_seconds, 0, 86_400 * 365)?,
        })
    }

    /// Every setting that changes what an answer is, for the cache key.
    pub fn answer_fingerprint(&self) -> String {
        format!(
            "engine={} top_k={} evidence={} answer={} mean={} claim={} sentences={}",
            self.engine.as_str(),
            self.top_k,
            self.evidence_min_coverage,
            self.answer_min_coverage,
            self.gate_min_mean,
            self.gate_min_claim,
            self.max_answer_sentences
        )
    }
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
    fn set_vars_override_and_bad_ones_are_named() {
        let cfg = Config::from_vars(vars(&[("TOP_K", "6"), ("GATE_MIN_MEAN", "0.8"), ("ENVIRONMENT", "production")])).unwrap();
        assert_eq!((cfg.top_k, cfg.gate_min_mean, cfg.production), (6, 0.8, true));
        for (name, value) in [("TOP_K", "zero"), ("TOP_K", "0"), ("GATE_MIN_CLAIM", "NaN"), ("GATE_MIN_MEAN", "1.5"), ("ENGINE", "gpt")] {
            let err = Config::from_vars(vars(&[(name, value)])).unwrap_err();
            assert!(err.public_message().contains(name), "{err}");
        }
    }
}
