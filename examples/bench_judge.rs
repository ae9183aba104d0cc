//! `scripts/bench-judge --native`: the paired benchmark of `scripts/bench-judge`
//! run natively, for quick iteration on the rules (seconds, not minutes). The
//! Workers AI engine's pipeline runs over the in-memory BM25 corpus and a
//! scripted model that does what the workerd doubles (`tests/doubles`) do:
//! the same hashed bag-of-words embedding, the same index, the generator
//! answering with a case's `reference` (cited to its gold passages) or
//! `wrongReference` (cited to the passage it shares most words with), the
//! judge perfect (1.0 for a claim when a gold passage was retrieved, else 0)
//! or fooled (0.9 for every claim, "answers: yes"). The workerd run is the
//! reference; this one only makes the loop short.
//!
//!   scripts/bench-judge --native [--meaning] [--show dev|test|all]
//!   (--meaning: the embedding reads meaning as the perfect judge does: a
//!   question lies near its gold passages, and so does each of its words the
//!   corpus never uses; what is left refused is the deterministic checks')
//!   (bench_judge CORPUS_DIR CASES.json… [-- CORPUS_DIR CASES.json…]… [--show …]: each
//!   corpus with its cases, then all of them together)

use std::cell::Cell;
use std::path::Path;

use groundgate::api::response::{AskResponse, StageStatus, Status};
use groundgate::config::{Config, Engine};
use groundgate::corpus::memory::MemoryCorpus;
use groundgate::corpus::workspace::Scope;
use groundgate::models::{Embeddings, Message, ModelError, Models, Reply, Reported, Role};
use groundgate::ports::{Clock, Corpus};
use groundgate::stages::pipeline::Pipeline;
use groundgate::stages::Stages;
use serde::Deserialize;
use serde_json::{json, Value};

const DIMENSIONS: usize = 768;
const STOP: &str = "a an the of to in on at for with by from and or but if is are was were be been do does did can could would should will may might must i me my we our you your it its they them their this that these those there here what which who whom when where why how much many per not no";

#[derive(Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
struct Case {
    id: String,
    split: String,
    question: String,
    #[serde(default)]
    expected: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    passages: Vec<String>,
    #[serde(default)]
    gold: Vec<String>,
    #[serde(default)]
    reference: Option<String>,
    #[serde(default)]
    wrong_reference: Option<String>,
    #[serde(default)]
    wrong_kind: Option<String>,
}

impl Case {
    fn answerable(&self) -> bool {
        self.expected.as_deref() == Some("answered") || matches!(self.kind.as_deref(), Some("single" | "hop"))
    }
    fn unanswerable(&self) -> bool {
        self.expected.as_deref() == Some("refused") || self.kind.as_deref() == Some("unanswerable")
    }
}

/// The doubles' words: lowercase runs of [a-z0-9], stopwords out, a plural "s" cut.
fn words(text: &str) -> Vec<String> {
    let stop: Vec<&str> = STOP.split(' ').collect();
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty() && !stop.contains(w))
        .map(|w| if w.len() > 3 && w.ends_with('s') { w[..w.len() - 1].to_string() } else { w.to_string() })
        .collect()
}

/// The doubles' embedding: a hashed bag of words plus one shared component.
fn embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f64; DIMENSIONS];
    for w in words(text) {
        let mut h: u32 = 2166136261;
        for c in w.encode_utf16() {
            h = (h ^ u32::from(c)).wrapping_mul(16777619);
        }
        v[1 + (h as usize % (DIMENSIONS - 1))] += 1.0;
    }
    let bow = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let bow = if bow == 0.0 { 1.0 } else { bow };
    for x in v.iter_mut().skip(1) {
        *x /= bow;
    }
    v[0] = 0.9;
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| (x / norm) as f32).collect()
}

fn overlap(a: &str, b: &str) -> f64 {
    let wa: Vec<String> = dedup(words(a));
    let wb = words(b);
    if wa.is_empty() {
        return 0.0;
    }
    wa.iter().filter(|w| wb.contains(w)).count() as f64 / wa.len() as f64
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = Vec::new();
    v.retain(|w| if seen.contains(w) { false } else { seen.push(w.clone()); true });
    v
}

