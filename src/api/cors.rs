//! CORS for the public routes: an exact allowlist of origins (`CORS_ORIGINS`).
//! An allowed origin gets its own origin echoed back; any other origin gets no
//! CORS headers at all, so the browser blocks the read. Admin routes never get
//! CORS headers: they are for operators' scripts, not pages.

use crate::api::error::ApiError;

/// Routes a page on an allowed origin may call: the public API and the
/// workspace routes (`/workspaces`, `/workspaces/{id}`, `/workspaces/{id}/documents`)
/// and an answer's audit proof (`/audit/{requestId}`).
pub fn is_public(path: &str) -> bool {
    matches!(path, "/ask" | "/search" | "/health" | "/workspaces") || path.starts_with("/workspaces/") || path.starts_with("/audit/")
}
pub const ALLOW_METHODS: &str = "GET, POST, DELETE, OPTIONS";
/// A page on another origin sends its workspace secret in a header (its
/// cookie is this origin's, and `SameSite=Lax`).
pub const ALLOW_HEADERS: &str = "content-type, accept, workspace-secret, cf-turnstile-response";
/// What a page may read besides the simple headers: the rate-limit state.
pub const EXPOSE_HEADERS: &str = "ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after";
/// How long a browser may reuse a preflight answer, in seconds.
pub const MAX_AGE_SECONDS: &str = "600";

/// Parses `CORS_ORIGINS`: comma-separated origins such as `https://example.com`
/// or `http://localhost:5173`: a scheme, a host, an optional port, no path.
pub fn parse_allowlist(raw: &str) -> Result<Vec<String>, ApiError> {
    raw.split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|origin| match is_origin(origin) {
            true => Ok(origin.to_string()),
            false => Err(ApiError::Misconfigured(format!(
                "CORS_ORIGINS entry {origin:?} is not an origin (scheme://host[:port], no path)"
            ))),
        })
        .collect()
}

fn is_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else { return false };
    let (host, port) = rest.rsplit_once(':').map_or((rest, None), |(h, p)| (h, Some(p)));
    matches!(scheme, "http" | "https")
        && !host.is_empty()
        && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']'))
        && port.is_none_or(|p| !p.is_empty() && p.parse::<u16>().is_ok())
}

/// The origin to echo in `Access-Control-Allow-Origin`, if the request's
/// `Origin` is on the allowlist (compared exactly, as browsers send it).
pub fn allowed<'a>(origin: Option<&'a str>, allowlist: &[String]) -> Option<&'a str> {
    origin.filter(|o| allowlist.iter().any(|allowed| allowed == o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_parses_exact_origins_and_names_a_bad_entry() {
        let list = parse_allowlist(" https://example.com, http://localhost:5173 ,,").unwrap();
        assert_eq!(list, ["https://example.com", "http://localhost:5173"]);
        assert!(parse_allowlist("").unwrap().is_empty());
        for bad in ["example.com", "https://example.com/", "ftp://x", "https://x:port", "https://", "*"] {
            let err = parse_allowlist(bad).unwrap_err();
            assert!(err.public_message().contains("CORS_ORIGINS"), "{bad}: {err}");
        }
    }

    #[test]
    fn public_routes() {
        for path in ["/ask", "/search", "/health", "/workspaces", "/workspaces/00000000000000aa/documents"] {
            assert!(is_public(path), "{path}");
        }
        for path in ["/admin/ingest", "/workspacesx", "/"] {
            assert!(!is_public(path), "{path}");
        }
    }

    #[test]
    fn only_listed_origins_are_echoed() {
        let list = parse_allowlist("https://example.com").unwrap();
        assert_eq!(allowed(Some("https://example.com"), &list), Some("https://example.com"));
        for other in ["https://example.com.evil.test", "http://example.com", "https://EXAMPLE.com", "null"] {
            assert_eq!(allowed(Some(other), &list), None, "{other}");
        }
        assert_eq!(allowed(None, &list), None);
    }
}
