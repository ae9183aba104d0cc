//! The data side of `scripts/bench-qa`: a corpus and questions built from the
//! development half of HaluEval QA (rows 0..=4999; the held-out half is never
//! read), and a native run of the local engine over them.
//!
//!   bench_qa prepare DEV_JSONL OUT   writes OUT/corpus/*.md and OUT/questions.json
//!   bench_qa answer OUT              answers OUT/questions.json natively over
//!                                    OUT/corpus, one JSON line per question
//!
//! The corpus holds every distinct knowledge paragraph of the development half,
//! except those of the left-out questions: one `##` section per paragraph, 25
//! per file, run-on sentences (`century.First`) split as a cleaner would. The
//! questions are every 20th row whose paragraph is in the corpus ("in_corpus")
//! and every 20th row, offset, whose paragraph was left out ("left_out").

use std::cell::Cell;
use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::Path;

use groundgate::config::Config;
use groundgate::corpus::memory::MemoryCorpus;
use groundgate::api::error::ApiError;
use groundgate::corpus::workspace::{Scope, WorkspaceState};
use groundgate::ports::{Clock, Corpus, CorpusState};
use groundgate::ports::{Lookup, Query, StoredHit};
use groundgate::stages::pipeline::Pipeline;
use groundgate::stages::Stages;
use serde::{Deserialize, Serialize};

/// Rows 0..=4999 are the development half; nothing past them is read.
const DEV_ROWS: usize = 5000;
const SECTIONS_PER_FILE: usize = 25;
/// Every STRIDE-th row is asked: from IN_OFFSET with its paragraph kept, from
/// LEFT_OUT_OFFSET with its paragraph removed from the corpus.
const STRIDE: usize = 20;
const IN_OFFSET: usize = 3;
const LEFT_OUT_OFFSET: usize = 11;

#[derive(Deserialize)]
struct Row {
    knowledge: String,
    question: String,
    right_answer: String,
}

#[derive(Serialize, Deserialize)]
struct Question {
    id: String,
    row: usize,
    bucket: String,
    question: String,
    gold: String,
}

/// Inserts the space a run-on sentence lost: "century.First" -> "century. First".
fn split_run_ons(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    for (i, &c) in chars.iter().enumerate() {
        out.push(c);
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1);
        let ends_word = before.is_some_and(|b| b.is_lowercase() || b.is_ascii_digit() || matches!(b, ')' | '"' | '\''));
        if matches!(c, '.' | '?' | '!') && ends_word && after.is_some_and(|a| a.is_uppercase()) {
            out.push(' ');
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn read_rows(path: &Path) -> Vec<Row> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(file)
        .lines()
        .take(DEV_ROWS)
        .map(|line| serde_json::from_str(&line.expect("readable line")).expect("a HaluEval QA row"))
        .collect()
}

fn prepare(data: &Path, out: &Path) {
    let rows = read_rows(data);
    let left_out: BTreeSet<String> =
        rows.iter().skip(LEFT_OUT_OFFSET).step_by(STRIDE).map(|r| split_run_ons(&r.knowledge)).collect();
    let mut kept: Vec<(usize, String)> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        let knowledge = split_run_ons(&row.knowledge);
        if !left_out.contains(&knowledge) && seen.insert(knowledge.clone()) {
            kept.push((i, knowledge));
        }
    }
    let corpus = out.join("corpus");
    let _ = std::fs::remove_dir_all(&corpus);
    std::fs::create_dir_all(&corpus).expect("output folder");
    for (part, chunk) in kept.chunks(SECTIONS_PER_FILE).enumerate() {
        let mut md = format!("# HaluEval knowledge, part {:03}\n", part + 1);
        for (row, knowledge) in chunk {
            md += &format!("\n## Entry {row}\n\n{knowledge}\n");
        }
        std::fs::write(corpus.join(format!("halueval-{:03}.md", part + 1)), md).expect("write corpus file");
    }
    let mut questions = Vec::new();
    for (bucket, offset) in [("in_corpus", IN_OFFSET), ("left_out", LEFT_OUT_OFFSET)] {
        for (i, row) in rows.iter().enumerate().skip(offset).step_by(STRIDE) {
            let kept_here = !left_out.contains(&split_run_ons(&row.knowledge));
            if kept_here != (bucket == "in_corpus") {
                continue; // a row sharing its paragraph with a left-out one
            }
            questions.push(Question {
                id: format!("{bucket}-{i}"),
                row: i,
                bucket: bucket.into(),
                question: row.question.trim().to_string(),
                gold: row.right_answer.trim().to_string(),
            });
        }
    }
    std::fs::write(out.join("questions.json"), serde_json::to_string_pretty(&questions).unwrap()).expect("write questions");
    eprintln!(
        "{} passages in {} files; {} questions ({} in corpus, {} left out)",
        kept.len(),
        kept.len().div_ceil(SECTIONS_PER_FILE),
        questions.len(),
        questions.iter().filter(|q| q.bucket == "in_corpus").count(),
        questions.iter().filter(|q| q.bucket == "left_out").count()
    );
}