/// The doubles' sentence split: after . ! ? and whitespace, before a capital or digit,
/// not after "e.g." or "i.e.", which a judge reads as part of their sentence.
fn sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while i < chars.len() {
        current.push(chars[i]);
        if matches!(chars[i], '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let abbreviated = current.ends_with("e.g.") || current.ends_with("i.e.");
            if j > i + 1 && j < chars.len() && (chars[j].is_ascii_uppercase() || chars[j].is_ascii_digit()) && !abbreviated {
                out.push(current.trim().to_string());
                current.clear();
                i = j;
                continue;
            }
        }
        i += 1;
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// The fenced passages of a prompt: (id, section, text).
fn fenced(prompt: &str) -> Vec<(String, String, String)> {
    prompt
        .split("<passage id=\"")
        .skip(1)
        .filter_map(|part| {
            let (id, rest) = part.split_once('"')?;
            let section = rest.split_once("section=\"")?.1.split_once('"')?.0;
            let text = rest.split_once(">\n")?.1.split("\n</passage>").next()?;
            Some((id.to_string(), section.to_string(), text.to_string()))
        })
        .collect()
}

fn best(text: &str, passages: &[(String, String, String)]) -> Option<String> {
    let mut top: (Option<&String>, f64) = (None, 0.0);
    for (id, _, body) in passages {
        let score = overlap(text, body);
        if score > top.1 {
            top = (Some(id), score);
        }
    }
    top.0.cloned()
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// The reference, a perfect judge.
    Right,
    /// The wrong reference, a fooled judge.
    Wrong,
}

struct BenchModels {
    index: Vec<(String, Vec<f32>)>,
    /// Each passage's heading, to find a case's gold sections.
    sections: Vec<(String, String)>,
    /// `--meaning`: the embedding model reads meaning as well as the
    /// perfect judge does (see [`BenchModels::meaning`]).
    meaning: bool,
    case: std::cell::RefCell<Option<Case>>,
    mode: Cell<Mode>,
}

impl BenchModels {
    /// With `--meaning`, what a text means: a case's question means what its
    /// gold passages say, and so does each word of it the model is asked
    /// about (a word of the question the corpus never uses). An
    /// unanswerable case has no gold passage, so nothing it asks lies near
    /// anything by meaning: its words keep the hashed embedding.
    fn meaning(&self, text: &str) -> Option<Vec<f32>> {
        let case = self.case.borrow();
        let c = case.as_ref().filter(|_| self.meaning)?;
        let asked = text == c.question || (!text.contains(' ') && words(&c.question).iter().any(|w| words(text).contains(w)));
        let gold: Vec<&Vec<f32>> = self
            .index
            .iter()
            .zip(&self.sections)
            .filter(|((id, _), (_, section))| c.passages.contains(id) || c.gold.iter().any(|g| section == g || section.starts_with(&format!("{g} "))))
            .map(|((_, v), _)| v)
            .collect();
        if !asked || gold.is_empty() {
            return None;
        }
        let mut v = vec![0f64; DIMENSIONS];
        for g in &gold {
            for (x, y) in v.iter_mut().zip(g.iter()) {
                *x += f64::from(*y);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        Some(v.iter().map(|x| (x / norm) as f32).collect())
    }

    fn gold(&self, prompt: &str) -> Vec<String> {
        let case = self.case.borrow();
        let Some(c) = case.as_ref() else { return Vec::new() };
        fenced(prompt)
            .into_iter()
            .filter(|(id, section, _)| c.passages.contains(id) || c.gold.iter().any(|g| section == g || section.starts_with(&format!("{g} "))))
            .map(|(id, _, _)| id)
            .collect()
    }

    fn generate(&self, prompt: &str) -> Value {
        let case = self.case.borrow().clone().expect("a case");
        let answer = match self.mode.get() {
            Mode::Right => case.reference.clone(),
            Mode::Wrong => case.wrong_reference.clone(),
        }
        .unwrap_or_default();
        let stated = if self.mode.get() == Mode::Right { self.gold(prompt) } else { Vec::new() };
        let citations = if stated.is_empty() { best(&answer, &fenced(prompt)).into_iter().collect() } else { stated };
        json!({ "answer": answer, "citations": citations })
    }

    fn judge(&self, prompt: &str) -> Value {
        let passages = fenced(prompt);
        let answer = groundgate::fakes::judged_answer(prompt);
        let said = sentences(answer.trim());
        let stated = self.gold(prompt);
        let fooled = self.mode.get() == Mode::Wrong;
        let claims: Vec<Value> = said
            .iter()
            .map(|text| {
                if fooled {
                    json!({ "claim": text, "score": 0.9, "passages": best(text, &passages).into_iter().collect::<Vec<_>>() })
                } else {
                    json!({ "claim": text, "score": if stated.is_empty() { 0.0 } else { 1.0 }, "passages": stated })
                }
            })
            .collect();
        let supported = claims.iter().filter(|c| c["score"].as_f64().unwrap_or(0.0) >= 0.5).count();
        let answers = if fooled || (supported > 0 && supported == claims.len()) {
            "yes"
        } else if supported > 0 {
            "partly"
        } else {
            "no"
        };
        let missing: Vec<&str> = if answers == "yes" { vec![] } else { vec!["what the passages do not state"] };
        json!({ "claims": claims, "answers": answers, "missing": missing })
    }

    fn rewrite(&self, prompt: &str) -> Value {
        let question = prompt.rsplit("Question: ").next().unwrap_or_default();
        let asked = words(question);
        let related: Vec<&str> = prompt
            .split("<heading>")
            .skip(1)
            .filter_map(|h| h.split("</heading>").next())
            .filter(|h| words(h).iter().any(|w| asked.contains(w)))
            .collect();
        json!({ "query": std::iter::once(question).chain(related).collect::<Vec<_>>().join(" ") })
    }
}

fn usage(prompt: &str, response: &str) -> Reported {
    Reported { input_tokens: Some(prompt.len().div_ceil(4) as u64), output_tokens: Some(response.len().div_ceil(4) as u64) }
}

impl Models for BenchModels {
    async fn embed(&self, texts: &[String]) -> Result<Embeddings, ModelError> {
        let tokens = texts.iter().map(|t| t.len().div_ceil(4) as u64).sum();
        Ok(Embeddings { vectors: texts.iter().map(|t| self.meaning(t).unwrap_or_else(|| embed(t))).collect(), usage: Reported { input_tokens: Some(tokens), output_tokens: Some(0) } })
    }

    async fn chat(&self, _: Role, messages: &[Message], _: &Value, _: u32) -> Result<Reply, ModelError> {
        let system = &messages[0].content;
        let user = &messages[1].content;
        let reply = if system.starts_with("You turn a question") {
            self.rewrite(user)
        } else if system.starts_with("You answer questions") {
            self.generate(user)
        } else {
            self.judge(user)
        };
        let text = reply.to_string();
        let prompt: String = messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
        Ok(Reply { usage: usage(&prompt, &text), text })
    }

    async fn nearest(&self, _: &Scope, vector: &[f32], k: usize) -> Result<Vec<(String, f64)>, ModelError> {
        let mut scored: Vec<(String, f64)> = self
            .index
            .iter()
            .map(|(id, v)| (id.clone(), v.iter().zip(vector).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum()))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
        Ok(scored)
    }

    async fn vectors(&self, _: &Scope, ids: &[String]) -> Result<Vec<(String, Vec<f32>)>, ModelError> {
        Ok(self.index.iter().filter(|(id, _)| ids.contains(id)).cloned().collect())
    }
}

struct FixedClock;

impl Clock for FixedClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
}

struct Row {
    case: Case,
    right: Option<AskResponse>,
    wrong: Option<AskResponse>,
}

/// Why a response refused, as `scripts/bench-judge.mjs` folds it.
fn why(body: &AskResponse) -> String {
    let stage = body.stages.iter().find(|s| matches!(s.status, StageStatus::Refused | StageStatus::Blocked));
    let caps = if body.reason.map(|r| format!("{r:?}")).as_deref() == Some("BelowThreshold") {
        body.stages.iter().find(|s| format!("{:?}", s.name) == "Sanity").map(|s| s.detail.clone())
    } else {
        None
    };
    let detail = caps.unwrap_or_else(|| stage.map(|s| s.detail.clone()).unwrap_or_default());
    let reason = body.reason.map(|r| format!("{r:?}")).unwrap_or_else(|| format!("{:?}", body.status));
    format!("{reason} @{}: {}", stage.map(|s| format!("{:?}", s.name)).unwrap_or_default(), detail).chars().take(1500).collect()
}

/// A reason with its quoted claims and numbers folded, so that like reasons count together.
fn fold(reason: &str) -> String {
    let mut out = String::new();
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
                out.push_str("\"…\"");
            }
            d if d.is_ascii_digit() => {
                while chars.peek().is_some_and(|n| n.is_ascii_digit() || *n == '.') {
                    chars.next();
                }
                out.push('N');
            }
            other => out.push(other),
        }
    }
    out.chars().take(180).collect()
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 { "—".into() } else { format!("{:.1}%", 100.0 * n as f64 / d as f64) }
}

