//! [`Ports`] over the worker's bindings: D1 for the corpus, the rate limit, the
//! ledger and the audit log; the Cache API in front of D1 for answers;
//! siteverify; Workers AI and Vectorize; the escalation webhook. One value
//! per request.

use worker::Env;

use super::ai;
use super::audit::D1Audit;
use super::cache::TwoTierCache;
use super::d1::{database, D1Corpus};
use super::ledger::D1Ledger;
use super::models::WorkersAi;
use super::rate_limit::D1Limiter;
use super::review::D1Review;
use super::turnstile::Turnstile;
use super::webhooks::Webhook;
use super::{secret, vectorize, JsClock};
use crate::api::error::ApiError;
use crate::config::Config;
use crate::ports::{Alarms, Ports};

/// The worker log, for what an operator must see.
pub struct Console;

impl Alarms for Console {
    fn alarm(&self, message: &str) {
        worker::console_error!("alarm: {message}");
    }
}

pub struct WorkerPorts<'a> {
    turnstile: Option<Turnstile<'a>>,
    limiter: D1Limiter,
    cache: TwoTierCache,
    ledger: D1Ledger,
    audit: D1Audit,
    corpus: D1Corpus,
    review: D1Review,
    models: Result<WorkersAi<'a>, ApiError>,
    clock: JsClock,
    webhook: Webhook,
    ip_hash_key: Option<String>,
}

impl<'a> WorkerPorts<'a> {
    /// The bindings of `env` under `config`; model calls must be done by
    /// `deadline_ms` (`Date.now()` ms). A missing D1 binding is a
    /// configuration error; missing AI bindings only fail a paid call.
    pub fn new(env: &Env, config: &'a Config, deadline_ms: f64) -> Result<WorkerPorts<'a>, ApiError> {
        let db = || database(env);
        Ok(WorkerPorts {
            turnstile: secret(env, "TURNSTILE_SECRET").map(|secret| Turnstile { config, secret }),
            limiter: D1Limiter { db: db()? },
            cache: TwoTierCache { db: db()?, ttl: config.cache_ttl_seconds },
            ledger: D1Ledger { db: db()? },
            audit: D1Audit { db: db()? },
            corpus: D1Corpus::new(env)?,
            review: D1Review { db: db()? },
            models: workers_ai(env, config, deadline_ms),
            clock: JsClock,
            webhook: Webhook::new(env, config),
            ip_hash_key: secret(env, "IP_HASH_KEY"),
        })
    }

    /// Escalations link to the operator page at the origin `req` came to.
    pub fn linked_from(mut self, req: &worker::Request) -> WorkerPorts<'a> {
        self.webhook = self.webhook.linked_from(req);
        self
    }
}

/// The Workers AI engine's bindings; missing ones are a configuration error.
pub fn workers_ai<'a>(env: &Env, config: &'a Config, deadline_ms: f64) -> Result<WorkersAi<'a>, ApiError> {
    Ok(WorkersAi {
        ai: ai::from_env(env).ok_or_else(|| ApiError::Misconfigured("the AI binding is missing".into()))?,
        index: vectorize::from_env(env).ok_or_else(|| ApiError::Misconfigured("the VECTORIZE binding is missing".into()))?,
        config,
        deadline_ms,
    })
}

impl<'a> Ports for WorkerPorts<'a> {
    type Verifier = Turnstile<'a>;
    type Limiter = D1Limiter;
    type Cache = TwoTierCache;
    type Ledger = D1Ledger;
    type Audit = D1Audit;
    type Corpus = D1Corpus;
    type Review = D1Review;
    type Models = WorkersAi<'a>;
    type Clock = JsClock;
    type Alarms = Console;
    type Notifier = Webhook;

    fn verifier(&self) -> Option<&Turnstile<'a>> {
        self.turnstile.as_ref()
    }
    fn limiter(&self) -> &D1Limiter {
        &self.limiter
    }
    fn cache(&self) -> &TwoTierCache {
        &self.cache
    }
    fn ledger(&self) -> &D1Ledger {
        &self.ledger
    }
    fn audit(&self) -> &D1Audit {
        &self.audit
    }
    fn corpus(&self) -> &D1Corpus {
        &self.corpus
    }
    fn review(&self) -> &D1Review {
        &self.review
    }
    fn models(&self) -> Result<&WorkersAi<'a>, ApiError> {
        self.models.as_ref().map_err(Clone::clone)
    }
    fn clock(&self) -> &JsClock {
        &self.clock
    }
    fn alarms(&self) -> &Console {
        &Console
    }
    fn notifier(&self) -> &Webhook {
        &self.webhook
    }
    fn ip_hash_key(&self) -> Option<&str> {
        self.ip_hash_key.as_deref()
    }
}
