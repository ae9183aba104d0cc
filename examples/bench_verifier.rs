//! Benchmark of the deterministic support scorer on public data nobody here
//! wrote: HaluEval's QA set (question, knowledge, right answer, hallucinated
//! answer). For each row, the claim "question + answer" is scored against the
//! knowledge, once with the right answer and once with the hallucinated one; the
//! gate passes a claim at >= 0.70. Prints balanced accuracy, precision and recall
//! for catching the hallucinated answer, and the score histogram.
//!
//!   scripts/bench-verifier   (fetches the data, then runs this with its path)

use std::io::BufRead;

use groundgate::retrieve::Hit;
use groundgate::support;
use serde::Deserialize;

const THRESHOLD: f64 = 0.70;

#[derive(Deserialize)]
struct Row {
    knowledge: String,
    question: String,
    right_answer: String,
    hallucinated_answer: String,
}

fn score(row: &Row, answer: &str) -> f64 {
    let passage = Hit {
        id: "knowledge".into(),
        doc: "halueval".into(),
        section: String::new(),
        text: row.knowledge.clone(),
        score: 1.0,
        lexical_rank: Some(1),
        vector_rank: None,
    };
    support::check(&format!("{} {}", row.question, answer), &[passage]).score
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench_verifier dataset_halueval_qa.jsonl");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut right_passed, mut right_total, mut caught, mut hallucinated_total) = (0usize, 0usize, 0usize, 0usize);
    let mut histogram = [[0usize; 10]; 2];
    for line in std::io::BufReader::new(file).lines() {
        let Ok(line) = line else { continue };
        let Ok(row) = serde_json::from_str::<Row>(&line) else { continue };
        let right = score(&row, &row.right_answer);
        let wrong = score(&row, &row.hallucinated_answer);
        right_total += 1;
        hallucinated_total += 1;
        right_passed += usize::from(right >= THRESHOLD);
        caught += usize::from(wrong < THRESHOLD);
        histogram[0][((right * 10.0) as usize).min(9)] += 1;
        histogram[1][((wrong * 10.0) as usize).min(9)] += 1;
    }
    let false_alarms = right_total - right_passed;
    let recall = caught as f64 / hallucinated_total as f64;
    let specificity = right_passed as f64 / right_total as f64;
    let precision = caught as f64 / (caught + false_alarms).max(1) as f64;
    println!("HaluEval QA: {right_total} rows, claim = question + answer, scored against the knowledge, gate at {THRESHOLD:.2}\n");
    println!("balanced accuracy        {:.1}%", 50.0 * (recall + specificity));
    println!("hallucinations caught    {:.1}% (recall)", 100.0 * recall);
    println!("precision of a refusal   {:.1}%", 100.0 * precision);
    println!("right answers passed     {:.1}%\n", 100.0 * specificity);
    println!("score      right  hallucinated");
    for bucket in 0..10 {
        println!("{:.1}-{:.1}  {:>6}  {:>12}", bucket as f64 / 10.0, (bucket + 1) as f64 / 10.0, histogram[0][bucket], histogram[1][bucket]);
    }
}
