//! Benchmark of the deterministic support scorer on public data nobody here
//! wrote: HaluEval's QA set (question, knowledge, right answer, hallucinated
//! answer), development half only (rows 0..=4999; the held-out half is never
//! read). Each row's right and hallucinated answers are scored against the
//! knowledge; a score at or above the scorer's threshold passes. Prints balanced
//! accuracy, recall, precision and the share of right answers kept for the
//! scorer and for two naive baselines, measured in the same run.
//!
//!   scripts/bench-verifier   (fetches the data, then runs this with its path)

use std::io::BufRead;

use groundgate::stages::retrieve::Hit;
use groundgate::stages::support;
use groundgate::text;
use serde::Deserialize;

/// Rows 0..=4999 are the development half; nothing past them is read.
const DEV_ROWS: usize = 5000;

#[derive(Deserialize)]
struct Row {
    knowledge: String,
    question: String,
    right_answer: String,
    hallucinated_answer: String,
}

/// A scorer: a name, its pass threshold, and the score of (row, answer).
struct Scorer {
    name: &'static str,
    threshold: f64,
    score: fn(&Row, &str) -> f64,
}

fn knowledge(row: &Row) -> Hit {
    Hit {
        id: "knowledge".into(),
        doc: "halueval".into(),
        section: String::new(),
        text: row.knowledge.clone(),
        score: 1.0,
        lexical_rank: Some(1),
        ..Hit::default()
    }
}

/// The pipeline's scorer: the answer as a claim, the question's terms as what
/// it may echo without support.
fn groundgate(row: &Row, answer: &str) -> f64 {
    support::check(answer, &text::distinct_terms(&row.question), &[knowledge(row)]).score
}

/// Share of `words` found among the knowledge's terms; 1.0 when there are none.
fn coverage(words: &[String], knowledge: &[String]) -> f64 {
    if words.is_empty() {
        return 1.0;
    }
    words.iter().filter(|w| knowledge.contains(w)).count() as f64 / words.len() as f64
}

/// Baseline 1: the share of the answer's content words that the knowledge contains.
fn answer_coverage(row: &Row, answer: &str) -> f64 {
    coverage(&text::distinct_terms(answer), &text::terms(&row.knowledge))
}

/// Baseline 2: the lower of baseline 1 and the same share over only the answer
/// words that do not echo the question.
fn novel_coverage(row: &Row, answer: &str) -> f64 {
    let knowledge = text::terms(&row.knowledge);
    let question = text::terms(&row.question);
    let words = text::distinct_terms(answer);
    let novel: Vec<String> = words.iter().filter(|w| !question.contains(w)).cloned().collect();
    coverage(&words, &knowledge).min(coverage(&novel, &knowledge))
}

#[derive(Default)]
struct Tally {
    rows: usize,
    right_passed: usize,
    caught: usize,
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench_verifier dev.jsonl");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scorers = [
        Scorer { name: "groundgate support scorer (the gate's mean threshold)", threshold: 0.70, score: groundgate },
        Scorer { name: "groundgate support scorer, stricter", threshold: 0.90, score: groundgate },
        Scorer { name: "groundgate support scorer, every word", threshold: 1.00, score: groundgate },
        Scorer { name: "baseline: answer words in the knowledge", threshold: 0.70, score: answer_coverage },
        Scorer { name: "baseline: same, and over words not echoing the question", threshold: 0.90, score: novel_coverage },
    ];
    let mut tallies: Vec<Tally> = scorers.iter().map(|_| Tally::default()).collect();
    for line in std::io::BufReader::new(file).lines().take(DEV_ROWS) {
        let row: Row = serde_json::from_str(&line.expect("readable line")).expect("a HaluEval QA row");
        for (scorer, tally) in scorers.iter().zip(&mut tallies) {
            tally.rows += 1;
            tally.right_passed += usize::from((scorer.score)(&row, &row.right_answer) >= scorer.threshold);
            tally.caught += usize::from((scorer.score)(&row, &row.hallucinated_answer) < scorer.threshold);
        }
    }
    println!("HaluEval QA, development half: {} rows; each right and hallucinated answer scored against the row's knowledge\n", tallies[0].rows);
    println!("| scorer | gate | balanced accuracy | hallucinations caught | precision of a refusal | right answers kept |");
    println!("|---|---|---|---|---|---|");
    for (scorer, t) in scorers.iter().zip(&tallies) {
        let recall = t.caught as f64 / t.rows as f64;
        let kept = t.right_passed as f64 / t.rows as f64;
        let false_alarms = t.rows - t.right_passed;
        let precision = t.caught as f64 / (t.caught + false_alarms).max(1) as f64;
        println!(
            "| {} | {:.2} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
            scorer.name,
            scorer.threshold,
            50.0 * (recall + kept),
            100.0 * recall,
            100.0 * precision,
            100.0 * kept
        );
    }
}
