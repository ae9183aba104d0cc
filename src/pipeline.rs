//! The answering stages in order: retrieve → evidence gate → generate →
//! decompose → entail → sanity → gate. Each stage is a call into its module; this
//! file only sequences them, times them and shapes the one response.
//!
//! The guards (Turnstile, rate limit, cache, spend cap) run before [`Pipeline::run`]
//! in the glue and hand their finished stages in, so the response lists every stage
//! that ran, in order.

use crate::answer;
use crate::config::Config;
use crate::error::ApiError;
use crate::evidence::{self, Evidence, Focus};
use crate::gate::{self, GateFailure};
use crate::intent;
use crate::response::{
    AskResponse, CacheInfo, Citation, Claim, Cost, EngineInfo, Groundedness, Reason, Retrieved, Stage,
    StageStatus, Status,
};
use crate::retrieve::{self, Hit};
use crate::support::{self, ClaimCheck};
use crate::text;

/// The stages [`Pipeline::run`] adds, in order; everything before them is a guard.
pub const ANSWERING_STAGES: &[&str] = &["retrieve", "evidence", "generate", "decompose", "entail", "sanity", "gate"];

/// A passage as the store returns it, in BM25 order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHit {
    pub id: String,
    pub doc: String,
    pub section: String,
    pub text: String,
}

/// What one lookup in the corpus returns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lookup {
    /// Passages in the corpus.
    pub total_passages: u32,
    /// Passages containing each asked term, in the order asked.
    pub doc_freqs: Vec<u32>,
    /// Best passages for the match expression, best first.
    pub hits: Vec<StoredHit>,
}

/// The passage store the pipeline reads (D1 in the worker, memory in tests).
#[allow(async_fn_in_trait)] // Single-threaded wasm: no Send bound is wanted.
pub trait Corpus {
    /// The current corpus version.
    async fn version(&self) -> Result<String, ApiError>;
    /// Document frequencies of `terms` and the top `k` passages for `expression`
    /// (an FTS5 match expression), in one round trip.
    async fn lookup(&self, terms: &[String], expression: &str, k: usize) -> Result<Lookup, ApiError>;
}

/// Milliseconds since some fixed point; injected so tests are deterministic.
pub trait Clock {
    fn now_ms(&self) -> f64;
}

/// One question through the answering stages.
pub struct Pipeline<'a, C, K> {
    pub corpus: &'a C,
    pub clock: &'a K,
    pub config: &'a Config,
}

/// What the stages have established so far; becomes the response.
#[derive(Default)]
struct Findings {
    retrieval: Vec<Retrieved>,
    claims: Vec<ClaimCheck>,
    groundedness: Option<Groundedness>,
}

