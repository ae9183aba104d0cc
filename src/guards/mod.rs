//! The guards' pure halves, apart from the bindings that store them:
//! Turnstile's request and decision, the rate limit's client keys, windows and
//! headers, the answer cache's keys and serving, the spend cap's days, and the
//! tamper-evident audit log's records and chain.

pub mod audit;
pub mod cache;
pub mod rate_limit;
pub mod spend;
pub mod turnstile;
