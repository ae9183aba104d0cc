//! One error enum for everything that ends a request with a 4xx/5xx, and the one
//! mapping to an HTTP status, a stable code and a public message. Internal detail
//! (D1 messages, JS exceptions) is logged by the glue and never reaches the client.

use std::fmt;

/// Why a request could not be served. Refusals and blocks are not errors: they
/// are `200` answers with `status: refused | blocked`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    /// Malformed body or fields; the message says which and why.
    BadRequest(String),
    /// Content type other than `application/json`.
    UnsupportedMediaType,
    /// Body over the route's limit (bytes).
    PayloadTooLarge { limit: usize },
    /// The route exists but not for this method; the allowed method is named.
    MethodNotAllowed { allow: &'static str },
    /// No such route.
    NotFound,
    /// Admin route without the right bearer token.
    Unauthorized,
    /// Turnstile did not verify the client; the siteverify error codes say why.
    TurnstileFailed(Vec<String>),
    /// Over the per-client limit; the decision carries the headers to send.
    RateLimited(crate::guards::rate_limit::Decision),
    /// A required secret or setting is missing or invalid (named, never its value).
    Misconfigured(String),
    /// A dependency (D1, ...) failed; the detail is for the log only.
    Dependency(String),
    /// The day's spend cap is reached and there is no cached answer or fallback.
    BudgetExhausted,
    /// The workspace secret matches no live workspace: wrong, or expired.
    WorkspaceUnknown,
    /// The secret is a live workspace's, but not the one the path names.
    /// Same code as [`ApiError::WorkspaceUnknown`]; the secret stays good.
    WorkspaceMismatch,
    /// This client has created its most workspaces for the day.
    WorkspaceLimit { limit: u32 },
    /// All workspaces together hold as many workspaces (`WORKSPACES_LIVE_MAX`)
    /// or passages (`WORKSPACE_PASSAGES_TOTAL`) as they may: not this
    /// client's doing, so a 503 until expiry makes room.
    WorkspaceCapacity,
    /// An uploaded file refused for what it is or holds; nothing was stored.
    Document(DocumentError),
    /// No corpus version has been committed yet: the first ingest is not done.
    NotReady,
    /// The request's audit record is older than the retention and was
    /// pruned; the chain still verifies from its checkpoint.
    AuditPruned,
    /// A page or commit names an ingest that was never begun (or is gone).
    IngestUnknown,
    /// The corpus changed after this ingest began: its pages are dropped.
    IngestStale,
    /// A page holds a document that another page of the ingest holds.
    IngestConflict(String),
    /// A page whose rows need more statements than one invocation may run.
    PageTooLarge { statements: usize, limit: usize },
}

/// Why an uploaded file is refused, each with its own code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentError {
    /// Over `WORKSPACE_MAX_FILE_BYTES`.
    TooLarge { limit: usize },
    /// Not Markdown, plain text or PDF (the declared content type).
    Unsupported(String),
    /// A PDF that cannot be read: malformed, or encrypted.
    UnreadablePdf(String),
    /// No text to index (a scanned PDF, an empty file).
    NoText,
    /// More text than `WORKSPACE_MAX_CHARS`.
    TooManyCharacters { chars: usize, limit: usize },
    /// The workspace would hold more than `WORKSPACE_MAX_PASSAGES` passages.
    TooManyPassages { passages: usize, limit: usize },
    /// Another upload filled the workspace while this one was read: the
    /// cap held inside the write.
    WorkspaceFull { limit: usize },
}

impl DocumentError {
    fn status(&self) -> u16 {
        match self {
            DocumentError::TooLarge { .. } => 413,
            DocumentError::Unsupported(_) => 415,
            _ => 422,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            DocumentError::TooLarge { .. } => "file_too_large",
            DocumentError::Unsupported(_) => "unsupported_document",
            DocumentError::UnreadablePdf(_) => "unreadable_pdf",
            DocumentError::NoText => "no_text",
            DocumentError::TooManyCharacters { .. } => "too_many_characters",
            DocumentError::TooManyPassages { .. } | DocumentError::WorkspaceFull { .. } => "too_many_passages",
        }
    }

    fn message(&self) -> String {
        match self {
            DocumentError::TooLarge { limit } => format!("the file is larger than {limit} bytes"),
            DocumentError::Unsupported(what) => format!("upload Markdown (text/markdown), plain text (text/plain) or PDF (application/pdf), not {what}"),
            DocumentError::UnreadablePdf(why) => format!("the PDF cannot be read: {why}"),
            DocumentError::NoText => "the file has no text to index (a scanned PDF has only images)".into(),
            DocumentError::TooManyCharacters { chars, limit } => format!("the file has {chars} characters of text; at most {limit} are allowed"),
            DocumentError::TooManyPassages { passages, limit } => format!("the workspace would hold {passages} passages; at most {limit} are allowed"),
            DocumentError::WorkspaceFull { limit } => {
                format!("another upload filled the workspace first; it may hold at most {limit} passages, and nothing of this file was stored")
            }
        }
    }
}

impl From<DocumentError> for ApiError {
    fn from(e: DocumentError) -> Self {
        ApiError::Document(e)
    }
}

