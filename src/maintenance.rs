//! The cron's upkeep, the part that is not IO: its steps, what each keeps
//! and drops (fixed once per run from the config and the clock), and the
//! rule that each step runs on its own, so one that fails (a workspace that
//! cannot be deleted, a D1 error) never skips the ones after it.

use crate::api::error::ApiError;
use crate::config::Config;
use crate::guards::{rate_limit, spend};

/// One step of the upkeep, in the order [`run`] takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Drops ended rate-limit windows.
    RateLimits,
    /// Drops expired, unpinned answer-cache rows.
    AnswerCache,
    /// Rolls refused requests of ended windows into audit rows, and seals.
    AuditSeal,
    /// Deletes expired workspaces with everything that holds their text.
    Workspaces,
    /// Drops paged ingests nobody committed.
    IngestStaging,
    /// Drops review items untouched past their retention.
    ReviewQueue,
    /// Prunes audit rows past their retention behind the checkpoint.
    AuditPrune,
    /// Settles reservations their request never settled, and drops ledger
    /// days past their retention.
    Spend,
    /// Asks pinned questions again that an older build answered.
    Revalidate,
    /// Tries escalations again that the webhook did not take, and drops
    /// deliveries past their keeping time.
    Webhooks,
}

/// Every step, in order.
pub const STEPS: [Step; 10] = [
    Step::RateLimits,
    Step::AnswerCache,
    Step::AuditSeal,
    Step::Workspaces,
    Step::IngestStaging,
    Step::ReviewQueue,
    Step::AuditPrune,
    Step::Spend,
    Step::Revalidate,
    Step::Webhooks,
];

/// A request settles in its `waitUntil` at most 30 s after its response,
/// which comes within the request deadline; a reservation still open twice
/// that long after is one its request will never settle.
const SETTLE_GRACE_MS: u64 = 60_000;

/// What each step keeps and drops in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cutoffs {
    /// Unix seconds.
    pub now: u64,
    /// The rate-limit window length (seconds): windows ended by `now` go.
    pub window_seconds: u64,
    /// Refused requests counted in windows before this start (unix seconds)
    /// are rolled up.
    pub roll_up_before: u64,
    /// Review items last touched before this (unix seconds) go.
    pub review_before: u64,
    /// Audit rows appended before this (unix ms) go.
    pub audit_before_ms: u64,
    /// Open reservations of requests whose id sorts before this (an id's
    /// first 12 hex digits are its issue time) are settled at their bound.
    pub reservations_before: String,
    /// Ledger rows of UTC days before this one go.
    pub spend_before_day: String,
}

impl Cutoffs {
    /// The cutoffs of a run that starts at `now_ms` (unix ms).
    pub fn at(now_ms: u64, config: &Config) -> Cutoffs {
        let now = now_ms / 1000;
        let days = |n: u32| u64::from(n) * 86_400;
        let window_seconds = config.rate_limit_window_seconds;
        let stale_ms =
            now_ms.saturating_sub(u64::from(config.request_deadline_ms) + SETTLE_GRACE_MS);
        Cutoffs {
            now,
            window_seconds,
            roll_up_before: rate_limit::window(now, window_seconds).start,
            review_before: now.saturating_sub(days(config.review_retention_days)),
            audit_before_ms: now_ms.saturating_sub(days(config.audit_retention_days) * 1000),
            reservations_before: format!("{:012x}", stale_ms & 0xffff_ffff_ffff),
            spend_before_day: spend::utc_day(now.saturating_sub(days(config.spend_retention_days))),
        }
    }
}

/// Runs one step against the bindings.
#[allow(async_fn_in_trait)] // Single-threaded wasm: no Send bound is wanted.
pub trait Upkeep {
    async fn step(&self, step: Step, cutoffs: &Cutoffs) -> Result<(), ApiError>;
}

/// Runs every step, each whatever the others did; the steps that failed,
/// with why.
pub async fn run(upkeep: &impl Upkeep, cutoffs: &Cutoffs) -> Vec<(Step, ApiError)> {
    let mut failed = Vec::new();
    for step in STEPS {
        if let Err(error) = upkeep.step(step, cutoffs).await {
            failed.push((step, error));
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::audit;
    use std::cell::RefCell;

    /// Records the steps it is asked to run and fails the ones it is told to.
    struct Recorder {
        failing: Vec<Step>,
        ran: RefCell<Vec<Step>>,
    }

    impl Upkeep for Recorder {
        async fn step(&self, step: Step, _: &Cutoffs) -> Result<(), ApiError> {
            self.ran.borrow_mut().push(step);
            match self.failing.contains(&step) {
                true => Err(ApiError::Dependency(format!("{step:?} failed"))),
                false => Ok(()),
            }
        }
    }

    #[test]
    fn a_failing_step_is_reported_and_every_later_step_still_runs() {
        let upkeep = Recorder {
            failing: vec![Step::AuditSeal, Step::Workspaces],
            ran: RefCell::default(),
        };
        let failed = futures::executor::block_on(run(&upkeep, &Cutoffs::at(0, &Config::default())));
        assert_eq!(*upkeep.ran.borrow(), STEPS.to_vec());
        assert_eq!(
            failed.iter().map(|(step, _)| *step).collect::<Vec<_>>(),
            [Step::AuditSeal, Step::Workspaces]
        );
    }

    #[test]
    fn cutoffs_follow_the_retention_settings() {
        let config = Config {
            spend_retention_days: 90,
            audit_retention_days: 30,
            review_retention_days: 7,
            ..Config::default()
        };
        let now_ms = 1_764_633_600_000 + 3_723_000; // 2025-12-02 01:02:03 UTC
        let cutoffs = Cutoffs::at(now_ms, &config);
        assert_eq!(cutoffs.spend_before_day, "2025-09-03");
        assert_eq!(cutoffs.audit_before_ms, now_ms - 30 * 86_400_000);
        assert_eq!(cutoffs.review_before, now_ms / 1000 - 7 * 86_400);
        assert_eq!(cutoffs.roll_up_before % config.rate_limit_window_seconds, 0);
        assert!(cutoffs.roll_up_before <= cutoffs.now);
    }

    #[test]
    fn only_reservations_of_requests_past_their_deadline_and_settling_time_are_stale() {
        let config = Config::default();
        let now_ms = 1_764_633_600_000;
        let cutoffs = Cutoffs::at(now_ms, &config);
        let issued = |ms: u64| audit::request_id(ms, &[0xff; 10]);
        let deadline = u64::from(config.request_deadline_ms);
        assert!(issued(now_ms - deadline - SETTLE_GRACE_MS - 1) < cutoffs.reservations_before);
        assert!(
            issued(now_ms - deadline - 30_000) > cutoffs.reservations_before,
            "may still settle in its waitUntil"
        );
        assert!(issued(now_ms) > cutoffs.reservations_before);
    }
}
