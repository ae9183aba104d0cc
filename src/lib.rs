//! groundgate: answers questions only from its corpus, and refuses, with the
//! evidence shown, when the corpus does not support an answer.
//!
//! # Layout
//!
//! Pure core (no JS, no IO; tested natively with `cargo test`):
//! - [`text`]: the one tokenizer (stopwords, stems, sentences, clauses,
//!   quantities with units, names, negation) used by indexing, retrieval,
//!   answering and scoring alike; general rules of English only.
//! - [`vocabulary`]: a corpus's own synonyms, shipped and versioned with it.
//! - [`chunk`]: Markdown documents into passages with stable ids.
//! - [`ingest`]: the diff between stored and incoming passages, and the corpus version.
//! - [`request`]: the `/ask` request parsed at the edge into a typed question.
//! - [`config`]: `[vars]` parsed into typed thresholds and limits.
//! - [`cost`]: usage into neurons and dollars; a request's upper-bound cost.
//! - [`cors`]: the origin allowlist of the public routes.
//! - [`turnstile`]: the siteverify request body and the decision on its answer.
//! - [`rate_limit`]: client keys (HMAC of the IP), fixed windows, decisions, headers.
//! - [`cache`]: the answer cache key, what is cacheable, serving a stored answer.
//! - [`spend`]: UTC days and the ledger shape behind the daily spend cap.
//! - [`screen`]: the zero-cost deny-list for injection and off-topic requests.
//! - [`retrieve`]: the full-text query and reciprocal-rank fusion.
//! - [`evidence`]: the evidence gate (does what was retrieved cover *this* question?).
//! - [`question`]: what a question asks (the kind of fact, its focus, its names)
//!   and whether an answer answers it.
//! - [`answer`]: the local engine's extractive answerer (verbatim sentences).
//! - [`support`]: deterministic entailment and sanity caps for each claim.
//! - [`gate`]: the groundedness gate.
//! - [`models`]: the paid calls as a trait (embed, chat, nearest); `NoModels` for the local engine.
//! - [`prompts`]: the Workers AI engine's prompts and lenient parsing of model output.
//! - [`pipeline`]: the stages in order, over the [`pipeline::Corpus`] trait.
//! - [`stages`]: the finished stages in order, each reported live to an observer.
//! - [`response`]: the wire types (`AskResponse`, stages, errors).
//! - [`error`]: one error enum, one mapping to status + stable code.
//! - [`audit`]: audit records in canonical JSON, the hash chain, and its verification.
//! - [`auth`]: constant-time bearer token check.
//! - `memory` (native only): an in-memory BM25 [`pipeline::Corpus`] for tests and
//!   offline tools; the wasm build leaves it out.
//!
//! Glue (`glue`, wasm32 only): the only code that touches JS bindings (D1, the
//! request/response objects, the clock).

pub mod answer;
pub mod audit;
pub mod auth;
pub mod cache;
pub mod chunk;
pub mod config;
pub mod cors;
pub mod cost;
pub mod error;
pub mod evidence;
pub mod gate;
pub mod ingest;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
pub mod models;
pub mod pipeline;
pub mod prompts;
pub mod question;
pub mod rate_limit;
pub mod request;
pub mod response;
pub mod retrieve;
pub mod screen;
pub mod spend;
pub mod stages;
pub mod support;
pub mod text;
pub mod turnstile;
pub mod vocabulary;

#[cfg(target_arch = "wasm32")]
mod glue;
