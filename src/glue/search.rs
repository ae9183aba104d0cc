//! `GET /search?q=…&k=…`: retrieval only (ranked passages with scores and
//! provenance), no generation, behind the same rate limit as `/ask`. On the
//! Workers AI engine the query's embedding is paid, so it reserves and settles
//! under the spend cap like any paid call.

use serde::Serialize;
use worker::{Env, Request, Response};

use super::ask::{count_request, with_limit_headers, workers_ai};
use super::d1::D1Corpus;
use super::{guards, JsClock};
use crate::config::Engine;
use crate::cost;
use crate::api::error::ApiError;
use crate::stages::pipeline::{Corpus, Meter, Pipeline};
use crate::api::request::SearchRequest;
use crate::api::response::{Cost, EngineInfo, Retrieved};
use crate::guards::spend;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SearchResponse {
    request_id: String,
    query: String,
    k: usize,
    results: Vec<Retrieved>,
    engine: EngineInfo,
    cost: Cost,
    corpus_version: String,
}

pub async fn search(req: &Request, env: &Env, request_id: &str) -> Result<Response, ApiError> {
    let url = req.url().map_err(|_| ApiError::BadRequest("the URL could not be read".into()))?;
    let pairs: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    let request = SearchRequest::parse(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let config = super::config(env)?;
    let k = request.k.unwrap_or(config.top_k);
    let now = (worker::js_sys::Date::now() / 1000.0) as u64;
    let decision = if super::is_admin(req, env) {
        None
    } else {
        let client_ip = req.headers().get("cf-connecting-ip").ok().flatten();
        Some(count_request(env, &config, client_ip.as_deref(), now).await?)
    };
    let corpus = D1Corpus::new(env)?;
    let clock = JsClock;
    let (found, meter, engine) = match config.engine {
        Engine::Local => {
            let (found, meter) = Pipeline::local(&corpus, &clock, &config).search(&request.query, k).await?;
            (found, meter, EngineInfo { ai: "local", index: "fts-only" })
        }
        Engine::WorkersAi => {
            let models = workers_ai(env, &config)?;
            let amount = cost::search_upper_bound(&config);
            if !guards::reserve(env, &spend::utc_day(now), request_id, amount, config.daily_cap_neurons()).await? {
                return Err(ApiError::BudgetExhausted);
            }
            let pipeline = Pipeline { corpus: &corpus, clock: &clock, config: &config, models: Some(&models) };
            let outcome = pipeline.search(&request.query, k).await;
            let charged = outcome.as_ref().map_or(amount, |(_, meter)| meter.neurons);
            if let Err(e) = guards::settle(env, request_id, charged, now).await {
                worker::console_error!("{request_id} search settle failed: {e}");
            }
            let (found, meter) = outcome?;
            (found, meter, EngineInfo { ai: "workers-ai", index: "vectorize" })
        }
    };
    let results = found.map_err(|e| ApiError::Dependency(format!("search model: {e}")))?;
    let Meter { calls, neurons } = meter;
    let body = SearchResponse {
        request_id: request_id.to_string(),
        query: request.query,
        k,
        results,
        engine,
        cost: Cost { neurons, usd: cost::usd(neurons), calls },
        corpus_version: corpus.version().await?,
    };
    Ok(with_limit_headers(super::json(200, &body), decision))
}
