//! The edge's wire types and checks, apart from IO: the `/ask` request parsed
//! into a typed question, the one response shape, the one error enum with its
//! status and stable code, the CORS allowlist, the admin bearer check.

pub mod auth;
pub mod cors;
pub mod error;
pub mod request;
pub mod response;
