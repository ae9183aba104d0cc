//! The sequencer of one request, and nothing else: validate → Turnstile →
//! rate limit → cache → spend → the answering stages → settle, then, off the
//! critical path, the cache write and the audit record. Every guard, store and
//! model is a trait of [`crate::ports`]; the glue implements them over the
//! bindings, `fakes` in memory, so the order and the money invariants are
//! proven natively.
//!
//! Invariants this module keeps, and the property tests check:
//! - the guards run in order, and nothing paid runs before the reservation;
//! - every reservation is settled exactly once, on every path, for at most
//!   what was reserved (a charge over it is clamped and raised as an alarm);
//! - every request admitted past the rate limit leaves exactly one audit
//!   record; one refused before it is only counted, per window and code.

use sha2::{Digest, Sha256};

use crate::api::error::ApiError;
use crate::api::request::{AskRequest, SearchRequest};
use crate::api::response::{wire_name, AskResponse, EngineInfo, Retrieved, Stage, StageName, StageStatus};
use crate::config::{Config, Engine};
use crate::corpus::chunk::hex;
use crate::corpus::workspace::{self, Reach, Scope};
use crate::cost;
use crate::review::{self, Queued};
use crate::guards::audit::Record;
use crate::guards::cache;
use crate::guards::rate_limit::{self, Decision};
use crate::guards::spend;
use crate::escalation::Escalation;
use crate::ports::{
    Alarms, AnswerCache, AuditLog, Cached, Clock, Corpus, CorpusState, Notifier, Ports, RateLimiter, Reservation, Reserved, ReviewQueue,
    SpendLedger, Verifier,
};
use crate::stages::metering::Meter;
use crate::stages::pipeline::Pipeline;
use crate::stages::Stages;

/// The key client IPs are hashed with outside production when none is set, so
/// local development works without secrets. Production refuses to run without one.
const DEV_IP_HASH_KEY: &str = "groundgate-local-development-only";

/// One `/ask`, as the edge read it.
pub struct AskInput<'a> {
    pub request_id: &'a str,
    /// The body, once the edge checked its method, type and size (a failed
    /// check is the first validation error).
    pub body: Result<&'a [u8], ApiError>,
    /// The admin bearer token was presented: no Turnstile, no rate limit, no
    /// per-client share (the spend cap still applies).
    pub admin: bool,
    pub client_ip: Option<&'a str>,
    /// The workspace secret, when one was sent (header or cookie).
    pub workspace_secret: Option<&'a str>,
}

/// One `GET /search`, as the edge read it.
pub struct SearchInput<'a> {
    pub request_id: &'a str,
    pub query: Result<SearchRequest, ApiError>,
    pub admin: bool,
    /// The Turnstile token (a `CF-Turnstile-Response` header: a GET has no body).
    pub token: Option<&'a str>,
    pub client_ip: Option<&'a str>,
    pub workspace_secret: Option<&'a str>,
}

/// Who watches a request as it runs (the event stream; nobody, for JSON).
pub trait Progress {
    /// A stage finished.
    fn stage(&self, stage: &Stage);
    /// Every guard that can end the request with an error status has passed:
    /// a stream may start.
    fn admitted(&self, limits: Option<Decision>);
}

/// Nobody watches.
impl Progress for () {
    fn stage(&self, _: &Stage) {}
    fn admitted(&self, _: Option<Decision>) {}
}

/// An answer and the rate-limit state to send with it (none for the admin token).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    pub answer: AskResponse,
    pub limits: Option<Decision>,
}

/// A `GET /search` answer: ranked passages and what finding them cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub query: String,
    pub k: usize,
    pub results: Vec<Retrieved>,
    pub meter: Meter,
    pub engine: EngineInfo,
    pub corpus_version: String,
    pub limits: Option<Decision>,
}

/// How a request ended, and what is left to do once its answer is sent.
#[derive(Debug)]
pub struct Finished {
    pub result: Result<Answered, ApiError>,
    pub after: After,
}

/// The writes that leave the critical path: run by [`Flow::after`] once the
/// answer is on its way (inside the platform's `waitUntil`).
#[derive(Debug, Clone, PartialEq)]
pub struct After {
    /// An answer to store under its key.
    cache: Option<Cached>,
    /// A refusal for the review inbox.
    review: Option<Queued>,
    audit: Audit,
    now: u64,
}

