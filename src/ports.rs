//! What the request flow runs over: small traits the core owns, one per
//! dependency. The glue implements each over one binding (`src/glue/`);
//! `fakes` implements each in memory, for native tests and benchmarks.
//!
//! Every method states its failure: `Err` is for a dependency that could not
//! answer (the flow fails closed on it); an expected "no" (over the cap, a
//! cache miss) is a value.

use crate::api::response::Origin;
use crate::api::error::ApiError;
use crate::api::response::{AskResponse, Tier};
use crate::corpus::vocabulary::Vocabulary;
use crate::corpus::workspace::{Scope, WorkspaceState};
use crate::escalation::Escalation;
use crate::review::{Enqueued, Queued};
use crate::guards::audit::Record;
use crate::guards::rate_limit::Window;
pub use crate::models::Models;


/// Turnstile's siteverify.
#[allow(async_fn_in_trait)] // Single-threaded wasm: no Send bound is wanted.
pub trait Verifier {
    /// `Ok(())` when `token` is valid for this client. A token siteverify
    /// rejects, and a siteverify that cannot be reached or read, are both
    /// `Err(ApiError::TurnstileFailed)`: it fails closed.
    async fn verify(&self, token: &str, client_ip: Option<&str>) -> Result<(), ApiError>;
}

/// The per-client request counter.
#[allow(async_fn_in_trait)]
pub trait RateLimiter {
    /// Counts one request of `client` in `window`, atomically (concurrent
    /// requests never read the same count), and returns the count after it.
    async fn count(&self, client: &str, window: Window) -> Result<u32, ApiError>;
}

/// The answer cache.
#[allow(async_fn_in_trait)]
pub trait AnswerCache {
    /// The answer stored under `key` and the tier it came from. A read that
    /// fails is a miss: the cache is an optimisation, never a reason to fail.
    async fn get(&self, key: &str, now: u64) -> Option<(AskResponse, Tier)>;
    /// Stores an answer (never over a pinned one). A write that fails is
    /// logged and forgotten.
    async fn put(&self, entry: &Cached, now: u64);
}

/// An answer to store under its key, with the workspace it may quote: the
/// entry goes when the workspace does.
#[derive(Debug, Clone, PartialEq)]
pub struct Cached {
    pub key: String,
    pub workspace: Option<String>,
    pub answer: AskResponse,
}

/// One reservation against the day's spend cap.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation<'a> {
    /// UTC `YYYY-MM-DD`.
    pub day: &'a str,
    pub request_id: &'a str,
    /// The client's keyed hash; `None` for the admin token (no per-client share).
    pub client: Option<&'a str>,
    /// The request's upper bound, in neurons.
    pub amount: f64,
    /// The day's cap, and one client's share of it, in neurons.
    pub cap: f64,
    pub client_cap: f64,
}

/// What a reservation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    Yes,
    /// It would pass the day's cap.
    OverCap,
    /// It would pass the client's share of the cap (the day has room).
    OverShare,
}

/// The daily spend ledger.
#[allow(async_fn_in_trait)]
pub trait SpendLedger {
    /// Reserves `amount` if reserved + spent + amount stays within the day's
    /// cap and, for a client, within its share: one atomic step. When it
    /// would not fit, says which limit it would pass.
    async fn reserve(&self, reservation: &Reservation<'_>) -> Result<Reserved, ApiError>;
    /// Charges `charged` and releases the rest of `request_id`'s reservation.
    /// Idempotent: a settled request is never charged again.
    async fn settle(&self, request_id: &str, charged: f64, now: u64) -> Result<(), ApiError>;
    /// Records spending that was not reserved (ingest embeddings, an admin
    /// action) as its own line of the day's ledger.
    async fn record(&self, day: &str, line: &str, charged: f64, now: u64) -> Result<(), ApiError>;
}

/// The tamper-evident audit log.
#[allow(async_fn_in_trait)]
pub trait AuditLog {
    /// Appends one request's record to the hash chain.
    async fn append(&self, record: &Record) -> Result<(), ApiError>;
    /// Counts one request refused before it was admitted (bad input, Turnstile,
    /// the rate limit) under its error code in its window: one aggregate row
    /// per window and code, however many such requests come, written in
    /// batches (a flood is not a D1 write per request).
    async fn reject(&self, window_start: u64, code: &str) -> Result<(), ApiError>;
}

/// What every lookup of a request shares: the version of what it may see,
/// the shared corpus's vocabulary, and its scope (the shared corpus, a
/// workspace, or both).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CorpusState {
    pub version: String,
    pub vocabulary: Vocabulary,
    pub scope: Scope,
    /// Some ingest has committed a shared corpus version (possibly empty).
    /// Until then `/ask` and `/search` over the shared corpus are `not_ready`.
    pub committed: bool,
}

