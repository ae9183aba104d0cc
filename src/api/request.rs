//! The `/ask` request, parsed at the edge into a typed question ("parse, don't
//! validate"): everything past this point can rely on its invariants.

use serde_json::Value;

use crate::api::error::ApiError;
use crate::corpus::workspace::{Reach, WORKSPACE_COOKIE};

/// Largest `/ask` body accepted.
pub const MAX_ASK_BODY: usize = 16 * 1024;
/// Longest question, in characters after trimming.
pub const MAX_QUESTION_CHARS: usize = 1000;
/// Longest Turnstile token siteverify accepts.
pub const MAX_TOKEN_CHARS: usize = 2048;

/// A valid question: trimmed, 1..=1000 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskRequest {
    pub question: String,
    /// The Turnstile token, when the client sent one.
    pub token: Option<String>,
    /// What to search: everything the client may see, or its workspace alone.
    pub reach: Reach,
}

/// Checks that a JSON body was sent the right way: POST, `application/json`, not
/// over `limit` bytes (as declared and as read).
pub fn check_json_post(
    method: &str,
    content_type: Option<&str>,
    body_len: usize,
    limit: usize,
) -> Result<(), ApiError> {
    if method != "POST" {
        return Err(ApiError::MethodNotAllowed { allow: "POST" });
    }
    let media_type = content_type.and_then(|ct| ct.split(';').next()).map(|m| m.trim().to_ascii_lowercase());
    if media_type.as_deref() != Some("application/json") {
        return Err(ApiError::UnsupportedMediaType);
    }
    if body_len > limit {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    Ok(())
}

/// The header API clients send a workspace secret in.
pub const WORKSPACE_HEADER: &str = "workspace-secret";

/// The workspace secret a request carries: the header, else the cookie.
pub fn workspace_secret(header: Option<String>, cookies: Option<&str>) -> Option<String> {
    header.filter(|h| !h.trim().is_empty()).map(|h| h.trim().to_string()).or_else(|| cookie(cookies?, WORKSPACE_COOKIE))
}

/// One cookie's value from a `Cookie` header.
fn cookie(header: &str, name: &str) -> Option<String> {
    header.split(';').filter_map(|pair| pair.trim().split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// Most passages `GET /search` returns.
pub const MAX_SEARCH_K: usize = 8;

/// `GET /search?q=…&k=…`: retrieval only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    pub query: String,
    /// Passages wanted (1..=8); `None` takes the configured `TOP_K`.
    pub k: Option<usize>,
    /// `scope=workspace`: the workspace alone.
    pub reach: Reach,
}

impl SearchRequest {
    /// Parses the query string's pairs.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, ApiError> {
        let mut query = None;
        let mut k = None;
        let mut reach = Reach::All;
        for (name, value) in pairs {
            match name {
                "scope" => reach = Reach::parse(value)?,
                "q" => query = Some(question_text(value, "q")?),
                "k" => {
                    let n: usize = value.parse().map_err(|_| ApiError::BadRequest("`k` must be a whole number".into()))?;
                    if !(1..=MAX_SEARCH_K).contains(&n) {
                        return Err(ApiError::BadRequest(format!("`k` must be 1..={MAX_SEARCH_K}")));
                    }
                    k = Some(n);
                }
                _ => {}
            }
        }
        let query = query.ok_or_else(|| ApiError::BadRequest("`q` is required".into()))?;
        Ok(SearchRequest { query, k, reach })
    }
}

/// A question's text: trimmed, 1..=1000 characters, no control characters.
fn question_text(raw: &str, field: &str) -> Result<String, ApiError> {
    let text = raw.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(ApiError::BadRequest(format!("`{field}` is empty")));
    }
    if chars > MAX_QUESTION_CHARS {
        return Err(ApiError::BadRequest(format!("`{field}` has {chars} characters; at most {MAX_QUESTION_CHARS} are allowed")));
    }
    if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r') {
        return Err(ApiError::BadRequest(format!("`{field}` contains control characters")));
    }
    Ok(text.to_string())
}