impl ApiError {
    /// HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::BadRequest(_) => 400,
            ApiError::Unauthorized => 401,
            ApiError::TurnstileFailed(_) => 403,
            ApiError::RateLimited(_) => 429,
            ApiError::NotFound => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::PayloadTooLarge { .. } => 413,
            ApiError::UnsupportedMediaType => 415,
            ApiError::Misconfigured(_) | ApiError::Dependency(_) | ApiError::BudgetExhausted | ApiError::WorkspaceCapacity => 503,
            ApiError::WorkspaceUnknown | ApiError::WorkspaceMismatch => 403,
            ApiError::WorkspaceLimit { .. } => 429,
            ApiError::Document(e) => e.status(),
            ApiError::NotReady => 503,
            ApiError::IngestUnknown => 404,
            ApiError::AuditPruned => 410,
            ApiError::IngestStale | ApiError::IngestConflict(_) => 409,
            ApiError::PageTooLarge { .. } => 413,
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Unauthorized => "unauthorized",
            ApiError::TurnstileFailed(_) => "turnstile_failed",
            ApiError::RateLimited(_) => "rate_limited",
            ApiError::NotFound => "not_found",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::Misconfigured(_) => "misconfigured",
            ApiError::Dependency(_) => "unavailable",
            ApiError::BudgetExhausted => "budget_exhausted",
            ApiError::WorkspaceUnknown | ApiError::WorkspaceMismatch => "workspace_unknown",
            ApiError::WorkspaceLimit { .. } => "workspace_limit",
            ApiError::WorkspaceCapacity => "workspace_capacity",
            ApiError::Document(e) => e.code(),
            ApiError::NotReady => "not_ready",
            ApiError::IngestUnknown => "ingest_unknown",
            ApiError::AuditPruned => "audit_pruned",
            ApiError::IngestStale => "ingest_stale",
            ApiError::IngestConflict(_) => "ingest_conflict",
            ApiError::PageTooLarge { .. } => "page_too_large",
        }
    }

    /// The message shown to the client.
    pub fn public_message(&self) -> String {
        match self {
            ApiError::BadRequest(why) => why.clone(),
            ApiError::Unauthorized => "a valid admin bearer token is required".into(),
            ApiError::TurnstileFailed(codes) => format!("Turnstile verification failed: {}", codes.join(", ")),
            ApiError::RateLimited(d) => format!("at most {} questions per window; try again in {} s", d.limit, d.reset_after),
            ApiError::NotFound => "no such route".into(),
            ApiError::MethodNotAllowed { allow } => format!("use {allow} for this route"),
            ApiError::PayloadTooLarge { limit } => format!("the body is larger than {limit} bytes"),
            ApiError::UnsupportedMediaType => "send the body as application/json".into(),
            ApiError::Misconfigured(what) => format!("the worker is misconfigured: {what}"),
            ApiError::Dependency(_) => "a dependency is unavailable; try again later".into(),
            ApiError::BudgetExhausted => "today's AI budget is spent and this question has no cached answer; try again tomorrow (UTC)".into(),
            ApiError::WorkspaceUnknown => "the workspace secret matches no live workspace (wrong, or expired)".into(),
            ApiError::WorkspaceMismatch => "the workspace secret is another workspace's than the one asked for".into(),
            ApiError::WorkspaceLimit { limit } => format!("at most {limit} workspaces per client per day; try again tomorrow (UTC)"),
            ApiError::WorkspaceCapacity => "the service holds as many workspaces and workspace passages as it may; try again once some expire".into(),
            ApiError::Document(e) => e.message(),
            ApiError::NotReady => "no corpus is loaded yet: the first ingest has not been committed; try again shortly".into(),
            ApiError::IngestUnknown => "no such ingest: begin it first (POST /admin/ingest/begin)".into(),
            ApiError::AuditPruned => "the request's audit record was older than the retention and has been pruned; the chain verifies from its checkpoint".into(),
            ApiError::IngestStale => "the corpus changed after this ingest began; its pages were dropped: run the ingest again".into(),
            ApiError::IngestConflict(why) => why.clone(),
            ApiError::PageTooLarge { statements, limit } => {
                format!("the page needs {statements} statements to stage; at most {limit} fit in one request: send smaller pages")
            }
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::Dependency(detail) => write!(f, "{}: {detail}", self.code()),
            other => write!(f, "{}: {}", other.code(), other.public_message()),
        }
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dependency detail is logged (Display) but never public.
    #[test]
    fn dependency_detail_stays_private() {
        let err = ApiError::Dependency("D1_ERROR: no such table: passages".into());
        assert_eq!(err.status(), 503);
        assert!(!err.public_message().contains("passages"));
        assert!(err.to_string().contains("no such table"));
    }

    #[test]
    fn every_client_error_is_4xx() {
        let errors = [
            ApiError::BadRequest("x".into()),
            ApiError::UnsupportedMediaType,
            ApiError::PayloadTooLarge { limit: 1 },
            ApiError::MethodNotAllowed { allow: "POST" },
            ApiError::NotFound,
            ApiError::Unauthorized,
            ApiError::TurnstileFailed(vec!["x".into()]),
            ApiError::RateLimited(crate::guards::rate_limit::decide(2, 1, crate::guards::rate_limit::window(0, 60))),
            ApiError::WorkspaceUnknown,
            ApiError::WorkspaceMismatch,
            ApiError::WorkspaceLimit { limit: 5 },
            DocumentError::TooLarge { limit: 1 }.into(),
            DocumentError::Unsupported("image/png".into()).into(),
            DocumentError::UnreadablePdf("encrypted".into()).into(),
            DocumentError::NoText.into(),
            DocumentError::TooManyCharacters { chars: 2, limit: 1 }.into(),
            DocumentError::TooManyPassages { passages: 2, limit: 1 }.into(),
            DocumentError::WorkspaceFull { limit: 1 }.into(),
            ApiError::IngestUnknown,
            ApiError::AuditPruned,
            ApiError::IngestStale,
            ApiError::IngestConflict("x".into()),
            ApiError::PageTooLarge { statements: 2, limit: 1 },
        ];
        for err in errors {
            assert!((400..500).contains(&err.status()), "{err}");
        }
    }
}
