//! Wire types: the one `AskResponse` shape for every outcome, and the error body.
//! An answer is one typed value whether fresh or served from the cache: it
//! serializes to the wire and to the cache, and deserializes back unchanged.

use serde::{Deserialize, Serialize};

/// The wire name of a value that serializes as a plain string (a status, a
/// reason, a stage name).
pub fn wire_name<T: Serialize>(value: T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// The outcome of an `/ask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Answered,
    Refused,
    Blocked,
}

/// Why a question was refused or blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The evidence gate: retrieval does not cover the question.
    NoEvidence,
    /// The claims' groundedness is under the thresholds.
    BelowThreshold,
    /// The supported sentences do not answer this question.
    OffQuestion,
    /// A model or the vector index failed, timed out or refused (Workers AI).
    ModelUnavailable,
    /// The model's output was not valid JSON, even after one repair request.
    ModelOutputInvalid,
    /// Blocked by the screen: an attempt at prompt injection.
    Injection,
    /// Blocked by the screen: a request the corpus cannot be about.
    OffTopic,
}

impl Reason {
    /// A refusal that says something about the question (cacheable), not about
    /// a passing failure of a dependency (never cached).
    pub fn is_about_the_question(self) -> bool {
        matches!(self, Reason::NoEvidence | Reason::BelowThreshold | Reason::OffQuestion)
    }
}

/// How a stage ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageStatus {
    Passed,
    Refused,
    Skipped,
    Blocked,
}

/// The stages of a request, in the order they run (their declaration order):
/// the guards, then the answering stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageName {
    Validate,
    Turnstile,
    RateLimit,
    Cache,
    Spend,
    Screen,
    Retrieve,
    Evidence,
    Generate,
    Decompose,
    Entail,
    Sanity,
    Gate,
}

impl StageName {
    /// A stage of the answer itself (not a guard of this request): what a
    /// cached answer keeps when it is served again.
    pub fn is_answering(self) -> bool {
        self >= StageName::Screen
    }
}

/// One finished stage, in pipeline order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    pub name: StageName,
    pub status: StageStatus,
    pub ms: u64,
    pub detail: String,
}

impl Stage {
    /// A stage that ran from `started_ms` to `now_ms` (milliseconds of one clock).
    pub fn timed(name: StageName, status: StageStatus, started_ms: f64, now_ms: f64, detail: String) -> Stage {
        Stage { name, status, ms: (now_ms - started_ms).max(0.0).round() as u64, detail }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    pub passage_id: String,
    pub doc: String,
    pub section: String,
    /// The source sentence, verbatim.
    pub snippet: String,
    #[serde(default)]
    pub origin: Origin,
    /// The PDF page the passage was read from (an upload's `doc:page:NN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

/// Where a passage came from: the corpus as ingested, a visitor's upload (a
/// workspace), or an answer an operator approved in the review inbox. Every
/// one is evidence like any other: retrieved, gated and checked alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    #[default]
    Corpus,
    Upload,
    Operator,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Corpus => "corpus",
            Origin::Upload => "upload",
            Origin::Operator => "operator",
        }
    }

    /// The stored name; anything unknown reads as the corpus.
    pub fn parse(raw: &str) -> Origin {
        match raw {
            "upload" => Origin::Upload,
            "operator" => Origin::Operator,
            _ => Origin::Corpus,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    pub text: String,
    pub score: f64,
    pub supported: bool,
    pub supporting_passage_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Groundedness {
    pub mean: f64,
    pub min: f64,
    pub threshold: f64,
    pub min_claim: f64,
    /// Share of the question's weight the answer covers, and the bar it must clear.
    pub coverage: f64,
    pub min_coverage: f64,
    pub passed: bool,
}

/// A passage that was looked at, with where it ranked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retrieved {
    pub passage_id: String,
    pub doc: String,
    pub section: String,
    pub score: f64,
    pub vector_rank: Option<usize>,
    pub lexical_rank: Option<usize>,
    pub text: String,
    #[serde(default)]
    pub origin: Origin,
    /// Reached by following a reference from this passage (one hop), not by search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The PDF page the passage was read from (an upload's `doc:page:NN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

/// Whether the answer was served from the cache, and from which tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheInfo {
    pub hit: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
}

/// The cache tier that served a hit: the Cache API (per location) or D1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Edge,
    D1,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub neurons: f64,
    pub usd: f64,
    /// Paid model and index calls made.
    pub calls: u32,
}

/// Which engine answered and which index it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub ai: AiEngine,
    pub index: IndexKind,
}

impl EngineInfo {
    pub const LOCAL: EngineInfo = EngineInfo { ai: AiEngine::Local, index: IndexKind::FtsOnly };
    pub const WORKERS_AI: EngineInfo = EngineInfo { ai: AiEngine::WorkersAi, index: IndexKind::Vectorize };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AiEngine {
    WorkersAi,
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexKind {
    Vectorize,
    FtsOnly,
}

/// The response to every `/ask` that is not an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskResponse {
    pub request_id: String,
    pub status: Status,
    pub reason: Option<Reason>,
    pub answer: Option<String>,
    pub citations: Vec<Citation>,
    pub claims: Vec<Claim>,
    pub groundedness: Option<Groundedness>,
    pub retrieval: Vec<Retrieved>,
    pub stages: Vec<Stage>,
    pub cache: CacheInfo,
    pub cost: Cost,
    pub engine: EngineInfo,
    pub corpus_version: String,
}

/// `{"error": {"code", "message"}, "requestId"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error: ErrorDetail,
    pub request_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorDetail {
    pub code: &'static str,
    pub message: String,
}

impl ErrorBody {
    pub fn new(err: &crate::api::error::ApiError, request_id: &str) -> Self {
        ErrorBody {
            error: ErrorDetail { code: err.code(), message: err.public_message() },
            request_id: request_id.to_string(),
        }
    }
}