/// The passage store (D1 in the worker, memory in tests).
#[allow(async_fn_in_trait)]
pub trait Corpus {
    /// The shared corpus's version and vocabulary, in one read (scope: shared).
    async fn state(&self) -> Result<CorpusState, ApiError>;
    /// The live workspace whose secret hashes to `secret_hash`, if any.
    async fn workspace(&self, secret_hash: &str, now: u64) -> Result<Option<WorkspaceState>, ApiError>;
    /// Within `scope`: its passage count, the document frequencies of `terms`
    /// and the top `k` passages for `expression` (an FTS5 match expression
    /// over the terms), in one round trip.
    async fn lookup(&self, scope: &Scope, query: &Query<'_>) -> Result<Lookup, ApiError>;
    /// The passages in `scope` with these ids (any order; others are left out).
    async fn passages(&self, scope: &Scope, ids: &[String]) -> Result<Vec<StoredHit>, ApiError>;
    /// The passages in `scope` that these passages refer to: (referrer, target)
    /// pairs, by referrer then target id ([`crate::corpus::references`]).
    async fn references(&self, scope: &Scope, from: &[String]) -> Result<Vec<(String, StoredHit)>, ApiError>;
}

/// The review inbox's queue (D1 in the worker, memory in tests).
#[allow(async_fn_in_trait)]
pub trait ReviewQueue {
    /// Queues a refused question, or counts it again if it is queued already.
    async fn enqueue(&self, item: &Queued, now: u64) -> Result<Enqueued, ApiError>;
}

/// Milliseconds since some fixed point; injected so tests are deterministic.
pub trait Clock {
    fn now_ms(&self) -> f64;
}

/// Where the flow reports what an operator must see: a settle that failed, a
/// charge over its reservation. The glue writes to the log; fakes keep it.
pub trait Alarms {
    fn alarm(&self, message: &str);
}

/// Where the core tells an operator what happened ([`crate::escalation`]):
/// the glue's signed webhook, with its retry queue; fakes keep what was sent.
#[allow(async_fn_in_trait)]
pub trait Notifier {
    /// Takes note of `event`: never waits, never fails.
    fn notify(&self, event: Escalation);
    /// Sends what was noted, off the critical path: a delivery that fails is
    /// queued for the cron, never the caller's error.
    async fn send(&self, now: u64);
}

/// Everything one request runs over, for the [`crate::flow`] sequencer.
pub trait Ports {
    type Verifier: Verifier;
    type Limiter: RateLimiter;
    type Cache: AnswerCache;
    type Ledger: SpendLedger;
    type Audit: AuditLog;
    type Corpus: Corpus;
    type Review: ReviewQueue;
    type Models: Models;
    type Clock: Clock;
    type Alarms: Alarms;
    type Notifier: Notifier;

    /// Siteverify, when a Turnstile secret is configured.
    fn verifier(&self) -> Option<&Self::Verifier>;
    fn limiter(&self) -> &Self::Limiter;
    fn cache(&self) -> &Self::Cache;
    fn ledger(&self) -> &Self::Ledger;
    fn audit(&self) -> &Self::Audit;
    fn corpus(&self) -> &Self::Corpus;
    fn review(&self) -> &Self::Review;
    /// The paid models (Workers AI engine); `Err` when their bindings are missing.
    fn models(&self) -> Result<&Self::Models, ApiError>;
    fn clock(&self) -> &Self::Clock;
    fn alarms(&self) -> &Self::Alarms;
    fn notifier(&self) -> &Self::Notifier;
    /// The key client IPs are hashed with, when configured.
    fn ip_hash_key(&self) -> Option<&str>;
}

/// A passage as the store returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHit {
    pub id: String,
    pub doc: String,
    pub section: String,
    pub text: String,
    pub origin: Origin,
}

/// One lookup in the corpus: the question's terms and their FTS5 expression,
/// how many passages to rank, and what a term in a passage's heading weighs
/// against one in its text (1.0: the same).
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub terms: &'a [String],
    pub expression: &'a str,
    pub k: usize,
    pub heading_weight: f64,
}

/// What one lookup in the corpus returns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lookup {
    /// Passages in the corpus.
    pub total_passages: u32,
    /// Passages containing each asked term, in the order asked.
    pub doc_freqs: Vec<u32>,
    /// Best passages for the match expression, best first.
    pub hits: Vec<StoredHit>,
}
