//! The admin routes (bearer token, compared in constant time) and `GET /health`.

use serde::{Deserialize, Serialize};
use worker::{Context, Env, Request, Response};

use super::d1::{database, D1Corpus};
use super::{ai, cache, config, json, now, read_json_body, secret, vectorize, vectors};
use super::audit::D1Audit;
use super::ledger::D1Ledger;
use super::webhooks;
use crate::api::auth;
use crate::api::error::ApiError;
use crate::catalog;
use crate::escalation::Escalation;
use crate::config::Engine;
use crate::guards::cache as answers;
use crate::guards::audit::Walk;
use crate::guards::spend;
use crate::ports::Corpus;

/// Admin routes fail closed: no `ADMIN_TOKEN` configured means no admin access.
pub fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    if secret(env, "ADMIN_TOKEN").is_none() {
        return Err(ApiError::Misconfigured("the ADMIN_TOKEN secret is not set".into()));
    }
    if is_admin(req, env) {
        Ok(())
    } else {
        Err(ApiError::Unauthorized)
    }
}

/// True when the request carries the configured admin bearer token.
pub fn is_admin(req: &Request, env: &Env) -> bool {
    let expected = secret(env, "ADMIN_TOKEN").unwrap_or_default();
    let presented = req.headers().get("authorization").ok().flatten();
    auth::bearer_matches(presented.as_deref(), &expected)
}

/// `GET /admin/spend`: the day's ledger.
pub async fn spend(req: &Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let config = config(env)?;
    let ledger = D1Ledger { db: database(env)? };
    let day = spend::utc_day(now());
    let bound = crate::cost::request_upper_bound(&config);
    Ok(json(200, &ledger.ledger(&day, crate::cost::daily_cap_neurons(&config), config.daily_client_share, bound).await?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReleaseRequest {
    request_id: String,
}

/// `POST /admin/spend/release {"requestId"}`: settles a stuck reservation once.
pub async fn release(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, 1024).await?;
    let ReleaseRequest { request_id } = serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("release body: {e}")))?;
    let released = D1Ledger { db: database(env)? }.release(&request_id, now()).await?;
    Ok(json(200, &serde_json::json!({ "requestId": request_id, "released": released })))
}

/// `GET /admin/audit/verify[?hash=…][&from=…]`: walks the chain, a page at
/// a time, from its checkpoint (or from the cursor `from` an earlier call
/// handed out); OK with the row count, or the first row whose body, hash or
/// place does not check out. A chain longer than one call walks answers OK
/// so far with `next`, the cursor to call again with. With `hash`, also
/// says which row has it (an evidence report's proof), or `null`.
pub async fn verify(req: &Request, env: &Env, ctx: &Context) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let url = req.url().map_err(|_| ApiError::BadRequest("the URL could not be read".into()))?;
    let query = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let wanted = query("hash");
    let resume = match query("from") {
        Some(cursor) => Some(Walk::resume(&cursor).ok_or_else(|| ApiError::BadRequest("`from` is not a cursor this route handed out".into()))?),
        None => None,
    };
    let verified = (D1Audit { db: database(env)? }).verify(wanted.as_deref(), resume).await?;
    let mut body = match verified.walked {
        Ok(count) => serde_json::json!({ "ok": true, "rows": count }),
        Err(broken) => {
            webhooks::escalate(ctx, env, Escalation::AuditBroken { first_bad_row: broken.seq, why: broken.why.to_string() });
            serde_json::json!({ "ok": false, "firstBadRow": broken.seq, "why": broken.why })
        }
    };
    if let Some(next) = verified.next {
        body["next"] = serde_json::json!(next);
    }
    if wanted.is_some() {
        body["hashAtRow"] = serde_json::json!(verified.found);
    }
    Ok(json(200, &body))
}

