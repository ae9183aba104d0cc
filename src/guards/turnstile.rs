//! Turnstile verification, the parts that are not IO: the siteverify request
//! body and the decision on its answer. The glue does the POST (bounded in time,
//! one retry on `internal-error` with the same idempotency key) and fails closed
//! on anything it cannot read.

use serde::Deserialize;

/// The siteverify answer (the fields this worker reads).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Siteverify {
    pub success: bool,
    #[serde(rename = "error-codes", default)]
    pub error_codes: Vec<String>,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub hostname: Option<String>,
}

/// What a siteverify answer means for the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// Siteverify had an internal error: ask once more with the same idempotency key.
    Retry,
    /// Refuse with these error codes.
    Failed(Vec<String>),
}

/// The form body of a siteverify POST.
pub fn form_body(secret: &str, token: &str, remote_ip: Option<&str>, idempotency_key: &str) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("secret", secret).append_pair("response", token);
    if let Some(ip) = remote_ip {
        form.append_pair("remoteip", ip);
    }
    form.append_pair("idempotency_key", idempotency_key);
    form.finish()
}

/// Judges an answer: `success`, then `action` and `hostname` where configured.
pub fn judge(answer: &Siteverify, expected_action: Option<&str>, expected_hostname: Option<&str>) -> Outcome {
    if !answer.success {
        if answer.error_codes.iter().any(|c| c == "internal-error") {
            return Outcome::Retry;
        }
        let codes = if answer.error_codes.is_empty() { vec!["unsuccessful".to_string()] } else { answer.error_codes.clone() };
        return Outcome::Failed(codes);
    }
    if let Some(action) = expected_action {
        if answer.action.as_deref() != Some(action) {
            return Outcome::Failed(vec!["action-mismatch".into()]);
        }
    }
    if let Some(hostname) = expected_hostname {
        if answer.hostname.as_deref() != Some(hostname) {
            return Outcome::Failed(vec!["hostname-mismatch".into()]);
        }
    }
    Outcome::Passed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(success: bool, codes: &[&str], action: Option<&str>, hostname: Option<&str>) -> Siteverify {
        Siteverify {
            success,
            error_codes: codes.iter().map(|c| c.to_string()).collect(),
            action: action.map(String::from),
            hostname: hostname.map(String::from),
        }
    }

    #[test]
    fn form_body_is_url_encoded() {
        let body = form_body("s&1", "tok en", Some("203.0.113.9"), "k-1");
        assert_eq!(body, "secret=s%261&response=tok+en&remoteip=203.0.113.9&idempotency_key=k-1");
        assert!(!form_body("s", "t", None, "k").contains("remoteip"));
    }

    /// Table: siteverify answer and expectations -> outcome.
    #[test]
    fn outcomes() {
        let cases = [
            (answer(true, &[], Some("ask"), Some("example.com")), None, None, Outcome::Passed),
            (answer(true, &[], Some("ask"), Some("example.com")), Some("ask"), Some("example.com"), Outcome::Passed),
            (answer(true, &[], Some("login"), None), Some("ask"), None, Outcome::Failed(vec!["action-mismatch".into()])),
            (answer(true, &[], None, Some("evil.test")), None, Some("example.com"), Outcome::Failed(vec!["hostname-mismatch".into()])),
            (answer(false, &["timeout-or-duplicate"], None, None), None, None, Outcome::Failed(vec!["timeout-or-duplicate".into()])),
            (answer(false, &["internal-error"], None, None), None, None, Outcome::Retry),
            (answer(false, &[], None, None), None, None, Outcome::Failed(vec!["unsuccessful".into()])),
        ];
        for (a, action, host, expected) in cases {
            assert_eq!(judge(&a, action, host), expected, "{a:?}");
        }
    }

    #[test]
    fn siteverify_json_parses_with_missing_fields() {
        let a: Siteverify = serde_json::from_str(r#"{"success":false,"error-codes":["invalid-input-secret"]}"#).unwrap();
        assert_eq!(a.error_codes, ["invalid-input-secret"]);
        assert!(serde_json::from_str::<Siteverify>("<html>").is_err());
    }
}
