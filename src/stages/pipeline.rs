//! The answering stages in order: screen → retrieve → evidence gate → generate →
//! decompose → entail → sanity → gate. Each stage calls into its module; this
//! file sequences them, times them, meters the paid calls and shapes the one
//! response.
//!
//! Two engines share the sequence. The local engine quotes sentences and scores
//! them deterministically; the Workers AI engine (when `models` is set) adds
//! vector retrieval, a generator and a judge, and keeps the deterministic caps
//! and gates on top, so a fooled judge cannot pass a number the passages lack.
//!
//! The guards (Turnstile, rate limit, cache, spend cap) run before
//! [`Pipeline::run`] in the glue and hand their finished stages in.

use crate::api::error::ApiError;
use crate::api::response::{AskResponse, Groundedness, Reason, StageName, StageStatus};
use crate::config::Config;
use crate::corpus::vocabulary::Vocabulary;
use crate::corpus::workspace::Scope;
use crate::models::{ModelError, Models, NoModels, Role};
use crate::ports::{Clock, Corpus, CorpusState};
use crate::stages::answer;
use crate::stages::evidence::{self, Evidence, Focus};
use crate::stages::gate::{self, GateFailure};
use crate::stages::judged::{capped, judge_verdict, polar_check, premise_check, unchecked_sentences, Answered};
use crate::stages::lookup::{Retrieval, Unknown};
use crate::stages::metering::ChatFailure;
use crate::stages::prompts;
use crate::stages::question::Ask;
use crate::stages::respond::{retrieved, round, Ending, Findings};
use crate::stages::retrieve::Hit;
use crate::stages::screen::{self, Block, Screen};
use crate::stages::support::{self, ClaimCheck};
use crate::stages::Stages;
use crate::text;

/// One question through the answering stages.
pub struct Pipeline<'a, C, K, M> {
    pub corpus: &'a C,
    pub clock: &'a K,
    pub config: &'a Config,
    /// The paid models; `None` runs the local engine.
    pub models: Option<&'a M>,
    /// The passages this request may see.
    pub scope: Scope,
}

impl<'a, C: Corpus, K: Clock> Pipeline<'a, C, K, NoModels> {
    /// The local engine over the shared corpus: no paid call can happen.
    pub fn local(corpus: &'a C, clock: &'a K, config: &'a Config) -> Self {
        Pipeline { corpus, clock, config, models: None, scope: Scope::Shared }
    }
}

/// An answer and its checked claims, as one engine composed them.
struct Composed {
    answer: String,
    checks: Vec<ClaimCheck>,
    reading: Reading,
}

/// How an answer is read at the gate.
enum Reading {
    /// The local engine's verbatim quotes: one quoted sentence must itself answer.
    Quoted,
    /// A model's own words: read with the passages its claims cite, and with
    /// the judge's word on whether it answers.
    OwnWords { judge: prompts::Answers, missing: Vec<String>, elsewhere: Vec<String> },
}