/// `GET /audit/{requestId}`: where the request's record sits in the audit
/// chain (its row and hash), for the asker's evidence report; 410
/// `audit_pruned` once retention has pruned it. Request ids carry 80 random
/// bits, known only to whoever got the answer.
pub async fn proof(env: &Env, request_id: &str) -> Result<Response, ApiError> {
    let issued = crate::guards::audit::issued_at(request_id).ok_or(ApiError::NotFound)?;
    let proof = (D1Audit { db: database(env)? }).proof(request_id, issued).await?;
    Ok(json(200, &serde_json::json!({ "requestId": request_id, "seq": proof.seq, "hash": proof.hash, "prevHash": proof.prev_hash })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PinRequest {
    questions: Vec<String>,
}

/// `POST /admin/cache/pin {"questions": [...]}`: pins the cached answers of these
/// questions (under the current corpus version, build and configuration) so they
/// never expire: the answers served when the day's budget is gone. Questions
/// without a cached answer are counted as not pinned; ask them first
/// (scripts/warm-cache). After a deploy changes the build, the cron asks pinned
/// questions again and pins the new answers.
pub async fn pin(req: &mut Request, env: &Env) -> Result<Response, ApiError> {
    require_admin(req, env)?;
    let body = read_json_body(req, 256 * 1024).await?;
    let PinRequest { questions } = serde_json::from_slice(&body).map_err(|e| ApiError::BadRequest(format!("pin body: {e}")))?;
    let config = config(env)?;
    let version = D1Corpus::new(env)?.state().await?.version;
    let build = answers::build_id();
    let pins: Vec<(String, String)> = questions.iter().map(|q| (answers::key(q, &version, &build, &config), q.clone())).collect();
    let pinned = cache::pin(&database(env)?, &pins, &build).await?;
    Ok(json(200, &serde_json::json!({ "questions": questions.len(), "pinned": pinned, "corpusVersion": version })))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    status: &'static str,
    /// A corpus version has been committed: `/ask` answers from it. Until the
    /// first ingest commits, `/ask` is 503 `not_ready`.
    ready: bool,
    engine: &'static str,
    /// The models the engine calls (Workers AI engine only).
    models: Option<Models>,
    /// Configured models whose requests are not known to fit them (an unknown
    /// model gets no JSON constraint and no seed). Empty on the local engine.
    warnings: Vec<String>,
    bindings: Bindings,
    corpus_version: String,
    passages: u32,
    /// Vectors in the index, as Vectorize reports it (Workers AI engine).
    vectors: Option<u64>,
    /// This build's answering rules (part of every cache key).
    build: String,
    turnstile: TurnstileInfo,
}

/// What a page needs to render the widget, and whether `/ask` will check it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnstileInfo {
    site_key: Option<String>,
    enforced: bool,
}

#[derive(Serialize)]
struct Models {
    embedding: String,
    generation: String,
    judge: String,
    /// The rewrite's model, while the rewrite is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    rewrite: Option<String>,
}

#[derive(Serialize)]
struct Bindings {
    db: bool,
    ai: bool,
    vectorize: bool,
}

/// `GET /health`.
pub async fn health(env: &Env) -> Result<Response, ApiError> {
    let config = config(env)?;
    let corpus = D1Corpus::new(env)?;
    let models = (config.engine == Engine::WorkersAi).then(|| Models {
        embedding: config.embedding_model.clone(),
        generation: config.generation_model.clone(),
        judge: config.judge_model.clone(),
        rewrite: config.query_rewrite.then(|| config.rewrite_model.clone()),
    });
    let index = vectorize::from_env(env);
    let vectors = match (&index, config.engine) {
        (Some(index), Engine::WorkersAi) => vectors::count(index).await,
        _ => None,
    };
    let state = corpus.state().await?;
    let health = Health {
        status: "ok",
        ready: state.committed,
        engine: config.engine.as_str(),
        models,
        warnings: match config.engine {
            Engine::WorkersAi => catalog::warnings(&config),
            Engine::Local => Vec::new(),
        },
        bindings: Bindings { db: true, ai: ai::from_env(env).is_some(), vectorize: index.is_some() },
        vectors,
        passages: corpus.passage_count(&state.version).await?,
        corpus_version: state.version,
        build: answers::build_id(),
        turnstile: TurnstileInfo { enforced: secret(env, "TURNSTILE_SECRET").is_some(), site_key: config.turnstile_site_key },
    };
    Ok(json(200, &health))
}