impl<C: Corpus, K: Clock> Pipeline<'_, C, K> {
    /// Runs the stages after the guards. `stages` holds the guards' finished stages.
    pub async fn run(
        &self,
        request_id: &str,
        question: &str,
        corpus_version: &str,
        mut stages: Vec<Stage>,
    ) -> Result<AskResponse, ApiError> {
        let mut findings = Findings::default();
        let respond = |stages, findings, status, reason, answer| {
            self.response(request_id, corpus_version, stages, findings, status, reason, answer)
        };

        // retrieve
        let started = self.clock.now_ms();
        let keyed = text::keyed_terms(question);
        let terms: Vec<String> = keyed.iter().map(|(t, _)| t.clone()).collect();
        let lookup = match retrieve::match_expression(&terms) {
            Some(expression) => self.corpus.lookup(&terms, &expression, self.config.top_k).await?,
            None => Lookup::default(),
        };
        let hits = ranked_hits(lookup.hits);
        findings.retrieval = hits.iter().map(retrieved).collect();
        stages.push(self.stage(
            "retrieve",
            StageStatus::Passed,
            started,
            format!("{} passages by BM25 over {} question terms", hits.len(), terms.len()),
        ));

        // evidence gate
        let started = self.clock.now_ms();
        let focus = Focus::new(&keyed, &lookup.doc_freqs, lookup.total_passages);
        match evidence::judge(&focus, &hits, self.config.evidence_min_coverage) {
            Evidence::Insufficient { why, .. } => {
                stages.push(self.stage("evidence", StageStatus::Refused, started, why));
                return Ok(respond(stages, findings, Status::Refused, Some(Reason::NoEvidence), None));
            }
            Evidence::Sufficient { coverage } => stages.push(self.stage(
                "evidence",
                StageStatus::Passed,
                started,
                format!("the passages cover {:.0}% of the question", coverage * 100.0),
            )),
        }

        // generate: the local engine quotes, it does not write
        let started = self.clock.now_ms();
        let expected = intent::expected(question);
        let quotes = answer::extract(&focus, expected, &hits, self.config.max_answer_sentences);
        let answer_text = answer::compose(&quotes);
        let quoted_from: Vec<&str> = quotes.iter().map(|q| q.passage_id.as_str()).collect();
        stages.push(self.stage(
            "generate",
            StageStatus::Passed,
            started,
            format!("extractive: quoted {} sentences from {}", quotes.len(), quoted_from.join(", ")),
        ));

        // decompose: each quoted sentence is one claim
        let started = self.clock.now_ms();
        let claim_texts: Vec<&str> = quotes.iter().map(|q| q.sentence.as_str()).collect();
        stages.push(self.stage("decompose", StageStatus::Passed, started, format!("{} claims", claim_texts.len())));

        // entail + sanity: scored together per passage, reported as two stages
        let started = self.clock.now_ms();
        findings.claims = claim_texts.iter().map(|c| support::check(c, &hits)).collect();
        let entailments: Vec<String> = findings.claims.iter().map(|c| format!("{:.2}", c.entailment)).collect();
        stages.push(self.stage("entail", StageStatus::Passed, started, format!("scores [{}]", entailments.join(", "))));
        let started = self.clock.now_ms();
        let caps: Vec<String> = findings.claims.iter().flat_map(|c| c.caps.iter().cloned()).collect();
        let sanity_detail = if caps.is_empty() { "no caps applied".to_string() } else { caps.join("; ") };
        stages.push(self.stage("sanity", StageStatus::Passed, started, sanity_detail));

        // gate
        let started = self.clock.now_ms();
        let answer_terms = text::distinct_terms(&answer_text);
        let scores: Vec<f64> = findings.claims.iter().map(|c| c.score).collect();
        let kind_met = expected.is_none_or(|kind| intent::satisfied(kind, &answer_text));
        let verdict = gate::decide(&scores, focus.coverage(&answer_terms), kind_met, self.config);
        findings.groundedness = Some(Groundedness {
            mean: round(verdict.mean),
            min: round(verdict.min),
            threshold: self.config.gate_min_mean,
            min_claim: self.config.gate_min_claim,
            coverage: round(verdict.coverage),
            min_coverage: self.config.answer_min_coverage,
            passed: verdict.passed(),
        });
        let gate_detail = format!(
            "mean {:.2} (>= {:.2}), min {:.2} (>= {:.2}), question coverage {:.2} (>= {:.2})",
            verdict.mean,
            self.config.gate_min_mean,
            verdict.min,
            self.config.gate_min_claim,
            verdict.coverage,
            self.config.answer_min_coverage
        );
        match verdict.failure {
            None => {
                stages.push(self.stage("gate", StageStatus::Passed, started, gate_detail));
                Ok(respond(stages, findings, Status::Answered, None, Some(answer_text)))
            }
            Some(failure) => {
                let missing = focus.missing(&answer_terms);
                let detail = match (failure, expected) {
                    (GateFailure::OffQuestion, Some(kind)) if !kind_met => {
                        format!("{gate_detail}; the question asks for {}, the answer states none", kind.describe())
                    }
                    (GateFailure::OffQuestion, _) => {
                        format!("{gate_detail}; the answer does not address: {}", missing.join(", "))
                    }
                    (GateFailure::BelowThreshold, _) => gate_detail,
                };
                stages.push(self.stage("gate", StageStatus::Refused, started, detail));
                let reason = match failure {
                    GateFailure::BelowThreshold => Reason::BelowThreshold,
                    GateFailure::OffQuestion => Reason::OffQuestion,
                };
                Ok(respond(stages, findings, Status::Refused, Some(reason), None))
            }
        }
    }

    fn stage(&self, name: &'static str, status: StageStatus, started_ms: f64, detail: String) -> Stage {
        let ms = (self.clock.now_ms() - started_ms).max(0.0).round() as u64;
        Stage { name, status, ms, detail }
    }

    #[allow(clippy::too_many_arguments)] // One private constructor; a builder would only hide the same list.
    fn response(
        &self,
        request_id: &str,
        corpus_version: &str,
        stages: Vec<Stage>,
        findings: Findings,
        status: Status,
        reason: Option<Reason>,
        answer: Option<String>,
    ) -> AskResponse {
        let answered = status == Status::Answered;
        let citations = if answered { citations(&findings) } else { Vec::new() };
        AskResponse {
            request_id: request_id.to_string(),
            status,
            reason,
            answer,
            citations,
            claims: findings
                .claims
                .iter()
                .map(|c| Claim {
                    text: c.text.clone(),
                    score: round(c.score),
                    supported: c.score >= self.config.gate_min_claim,
                    supporting_passage_ids: c.supporting.clone(),
                })
                .collect(),
            groundedness: findings.groundedness,
            retrieval: findings.retrieval,
            stages,
            cache: CacheInfo { hit: false },
            cost: Cost { neurons: 0.0, usd: 0.0 },
            engine: EngineInfo { ai: self.config.engine.as_str(), index: "fts-only" },
            corpus_version: corpus_version.to_string(),
        }
    }
}

/// Citations come only from claims that passed, one per supporting passage, with
/// the source sentence closest to the claim as the snippet.
fn citations(findings: &Findings) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    for claim in &findings.claims {
        for id in &claim.supporting {
            if out.iter().any(|c| &c.passage_id == id) {
                continue;
            }
            let Some(passage) = findings.retrieval.iter().find(|r| &r.passage_id == id) else { continue };
            let snippet = support::closest_sentence(&claim.text, &passage.text).unwrap_or(&claim.text);
            out.push(Citation {
                passage_id: id.clone(),
                doc: passage.doc.clone(),
                section: passage.section.clone(),
                snippet: snippet.to_string(),
            });
        }
    }
    out
}

/// BM25 order into fused hits (one list on the local engine).
fn ranked_hits(stored: Vec<StoredHit>) -> Vec<Hit> {
    let ids: Vec<String> = stored.iter().map(|h| h.id.clone()).collect();
    let fused = retrieve::fuse(&[&ids]);
    fused
        .into_iter()
        .filter_map(|(id, score, ranks)| {
            let h = stored.iter().find(|h| h.id == id)?;
            Some(Hit {
                id,
                doc: h.doc.clone(),
                section: h.section.clone(),
                text: h.text.clone(),
                score,
                lexical_rank: ranks[0],
                vector_rank: None,
            })
        })
        .collect()
}

fn retrieved(hit: &Hit) -> Retrieved {
    Retrieved {
        passage_id: hit.id.clone(),
        doc: hit.doc.clone(),
        section: hit.section.clone(),
        score: round(hit.score),
        vector_rank: hit.vector_rank,
        lexical_rank: hit.lexical_rank,
        text: hit.text.clone(),
    }
}

/// Scores are shown to three decimals; more is noise.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
