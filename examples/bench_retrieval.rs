//! The data side of `scripts/bench-retrieval`: retrieval recall of the gold
//! passage on a reference-heavy corpus, swept over passage size, heading
//! weight, k, the one hop off and on, and the split, natively over the in-memory corpus (the same ranking and the
//! same references as D1); then the local engine's answers with the hop off
//! and on: right, wrong, refused, answered when unanswerable. No model calls.
//!
//!   bench_retrieval CORPUS_DIR QUESTIONS_JSON   (SHOW_MISSES=1: misses at k 3 with the hop, wrong answers)
//!
//! A question's gold is a list of section numbers; a passage is gold when its
//! heading starts with one ("4.9.1 Main building script" for "4.9.1").

use std::path::Path;

use groundgate::config::Config;
use groundgate::corpus::chunk;
use groundgate::corpus::memory::MemoryCorpus;
use groundgate::ports::{Clock, Corpus};
use groundgate::api::response::Status;
use groundgate::stages::pipeline::Pipeline;
use groundgate::stages::Stages;
use serde::Deserialize;

#[derive(Deserialize)]
struct Question {
    id: String,
    split: String,
    kind: String,
    question: String,
    gold: Vec<String>,
    #[serde(rename = "mustContain")]
    must_contain: Vec<String>,
}

struct NoClock;

impl Clock for NoClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// Whether a retrieved heading belongs to one of the gold sections.
fn is_gold(section: &str, gold: &[String]) -> bool {
    gold.iter().any(|g| section == g || section.starts_with(&format!("{g} ")))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, corpus_dir, questions_file] = args.as_slice() else {
        eprintln!("usage: bench_retrieval CORPUS_DIR QUESTIONS_JSON");
        std::process::exit(2);
    };
    let questions: Vec<Question> = serde_json::from_str(&std::fs::read_to_string(questions_file).expect("questions")).expect("questions JSON");
    println!("{} questions\n", questions.len());
    println!("| split | chunk bytes | passages | heading weight | k | hop | single-hop recall | multi-hop recall | passages shown (mean) |");
    println!("|---|---:|---:|---:|---:|---|---:|---:|---:|");
    let mut rows: Vec<(&str, String)> = Vec::new();
    for chunk_bytes in CHUNK_BYTES {
        let corpus = MemoryCorpus::load_chunked(Path::new(corpus_dir), chunk_bytes).expect("corpus folder");
        let vocabulary = futures::executor::block_on(corpus.state()).expect("memory corpus").vocabulary;
        let passages = corpus.passages().count();
        for split in ["dev", "test"] {
            for (heading_weight, k, slots) in sweep() {
                let config = Config { hop_slots: slots, heading_weight, ..Config::default() };
                let pipeline = Pipeline::local(&corpus, &NoClock, &config);
                let (mut found, mut asked, mut shown) = ([0usize; 2], [0usize; 2], 0usize);
                for q in questions.iter().filter(|q| q.split == split && !q.gold.is_empty()) {
                    let kind = usize::from(q.kind == "hop");
                    let (retrieved, _) = futures::executor::block_on(pipeline.search(&q.question, &vocabulary, k)).expect("memory corpus");
                    let retrieved = retrieved.expect("no models");
                    asked[kind] += 1;
                    shown += retrieved.len();
                    if retrieved.iter().any(|r| is_gold(&r.section, &q.gold)) {
                        found[kind] += 1;
                    } else if std::env::var_os("SHOW_MISSES").is_some() && slots > 0 && k == 3 && heading_weight == 1.0 && chunk_bytes == chunk::MAX_PASSAGE_CHARS {
                        eprintln!("miss {} ({}): {:?}", q.id, q.kind, retrieved.iter().map(|r| (&r.section, &r.via)).collect::<Vec<_>>());
                    }
                }
                let rate = |i: usize| if asked[i] == 0 { "-".to_string() } else { format!("{:.2} ({}/{})", found[i] as f64 / asked[i] as f64, found[i], asked[i]) };
                let total = asked[0] + asked[1];
                let hop = if slots == 0 { "off" } else { "on" };
                let row = format!("| {split} | {chunk_bytes} | {passages} | {heading_weight} | {k} | {hop} | {} | {} | {:.1} |", rate(0), rate(1), shown as f64 / total.max(1) as f64);
                rows.push((split, row));
            }
        }
    }
    // Dev rows first: the settings are chosen there.
    for split in ["dev", "test"] {
        rows.iter().filter(|(s, _)| *s == split).for_each(|(_, row)| println!("{row}"));
    }
    answers(&MemoryCorpus::load(Path::new(corpus_dir)).expect("corpus folder"), &questions);
}

