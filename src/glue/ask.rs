//! `POST /ask`: validate, then the guards in order (Turnstile, rate limit,
//! cache, spend cap), then the answering pipeline, then the cache write.
//! Nothing paid may run before the guards; a cached answer is served before the
//! spend cap so it stays available when the day's budget is gone.

use worker::{Env, Request, Response};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::d1::D1Corpus;
use super::models::WorkersAi;
use super::stream::Live;
use super::{ai, audit, guards, turnstile, vectorize, JsClock};
use crate::guards::audit::Record;
use crate::corpus::chunk::hex;
use crate::guards::cache;
use crate::config::{Config, Engine};
use crate::cost;
use crate::api::error::ApiError;
use crate::stages::pipeline::{Clock, Corpus, Pipeline};
use crate::guards::rate_limit::{self, Decision};
use crate::api::request::{AskRequest, MAX_ASK_BODY};
use crate::api::response::{AskResponse, Stage, StageStatus};
use crate::guards::spend;
use crate::stages::Stages;

/// The IP hash key used when none is configured outside production, so local
/// development works without secrets. Production refuses to run without one.
const DEV_IP_HASH_KEY: &str = "groundgate-local-development-only";

/// What `/ask` answers with: a response made now, or a stored one served again.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Answer {
    Fresh(Box<AskResponse>),
    Served(Value),
}

/// An answer and the rate-limit state to send with it (none for the admin token).
pub struct Answered {
    pub answer: Answer,
    pub limits: Option<Decision>,
}

impl Answered {
    /// The plain JSON response.
    pub fn into_response(self) -> Response {
        with_limit_headers(super::json(200, &self.answer), self.limits)
    }
}

/// `/ask`, and its one audit record, appended whatever the outcome (where D1 is up).
/// `live`, when streaming, sees each stage as it finishes and is told when the
/// guards have let the request through (errors before that are plain JSON).
pub async fn ask(req: &mut Request, env: &Env, request_id: &str, live: Option<&Live>) -> Result<Answered, ApiError> {
    let mut record = Record {
        request_id: request_id.to_string(),
        time: worker::js_sys::Date::now() as u64,
        client_key: None,
        question_hash: None,
        outcome: "error".into(),
        reason: None,
        groundedness: None,
        passages: Vec::new(),
        neurons: 0.0,
        stages: Vec::new(),
    };
    let result = answer(req, env, request_id, &mut record, live).await;
    if let Err(e) = &result {
        record.outcome = "error".into();
        record.reason = Some(e.code().into());
    }
    if let Err(e) = audit::append(env, &record).await {
        worker::console_error!("{request_id} audit append failed: {e}");
    }
    result
}