impl<C: Corpus, K: Clock, M: Models> Pipeline<'_, C, K, M> {
    /// Runs the stages after the guards. `stages` holds the guards' finished stages.
    /// `Err` only for a failing store (D1); model failures are refusals.
    pub async fn run(&self, request_id: &str, question: &str, corpus: &CorpusState, stages: Stages<'_>) -> Result<AskResponse, ApiError> {
        let mut findings = Findings { stages, ..Findings::default() };
        let ending = self.stages(question, &corpus.vocabulary, &mut findings).await?;
        Ok(self.response(request_id, &corpus.version, findings, ending))
    }

    async fn stages(&self, question: &str, vocabulary: &Vocabulary, f: &mut Findings<'_>) -> Result<Ending, ApiError> {
        // screen: zero cost, before anything is looked up
        let started = self.clock.now_ms();
        if let Screen::Blocked(block, matched) = screen::check(question) {
            let (reason, what) = match block {
                Block::Injection => (Reason::Injection, "prompt injection"),
                Block::OffTopic => (Reason::OffTopic, "off topic"),
            };
            self.finish(&mut f.stages, StageName::Screen, StageStatus::Blocked, started, format!("{what}: matched \"{matched}\""));
            return Ok(Ending::Blocked(reason));
        }
        self.finish(&mut f.stages, StageName::Screen, StageStatus::Passed, started, "no injection or off-topic pattern".into());

        // retrieve
        let started = self.clock.now_ms();
        let ask = Ask::parse(question, vocabulary);
        let keyed = &ask.lookup_terms();
        let Retrieval { lookup, vector, hits, lexical_count, meant } = match self.retrieve(question, keyed, self.config.top_k, Unknown::ByMeaning, &mut f.meter).await? {
            Ok(retrieval) => retrieval,
            Err(e) => return Ok(self.model_failed(f, StageName::Retrieve, started, &e)),
        };
        f.retrieval = hits.iter().map(retrieved).collect();
        let searched = hits.iter().filter(|h| h.via.is_none() && !h.fills_gap()).count();
        let mut detail = match &vector {
            Some(v) => format!("{searched} passages: {lexical_count} by BM25, {} by vector, fused by reciprocal rank", v.len()),
            None => format!("{searched} passages by BM25 over {} question terms", keyed.len()),
        };
        let edges: Vec<String> = hits.iter().filter_map(|h| h.via.as_ref().map(|from| format!("{from} -> {}", h.id))).collect();
        if !edges.is_empty() {
            detail += &format!("; followed {} reference{}: {}", edges.len(), if edges.len() == 1 { "" } else { "s" }, edges.join(", "));
        }
        let gaps: Vec<&str> = hits.iter().filter(|h| h.fills_gap()).map(|h| h.id.as_str()).collect();
        if !gaps.is_empty() {
            detail += &format!("; filled {} gap{} between hits of a section: {}", gaps.len(), if gaps.len() == 1 { "" } else { "s" }, gaps.join(", "));
        }
        self.finish(&mut f.stages, StageName::Retrieve, StageStatus::Passed, started, detail);

        // evidence gate, with one rewrite when the passages cover too little
        let started = self.clock.now_ms();
        let focus = Focus::new(keyed, &lookup.doc_freqs, lookup.total_passages).spelled(&ask.variants).placed(&ask.places);
        let ask = ask.unnamed_abbreviations(&focus.unused());
        let focus = focus.framed(&ask.core_terms()).meant(&meant, &ask.name_terms());
        let mut hits = hits;
        let mut verdict = match self.weak_vectors(vector.as_deref(), lexical_count, &focus) {
            Some(why) => Evidence::Insufficient { coverage: 0.0, why, weak: false },
            None => evidence::judge(&focus, &ask.quantities, &hits, self.config.evidence_min_coverage),
        };
        let mut rewrite = String::new();
        if matches!(verdict, Evidence::Insufficient { weak: true, .. }) && self.config.query_rewrite {
            match self.rewrite(question, &ask, vocabulary, &focus, &hits, f).await? {
                Ok(Some((merged, note))) => {
                    verdict = evidence::judge(&focus, &ask.quantities, &merged, self.config.evidence_min_coverage);
                    hits = merged;
                    f.retrieval = hits.iter().map(retrieved).collect();
                    rewrite = format!("{note}; ");
                }
                Ok(None) => {}
                Err(e) => return Ok(self.model_failed(f, StageName::Evidence, started, &e)),
            }
        }
        match verdict {
            Evidence::Insufficient { why, .. } => {
                self.finish(&mut f.stages, StageName::Evidence, StageStatus::Refused, started, format!("{rewrite}{why}"));
                return Ok(Ending::Refused(Reason::NoEvidence));
            }
            Evidence::Sufficient { coverage } => {
                let detail = format!("{rewrite}the passages cover {:.0}% of the question", coverage * 100.0);
                self.finish(&mut f.stages, StageName::Evidence, StageStatus::Passed, started, detail);
            }
        }

        let composed = match self.models {
            None => self.quote(&ask, &focus, &hits, f),
            Some(models) => match self.generate_and_judge(models, question, &ask, &hits, f).await? {
                Ok(composed) => composed,
                Err(ending) => return Ok(ending),
            },
        };
        let answer_text = composed.answer;
        f.claims = composed.checks;

        // gate
        let started = self.clock.now_ms();
        let mut answer_terms = ask.covered_terms(&answer_text);
        // A quote must cover the question in the question's own words. A model's
        // answer is read with the passages its verified claims cite (the
        // question's names and a hop's premise may sit there); whether its
        // words cover the question is the judge's call (coverage is shown, not
        // required), and the deterministic checks read its facts.
        let (answers, min_coverage) = match &composed.reading {
            Reading::Quoted => (ask.answers(&focus, &answer_text), self.config.answer_min_coverage),
            Reading::OwnWords { judge, missing, elsewhere } => {
                let cited = self.verified_sources(&f.claims, &hits);
                answer_terms.extend(text::terms(&cited));
                let read = judge_verdict(*judge, missing).and_then(|()| self.answers_in_own_words(&ask, &focus, &Answered { text: &answer_text, checks: &f.claims, elsewhere }, &cited, &hits));
                (read, 0.0)
            }
        };
        let scores: Vec<f64> = f.claims.iter().map(|c| c.score).collect();
        let verdict = gate::decide(&scores, focus.coverage(&answer_terms), min_coverage, answers, self.config);
        f.groundedness = Some(Groundedness {
            mean: round(verdict.mean),
            min: round(verdict.min),
            threshold: self.config.gate_min_mean,
            min_claim: self.config.gate_min_claim,
            coverage: round(verdict.coverage),
            min_coverage,
            passed: verdict.passed(),
        });
        let gate_detail = format!(
            "mean {:.2} (>= {:.2}), min {:.2} (>= {:.2}), question coverage {:.2} (>= {:.2})",
            verdict.mean, self.config.gate_min_mean, verdict.min, self.config.gate_min_claim, verdict.coverage, min_coverage
        );
        let Some(failure) = verdict.failure else {
            self.finish(&mut f.stages, StageName::Gate, StageStatus::Passed, started, format!("{gate_detail}; answers the question"));
            return Ok(Ending::Answered(answer_text));
        };
        let (reason, detail) = match failure {
            GateFailure::OffQuestion(miss) => (Reason::OffQuestion, format!("{gate_detail}; {}", miss.describe())),
            GateFailure::Uncovered => (
                Reason::OffQuestion,
                format!("{gate_detail}; the answer does not address: {}", focus.missing(&answer_terms).join(", ")),
            ),
            GateFailure::BelowThreshold => (Reason::BelowThreshold, gate_detail),
        };
        self.finish(&mut f.stages, StageName::Gate, StageStatus::Refused, started, detail);
        Ok(Ending::Refused(reason))
    }

    /// Local engine: generate by quoting, one claim per sentence, lexical
    /// entailment, deterministic caps.
    fn quote(&self, ask: &Ask, focus: &Focus, hits: &[Hit], f: &mut Findings<'_>) -> Composed {
        let started = self.clock.now_ms();
        let quotes = answer::extract(ask, focus, hits, self.config.max_answer_sentences);
        let answer_text = answer::compose(&quotes);
        let from: Vec<&str> = quotes.iter().map(|q| q.passage_id.as_str()).collect();
        let detail = format!("extractive: quoted {} sentences from {}", quotes.len(), from.join(", "));
        self.finish(&mut f.stages, StageName::Generate, StageStatus::Passed, started, detail);

        let started = self.clock.now_ms();
        let claims: Vec<&str> = quotes.iter().map(|q| q.sentence.as_str()).collect();
        self.finish(&mut f.stages, StageName::Decompose, StageStatus::Passed, started, format!("{} claims (one per quoted sentence)", claims.len()));

        let started = self.clock.now_ms();
        let question_terms = focus_terms(ask);
        let checks: Vec<ClaimCheck> = claims.iter().map(|c| support::check(c, &question_terms, hits)).collect();
        self.report_scores(&checks, started, "lexical", f);
        Composed { answer: answer_text, checks, reading: Reading::Quoted }
    }

    /// Workers AI engine: the generator answers; the judge decomposes the
    /// answer into claims and scores them in one call; the deterministic caps
    /// cut what the judge let through, and every sentence of the answer the
    /// user sees is checked too (a sentence the judge left out of its claims is
    /// scored on its own). `Err` for a failing store; `Ok(Err(ending))` when a
    /// model ends the request.
    async fn generate_and_judge(
        &self,
        models: &M,
        question: &str,
        ask: &Ask,
        hits: &[Hit],
        f: &mut Findings<'_>,
    ) -> Result<Result<Composed, Ending>, ApiError> {
        let started = self.clock.now_ms();
        let model = self.config.chat_model(Role::Generator);
        let messages = prompts::answer_messages(question, hits);
        let shape = prompts::ANSWER_SHAPE;
        let generated = match self
            .chat_json(models, Role::Generator, messages, &prompts::answer_schema(), shape, |t| prompts::parse_answer(t, hits), f)
            .await
        {
            Ok(generated) => generated,
            Err(failure) => return Ok(Err(self.chat_failed(f, StageName::Generate, started, failure))),
        };
        let mut detail = format!("{model}: {} characters, cites {}", generated.answer.len(), generated.citations.join(", "));
        if !generated.hallucinated.is_empty() {
            detail += &format!("; hallucinated citations (not retrieved, not shown): {}", generated.hallucinated.join(", "));
        }
        if generated.answer.is_empty() {
            self.finish(&mut f.stages, StageName::Generate, StageStatus::Refused, started, format!("{detail}; the generator found no answer in the passages"));
            return Ok(Err(Ending::Refused(Reason::NoEvidence)));
        }
        self.finish(&mut f.stages, StageName::Generate, StageStatus::Passed, started, detail);

        let started = self.clock.now_ms();
        let judge = self.config.chat_model(Role::Judge);
        let messages = prompts::judge_messages(question, &generated.answer, hits);
        let shape = prompts::JUDGE_SHAPE;
        let judgement = match self
            .chat_json(models, Role::Judge, messages, &prompts::judge_schema(), shape, |t| prompts::parse_judgement(t, hits), f)
            .await
        {
            Ok(judgement) => judgement,
            Err(failure) => return Ok(Err(self.chat_failed(f, StageName::Decompose, started, failure))),
        };
        // An illustration shows a form with values of its own ("e.g. Jane Doe <jane@example.org>"):
        // the checks read what the answer states, and the answer is shown whole.
        let judged: &Vec<prompts::Judged> = &judgement.claims.iter().map(|j| prompts::Judged { claim: text::without_illustrations(&j.claim), ..j.clone() }).collect();
        let stated = text::without_illustrations(&generated.answer);
        let detail = format!("{judge}: {} claims, scored in the same call", judged.len());
        self.finish(&mut f.stages, StageName::Decompose, StageStatus::Passed, started, detail);

        let started = self.clock.now_ms();
        let question_terms = focus_terms(ask);
        let known = support::known_names(hits);
        let shown = text::quantities(&stated);
        let context = support::Context { known: &known, asked: &ask.quantities, shown: &shown, question: &ask.text, ..Default::default() };
        let mut checks: Vec<ClaimCheck> = judged.iter().map(|j| capped(j, &question_terms, &context, hits)).collect();
        let cited: Vec<Hit> = hits
            .iter()
            .filter(|h| generated.citations.contains(&h.id) || judged.iter().any(|j| j.passages.contains(&h.id)))
            .cloned()
            .collect();
        checks.extend(unchecked_sentences(&stated, judged, &question_terms, &cited, &context));
        checks.extend(polar_check(ask, &stated, &cited, &known));
        checks.extend(premise_check(ask, hits));
        let elsewhere = self.read_unseen_words(&stated, &mut checks, hits).await?;
        self.report_scores(&checks, started, judge, f);
        let reading = Reading::OwnWords { judge: judgement.answers, missing: judgement.missing, elsewhere };
        Ok(Ok(Composed { answer: generated.answer, checks, reading }))
    }

    /// The entail and sanity stages' report.
    fn report_scores(&self, checks: &[ClaimCheck], started: f64, by: &str, f: &mut Findings<'_>) {
        let raw: Vec<String> = checks.iter().map(|c| format!("{:.2}", c.entailment)).collect();
        self.finish(&mut f.stages, StageName::Entail, StageStatus::Passed, started, format!("{by}: scores [{}]", raw.join(", ")));
        let started = self.clock.now_ms();
        let caps: Vec<String> = checks.iter().flat_map(|c| c.caps.iter().cloned()).collect();
        let detail = if caps.is_empty() { "no caps applied".to_string() } else { caps.join("; ") };
        self.finish(&mut f.stages, StageName::Sanity, StageStatus::Passed, started, detail);
    }

    fn model_failed(&self, f: &mut Findings<'_>, stage: StageName, started: f64, error: &ModelError) -> Ending {
        self.finish(&mut f.stages, stage, StageStatus::Refused, started, format!("model {error}"));
        Ending::Refused(Reason::ModelUnavailable)
    }

    fn chat_failed(&self, f: &mut Findings<'_>, stage: StageName, started: f64, failure: ChatFailure) -> Ending {
        match failure {
            ChatFailure::Model(e) => self.model_failed(f, stage, started, &e),
            ChatFailure::Invalid => {
                let detail = "the model's output was not valid JSON, twice (once after a repair request)".to_string();
                self.finish(&mut f.stages, stage, StageStatus::Refused, started, detail);
                Ending::Refused(Reason::ModelOutputInvalid)
            }
        }
    }

    fn finish(&self, stages: &mut Stages<'_>, name: StageName, status: StageStatus, started_ms: f64, detail: String) {
        stages.finish(name, status, started_ms, self.clock.now_ms(), detail);
    }

}

/// The question's focus terms, which a claim may echo without support.
fn focus_terms(ask: &Ask) -> Vec<String> {
    ask.focus.iter().map(|(t, _)| t.clone()).collect()
}
