//! The answering stages, each a pure decision over typed input, and the
//! pipeline that runs them in order: screen → retrieve → evidence → generate →
//! decompose → entail → sanity → gate.
//!
//! [`Stages`] records the finished stages of one request, in order; each is
//! also handed to an observer the moment it finishes, which is how `POST /ask`
//! streams live (`Accept: text/event-stream`) without the stages knowing.

pub mod answer;
pub mod cite;
pub mod evidence;
pub mod gate;
pub mod judged;
pub mod lookup;
pub mod metering;
pub mod pipeline;
pub mod prompts;
pub mod question;
pub mod respond;
pub mod retrieve;
pub mod screen;
pub mod support;

use crate::api::response::{Stage, StageName, StageStatus};

/// The version of the rules that decide an answer (the gates and the checks
/// of facts here), apart from the tokenizer's ([`crate::text::RULES_VERSION`]):
/// part of the build id, so a change retires every cached answer and re-asks
/// the pinned ones, without re-indexing, or paying to embed again, one passage.
pub const ANSWERING_RULES: &str = "20";

#[derive(Default)]
pub struct Stages<'a> {
    done: Vec<Stage>,
    observer: Option<&'a dyn Fn(&Stage)>,
}

impl<'a> Stages<'a> {
    /// Stages recorded for the response only.
    pub fn new() -> Self {
        Stages::default()
    }

    /// Stages also reported to `observer` as each finishes.
    pub fn observed(observer: &'a dyn Fn(&Stage)) -> Self {
        Stages { done: Vec::new(), observer: Some(observer) }
    }

    /// Records a stage that ran from `started_ms` to `now_ms` (milliseconds of one clock).
    pub fn finish(&mut self, name: StageName, status: StageStatus, started_ms: f64, now_ms: f64, detail: String) {
        let stage = Stage::timed(name, status, started_ms, now_ms, detail);
        if let Some(observer) = self.observer {
            observer(&stage);
        }
        self.done.push(stage);
    }

    pub fn as_slice(&self) -> &[Stage] {
        &self.done
    }

    pub fn into_vec(self) -> Vec<Stage> {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[test]
    fn the_observer_sees_each_stage_as_it_finishes_in_order() {
        let seen = RefCell::new(Vec::new());
        let observer = |s: &Stage| seen.borrow_mut().push(s.name);
        let mut stages = Stages::observed(&observer);
        stages.finish(StageName::Validate, StageStatus::Passed, 10.0, 12.4, String::new());
        assert_eq!(*seen.borrow(), [StageName::Validate], "reported before the next stage starts");
        stages.finish(StageName::Turnstile, StageStatus::Skipped, 12.0, 11.0, String::new());
        assert_eq!(*seen.borrow(), [StageName::Validate, StageName::Turnstile]);
        let done = stages.into_vec();
        assert_eq!(done.iter().map(|s| s.ms).collect::<Vec<_>>(), [2, 0], "rounded, never negative");
    }
}