/// Prints how many of `bodies` were refused for each reason, most first.
fn tally<'a>(title: &str, bodies: impl Iterator<Item = &'a AskResponse>) {
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for body in bodies.filter(|b| b.status != Status::Answered) {
        let folded = fold(&why(body));
        match reasons.iter_mut().find(|(r, _)| *r == folded) {
            Some((_, n)) => *n += 1,
            None => reasons.push((folded, 1)),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    if !reasons.is_empty() {
        println!("\n{title}:");
        for (reason, n) in &reasons {
            println!("  {n} × {reason}");
        }
    }
}

fn report(name: &str, rows: &[Row], show: &[String]) {
    println!("\n## {name}\n");
    println!("| split | right shown (perfect judge) | wrong caught (fooled judge) | pair | fabrications caught |");
    println!("|---|---:|---:|---:|---:|");
    for split in ["dev", "test"] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.case.split == split).collect();
        let ans: Vec<&&Row> = mine.iter().filter(|r| r.case.answerable()).collect();
        let shown = ans.iter().filter(|r| r.right.as_ref().is_some_and(|b| b.status == Status::Answered)).count();
        let with_wrong: Vec<&&&Row> = ans.iter().filter(|r| r.wrong.is_some()).collect();
        let caught = with_wrong.iter().filter(|r| r.wrong.as_ref().is_some_and(|b| b.status != Status::Answered)).count();
        let pairs: Vec<&&&Row> = ans.iter().filter(|r| r.right.is_some() && r.wrong.is_some()).collect();
        let paired = pairs
            .iter()
            .filter(|r| r.right.as_ref().is_some_and(|b| b.status == Status::Answered) && r.wrong.as_ref().is_some_and(|b| b.status != Status::Answered))
            .count();
        let un: Vec<&&Row> = mine.iter().filter(|r| r.case.unanswerable() && r.wrong.is_some()).collect();
        let un_caught = un.iter().filter(|r| r.wrong.as_ref().is_some_and(|b| b.status != Status::Answered)).count();
        println!(
            "| {split} | {shown}/{} ({}) | {caught}/{} ({}) | {paired}/{} ({}) | {un_caught}/{} ({}) |",
            ans.len(),
            pct(shown, ans.len()),
            with_wrong.len(),
            pct(caught, with_wrong.len()),
            pairs.len(),
            pct(paired, pairs.len()),
            un.len(),
            pct(un_caught, un.len())
        );
    }
    // The reasons right answers were refused, folded as scripts/bench-judge.mjs folds them,
    // and the reasons wrong answers were caught: both sides of every rule.
    let refused = rows.iter().filter(|r| r.case.answerable()).filter_map(|r| r.right.as_ref());
    tally("right answers refused, by reason", refused);
    tally("wrong answers caught, by reason", rows.iter().filter(|r| r.case.answerable()).filter_map(|r| r.wrong.as_ref()));
    for r in rows.iter().filter(|r| show.contains(&r.case.split)) {
        if let Some(body) = r.right.as_ref().filter(|b| b.status != Status::Answered && r.case.answerable()) {
            println!("  RIGHT REFUSED {} ({}): {}\n    {}\n    {}", r.case.id, r.case.split, r.case.question, r.case.reference.as_deref().unwrap_or(""), why(body));
            println!("    retrieved {}", body.retrieval.iter().map(|h| h.passage_id.as_str()).collect::<Vec<_>>().join(", "));
        }
        if let Some(body) = r.wrong.as_ref().filter(|b| b.status == Status::Answered) {
            let said = |name: &str| body.stages.iter().find(|s| format!("{:?}", s.name) == name).map(|s| s.detail.clone()).unwrap_or_default();
            println!(
                "  WRONG SHOWN {} ({}, {}): {}\n    {}\n    sanity: {}\n    gate: {}",
                r.case.id,
                r.case.split,
                r.case.wrong_kind.as_deref().unwrap_or("?"),
                r.case.question,
                body.answer.as_deref().unwrap_or(""),
                said("Sanity"),
                said("Gate")
            );
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut show = Vec::new();
    let meaning = args.iter().any(|a| a == "--meaning");
    args.retain(|a| a != "--meaning");
    if let Some(at) = args.iter().position(|a| a == "--show") {
        let which = args.get(at + 1).cloned().unwrap_or_default();
        show = match which.as_str() {
            "all" => vec!["dev".to_string(), "test".to_string()],
            other => vec![other.to_string()],
        };
        args.drain(at..(at + 2).min(args.len()));
    }
    let groups: Vec<&[String]> = args.split(|a| a == "--").filter(|g| !g.is_empty()).collect();
    let mut all = Vec::new();
    for group in &groups {
        let (dir, files) = group.split_first().expect("usage: bench_judge CORPUS_DIR CASES.json… [-- CORPUS_DIR CASES.json…]… [--show dev|test|all]");
        let rows = bench(dir, files, meaning);
        report(dir, &rows, &show);
        all.extend(rows);
    }
    if groups.len() > 1 {
        report("All corpora", &all, &[]);
    }
}

/// Every paired case of one corpus, right and wrong.
fn bench(dir: &str, files: &[String], meaning: bool) -> Vec<Row> {
    let corpus = MemoryCorpus::load(Path::new(dir)).expect("the corpus folder is readable");
    // BENCH_PASSAGES=id,id prints those passages as the pipeline reads them (for reading a refusal).
    let wanted = std::env::var("BENCH_PASSAGES").unwrap_or_default();
    for p in corpus.passages().filter(|p| wanted.split(',').any(|w| w == p.id)) {
        println!("=== {} ({})\n{}\n", p.id, p.section, p.text);
    }
    let index: Vec<(String, Vec<f32>)> = corpus.passages().map(|p| (p.id.clone(), embed(&format!("{}\n{}", p.section, p.text)))).collect();
    let cases: Vec<Case> = files
        .iter()
        .flat_map(|f| serde_json::from_str::<Vec<Case>>(&std::fs::read_to_string(f).expect("cases readable")).expect("cases parse"))
        .collect();
    let config = Config { engine: Engine::WorkersAi, daily_cap_usd: 1000.0, ..Config::default() };
    let sections = corpus.passages().map(|p| (p.id.clone(), p.section.clone())).collect();
    let models = BenchModels { index, sections, meaning, case: std::cell::RefCell::new(None), mode: Cell::new(Mode::Right) };
    let state = futures::executor::block_on(corpus.state()).expect("state");
    let pipeline = Pipeline { corpus: &corpus, clock: &FixedClock, config: &config, models: Some(&models), scope: Scope::Shared };
    let run = |mode: Mode, case: &Case| {
        *models.case.borrow_mut() = Some(case.clone());
        models.mode.set(mode);
        futures::executor::block_on(pipeline.run("bench", &case.question, &state, Stages::new())).expect("the memory corpus does not fail")
    };
    let mut rows = Vec::new();
    for case in cases {
        let right = (case.answerable() && case.reference.is_some()).then(|| run(Mode::Right, &case));
        let wrong = ((case.answerable() || case.unanswerable()) && case.wrong_reference.is_some()).then(|| run(Mode::Wrong, &case));
        if right.is_some() || wrong.is_some() {
            rows.push(Row { case, right, wrong });
        }
    }
    rows
}
