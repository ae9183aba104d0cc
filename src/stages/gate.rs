//! The groundedness gate: answer only when the claims are supported AND the
//! answer answers the question that was asked.

use crate::config::Config;
use crate::stages::question::Miss;

/// Why an answer was refused at the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateFailure {
    /// Mean or weakest claim score under its threshold (or no claims at all).
    BelowThreshold,
    /// The claims are supported but do not answer this question: the answer
    /// covers too little of the question's weight.
    Uncovered,
    /// The claims are supported but do not answer this question: another
    /// subject, no fact of the asked kind, or only a pointer elsewhere.
    OffQuestion(Miss),
}

/// The gate's numbers and decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub mean: f64,
    pub min: f64,
    /// Share of the question's weight the answer covers.
    pub coverage: f64,
    pub failure: Option<GateFailure>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// Decides from the claim scores, the answer's coverage of the question
/// (against `min_coverage`) and whether the answer answers it
/// ([`crate::stages::question::Ask::answers`]).
pub fn decide(scores: &[f64], coverage: f64, min_coverage: f64, answers: Result<(), Miss>, cfg: &Config) -> Verdict {
    let (mean, min) = if scores.is_empty() {
        (0.0, 0.0)
    } else {
        (scores.iter().sum::<f64>() / scores.len() as f64, scores.iter().copied().fold(f64::INFINITY, f64::min))
    };
    let failure = if scores.is_empty() || mean < cfg.gate_min_mean || min < cfg.gate_min_claim {
        Some(GateFailure::BelowThreshold)
    } else if let Err(miss) = answers {
        Some(GateFailure::OffQuestion(miss))
    } else {
        (coverage < min_coverage).then_some(GateFailure::Uncovered)
    };
    Verdict { mean, min, coverage, failure }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::question::Kind;

    fn check(scores: &[f64], coverage: f64) -> Option<GateFailure> {
        decide(scores, coverage, Config::default().answer_min_coverage, Ok(()), &Config::default()).failure
    }

    /// Table over the default thresholds (mean 0.70, weakest 0.40, coverage 0.75).
    #[test]
    fn gate_table() {
        use GateFailure::*;
        let cases: &[(&[f64], f64, Option<GateFailure>)] = &[
            (&[1.0], 1.0, None),
            (&[0.7], 0.75, None),
            (&[0.69], 1.0, Some(BelowThreshold)),
            (&[1.0, 0.39], 1.0, Some(BelowThreshold)),
            (&[1.0, 0.45], 1.0, None),
            (&[], 1.0, Some(BelowThreshold)),
            (&[1.0], 0.74, Some(Uncovered)),
        ];
        for (scores, coverage, expected) in cases {
            assert_eq!(check(scores, *coverage), *expected, "{scores:?} {coverage}");
        }
    }

    #[test]
    fn a_supported_answer_that_misses_the_question_is_off_question() {
        let verdict = decide(&[1.0], 1.0, 0.75, Err(Miss::Kind(Kind::Money)), &Config::default());
        assert_eq!(verdict.failure, Some(GateFailure::OffQuestion(Miss::Kind(Kind::Money))));
    }
}