/// Passage sizes swept (bytes); the chunker never makes them larger than
/// its hard bound, which the spend cap rests on.
const CHUNK_BYTES: [usize; 3] = [400, 800, chunk::MAX_PASSAGE_CHARS];

/// The settings swept: heading weight × k (with the default, 4) × the hop off and on (its default slots).
fn sweep() -> Vec<(f64, usize, usize)> {
    let mut settings = Vec::new();
    for heading_weight in [1.0, 2.0] {
        for k in [3, 4, 5, 8] {
            for slots in [0, Config::default().hop_slots] {
                settings.push((heading_weight, k, slots));
            }
        }
    }
    settings
}

/// The local engine's answers at the default k, with the hop off and on.
fn answers(corpus: &MemoryCorpus, questions: &[Question]) {
    let state = futures::executor::block_on(corpus.state()).expect("memory corpus");
    println!("\nAnswers, local engine, TOP_K = {}:\n", Config::default().top_k);
    println!("| split | hop slots | rewrite | answerable right | wrong | false refusals | unanswerable answered |");
    println!("|---|---:|---|---:|---:|---:|---:|");
    for split in ["dev", "test"] {
        for (slots, query_rewrite) in [(0, false), (Config::default().hop_slots, false), (Config::default().hop_slots, true)] {
            let config = Config { hop_slots: slots, query_rewrite, ..Config::default() };
            let pipeline = Pipeline::local(corpus, &NoClock, &config);
            let (mut right, mut wrong, mut refused, mut answerable, mut fabricated, mut unanswerable) = (0, 0, 0, 0, 0, 0);
            for q in questions.iter().filter(|q| q.split == split) {
                let r = futures::executor::block_on(pipeline.run(&q.id, &q.question, &state, Stages::new())).expect("memory corpus");
                let answered = r.status == Status::Answered;
                if q.gold.is_empty() {
                    unanswerable += 1;
                    fabricated += usize::from(answered);
                    if answered && std::env::var_os("SHOW_MISSES").is_some() {
                        eprintln!("answered unanswerable {} (hop {slots}, rewrite {query_rewrite}): {:?}", q.id, r.answer);
                    }
                    continue;
                }
                answerable += 1;
                let cites_gold = r.citations.iter().any(|c| r.retrieval.iter().any(|p| p.passage_id == c.passage_id && is_gold(&p.section, &q.gold)));
                let states = q.must_contain.iter().all(|m| r.answer.as_deref().unwrap_or_default().contains(m.as_str()));
                match (answered, cites_gold && states) {
                    (true, true) => right += 1,
                    (true, false) => {
                        wrong += 1;
                        if std::env::var_os("SHOW_MISSES").is_some() {
                            eprintln!("wrong {} (hop {slots}, rewrite {query_rewrite}): {:?}", q.id, r.answer);
                        }
                    }
                    (false, _) => refused += 1,
                }
            }
            let rewrite = if query_rewrite { "on" } else { "off" };
            println!("| {split} | {slots} | {rewrite} | {right}/{answerable} | {wrong} | {refused} | {fabricated}/{unanswerable} |");
        }
    }
}