/// Copies what the audit keeps from a response (fresh or served from the cache).
fn fill(record: &mut Record, response: &Value) {
    let text = |v: &Value| v.as_str().map(String::from);
    record.outcome = text(&response["status"]).unwrap_or_else(|| "error".into());
    record.reason = text(&response["reason"]);
    record.groundedness = response["groundedness"]["mean"].as_f64();
    record.passages = response["citations"].as_array().into_iter().flatten().filter_map(|c| text(&c["passageId"])).collect();
    record.neurons = response["cost"]["neurons"].as_f64().unwrap_or(0.0);
    record.stages = response["stages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| format!("{}:{}", s["name"].as_str().unwrap_or("?"), s["status"].as_str().unwrap_or("?")))
        .collect();
}

async fn answer(req: &mut Request, env: &Env, request_id: &str, record: &mut Record, live: Option<&Live>) -> Result<Answered, ApiError> {
    let clock = JsClock;
    let observe = |stage: &Stage| {
        if let Some(live) = live {
            live.stage(stage);
        }
    };
    let mut stages = Stages::observed(&observe);
    let started = clock.now_ms();
    let body = super::read_json_body(req, MAX_ASK_BODY).await?;
    let question = AskRequest::parse(&body)?;
    record.question_hash = Some(hex(&Sha256::digest(cache::normalize_question(&question.question).as_bytes())));
    let config = super::config(env)?;
    let detail = format!("question of {} characters", question.question.chars().count());
    stages.finish("validate", StageStatus::Passed, started, clock.now_ms(), detail);
    let admin = super::is_admin(req, env);
    let client_ip = req.headers().get("cf-connecting-ip").ok().flatten();
    record.client_key = client_key(env, &config, client_ip.as_deref()).ok();

    let started = clock.now_ms();
    let (status, detail) = verify_turnstile(env, &config, admin, question.token.as_deref(), client_ip.as_deref()).await?;
    stages.finish("turnstile", status, started, clock.now_ms(), detail);

    let started = clock.now_ms();
    let now = (clock.now_ms() / 1000.0) as u64;
    let limits = match admin {
        true => None,
        false => Some(count_request(env, &config, client_ip.as_deref(), now).await?),
    };
    let detail = limits.map_or("admin token: not limited".to_string(), |d| {
        format!("{} of {} left in this window", d.remaining, d.limit)
    });
    let status = if admin { StageStatus::Skipped } else { StageStatus::Passed };
    stages.finish("rate_limit", status, started, clock.now_ms(), detail);
    // The guards that can refuse with an error have passed: a stream may open.
    let admit = || {
        if let Some(live) = live {
            live.start(limits);
        }
    };

    let started = clock.now_ms();
    let corpus = D1Corpus::new(env)?;
    let version = corpus.version().await?;
    let key = cache::key(&question.question, &version, &config);
    if let Some((stored, tier)) = guards::lookup(env, &key, now, config.cache_ttl_seconds).await {
        let detail = format!("hit ({}): no model call, no spend", tier.as_str());
        let hit = Stage::timed("cache", StageStatus::Passed, started, clock.now_ms(), detail);
        let run: Vec<Stage> = stages.as_slice().iter().cloned().chain([hit]).collect();
        if let Some(served) = cache::serve(&stored, request_id, &run, tier) {
            // The hit and the stored answering stages are streamed from the response itself.
            admit();
            fill(record, &served);
            return Ok(Answered { answer: Answer::Served(served), limits });
        }
    }
    stages.finish("cache", StageStatus::Passed, started, clock.now_ms(), "miss".into());

    let (answer, cacheable) = match config.engine {
        Engine::Local => {
            let started = clock.now_ms();
            stages.finish("spend", StageStatus::Skipped, started, clock.now_ms(), "local engine: no paid calls, nothing reserved".into());
            admit();
            (Pipeline::local(&corpus, &clock, &config).run(request_id, &question.question, &version, stages).await?, true)
        }
        Engine::WorkersAi => paid(env, &config, &corpus, request_id, &question.question, &version, stages, now, admit).await?,
    };
    if cacheable && cache::cacheable(answer.status, answer.reason) {
        if let Ok(text) = serde_json::to_string(&answer) {
            let status = serde_json::to_value(answer.status).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
            guards::store(env, &key, &status, &text, now, config.cache_ttl_seconds).await;
        }
    }
    if let Ok(value) = serde_json::to_value(&answer) {
        fill(record, &value);
    }
    Ok(Answered { answer: Answer::Fresh(Box::new(answer)), limits })
}

/// The Workers AI engine behind the spend cap: reserve the request's upper
/// bound before the first paid call, run, then settle actual usage. Over the
/// cap: the zero-cost local engine if configured (its answer is not cached under
/// the paid engine's key), else 503 `budget_exhausted`.
#[allow(clippy::too_many_arguments)] // The request's parts, each used once, and the admission signal.
async fn paid(
    env: &Env,
    config: &Config,
    corpus: &D1Corpus,
    request_id: &str,
    question: &str,
    version: &str,
    mut stages: Stages<'_>,
    now: u64,
    admitted: impl FnOnce(),
) -> Result<(AskResponse, bool), ApiError> {
    let clock = JsClock;
    let started = clock.now_ms();
    let models = workers_ai(env, config)?;
    let amount = cost::request_upper_bound(config);
    let cap = config.daily_cap_neurons();
    let day = spend::utc_day(now);
    if !guards::reserve(env, &day, request_id, amount, cap).await? {
        if !config.budget_fallback_local {
            return Err(ApiError::BudgetExhausted);
        }
        let detail = format!("the day's cap ({cap:.0} neurons) is reached: answered by the zero-cost local engine");
        stages.finish("spend", StageStatus::Skipped, started, clock.now_ms(), detail);
        admitted();
        return Ok((Pipeline::local(corpus, &clock, config).run(request_id, question, version, stages).await?, false));
    }
    let detail = format!("reserved {amount:.0} neurons (${:.4}), the request's upper bound, under the day's cap of {cap:.0}", cost::usd(amount));
    stages.finish("spend", StageStatus::Passed, started, clock.now_ms(), detail);
    admitted();
    let pipeline = Pipeline { corpus, clock: &clock, config, models: Some(&models) };
    let result = pipeline.run(request_id, question, version, stages).await;
    // A request that failed outright is charged its whole bound: what it used is unknown.
    let charged = result.as_ref().map_or(amount, |answer| answer.cost.neurons);
    if let Err(first) = guards::settle(env, request_id, charged, now).await {
        worker::console_warn!("{request_id} settle failed once, retrying: {first}");
        if let Err(second) = guards::settle(env, request_id, charged, now).await {
            worker::console_error!("{request_id} settle failed twice; the reservation stays until the day ends: {second}");
        }
    }
    Ok((result?, true))
}

/// The Workers AI engine's bindings; missing ones are a configuration error.
pub fn workers_ai<'a>(env: &Env, config: &'a Config) -> Result<WorkersAi<'a>, ApiError> {
    Ok(WorkersAi {
        ai: ai::from_env(env).ok_or_else(|| ApiError::Misconfigured("the AI binding is missing".into()))?,
        index: vectorize::from_env(env).ok_or_else(|| ApiError::Misconfigured("the VECTORIZE binding is missing".into()))?,
        config,
    })
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

/// HMAC(IP_HASH_KEY, client IP): the only form in which a client is stored.
fn client_key(env: &Env, config: &Config, client_ip: Option<&str>) -> Result<String, ApiError> {
    let hash_key = match super::secret(env, "IP_HASH_KEY") {
        Some(key) => key,
        None if config.production => {
            return Err(ApiError::Misconfigured("the IP_HASH_KEY secret is not set".into()));
        }
        None => DEV_IP_HASH_KEY.to_string(),
    };
    // Without CF-Connecting-IP (only outside Cloudflare's edge) all such clients share one bucket.
    Ok(rate_limit::client_key(hash_key.as_bytes(), client_ip.unwrap_or("unknown")))
}

/// Counts the request against its client's window; over the limit is a 429.
pub(super) async fn count_request(env: &Env, config: &Config, client_ip: Option<&str>, now: u64) -> Result<Decision, ApiError> {
    let client = client_key(env, config, client_ip)?;
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