struct WallClock(std::time::Instant);

impl Clock for WallClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}

/// The corpus with the time spent in it counted: the share of a request that
/// D1 does in the worker, where the isolate waits rather than computes.
struct Timed {
    inner: MemoryCorpus,
    spent_ms: Cell<f64>,
}

impl Timed {
    async fn time<T>(&self, call: impl std::future::Future<Output = T>) -> T {
        let started = std::time::Instant::now();
        let result = call.await;
        self.spent_ms.set(self.spent_ms.get() + started.elapsed().as_secs_f64() * 1000.0);
        result
    }
}

impl Corpus for Timed {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        self.time(self.inner.state()).await
    }
    async fn workspace(&self, secret_hash: &str, now: u64) -> Result<Option<WorkspaceState>, ApiError> {
        self.time(self.inner.workspace(secret_hash, now)).await
    }
    async fn lookup(&self, scope: &Scope, query: &Query<'_>) -> Result<Lookup, ApiError> {
        self.time(self.inner.lookup(scope, query)).await
    }
    async fn passages(&self, scope: &Scope, ids: &[String]) -> Result<Vec<StoredHit>, ApiError> {
        self.time(Corpus::passages(&self.inner, scope, ids)).await
    }
    async fn references(&self, scope: &Scope, from: &[String]) -> Result<Vec<(String, StoredHit)>, ApiError> {
        self.time(self.inner.references(scope, from)).await
    }
}

/// One JSON line per question: its response, its time (`ms`) and the part of
/// it spent in the corpus (`lookupMs`).
fn answer(out: &Path) {
    let corpus = Timed { inner: MemoryCorpus::load(&out.join("corpus")).expect("corpus folder"), spent_ms: Cell::new(0.0) };
    let questions: Vec<Question> =
        serde_json::from_str(&std::fs::read_to_string(out.join("questions.json")).expect("questions.json")).unwrap();
    // The defaults, or what the environment sets (QUERY_REWRITE=off, HOP_SLOTS=0, ...).
    let config = Config::from_vars(|name| std::env::var(name).ok()).expect("valid settings in the environment");
    let clock = WallClock(std::time::Instant::now());
    let pipeline = Pipeline::local(&corpus, &clock, &config);
    let state = futures::executor::block_on(corpus.state()).expect("memory corpus");
    let stdout = std::io::stdout();
    let mut lines = stdout.lock();
    for q in &questions {
        let started = clock.now_ms();
        corpus.spent_ms.set(0.0);
        let response = futures::executor::block_on(pipeline.run(&q.id, &q.question, &state, Stages::new())).expect("memory corpus");
        let record = serde_json::json!({ "id": q.id, "ms": clock.now_ms() - started, "lookupMs": corpus.spent_ms.get(), "body": response });
        writeln!(lines, "{record}").expect("stdout");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("prepare") if args.len() == 4 => prepare(Path::new(&args[2]), Path::new(&args[3])),
        Some("answer") if args.len() == 3 => answer(Path::new(&args[2])),
        _ => {
            eprintln!("usage: bench_qa prepare DEV_JSONL OUT | bench_qa answer OUT");
            std::process::exit(2);
        }
    }
}