#[derive(Debug, Clone, PartialEq)]
enum Audit {
    /// An admitted request's record.
    Record(Box<Record>),
    /// A request refused before admission, counted under its code.
    Rejected { window_start: u64, code: &'static str },
}

/// A reservation made, to be settled exactly once.
#[must_use = "a reservation must be settled"]
struct Ticket {
    request_id: String,
    amount: f64,
}

/// The request flow over one set of ports.
pub struct Flow<'a, P: Ports> {
    pub ports: &'a P,
    pub config: &'a Config,
}

/// What an admitted request came to, and what to write once it is sent.
struct Responded {
    answer: AskResponse,
    store: Option<Cached>,
    review: Option<Queued>,
}

/// What the guards established about an admitted request.
struct Admission<'a> {
    question: String,
    reach: Reach,
    workspace_secret: Option<&'a str>,
    client: Option<String>,
    limits: Option<Decision>,
}

impl<P: Ports> Flow<'_, P> {
    /// One `/ask`, end to end. Never panics; every outcome is in [`Finished`].
    pub async fn ask(&self, input: &AskInput<'_>, progress: &dyn Progress) -> Finished {
        let clock = self.ports.clock();
        let now_ms = clock.now_ms();
        let now = (now_ms / 1000.0) as u64;
        let observe = |stage: &Stage| progress.stage(stage);
        let mut stages = Stages::observed(&observe);
        let admission = match self.admit(input, &mut stages, now).await {
            Ok(admission) => admission,
            Err(e) => {
                let window_start = rate_limit::window(now, self.config.rate_limit_window_seconds).start;
                let after = After { cache: None, review: None, audit: Audit::Rejected { window_start, code: e.code() }, now };
                return Finished { result: Err(e), after };
            }
        };
        let question_hash = hex(&Sha256::digest(cache::normalize_question(&admission.question).as_bytes()));
        let record = Record::admitted(input.request_id, now_ms as u64, admission.client.clone(), Some(question_hash));
        let (result, cache, review) = match self.respond(input.request_id, &admission, stages, progress, now).await {
            Ok(Responded { answer, store, review }) => (Ok(Answered { answer, limits: admission.limits }), store, review),
            Err(e) => (Err(e), None, None),
        };
        let record = match &result {
            Ok(answered) => record.answered(&answered.answer),
            Err(e) => record.failed(e.code()),
        };
        Finished { result, after: After { cache, review, audit: Audit::Record(Box::new(record)), now } }
    }

    /// The cache write, the review inbox and the audit record, after the
    /// answer is sent, then the escalations the request raised. A failure
    /// here is raised as an alarm; the answer already stands.
    pub async fn after(&self, after: After) {
        if let Some(entry) = &after.cache {
            self.ports.cache().put(entry, after.now).await;
        }
        if let Some(item) = &after.review {
            match self.ports.review().enqueue(item, after.now).await {
                Ok(queued) => review::escalation(item, queued).into_iter().for_each(|e| self.ports.notifier().notify(e)),
                Err(e) => self.ports.alarms().alarm(&format!("review inbox write failed: {e}")),
            }
        }
        let written = match &after.audit {
            Audit::Record(record) => self.ports.audit().append(record).await,
            Audit::Rejected { window_start, code } => self.ports.audit().reject(*window_start, code).await,
        };
        if let Err(e) = written {
            self.ports.alarms().alarm(&format!("audit write failed: {e}"));
        }
        self.ports.notifier().send(after.now).await;
    }

    /// Validate, Turnstile, rate limit: the guards that answer with an error status.
    async fn admit<'i>(&self, input: &AskInput<'i>, stages: &mut Stages<'_>, now: u64) -> Result<Admission<'i>, ApiError> {
        let clock = self.ports.clock();
        let started = clock.now_ms();
        let request = AskRequest::parse(input.body.clone()?)?;
        let detail = format!("question of {} characters", request.question.chars().count());
        stages.finish(StageName::Validate, StageStatus::Passed, started, clock.now_ms(), detail);

        let started = clock.now_ms();
        let (status, detail) = self.verify(input.admin, request.token.as_deref(), input.client_ip).await?;
        stages.finish(StageName::Turnstile, status, started, clock.now_ms(), detail);

        let started = clock.now_ms();
        let client = self.client_key(input.client_ip)?;
        let limits = self.count(input.admin, &client, now).await?;
        let (status, detail) = match limits {
            None => (StageStatus::Skipped, "admin token: not limited".to_string()),
            Some(d) => (StageStatus::Passed, format!("{} of {} left in this window", d.remaining, d.limit)),
        };
        stages.finish(StageName::RateLimit, status, started, clock.now_ms(), detail);
        Ok(Admission {
            question: request.question,
            reach: request.reach,
            workspace_secret: input.workspace_secret,
            client: (!input.admin).then_some(client),
            limits,
        })
    }

    /// Turnstile: skipped for the admin token and, outside production, when no
    /// secret is configured (said plainly); otherwise siteverify must say yes.
    /// `/ask` and `/search` run it; workspace creation and uploads call it.
    pub async fn verify(&self, admin: bool, token: Option<&str>, client_ip: Option<&str>) -> Result<(StageStatus, String), ApiError> {
        if admin {
            return Ok((StageStatus::Skipped, "admin token: not verified".into()));
        }
        let Some(verifier) = self.ports.verifier() else {
            if self.config.production {
                return Err(ApiError::Misconfigured("the TURNSTILE_SECRET secret is not set; /ask does not run without it in production".into()));
            }
            return Ok((StageStatus::Skipped, "no TURNSTILE_SECRET configured (local development): not verified".into()));
        };
        let token = token.filter(|t| !t.is_empty()).ok_or_else(|| ApiError::TurnstileFailed(vec!["missing-input-response".into()]))?;
        verifier.verify(token, client_ip).await?;
        Ok((StageStatus::Passed, "siteverify: success".into()))
    }

    /// HMAC(IP_HASH_KEY, client network): the only form in which a client is stored.
    pub fn client_key(&self, client_ip: Option<&str>) -> Result<String, ApiError> {
        let key = match self.ports.ip_hash_key() {
            Some(key) => key,
            None if self.config.production => return Err(ApiError::Misconfigured("the IP_HASH_KEY secret is not set".into())),
            None => DEV_IP_HASH_KEY,
        };
        // Without CF-Connecting-IP (only outside Cloudflare's edge) all such clients share one bucket.
        Ok(rate_limit::client_key(key.as_bytes(), client_ip.unwrap_or("unknown")))
    }

    /// Counts the request against its client's window; over the limit is a 429.
    async fn count(&self, admin: bool, client: &str, now: u64) -> Result<Option<Decision>, ApiError> {
        if admin {
            return Ok(None);
        }
        let window = rate_limit::window(now, self.config.rate_limit_window_seconds);
        let count = self.ports.limiter().count(client, window).await?;
        let decision = rate_limit::decide(count, self.config.rate_limit, window);
        if decision.allowed { Ok(Some(decision)) } else { Err(ApiError::RateLimited(decision)) }
    }

    /// What the request may see, its answer, and (with the review inbox on)
    /// the refusal to queue for an operator.
    async fn respond(
        &self,
        request_id: &str,
        admission: &Admission<'_>,
        stages: Stages<'_>,
        progress: &dyn Progress,
        now: u64,
    ) -> Result<Responded, ApiError> {
        let started = self.ports.clock().now_ms();
        let corpus = self.corpus_state(admission.reach, admission.workspace_secret, now).await?;
        let (answer, store) = self.answer(request_id, admission, &corpus, stages, started, progress, now).await?;
        let review = self.config.review_inbox.then(|| review::queued(&admission.question, &corpus.scope, &answer)).flatten();
        Ok(Responded { answer, store, review })
    }

    /// Cache, spend, the answering stages, settle: an admitted request's answer,
    /// and what to store under which key.
    #[allow(clippy::too_many_arguments)] // One private step of `respond`; the parts are all distinct.
    async fn answer(
        &self,
        request_id: &str,
        admission: &Admission<'_>,
        corpus: &CorpusState,
        mut stages: Stages<'_>,
        started: f64,
        progress: &dyn Progress,
        now: u64,
    ) -> Result<(AskResponse, Option<Cached>), ApiError> {
        let clock = self.ports.clock();
        let key = cache::key(&admission.question, &corpus.version, &cache::build_id(), self.config);
        if let Some((stored, tier)) = self.ports.cache().get(&key, now).await {
            let detail = format!("hit ({}): no model call, no spend", wire_name(tier));
            stages.finish(StageName::Cache, StageStatus::Passed, started, clock.now_ms(), detail);
            progress.admitted(admission.limits);
            // The hit's stored answering stages are reported with the answer.
            let run = stages.into_vec();
            let served = cache::serve(stored, request_id, &run, tier);
            for stage in served.stages.iter().skip(run.len()) {
                progress.stage(stage);
            }
            return Ok((served, None));
        }
        stages.finish(StageName::Cache, StageStatus::Passed, started, clock.now_ms(), "miss".into());

        let (answer, cacheable) = match self.config.engine {
            Engine::Local => {
                let started = clock.now_ms();
                let detail = "local engine: no paid calls, nothing reserved".to_string();
                stages.finish(StageName::Spend, StageStatus::Skipped, started, clock.now_ms(), detail);
                progress.admitted(admission.limits);
                (self.local(request_id, &admission.question, corpus, stages).await?, true)
            }
            Engine::WorkersAi => self.paid(request_id, admission, corpus, stages, progress, now).await?,
        };
        let workspace = corpus.scope.workspace().map(String::from);
        let store = (cacheable && cache::cacheable(answer.status, answer.reason)).then(|| Cached { key, workspace, answer: answer.clone() });
        Ok((answer, store))
    }

    async fn local(&self, request_id: &str, question: &str, corpus: &CorpusState, stages: Stages<'_>) -> Result<AskResponse, ApiError> {
        let pipeline = Pipeline { scope: corpus.scope.clone(), ..Pipeline::local(self.ports.corpus(), self.ports.clock(), self.config) };
        pipeline.run(request_id, question, corpus, stages).await
    }

    /// What the request may see: the shared corpus, widened to (or narrowed
    /// to) the workspace whose secret it sent. A secret that matches no live
    /// workspace is refused, never silently ignored.
    async fn corpus_state(&self, reach: Reach, secret: Option<&str>, now: u64) -> Result<CorpusState, ApiError> {
        let shared = self.ports.corpus().state().await?;
        let workspace = match secret {
            None => None,
            Some(secret) if !workspace::is_secret(secret) => return Err(ApiError::WorkspaceUnknown),
            Some(secret) => Some(self.ports.corpus().workspace(&workspace::secret_hash(secret), now).await?.ok_or(ApiError::WorkspaceUnknown)?),
        };
        let scope = Scope::resolve(reach, workspace.as_ref())?;
        // A workspace alone can be answered from before the first ingest.
        if !shared.committed && !matches!(scope, Scope::Only(_)) {
            return Err(ApiError::NotReady);
        }
        Ok(CorpusState { version: scope.version(&shared.version, workspace.as_ref()), scope, vocabulary: shared.vocabulary, committed: true })
    }

    /// The Workers AI engine behind the spend cap. Over the cap (or the
    /// client's share of it): the zero-cost local engine if configured (its
    /// answer is not cached under the paid engine's key), else 503
    /// `budget_exhausted`.
    async fn paid(
        &self,
        request_id: &str,
        admission: &Admission<'_>,
        corpus: &CorpusState,
        mut stages: Stages<'_>,
        progress: &dyn Progress,
        now: u64,
    ) -> Result<(AskResponse, bool), ApiError> {
        let clock = self.ports.clock();
        let started = clock.now_ms();
        let models = self.ports.models()?;
        let amount = cost::request_upper_bound(self.config);
        let cap = cost::daily_cap_neurons(self.config);
        let Some(ticket) = self.reserve(request_id, admission.client.as_deref(), amount, now).await? else {
            if !self.config.budget_fallback_local {
                return Err(ApiError::BudgetExhausted);
            }
            let detail = format!("the day's cap ({cap:.0} neurons) or this client's share of it is reached: answered by the zero-cost local engine");
            stages.finish(StageName::Spend, StageStatus::Skipped, started, clock.now_ms(), detail);
            progress.admitted(admission.limits);
            return Ok((self.local(request_id, &admission.question, corpus, stages).await?, false));
        };
        let detail = format!("reserved {amount:.0} neurons (${:.4}), the request's upper bound, under the day's cap of {cap:.0}", cost::usd(amount));
        stages.finish(StageName::Spend, StageStatus::Passed, started, clock.now_ms(), detail);
        progress.admitted(admission.limits);
        let pipeline = Pipeline { corpus: self.ports.corpus(), clock, config: self.config, models: Some(models), scope: corpus.scope.clone() };
        let answered = pipeline.run(request_id, &admission.question, corpus, stages).await;
        // A request that failed outright is charged its whole bound: what it used is unknown.
        self.settle(ticket, answered.as_ref().map_or(amount, |a| a.cost.neurons), now).await;
        Ok((answered?, true))
    }

    /// Paid work outside `/ask` (a search's embedding, an upload's) behind
    /// the same cap and client share: reserves `amount`, runs `work`, settles
    /// what it reports it spent, or the whole reservation when it fails.
    pub async fn pay_for<T>(
        &self,
        request_id: &str,
        client: Option<&str>,
        amount: f64,
        work: impl std::future::Future<Output = Result<(T, f64), ApiError>>,
    ) -> Result<T, ApiError> {
        let now = (self.ports.clock().now_ms() / 1000.0) as u64;
        let ticket = self.reserve(request_id, client, amount, now).await?.ok_or(ApiError::BudgetExhausted)?;
        let outcome = work.await;
        self.settle(ticket, outcome.as_ref().map_or(amount, |(_, spent)| *spent), now).await;
        outcome.map(|(value, _)| value)
    }

    /// Reserves `amount` for one request, before any paid call: `Ok(None)` when
    /// it would pass the day's cap or the client's share (admin requests have
    /// no share), which is a spend alarm. The ticket must be settled, once,
    /// whatever happens next.
    async fn reserve(&self, request_id: &str, client: Option<&str>, amount: f64, now: u64) -> Result<Option<Ticket>, ApiError> {
        let day = spend::utc_day(now);
        let cap = cost::daily_cap_neurons(self.config);
        let share = cap * self.config.daily_client_share;
        let reservation = Reservation { day: &day, request_id, client, amount, cap, client_cap: share };
        let alarm = match self.ports.ledger().reserve(&reservation).await? {
            Reserved::Yes => return Ok(Some(Ticket { request_id: request_id.to_string(), amount })),
            Reserved::OverCap => Escalation::CapReached { day, cap },
            Reserved::OverShare => Escalation::ShareExhausted { day, share, client: client.unwrap_or_default().to_string() },
        };
        self.ports.notifier().notify(alarm);
        Ok(None)
    }

    /// Charges `charged` (at most what the ticket reserved; more raises an
    /// alarm and is clamped) once; a failing ledger is asked once more, then
    /// left to the operator (`POST /admin/spend/release`).
    async fn settle(&self, ticket: Ticket, charged: f64, now: u64) {
        let Ticket { request_id, amount } = ticket;
        let alarms = self.ports.alarms();
        let charged = if charged > amount {
            alarms.alarm(&format!("{request_id} used {charged:.1} neurons, over its reservation of {amount:.1}: charged the reservation"));
            self.ports.notifier().notify(Escalation::SpendClamped { request_id: request_id.clone(), reserved: amount, used: charged });
            amount
        } else {
            charged
        };
        if self.ports.ledger().settle(&request_id, charged, now).await.is_ok() {
            return;
        }
        if let Err(e) = self.ports.ledger().settle(&request_id, charged, now).await {
            alarms.alarm(&format!("{request_id} settle failed twice; the reservation stays until released: {e}"));
        }
    }

    /// One `GET /search`: retrieval only, behind the same rate limit as `/ask`
    /// and, on the Workers AI engine, the same reserve → run → settle path.
    pub async fn search(&self, input: SearchInput<'_>) -> Result<Found, ApiError> {
        let request = input.query?;
        self.verify(input.admin, input.token, input.client_ip).await?;
        let now = (self.ports.clock().now_ms() / 1000.0) as u64;
        let client = self.client_key(input.client_ip)?;
        let limits = self.count(input.admin, &client, now).await?;
        let client = (!input.admin).then_some(client);
        let k = request.k.unwrap_or(self.config.top_k);
        let corpus = self.corpus_state(request.reach, input.workspace_secret, now).await?;
        let (found, meter, engine) = match self.config.engine {
            Engine::Local => {
                let pipeline = Pipeline { scope: corpus.scope.clone(), ..Pipeline::local(self.ports.corpus(), self.ports.clock(), self.config) };
                let (found, meter) = pipeline.search(&request.query, &corpus.vocabulary, k).await?;
                (found, meter, EngineInfo::LOCAL)
            }
            Engine::WorkersAi => {
                let models = self.ports.models()?;
                let pipeline = Pipeline {
                    corpus: self.ports.corpus(),
                    clock: self.ports.clock(),
                    config: self.config,
                    models: Some(models),
                    scope: corpus.scope.clone(),
                };
                let search = async {
                    let (found, meter) = pipeline.search(&request.query, &corpus.vocabulary, k).await?;
                    Ok(((found, meter), meter.neurons))
                };
                let (found, meter) = self.pay_for(input.request_id, client.as_deref(), cost::search_upper_bound(self.config), search).await?;
                (found, meter, EngineInfo::WORKERS_AI)
            }
        };
        let results = found.map_err(|e| ApiError::Dependency(format!("search model: {e}")))?;
        Ok(Found { query: request.query, k, results, meter, engine, corpus_version: corpus.version, limits })
    }
}