impl AskRequest {
    /// Parses an `/ask` body (already checked with [`check_json_post`]).
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::BadRequest(format!("the body is not valid JSON: {e}")))?;
        let Value::Object(fields) = value else {
            return Err(ApiError::BadRequest("the body must be a JSON object".into()));
        };
        let question = match fields.get("question") {
            Some(Value::String(q)) => question_text(q, "question")?,
            Some(_) => return Err(ApiError::BadRequest("`question` must be a string".into())),
            None => return Err(ApiError::BadRequest("`question` is required".into())),
        };
        let token = match fields.get("token") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) if t.chars().count() <= MAX_TOKEN_CHARS => Some(t.clone()),
            Some(Value::String(_)) => {
                return Err(ApiError::BadRequest(format!("`token` is longer than {MAX_TOKEN_CHARS} characters")))
            }
            Some(_) => return Err(ApiError::BadRequest("`token` must be a string".into())),
        };
        let reach = match fields.get("scope") {
            None | Some(Value::Null) => Reach::All,
            Some(Value::String(s)) => Reach::parse(s)?,
            Some(_) => return Err(ApiError::BadRequest("`scope` must be a string".into())),
        };
        Ok(AskRequest { question, token, reach })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str) -> Result<AskRequest, String> {
        AskRequest::parse(body.as_bytes()).map_err(|e| e.public_message())
    }

    /// Table: each malformed body gets a 400 whose message names the problem.
    #[test]
    fn malformed_bodies_are_rejected_with_a_reason() {
        let long = format!(r#"{{"question":"{}"}}"#, "a".repeat(1001));
        let long_token = format!(r#"{{"question":"q","token":"{}"}}"#, "t".repeat(2049));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let cases: &[(&str, &str)] = &[
            ("", "not valid JSON"),
            ("{", "not valid JSON"),
            ("[1,2]", "JSON object"),
            ("\"question\"", "JSON object"),
            ("{}", "required"),
            (r#"{"question": 42}"#, "must be a string"),
            (r#"{"question": null}"#, "must be a string"),
            (r#"{"question": "   \n "}"#, "empty"),
            (&long, "1001 characters"),
            (r#"{"question": "hi\u0007there"}"#, "control characters"),
            (r#"{"question": "hi", "token": 5}"#, "`token` must be a string"),
            (&long_token, "longer than 2048"),
            (&deep, "not valid JSON"),
            (r#"{"question": "hi", "scope": "mine"}"#, "`scope` must be"),
            (r#"{"question": "hi", "scope": 1}"#, "`scope` must be a string"),
        ];
        for (body, expected) in cases {
            let err = check(body).expect_err(body);
            assert!(err.contains(expected), "{body:?}: {err}");
        }
    }

    #[test]
    fn invalid_utf8_is_a_bad_request() {
        let err = AskRequest::parse(b"{\"question\": \"\xff\xfe\"}").unwrap_err();
        assert_eq!(err.code(), "bad_request");
    }

    #[test]
    fn valid_question_is_trimmed_and_kept_whole() {
        let ok = check(r#"{"question": "  How much is a day pass?\n", "token": "abc", "extra": 1}"#).unwrap();
        assert_eq!(ok, AskRequest { question: "How much is a day pass?".into(), token: Some("abc".into()), reach: Reach::All });
        assert_eq!(check(r#"{"question": "q", "scope": "workspace"}"#).unwrap().reach, Reach::Workspace);
        let exactly_max = format!(r#"{{"question":"{}"}}"#, "é".repeat(1000));
        assert!(check(&exactly_max).is_ok());
    }

    #[test]
    fn search_parameters() {
        let ok = SearchRequest::parse([("q", " day pass "), ("k", "8"), ("other", "x")]).unwrap();
        assert_eq!(ok, SearchRequest { query: "day pass".into(), k: Some(8), reach: Reach::All });
        assert_eq!(SearchRequest::parse([("q", "x"), ("scope", "workspace")]).unwrap().reach, Reach::Workspace);
        assert_eq!(SearchRequest::parse([("q", "x")]).unwrap().k, None);
        for pairs in [vec![], vec![("q", " ")], vec![("q", "x"), ("k", "9")], vec![("q", "x"), ("k", "two")], vec![("q", "x"), ("scope", "me")]] {
            assert_eq!(SearchRequest::parse(pairs).unwrap_err().code(), "bad_request");
        }
    }

    #[test]
    fn the_workspace_secret_comes_from_the_header_or_the_cookie() {
        assert_eq!(workspace_secret(Some(" s1 ".into()), Some("gg_workspace=s2")).as_deref(), Some("s1"));
        assert_eq!(workspace_secret(None, Some("a=1; gg_workspace=s2; b=3")).as_deref(), Some("s2"));
        assert_eq!(workspace_secret(Some(String::new()), Some("gg_workspace=")), None);
        assert_eq!(workspace_secret(None, Some("xgg_workspace=s")), None);
        assert_eq!(workspace_secret(None, None), None);
    }

    #[test]
    fn transport_checks_come_first() {
        let ok = check_json_post("POST", Some("Application/JSON; charset=utf-8"), 10, MAX_ASK_BODY);
        assert!(ok.is_ok());
        assert_eq!(check_json_post("GET", None, 0, 10).unwrap_err().code(), "method_not_allowed");
        assert_eq!(check_json_post("POST", Some("text/plain"), 0, 10).unwrap_err().code(), "unsupported_media_type");
        assert_eq!(check_json_post("POST", None, 0, 10).unwrap_err().code(), "unsupported_media_type");
        assert_eq!(check_json_post("POST", Some("application/json"), 11, 10).unwrap_err().code(), "payload_too_large");
    }
}
