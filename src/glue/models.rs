//! [`Models`] over the `AI` and `VECTORIZE` bindings: every call bounded by
//! `AI_TIMEOUT_MS`, every failure classified (a refusal such as a rate limit or
//! the daily allocation, or a plain failure), usage read where reported. Each
//! request's body, options and reading are [`catalog`]'s.

use serde::Deserialize;
use serde_json::Value;

use super::ai::AiBinding;
use super::js::CallError;
use super::vectorize::VectorizeBinding;
use super::within;
use crate::catalog::{self, EmbedInput};
use crate::config::Config;
use crate::corpus::workspace::Scope;
use crate::models::{Embeddings, Message, ModelError, Models, Reply, Reported, Role};

/// The Workers AI engine's bindings.
pub struct WorkersAi<'a> {
    pub ai: AiBinding,
    pub index: VectorizeBinding,
    pub config: &'a Config,
    /// When the request's model calls must be done by (`Date.now()` ms): each
    /// call is bounded by the lesser of `AI_TIMEOUT_MS` and what is left, so a
    /// request always finishes inside the platform's `waitUntil` window.
    pub deadline_ms: f64,
}

/// Usage as Workers AI reports it: a count it leaves out is charged its bound.
#[derive(Deserialize)]
pub struct TokenUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

fn reported(usage: Option<TokenUsage>) -> Reported {
    usage.map_or_else(Reported::default, |u| Reported { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens })
}

#[derive(Deserialize)]
struct EmbedOutput {
    data: Vec<Vec<f32>>,
    usage: Option<TokenUsage>,
}

#[derive(Deserialize)]
struct QueryOutput {
    matches: Vec<Match>,
}

#[derive(Deserialize)]
struct Match {
    id: String,
    score: f64,
}

#[derive(Deserialize)]
struct Stored {
    id: String,
    #[serde(default)]
    values: Vec<f32>,
    #[serde(default)]
    metadata: Option<Value>,
}

/// Workers AI's rate-limit and allocation errors are refusals, not faults: the
/// request is refused and nothing retries (no retry storm).
fn classify(error: CallError) -> ModelError {
    let message = error.0;
    let lower = message.to_lowercase();
    let refused = ["3036", "daily", "allocation", "rate limit", "429", "capacity", "too many requests"];
    if refused.iter().any(|needle| lower.contains(needle)) {
        ModelError::Refused(message)
    } else {
        ModelError::Failed(message)
    }
}

impl WorkersAi<'_> {
    async fn bounded<T>(&self, call: impl std::future::Future<Output = Result<T, CallError>>) -> Result<T, ModelError> {
        let left = self.deadline_ms - worker::js_sys::Date::now();
        if left <= 0.0 {
            return Err(ModelError::Timeout);
        }
        match within((left as u32).min(self.config.ai_timeout_ms), call).await {
            Some(result) => result.map_err(classify),
            None => Err(ModelError::Timeout),
        }
    }
}

impl Models for WorkersAi<'_> {
    async fn embed(&self, texts: &[String]) -> Result<Embeddings, ModelError> {
        let options = catalog::run_options(self.config, None);
        let out: EmbedOutput = self.bounded(self.ai.call(&self.config.embedding_model, &EmbedInput { text: texts }, options.as_ref())).await?;
        if out.data.len() != texts.len() {
            return Err(ModelError::Failed(format!("{} embeddings for {} texts", out.data.len(), texts.len())));
        }
        Ok(Embeddings { vectors: out.data, usage: reported(out.usage) })
    }

    async fn chat(&self, role: Role, messages: &[Message], schema: &Value, max_tokens: u32) -> Result<Reply, ModelError> {
        let model = self.config.chat_model(role);
        let input = catalog::chat_input(model, role, messages, schema, max_tokens);
        let options = catalog::run_options(self.config, Some(role));
        catalog::chat_reply(self.bounded(self.ai.call(model, &input, options.as_ref())).await?)
    }

    async fn nearest(&self, scope: &Scope, vector: &[f32], k: usize) -> Result<Vec<(String, f64)>, ModelError> {
        // Only vectors of the request's scope are searched (metadata index `scope`).
        let filter = serde_json::json!({ "scope": { "$in": scope.tokens() } });
        let out: QueryOutput = self.bounded(self.index.nearest(vector, k, &filter)).await?;
        Ok(out.matches.into_iter().map(|m| (m.id, m.score)).collect())
    }

    async fn vectors(&self, scope: &Scope, ids: &[String]) -> Result<Vec<(String, Vec<f32>)>, ModelError> {
        let out: Vec<Stored> = self.bounded(self.index.by_ids(ids)).await?;
        // Only vectors of the request's scope are read, as only they are searched.
        let tokens = scope.tokens();
        let in_scope = |v: &Stored| v.metadata.as_ref().and_then(|m| m.get("scope")).and_then(Value::as_str).is_some_and(|s| tokens.iter().any(|t| t == s));
        Ok(out.into_iter().filter(|v| !v.values.is_empty() && in_scope(v)).map(|v| (v.id, v.values)).collect())
    }
}
