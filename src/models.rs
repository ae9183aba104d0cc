//! The paid models, as the pipeline sees them: an embedding model, chat models
//! (generator and judge) and the vector index. The glue implements [`Models`]
//! over the `AI` and `VECTORIZE` bindings; [`NoModels`] is the local engine's
//! "there are none" (it cannot be constructed, so nothing can call it).

use serde::Serialize;
use serde_json::Value;

use crate::corpus::workspace::Scope;

/// Tokens one call used (what its response reports, or its bound if it reports none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: "system", content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: "user", content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: "assistant", content: content.into() }
    }
}

/// Which chat model a call is for: each has its own `*_MODEL`, temperature
/// and gateway caching (see [`crate::catalog`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Generator,
    Judge,
    Rewrite,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Generator => "generator",
            Role::Judge => "judge",
            Role::Rewrite => "rewrite",
        }
    }
}

/// A chat model's reply: its text (a JSON object the model produced, as text)
/// and the usage it reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    pub usage: Reported,
}

/// Embeddings and the usage reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    pub vectors: Vec<Vec<f32>>,
    pub usage: Reported,
}

/// The usage a call reported: each count when the service gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reported {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
}

impl Reported {
    /// The reported counts, each one missing taken from the call's bound: a
    /// count not reported is never charged as zero.
    pub fn or_bound(self, bound: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(bound.input_tokens),
            output_tokens: self.output_tokens.unwrap_or(bound.output_tokens),
        }
    }
}

/// Why a model or index call produced nothing usable. Each ends the request as
/// `refused` (`model_unavailable`): nothing cached, the reservation released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The call did not answer within the configured bound.
    Timeout,
    /// The service refused: rate limit, daily allocation used up, overload.
    Refused(String),
    /// The call failed or answered something that is not its documented shape.
    Failed(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Timeout => write!(f, "timed out"),
            ModelError::Refused(why) => write!(f, "refused: {why}"),
            ModelError::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// The paid calls the Workers AI engine makes.
#[allow(async_fn_in_trait)] // Single-threaded wasm: no Send bound is wanted.
pub trait Models {
    /// Embeds texts with the configured embedding model.
    async fn embed(&self, texts: &[String]) -> Result<Embeddings, ModelError>;
    /// Runs `role`'s chat model; `schema` asks for JSON of that shape where
    /// the model takes a constraint.
    async fn chat(&self, role: Role, messages: &[Message], schema: &Value, max_tokens: u32) -> Result<Reply, ModelError>;
    /// The `k` nearest passages to `vector` within `scope`: (passage id,
    /// similarity), best first.
    async fn nearest(&self, scope: &Scope, vector: &[f32], k: usize) -> Result<Vec<(String, f64)>, ModelError>;
    /// The stored vectors of these passages in `scope` (any order; ids it
    /// does not hold are left out).
    async fn vectors(&self, scope: &Scope, ids: &[String]) -> Result<Vec<(String, Vec<f32>)>, ModelError>;
}

/// The local engine has no models. Uninhabited: a `Pipeline` over it can hold
/// only `None`, and no call can reach these methods.
pub enum NoModels {}

impl Models for NoModels {
    async fn embed(&self, _: &[String]) -> Result<Embeddings, ModelError> {
        match *self {}
    }
    async fn chat(&self, _: Role, _: &[Message], _: &Value, _: u32) -> Result<Reply, ModelError> {
        match *self {}
    }
    async fn nearest(&self, _: &Scope, _: &[f32], _: usize) -> Result<Vec<(String, f64)>, ModelError> {
        match *self {}
    }
    async fn vectors(&self, _: &Scope, _: &[String]) -> Result<Vec<(String, Vec<f32>)>, ModelError> {
        match *self {}
    }
}
