//! `POST /ask`: validate, then the guards in order (Turnstile, rate limit,
//! cache, spend cap), then the answering pipeline, then the cache write.
//! Nothing paid may run before the guards; a cached answer is served before the
//! spend cap so it stays available when the day's budget is gone.

use worker::{Env, Request, Response};

use super::d1::D1Corpus;
use super::{guards, turnstile, JsClock};
use crate::cache;
use crate::config::Config;
use crate::error::ApiError;
use crate::pipeline::{Clock, Corpus, Pipeline};
use crate::rate_limit::{self, Decision};
use crate::request::{AskRequest, MAX_ASK_BODY};
use crate::response::{Stage, StageStatus};

/// The IP hash key used when none is configured outside production, so local
/// development works without secrets. Production refuses to run without one.
const DEV_IP_HASH_KEY: &str = "groundgate-local-development-only";

pub async fn ask(req: &mut Request, env: &Env, request_id: &str) -> Result<Response, ApiError> {
    let clock = JsClock;
    let started = clock.now_ms();
    let body = super::read_json_body(req, MAX_ASK_BODY).await?;
    let question = AskRequest::parse(&body)?;
    let config = super::config(env)?;
    let mut stages = vec![stage(&clock, "validate", StageStatus::Passed, started, format!("question of {} characters", question.question.chars().count()))];
    let admin = super::is_admin(req, env);
    let client_ip = req.headers().get("cf-connecting-ip").ok().flatten();

    let started = clock.now_ms();
    let (status, detail) = verify_turnstile(env, &config, admin, question.token.as_deref(), client_ip.as_deref()).await?;
    stages.push(stage(&clock, "turnstile", status, started, detail));

    let started = clock.now_ms();
    let now = (clock.now_ms() / 1000.0) as u64;
    let decision = match admin {
        true => None,
        false => Some(count_request(env, &config, client_ip.as_deref(), now).await?),
    };
    let detail = decision.map_or("admin token: not limited".to_string(), |d| {
        format!("{} of {} left in this window", d.remaining, d.limit)
    });
    let status = if admin { StageStatus::Skipped } else { StageStatus::Passed };
    stages.push(stage(&clock, "rate_limit", status, started, detail));

    let started = clock.now_ms();
    let corpus = D1Corpus::new(env)?;
    let version = corpus.version().await?;
    let key = cache::key(&question.question, &version, &config);
    if let Some((stored, tier)) = guards::lookup(env, &key, now, config.cache_ttl_seconds).await {
        let hit = stage(&clock, "cache", StageStatus::Passed, started, format!("hit ({}): no model call, no spend", tier.as_str()));
        stages.push(hit);
        if let Some(served) = cache::serve(&stored, request_id, &stages, tier) {
            return Ok(with_limit_headers(super::json(200, &served), decision));
        }
        stages.pop();
    }
    stages.push(stage(&clock, "cache", StageStatus::Passed, started, "miss".into()));

    // The spend cap reserves the request's upper-bound cost here, before the
    // first paid call. The local engine makes none, so there is nothing to reserve.
    let started = clock.now_ms();
    stages.push(stage(&clock, "spend", StageStatus::Skipped, started, format!("{} engine: no paid calls, nothing reserved", config.engine.as_str())));

    let pipeline = Pipeline::local(&corpus, &clock, &config);
    let answer = pipeline.run(request_id, &question.question, &version, stages).await?;
    if cache::cacheable(answer.status, answer.reason) {
        if let Ok(text) = serde_json::to_string(&answer) {
            let status = serde_json::to_value(answer.status).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
            guards::store(env, &key, &status, &text, now, config.cache_ttl_seconds).await;
        }
    }
    Ok(with_limit_headers(super::json(200, &answer), decision))
}

fn stage(clock: &JsClock, name: &'static str, status: StageStatus, started: f64, detail: String) -> Stage {
    Stage { name, status, ms: (clock.now_ms() - started).max(0.0).round() as u64, detail }
}

/// Turnstile: skipped for the admin token and, outside production, when no
/// secret is configured (said plainly); otherwise siteverify must say yes.
async fn verify_turnstile(
    env: &Env,
    config: &Config,
    admin: bool,
    token: Option<&str>,
    client_ip: Option<&str>,
) -> Result<(StageStatus, String), ApiError> {
    if admin {
        return Ok((StageStatus::Skipped, "admin token: not verified".into()));
    }
    let Some(secret) = super::secret(env, "TURNSTILE_SECRET") else {
        if config.production {
            return Err(ApiError::Misconfigured("the TURNSTILE_SECRET secret is not set; /ask does not run without it in production".into()));
        }
        return Ok((StageStatus::Skipped, "no TURNSTILE_SECRET configured (local development): not verified".into()));
    };
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Err(ApiError::TurnstileFailed(vec!["missing-input-response".into()]));
    };
    turnstile::verify(config, &secret, token, client_ip).await?;
    Ok((StageStatus::Passed, "siteverify: success".into()))
}

/// Counts the request against its client's window; over the limit is a 429.
async fn count_request(env: &Env, config: &Config, client_ip: Option<&str>, now: u64) -> Result<Decision, ApiError> {
    let hash_key = match super::secret(env, "IP_HASH_KEY") {
        Some(key) => key,
        None if config.production => {
            return Err(ApiError::Misconfigured("the IP_HASH_KEY secret is not set".into()));
        }
        None => DEV_IP_HASH_KEY.to_string(),
    };
    // Without CF-Connecting-IP (only outside Cloudflare's edge) all such clients share one bucket.
    let client = rate_limit::client_key(hash_key.as_bytes(), client_ip.unwrap_or("unknown"));
    let decision = guards::count_request(env, &client, config.rate_limit, config.rate_limit_window_seconds, now).await?;
    if decision.allowed {
        Ok(decision)
    } else {
        Err(ApiError::RateLimited(decision))
    }
}

/// Adds the `RateLimit-*` headers of an admitted request.
pub fn with_limit_headers(mut response: Response, decision: Option<Decision>) -> Response {
    for (name, value) in decision.iter().flat_map(Decision::headers) {
        let _ = response.headers_mut().set(name, &value);
    }
    response
}
