//! The eval cases (`evals/cases.json`) through the pipeline over the sample
//! corpus, natively. Guards the headline metric: the fabrication rate (answered
//! when the corpus does not support the answer) must be 0%, and accuracy must
//! stay at or above the bar. `cargo test --test evals -- --nocapture` prints the
//! scorecard.

use std::path::Path;

use groundgate::config::Config;
use groundgate::memory::MemoryCorpus;
use groundgate::pipeline::{Clock, Pipeline};
use groundgate::response::Status;
use groundgate::stages::Stages;
use serde::Deserialize;

/// Accuracy bar. The local engine only quotes and refuses whatever it cannot
/// match term for term, so it trades false refusals for zero fabrications; the
/// bar sits just under what it measures today (see README, Eval scorecard) so a
/// regression fails while honest refusals stay allowed.
const MIN_ACCURACY: f64 = 0.70;

#[derive(Deserialize)]
struct Case {
    id: String,
    bucket: String,
    question: String,
    expected: String,
    #[serde(default)]
    passages: Vec<String>,
}

struct FixedClock;

impl Clock for FixedClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

#[derive(Default)]
struct Tally {
    cases: usize,
    correct: usize,
    answerable: usize,
    false_refusals: usize,
    fabrications: usize,
    answered_answerable: usize,
    citation_hits: usize,
}

impl Tally {
    fn rate(n: usize, d: usize) -> f64 {
        if d == 0 { 0.0 } else { n as f64 / d as f64 }
    }
}

#[test]
fn eval_cases_meet_the_bar_with_no_fabrication() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = MemoryCorpus::load(&root.join("corpus")).expect("corpus/ is readable");
    let cases: Vec<Case> = serde_json::from_str(&std::fs::read_to_string(root.join("evals/cases.json")).unwrap()).unwrap();
    assert!(cases.len() >= 60, "at least 60 cases");
    let config = Config::default();
    let pipeline = Pipeline::local(&corpus, &FixedClock, &config);

    let mut tally = Tally::default();
    let mut fabricated = Vec::new();
    let mut wrong = Vec::new();
    for case in &cases {
        let response = futures::executor::block_on(pipeline.run(&case.id, &case.question, "eval", Stages::new())).unwrap();
        let answered = response.status == Status::Answered;
        let cited_expected = response.citations.iter().any(|c| case.passages.contains(&c.passage_id));
        let correct = match case.expected.as_str() {
            "answered" => answered && cited_expected,
            "blocked" => response.status == Status::Blocked,
            _ => response.status == Status::Refused,
        };
        tally.cases += 1;
        tally.correct += usize::from(correct);
        if case.expected == "answered" {
            tally.answerable += 1;
            tally.false_refusals += usize::from(!answered);
            if answered {
                tally.answered_answerable += 1;
                tally.citation_hits += usize::from(cited_expected);
            }
        }
        if answered && !correct {
            tally.fabrications += 1;
            fabricated.push(format!("{} {:?} -> {:?}", case.id, case.question, response.answer));
        }
        if !correct {
            wrong.push(format!("{} [{}] {:?}", case.id, case.bucket, case.question));
        }
    }
    let accuracy = Tally::rate(tally.correct, tally.cases);
    println!("eval scorecard (local engine, {} cases)", tally.cases);
    println!("  accuracy            {:.1}%", accuracy * 100.0);
    println!("  fabrication rate    {:.1}%", Tally::rate(tally.fabrications, tally.cases) * 100.0);
    println!("  false refusal rate  {:.1}%", Tally::rate(tally.false_refusals, tally.answerable) * 100.0);
    println!("  citation hit rate   {:.1}%", Tally::rate(tally.citation_hits, tally.answered_answerable) * 100.0);
    println!("  not correct: {wrong:#?}");
    assert!(fabricated.is_empty(), "fabricated answers: {fabricated:#?}");
    assert!(accuracy >= MIN_ACCURACY, "accuracy {accuracy:.3} < {MIN_ACCURACY}");
}
