//! [`Verifier`] over siteverify: bounded in time, one retry on
//! `internal-error` with the same idempotency key, fail closed on anything
//! unreadable.

use worker::{AbortController, Fetch, Headers, Method, Request, RequestInit};

use crate::api::error::ApiError;
use crate::config::Config;
use crate::guards::turnstile::{self, Outcome, Siteverify};
use crate::ports::Verifier;

/// Siteverify, with the configured secret.
pub struct Turnstile<'a> {
    pub config: &'a Config,
    pub secret: String,
}

impl Verifier for Turnstile<'_> {
    async fn verify(&self, token: &str, client_ip: Option<&str>) -> Result<(), ApiError> {
        verify(self.config, &self.secret, token, client_ip).await
    }
}

/// Verifies `token`; `Ok(())` only when siteverify says so.
async fn verify(config: &Config, secret: &str, token: &str, remote_ip: Option<&str>) -> Result<(), ApiError> {
    let idempotency_key = super::random_uuid();
    let body = turnstile::form_body(secret, token, remote_ip, &idempotency_key);
    let mut retried = false;
    loop {
        let answer = siteverify(config, &body).await?;
        match turnstile::judge(&answer, config.turnstile_action.as_deref(), config.turnstile_hostname.as_deref()) {
            Outcome::Passed => return Ok(()),
            Outcome::Retry if !retried => retried = true,
            Outcome::Retry => return Err(ApiError::TurnstileFailed(answer.error_codes)),
            Outcome::Failed(codes) => return Err(ApiError::TurnstileFailed(codes)),
        }
    }
}

async fn siteverify(config: &Config, body: &str) -> Result<Siteverify, ApiError> {
    let failed = |code: &str| ApiError::TurnstileFailed(vec![code.to_string()]);
    let headers = Headers::new();
    let _ = headers.set("content-type", "application/x-www-form-urlencoded");
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_headers(headers).with_body(Some(body.into()));
    let request = Request::new_with_init(&config.siteverify_url, &init).map_err(|_| failed("siteverify-url-invalid"))?;

    let controller = AbortController::default();
    let signal = controller.signal();
    let call = async move {
        let mut response = Fetch::Request(request).send_with_signal(&signal).await.ok()?;
        response.text().await.ok()
    };
    match super::within(config.turnstile_timeout_ms, call).await {
        Some(Some(text)) => serde_json::from_str(&text).map_err(|_| failed("siteverify-invalid-response")),
        Some(None) => Err(failed("siteverify-unreachable")),
        None => {
            controller.abort();
            Err(failed("siteverify-timeout"))
        }
    }
}
