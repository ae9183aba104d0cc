//! groundgate: answers questions only from its corpus, and refuses, with the
//! evidence shown, when the corpus does not support an answer.
//!
//! # Layout
//!
//! Pure core (no JS, no IO; tested natively with `cargo test`):
//! - [`flow`]: the sequencer of one request: validate → Turnstile → rate limit →
//!   cache → spend → the answering stages → settle → cache write → audit, over
//!   the traits of [`ports`].
//! - [`ports`]: the traits the flow runs over (verifier, rate limiter, answer
//!   cache, spend ledger, audit log, corpus, models, clock); `fakes` (native
//!   only) implements each in memory, scriptable, for tests and benchmarks.
//! - [`guards`]: the guards' pure halves: Turnstile's decision, rate-limit keys
//!   and windows, cache keys and serving, spend days and bounds, audit records.
//! - [`stages`]: the answering stages (screen, retrieve, evidence, answer,
//!   judge prompts, support, gate) and the pipeline that sequences them.
//! - [`text`]: the one tokenizer, on general rules of English only.
//! - [`corpus`]: chunking, ingest diffs, a corpus's vocabulary, workspaces (a
//!   visitor's own documents, scoped by a secret), PDF text; `memory` (native
//!   only) is an in-memory BM25 corpus for tests and offline tools.
//! - [`escalation`]: what an operator is told by the signed webhook: events,
//!   their keys, JSON or Slack bodies, signatures, retry times.
//! - [`ingesting`]: a paged ingest of the shared corpus (begin, pages,
//!   commit) over the `Staging` port.
//! - [`maintenance`]: the cron's upkeep: its steps, their cutoffs, each step
//!   run whatever the others did.
//! - [`review`]: the review inbox: refusals queued for an operator, and the
//!   passage an approved answer becomes.
//! - [`api`]: wire types at the edge: the parsed request, the response, errors,
//!   CORS, the admin bearer check.
//! - [`config`]: `[vars]` parsed into typed thresholds and limits.
//! - [`cost`]: usage into neurons and dollars; a request's true upper bound.
//! - [`models`]: the paid calls as a trait; `NoModels` for the local engine.
//! - [`catalog`]: the Workers AI models known, and the exact request each is
//!   sent (its JSON field, temperature, seed, gateway options).
//!
//! Glue (`glue`, wasm32 only): the only code that touches JS bindings (D1, the
//! Cache API, Workers AI, Vectorize, siteverify, the request and response).

pub mod api;
pub mod catalog;
pub mod config;
pub mod corpus;
pub mod cost;
pub mod escalation;
#[cfg(not(target_arch = "wasm32"))]
pub mod fakes;
pub mod flow;
pub mod guards;
pub mod ingesting;
pub mod maintenance;
pub mod models;
pub mod ports;
pub mod review;
pub mod stages;
pub mod text;

#[cfg(target_arch = "wasm32")]
mod glue;
