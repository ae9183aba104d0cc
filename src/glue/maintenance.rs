//! The cron: runs [`crate::maintenance`]'s steps over the bindings, each on
//! its own, and logs the ones that failed.

use worker::{console_error, event, Env};

use super::ledger::D1Ledger;
use super::ports::WorkerPorts;
use super::{audit, cache, config, d1, ingest, new_request_id, rate_limit, review, webhooks, workspaces};
use crate::api::error::ApiError;
use crate::config::Config;
use crate::flow::{AskInput, Flow};
use crate::guards::cache as answers;
use crate::maintenance::{self, Cutoffs, Step, Upkeep};
use crate::ports::{Corpus, Ports};

/// Pinned answers asked again per cron run after a deploy changes the build.
/// Each is a whole `/ask` (about 22 D1 queries on the Workers AI engine)
/// and a pin: two keep the step inside the Free plan's 50 per invocation;
/// at two every 30 minutes, 96 pins a day are renewed.
const REVALIDATE_PER_RUN: u32 = 2;

#[event(scheduled)]
async fn scheduled(_event: worker::ScheduledEvent, env: Env, _ctx: worker::ScheduleContext) {
    let config = match config(&env) {
        Ok(config) => config,
        Err(e) => return console_error!("scheduled maintenance cannot start: {e}"),
    };
    let cutoffs = Cutoffs::at(super::now_ms(), &config);
    let upkeep = WorkerUpkeep { env: &env, config: &config };
    for (step, e) in maintenance::run(&upkeep, &cutoffs).await {
        console_error!("scheduled maintenance: {step:?} failed: {e}");
    }
}

struct WorkerUpkeep<'a> {
    env: &'a Env,
    config: &'a Config,
}

impl Upkeep for WorkerUpkeep<'_> {
    async fn step(&self, step: Step, at: &Cutoffs) -> Result<(), ApiError> {
        let env = self.env;
        let db = || d1::database(env);
        let audit = || Ok::<_, ApiError>(audit::D1Audit { db: db()? });
        match step {
            Step::RateLimits => rate_limit::prune(&db()?, at.window_seconds, at.now).await,
            Step::AnswerCache => cache::prune(&db()?, at.now).await,
            Step::AuditSeal => {
                let audit = audit()?;
                audit.roll_up(at.roll_up_before, at.window_seconds).await?;
                audit.seal(audit::CRON_SEAL_ROUNDS).await
            }
            Step::Workspaces => workspaces::expire(env).await,
            Step::IngestStaging => ingest::prune(env).await,
            Step::ReviewQueue => review::prune(env, at.review_before).await,
            Step::AuditPrune => audit()?.prune(at.audit_before_ms).await,
            Step::Spend => {
                let ledger = D1Ledger { db: db()? };
                ledger.settle_stale(&at.reservations_before, at.now).await?;
                ledger.prune(&at.spend_before_day).await
            }
            Step::Revalidate => revalidate(env, self.config).await,
            Step::Webhooks => webhooks::retry(env, self.config, at.now).await,
        }
    }
}

/// Asks pinned questions again whose answers an older build made, pins the
/// new answers and drops the old rows. An answer that could not be pinned (a
/// failing model, say) leaves its old row for the next run: a pre-warmed
/// fallback is never dropped for nothing.
async fn revalidate(env: &Env, config: &Config) -> Result<(), ApiError> {
    let db = d1::database(env)?;
    let build = answers::build_id();
    let ports = WorkerPorts::new(
        env,
        config,
        worker::js_sys::Date::now() + f64::from(config.request_deadline_ms),
    )?;
    let flow = Flow {
        ports: &ports,
        config,
    };
    for stale in cache::stale_pins(&db, &build, REVALIDATE_PER_RUN).await? {
        let request_id = new_request_id();
        let body = serde_json::to_vec(&serde_json::json!({ "question": stale.question }))
            .unwrap_or_default();
        let input = AskInput {
            request_id: &request_id,
            body: Ok(&body),
            admin: true,
            client_ip: None,
            workspace_secret: None,
        };
        let finished = flow.ask(&input, &()).await;
        flow.after(finished.after).await;
        let version = ports.corpus().state().await?.version;
        let key = answers::key(&stale.question, &version, &build, config);
        let pinned = cache::pin(&db, &[(key.clone(), stale.question.clone())], &build).await?;
        if pinned > 0 && key != stale.key {
            cache::forget(&db, &stale.key).await?;
        }
    }
    Ok(())
}
