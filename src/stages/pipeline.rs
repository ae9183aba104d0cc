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

use serde_json::Value;

use crate::stages::answer;
use crate::stages::cite;
use crate::config::Config;
use crate::cost::{self, Usage};
use crate::api::error::ApiError;
use crate::stages::evidence::{self, Evidence, Focus};
use crate::stages::gate::{self, GateFailure};
use crate::models::{Message, ModelError, Models, NoModels, Role};
use crate::stages::prompts;
use crate::stages::question::{Ask, Grounds, Kind, Miss};
use crate::api::response::{
    AskResponse, CacheInfo, Citation, Claim, Cost, EngineInfo, Groundedness, Origin, Reason, Retrieved, StageName,
    StageStatus, Status,
};
use crate::stages::retrieve::{self, Hit};
use crate::stages::screen::{self, Block, Screen};
use crate::stages::Stages;
use crate::stages::support::{self, ClaimCheck};
use crate::text;
use crate::corpus::chunk;
use crate::corpus::vocabulary::Vocabulary;
use crate::corpus::workspace::Scope;
use crate::ports::{Clock, Corpus, CorpusState};

/// Content-word overlap below which a judged claim is capped: the judge cited
/// passages that share almost nothing with the claim.
pub const OVERLAP_FLOOR: f64 = 0.15;
/// The cap for a judged claim under the overlap floor: strictly below any
/// sensible weakest-claim threshold (0.40 by default), so it refuses.
pub const OVERLAP_CAP: f64 = 0.3;
/// A sentence of the shown answer counts as covered by the judge's claims when
/// the claims hold this share of its topic terms, and all its numbers and names.
pub const SENTENCE_COVERED: f64 = 0.6;
/// The cap for a judged claim using a word the corpus never mentions: no passage
/// anywhere can support it, whatever the judge says.
pub const UNKNOWN_TERM_CAP: f64 = 0.2;

/// A passage as the store returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHit {
    pub id: String,
    pub doc: String,
    pub section: String,
    pub text: String,
    pub origin: Origin,
}

/// One lookup in the corpus: the question's terms and their FTS5 expression,
/// how many passages to rank, and what a term in a passage's heading weighs
/// against one in its text (1.0: the same).
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub terms: &'a [String],
    pub expression: &'a str,
    pub k: usize,
    pub heading_weight: f64,
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

/// Paid calls made so far and what they cost.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Meter {
    pub calls: u32,
    pub neurons: f64,
}

/// What the stages have established so far; becomes the response.
#[derive(Default)]
struct Findings<'s> {
    stages: Stages<'s>,
    retrieval: Vec<Retrieved>,
    claims: Vec<ClaimCheck>,
    groundedness: Option<Groundedness>,
    meter: Meter,
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
    OwnWords { judge: prompts::Answers, missing: Vec<String> },
}

/// How the answering stages ended, before it is shaped into a response.
enum Ending {
    Answered(String),
    Refused(Reason),
    Blocked(Reason),
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
        let keyed = &ask.focus;
        let Retrieval { lookup, vector, hits, lexical_count, meant } = match self.retrieve(question, keyed, self.config.top_k, Unknown::ByMeaning, &mut f.meter).await? {
            Ok(retrieval) => retrieval,
            Err(e) => return Ok(self.model_failed(f, StageName::Retrieve, started, &e)),
        };
        f.retrieval = hits.iter().map(retrieved).collect();
        let searched = hits.iter().filter(|h| h.via.is_none()).count();
        let mut detail = match &vector {
            Some(v) => format!("{searched} passages: {lexical_count} by BM25, {} by vector, fused by reciprocal rank", v.len()),
            None => format!("{searched} passages by BM25 over {} question terms", keyed.len()),
        };
        let edges: Vec<String> = hits.iter().filter_map(|h| h.via.as_ref().map(|from| format!("{from} -> {}", h.id))).collect();
        if !edges.is_empty() {
            detail += &format!("; followed {} reference{}: {}", edges.len(), if edges.len() == 1 { "" } else { "s" }, edges.join(", "));
        }
        self.finish(&mut f.stages, StageName::Retrieve, StageStatus::Passed, started, detail);

        // evidence gate, with one rewrite when the passages cover too little
        let started = self.clock.now_ms();
        let focus = Focus::new(keyed, &lookup.doc_freqs, lookup.total_passages).spelled(&ask.variants).framed(&ask.core_terms()).meant(&meant);
        let mut hits = hits;
        let mut verdict = match self.weak_vectors(vector.as_deref(), lexical_count) {
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
        let mut answer_terms = text::distinct_terms(&answer_text);
        // A quote must cover the question in the question's own words. A model's
        // answer is read with the passages its verified claims cite (the
        // question's names and a hop's premise may sit there): together they
        // must cover the question as well as retrieved evidence must, so an
        // answer resting on a passage about another subject is off the question.
        let (answers, min_coverage) = match &composed.reading {
            Reading::Quoted => (ask.answers(&focus, &answer_text), self.config.answer_min_coverage),
            Reading::OwnWords { judge, missing } => {
                let cited = self.verified_sources(&f.claims, &hits);
                let windows = self.verified_windows(&f.claims, &hits);
                let known = support::known_names(&hits);
                let pairs: Vec<_> = hits.iter().flat_map(|h| text::modifier_pairs(&format!("{}.\n{}", h.section, h.text))).collect();
                let alignments = self.alignments(&answer_text, &f.claims, &hits);
                let used: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
                let grounds = Grounds { cited: &cited, windows: &windows, known: &known, pairs: &pairs, alignments: &alignments, used: &used };
                answer_terms.extend(text::terms(&cited));
                (judge_verdict(*judge, missing).and_then(|()| ask.answers_in_own_words(&focus, &answer_text, &grounds)), 0.0)
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

    /// Retrieval only (`GET /search`): the `k` best passages, fused as `/ask`
    /// fuses them, with what the lookup cost. `Err` for a failing store; a
    /// failing model is `Ok(Err(..))`.
    pub async fn search(&self, query: &str, vocabulary: &Vocabulary, k: usize) -> Result<(Result<Vec<Retrieved>, ModelError>, Meter), ApiError> {
        let mut meter = Meter::default();
        let ask = Ask::parse(query, vocabulary);
        let found = self.retrieve(query, &ask.focus, k, Unknown::AsWords, &mut meter).await?;
        Ok((found.map(|r| r.hits.iter().map(retrieved).collect()), meter))
    }

    /// BM25 (and, with models, the vector index) for `k` passages, fused.
    /// Read `ByMeaning` (a question to `/ask`, on Workers AI), the question's
    /// words the corpus never uses are embedded in the question's own call,
    /// and those near a retrieved passage are returned as `meant`.
    async fn retrieve(&self, question: &str, keyed: &[(String, String)], k: usize, reading: Unknown, meter: &mut Meter) -> Result<Result<Retrieval, ModelError>, ApiError> {
        let terms: Vec<String> = keyed.iter().map(|(t, _)| t.clone()).collect();
        let lookup = match retrieve::match_expression(&terms) {
            Some(expression) => self.corpus.lookup(&self.scope, &self.query(&terms, &expression, k)).await?,
            None => Lookup::default(),
        };
        let lexical_count = lookup.hits.len();
        let unknown: Vec<(String, String)> = match reading {
            Unknown::ByMeaning => keyed
                .iter()
                .zip(&lookup.doc_freqs)
                .filter(|((term, _), df)| **df == 0 && !text::is_numeric(term))
                .map(|(pair, _)| pair.clone())
                .take(cost::MAX_MEANING_WORDS)
                .collect(),
            Unknown::AsWords => Vec::new(),
        };
        let (vector, word_vectors) = match self.models {
            Some(models) => match self.nearest(models, question, &unknown, k, meter).await {
                Ok((matches, words)) => (Some(matches), words),
                Err(e) => return Ok(Err(e)),
            },
            None => (None, Vec::new()),
        };
        // A vector match under the floor is no nearer in meaning than any passage: it is not evidence.
        let near: Option<Vec<(String, f64)>> = vector.as_ref().map(|v| v.iter().filter(|(_, s)| *s >= self.config.vector_min_score).cloned().collect());
        let mut hits = self.fuse(lookup.hits.clone(), near.as_deref(), k).await?;
        let followed = self.follow(&hits).await?;
        hits.extend(followed);
        let meant = match (self.models, word_vectors.is_empty()) {
            (Some(models), false) => match self.meant(models, &unknown, &word_vectors, &hits).await {
                Ok(meant) => meant,
                Err(e) => return Ok(Err(e)),
            },
            _ => Vec::new(),
        };
        Ok(Ok(Retrieval { lookup, vector, hits, lexical_count, meant }))
    }

    /// The words the corpus never uses whose meaning lies near a retrieved
    /// passage (cosine at least `VECTOR_MIN_SCORE` with its stored vector):
    /// "coworking" near a passage about the building, "wifi" near the Wi-Fi.
    async fn meant(&self, models: &M, unknown: &[(String, String)], vectors: &[Vec<f32>], hits: &[Hit]) -> Result<Vec<String>, ModelError> {
        let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
        let stored = models.vectors(&self.scope, &ids).await?;
        Ok(unknown
            .iter()
            .zip(vectors)
            .filter(|(_, word)| stored.iter().any(|(_, passage)| cosine(word, passage) >= self.config.vector_min_score))
            .map(|((term, _), _)| term.clone())
            .collect())
    }

    /// The one rewrite: a second lookup for what the first one missed. The
    /// new passages take the place of the weakest ones, so what later stages
    /// see (and the spend bound counts) never grows. `None` when there is no
    /// query to try or it finds nothing new.
    async fn rewrite(&self, question: &str, ask: &Ask, vocabulary: &Vocabulary, focus: &Focus, hits: &[Hit], f: &mut Findings<'_>) -> Result<Result<Option<(Vec<Hit>, String)>, ModelError>, ApiError> {
        let (query, keyed) = match self.rewrite_query(question, ask, vocabulary, focus, hits, f).await {
            Ok(Some(rewritten)) => rewritten,
            Ok(None) => return Ok(Ok(None)),
            Err(e) => return Ok(Err(e)),
        };
        // Deep enough that passages already held cannot crowd out new ones.
        let found = match self.retrieve(&query, &keyed, self.config.top_k + hits.len(), Unknown::AsWords, &mut f.meter).await? {
            Ok(found) => found,
            Err(e) => return Ok(Err(e)),
        };
        let fresh: Vec<Hit> = found.hits.into_iter().filter(|h| !hits.iter().any(|o| o.id == h.id)).take(self.config.top_k.div_ceil(2)).collect();
        if fresh.is_empty() {
            return Ok(Ok(None));
        }
        let keep = hits.len().saturating_sub(fresh.len()).max(1).min(hits.len());
        let note = format!("rewrite: looked up \"{query}\" again, {} new passage{}", fresh.len(), if fresh.len() == 1 { "" } else { "s" });
        Ok(Ok(Some((hits[..keep].iter().cloned().chain(fresh).collect(), note))))
    }

    /// The rewritten query and its terms. Local engine: the question's words
    /// no retrieved passage holds, on their own. Workers AI: one call to the
    /// rewrite model, which rewords the question in the terms of the headings
    /// found (its query widens the lookup only: the gates still weigh the
    /// question's own terms).
    async fn rewrite_query(&self, question: &str, ask: &Ask, vocabulary: &Vocabulary, focus: &Focus, hits: &[Hit], f: &mut Findings<'_>) -> Result<Option<(String, Vec<(String, String)>)>, ModelError> {
        match self.models {
            None => {
                let present: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
                let missing: Vec<(String, String)> =
                    ask.focus.iter().filter(|(t, _)| focus.terms.iter().any(|f| &f.term == t) && !present.contains(t)).cloned().collect();
                let query = missing.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join(" ");
                Ok((!missing.is_empty()).then_some((query, missing)))
            }
            Some(models) => {
                let messages = prompts::rewrite_messages(question, hits);
                let reply = self.chat(models, Role::Rewrite, &messages, &prompts::rewrite_schema(), f).await?;
                Ok(prompts::parse_rewrite(&reply).map(|query| {
                    let keyed = vocabulary.question_terms(&query);
                    (query, keyed)
                }).filter(|(_, keyed)| !keyed.is_empty()))
            }
        }
    }

    fn query<'q>(&self, terms: &'q [String], expression: &'q str, k: usize) -> Query<'q> {
        Query { terms, expression, k, heading_weight: self.config.heading_weight }
    }

    /// One hop: the passages the hits refer to, in the reserved slots.
    async fn follow(&self, hits: &[Hit]) -> Result<Vec<Hit>, ApiError> {
        if self.config.hop_slots == 0 || hits.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
        let references = self.corpus.references(&self.scope, &ids).await?;
        Ok(retrieve::follow(hits, &references, self.config.hop_slots, self.config.hop_decay))
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
        let judged = &judgement.claims;
        let detail = format!("{judge}: {} claims, scored in the same call", judged.len());
        self.finish(&mut f.stages, StageName::Decompose, StageStatus::Passed, started, detail);

        let started = self.clock.now_ms();
        let question_terms = focus_terms(ask);
        let known = support::known_names(hits);
        let shown = text::quantities(&generated.answer);
        let context = support::Context { known: &known, asked: &ask.quantities, shown: &shown, ..Default::default() };
        let mut checks: Vec<ClaimCheck> = judged.iter().map(|j| capped(j, &question_terms, &context, hits)).collect();
        let cited: Vec<Hit> = hits
            .iter()
            .filter(|h| generated.citations.contains(&h.id) || judged.iter().any(|j| j.passages.contains(&h.id)))
            .cloned()
            .collect();
        checks.extend(unchecked_sentences(&generated.answer, judged, &question_terms, &cited, &context));
        checks.extend(polar_check(ask, &generated.answer, &cited, &known));
        self.cap_unknown_names(&mut checks, hits).await?;
        self.report_scores(&checks, started, judge, f);
        let reading = Reading::OwnWords { judge: judgement.answers, missing: judgement.missing };
        Ok(Ok(Composed { answer: generated.answer, checks, reading }))
    }

    /// Caps claims that name something (a plan, a room, a person) no passage
    /// of the corpus mentions (one lookup for all such names' words missing
    /// from the retrieved passages). A common word the corpus never uses is
    /// the model's paraphrase ("Yes", "right away"), not a fabrication: the
    /// content that must come from the corpus is its names (and its numbers,
    /// which the sanity caps check).
    async fn cap_unknown_names(&self, checks: &mut [ClaimCheck], hits: &[Hit]) -> Result<(), ApiError> {
        let retrieved: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
        let name_words = |claim: &str| -> Vec<(String, String)> { text::names(claim).iter().flat_map(|n| text::keyed_terms(n)).filter(|(t, _)| !text::is_numeric(t)).collect() };
        let mut unseen: Vec<String> = Vec::new();
        for check in checks.iter() {
            for (term, _) in name_words(&check.text) {
                if !retrieved.contains(&term) && !unseen.contains(&term) {
                    unseen.push(term);
                }
            }
        }
        let Some(expression) = retrieve::match_expression(&unseen) else { return Ok(()) };
        let lookup = self.corpus.lookup(&self.scope, &self.query(&unseen, &expression, 0)).await?;
        let never: Vec<&String> = unseen.iter().zip(&lookup.doc_freqs).filter(|(_, df)| **df == 0).map(|(t, _)| t).collect();
        for check in checks.iter_mut() {
            let words: Vec<String> = name_words(&check.text).into_iter().filter(|(t, _)| never.contains(&t)).map(|(_, w)| w).collect();
            if !words.is_empty() {
                check.score = check.score.min(UNKNOWN_TERM_CAP);
                check.caps.push(format!("{:?}: the corpus never mentions {}", check.text, words.join(", ")));
            }
        }
        Ok(())
    }

    /// The text of the passages the verified claims cite, and of the passages
    /// that referred to them (a hop's premise), sections included.
    fn verified_sources(&self, checks: &[ClaimCheck], hits: &[Hit]) -> String {
        let cited: Vec<&Hit> = hits
            .iter()
            .filter(|h| checks.iter().any(|c| c.score >= self.config.gate_min_claim && c.supporting.contains(&h.id)))
            .collect();
        let referring = hits.iter().filter(|h| cited.iter().any(|c| c.via.as_ref() == Some(&h.id)));
        cited.iter().copied().chain(referring).map(|h| format!("{}\n{}", h.section, h.text)).collect::<Vec<_>>().join("\n")
    }

    /// The source sentences the verified claims align with (see
    /// [`support::aligned_sentence`]), each with its passage's heading.
    fn verified_windows(&self, checks: &[ClaimCheck], hits: &[Hit]) -> String {
        let mut out = Vec::new();
        for check in checks.iter().filter(|c| c.score >= self.config.gate_min_claim) {
            for hit in hits.iter().filter(|h| check.supporting.contains(&h.id)) {
                out.push(hit.section.clone());
                out.extend(support::aligned_sentence(&check.text, &hit.text).map(str::to_string));
            }
        }
        out.join("\n")
    }

    /// Each sentence of the answer with the stretches of the verified cited
    /// passages it restates (see [`support::aligned_neighbourhood`]; one per
    /// passage, since a statement may run on across a passage's end).
    fn alignments(&self, answer: &str, checks: &[ClaimCheck], hits: &[Hit]) -> Vec<(String, String)> {
        let cited: Vec<&Hit> = hits.iter().filter(|h| checks.iter().any(|c| c.score >= self.config.gate_min_claim && c.supporting.contains(&h.id))).collect();
        text::sentences(answer)
            .into_iter()
            .map(|sentence| {
                let stretches: Vec<String> = cited.iter().filter_map(|h| support::aligned_neighbourhood(sentence, &h.text)).collect();
                (sentence.to_string(), stretches.join("\n"))
            })
            .collect()
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

    /// One chat call whose output must parse, with one repair attempt.
    #[allow(clippy::too_many_arguments)] // One private helper; the parts are all distinct.
    async fn chat_json<T>(
        &self,
        models: &M,
        role: Role,
        messages: Vec<Message>,
        schema: &Value,
        shape: &str,
        parse: impl Fn(&str) -> Option<T>,
        f: &mut Findings<'_>,
    ) -> Result<T, ChatFailure> {
        let reply = self.chat(models, role, &messages, schema, f).await.map_err(ChatFailure::Model)?;
        if let Some(parsed) = parse(&reply) {
            return Ok(parsed);
        }
        let repair = prompts::repair_messages(messages, &reply, shape);
        let again = self.chat(models, role, &repair, schema, f).await.map_err(ChatFailure::Model)?;
        parse(&again).ok_or(ChatFailure::Invalid)
    }

    async fn chat(&self, models: &M, role: Role, messages: &[Message], schema: &Value, f: &mut Findings<'_>) -> Result<String, ModelError> {
        let model = self.config.chat_model(role);
        let bound = cost::chat_bound(model, messages, schema, self.config.max_tokens);
        let result = models.chat(role, messages, schema, self.config.max_tokens).await;
        // A call that failed may still have been billed, and a field it does
        // not report may still be billed: charge the bound for what is unknown.
        let usage = result.as_ref().ok().map_or(bound, |r| r.usage.or_bound(bound));
        self.charge(&mut f.meter, model, usage);
        result.map(|r| r.text)
    }

    /// Embeds the question (and, in the same call, its `words` to be read by
    /// meaning) and asks the index for the question's nearest passages;
    /// returns them and the words' vectors.
    async fn nearest(&self, models: &M, question: &str, words: &[(String, String)], k: usize, meter: &mut Meter) -> Result<(Vec<(String, f64)>, Vec<Vec<f32>>), ModelError> {
        let bound = cost::question_embed_bound(question);
        let texts: Vec<String> = std::iter::once(question.to_string()).chain(words.iter().map(|(_, word)| word.clone())).collect();
        let embedded = models.embed(&texts).await;
        let usage = embedded.as_ref().ok().map_or(bound, |e| e.usage.or_bound(bound));
        self.charge(meter, &self.config.embedding_model, usage);
        let mut vectors = embedded?.vectors.into_iter();
        let vector = vectors.next().ok_or_else(|| ModelError::Failed("no embedding returned".into()))?;
        if vector.len() != self.config.embedding_dimensions {
            return Err(ModelError::Failed(format!(
                "embedding has {} dimensions, EMBEDDING_DIMENSIONS is {}",
                vector.len(),
                self.config.embedding_dimensions
            )));
        }
        Ok((models.nearest(&self.scope, &vector, k).await?, vectors.collect()))
    }

    fn charge(&self, meter: &mut Meter, model: &str, usage: Usage) {
        meter.calls += 1;
        meter.neurons += cost::neurons(cost::price(self.config, model), usage);
    }

    /// No evidence to weigh: no passage shares a term with the question (the
    /// vector matches under `VECTOR_MIN_SCORE` never enter the fusion, see
    /// [`Pipeline::retrieve`]; the words of the passages that do decide).
    fn weak_vectors(&self, vector: Option<&[(String, f64)]>, lexical_count: usize) -> Option<String> {
        let vector = vector?;
        let best = vector.first().map_or(f64::NEG_INFINITY, |(_, s)| *s);
        match (lexical_count, best < self.config.vector_min_score) {
            (0, true) => Some(format!("no passage shares a term with the question, and the best vector match {best:.2} is under the floor {:.2}", self.config.vector_min_score)),
            (0, false) => Some("no passage shares a term with the question".to_string()),
            _ => None,
        }
    }

    /// Lexical and vector lists fused by reciprocal rank, cut to `top_k`.
    async fn fuse(&self, lexical: Vec<StoredHit>, vector: Option<&[(String, f64)]>, k: usize) -> Result<Vec<Hit>, ApiError> {
        let lexical_ids: Vec<String> = lexical.iter().map(|h| h.id.clone()).collect();
        let vector_ids: Vec<String> = vector.unwrap_or_default().iter().map(|(id, _)| id.clone()).collect();
        let missing: Vec<String> = vector_ids.iter().filter(|id| !lexical_ids.contains(id)).cloned().collect();
        let mut stored = lexical;
        if !missing.is_empty() {
            stored.extend(self.corpus.passages(&self.scope, &missing).await?);
        }
        let lists: Vec<&[String]> = if vector.is_some() { vec![&lexical_ids, &vector_ids] } else { vec![&lexical_ids] };
        Ok(retrieve::fuse(&lists)
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
                    vector_rank: ranks.get(1).copied().flatten(),
                    origin: h.origin,
                    via: None,
                })
            })
            .take(k)
            .collect())
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

    fn response(&self, request_id: &str, corpus_version: &str, f: Findings<'_>, ending: Ending) -> AskResponse {
        let (status, reason, answer) = match ending {
            Ending::Answered(text) => (Status::Answered, None, Some(text)),
            Ending::Refused(reason) => (Status::Refused, Some(reason), None),
            Ending::Blocked(reason) => (Status::Blocked, Some(reason), None),
        };
        let citations = if status == Status::Answered { citations(&f) } else { Vec::new() };
        let answer = answer.map(|text| {
            let verified: Vec<cite::Verified> = f
                .claims
                .iter()
                .filter(|c| c.score >= self.config.gate_min_claim)
                .map(|c| cite::Verified { text: &c.text, passages: &c.supporting })
                .collect();
            let cited: Vec<String> = citations.iter().map(|c| c.passage_id.clone()).collect();
            cite::mark(&text, &verified, &cited)
        });
        AskResponse {
            request_id: request_id.to_string(),
            status,
            reason,
            answer,
            citations,
            claims: f
                .claims
                .iter()
                .map(|c| Claim {
                    text: c.text.clone(),
                    score: round(c.score),
                    supported: c.score >= self.config.gate_min_claim,
                    supporting_passage_ids: c.supporting.clone(),
                })
                .collect(),
            groundedness: f.groundedness,
            retrieval: f.retrieval,
            stages: f.stages.into_vec(),
            cache: CacheInfo { hit: false, tier: None },
            cost: Cost { neurons: round(f.meter.neurons), usd: cost::usd(f.meter.neurons), calls: f.meter.calls },
            engine: if self.models.is_some() { EngineInfo::WORKERS_AI } else { EngineInfo::LOCAL },
            corpus_version: corpus_version.to_string(),
        }
    }
}

/// What retrieval found.
struct Retrieval {
    lookup: Lookup,
    vector: Option<Vec<(String, f64)>>,
    hits: Vec<Hit>,
    lexical_count: usize,
    /// The question's words the corpus never uses that lie near a retrieved passage in meaning.
    meant: Vec<String>,
}

/// How a lookup reads the question's words the corpus never uses.
#[derive(Clone, Copy)]
enum Unknown {
    /// By meaning, on Workers AI: embedded beside the question (see [`Pipeline::retrieve`]).
    ByMeaning,
    /// As words only (`/search`, the rewrite's second lookup).
    AsWords,
}

/// The cosine of two vectors (0 for a zero vector).
fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    match norm(a) * norm(b) {
        n if n > 0.0 => dot / n,
        _ => 0.0,
    }
}

enum ChatFailure {
    Model(ModelError),
    Invalid,
}

/// A judged claim after the deterministic caps, checked against the passages the
/// judge said support it: no supporting passage scores 0; quantities, names,
/// quotes and negation must agree; and almost no shared words caps it.
fn capped(judged: &prompts::Judged, question_terms: &[String], context: &support::Context<'_>, hits: &[Hit]) -> ClaimCheck {
    let claim = judged.claim.as_str();
    let support: String = hits.iter().filter(|h| judged.passages.contains(&h.id)).map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n");
    let mut caps = Vec::new();
    let mut score = judged.score;
    if support.is_empty() {
        score = 0.0;
        caps.push(format!("{claim:?}: no retrieved passage supports it"));
    } else {
        let headings: String = hits.iter().filter(|h| judged.passages.contains(&h.id)).map(|h| h.section.as_str()).collect::<Vec<_>>().join(". ");
        let (after, reasons) = support::sanity(claim, &support, &support::Context { heading: &headings, ..*context }, score);
        score = after;
        caps.extend(reasons.into_iter().map(|r| format!("{claim:?}: {r}")));
        if support::entailment(claim, question_terms, &support) < OVERLAP_FLOOR {
            score = score.min(OVERLAP_CAP);
            caps.push(format!("{claim:?}: shares almost no words with its passages"));
        }
    }
    ClaimCheck { text: claim.to_string(), entailment: judged.score, score, supporting: judged.passages.clone(), caps }
}

/// The sentences of the shown answer that the judge's claims do not cover, or
/// that state a number, name, quote or contradiction the cited passages do not
/// bear out: each becomes a claim of its own, scored deterministically against
/// the cited passages, so nothing the user reads goes unchecked.
fn unchecked_sentences(answer: &str, judged: &[prompts::Judged], question_terms: &[String], cited: &[Hit], context: &support::Context<'_>) -> Vec<ClaimCheck> {
    let claims_text = judged.iter().map(|j| j.claim.as_str()).collect::<Vec<_>>().join(" ");
    let claim_terms = text::terms(&claims_text);
    let claim_quantities = text::quantities(&claims_text);
    text::sentences(answer)
        .into_iter()
        .filter_map(|sentence| {
            let check = support::check_in(sentence, question_terms, cited, context);
            let terms = text::distinct_terms(sentence);
            let held = terms.iter().filter(|t| claim_terms.contains(t)).count() as f64 / terms.len().max(1) as f64;
            let covered = held >= SENTENCE_COVERED
                && text::quantities(sentence).iter().all(|q| claim_quantities.iter().any(|c| q.agrees_with(c)))
                && text::names(sentence).iter().all(|n| text::names::mentions(&claim_terms, n));
            match (covered, check.caps.is_empty()) {
                (true, true) => None,
                (false, _) => Some(ClaimCheck {
                    caps: [vec![format!("{sentence:?}: not among the judge's claims, checked on its own")], check.caps.clone()].concat(),
                    ..check
                }),
                (true, false) => Some(check),
            }
        })
        .collect()
}

/// The judge's word on whether the answer answers: "no" refuses, and so does
/// "partly": an answer to part of a question about a price, a policy or a
/// term reads as the whole answer, and its silence on the rest misleads
/// (the asker can ask the part that is answered on its own).
fn judge_verdict(answers: prompts::Answers, missing: &[String]) -> Result<(), Miss> {
    match answers {
        prompts::Answers::Yes | prompts::Answers::Unsaid => Ok(()),
        prompts::Answers::Partly | prompts::Answers::No => Err(Miss::Judge { partly: answers == prompts::Answers::Partly, missing: missing.to_vec() }),
    }
}

/// "Yes." or "No, …" to a yes/no question claims the question's proposition,
/// affirmed or denied: checked as such against the cited passages (a "Yes"
/// must find the question's numbers and names there, and neither may
/// contradict the clause the proposition restates). Only a failed check adds
/// a claim: the sentence itself is checked as every other is.
fn polar_check(ask: &Ask, answer: &str, cited: &[Hit], known: &[String]) -> Option<ClaimCheck> {
    if ask.kind != Kind::YesNo {
        return None;
    }
    let affirmed = support::polarity(answer)?;
    let support: String = cited.iter().map(|h| h.text.as_str()).collect::<Vec<_>>().join("\n");
    let proposition = ask.asking.trim_end_matches(['?', ' ']);
    // A "no" denies the proposition: it reads as the proposition negated after its auxiliary.
    let claimed = match (affirmed, proposition.split_once(' ')) {
        (false, Some((auxiliary, rest))) => format!("{auxiliary} not {rest}"),
        _ => proposition.to_string(),
    };
    // A "no" may rightly meet other numbers than the question's ("No, from 7:00 am"):
    // the source then states another value, which is what the "no" says.
    let stated = text::quantities(&support);
    if !affirmed && !ask.quantities.iter().all(|q| stated.iter().any(|s| q.agrees_with(s))) {
        return None;
    }
    // A "no" under the asker's own condition ("When an upload goes back to an
    // older version, should the epoch be increased?") denies the proposition
    // there, not where the source states it in general.
    if !affirmed && ask.asking.len() < ask.text.len() {
        return None;
    }
    let headings: String = cited.iter().map(|h| h.section.as_str()).collect::<Vec<_>>().join(". ");
    let context = support::Context { heading: &headings, known, asker_words: true, ..Default::default() };
    let (score, caps) = support::sanity(&claimed, &support, &context, 1.0);
    if caps.is_empty() {
        return None;
    }
    let score = if affirmed { score } else { support::CONTRADICTION_CAP };
    let reading = if affirmed { "yes" } else { "no" };
    let first = answer.split(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty()).unwrap_or(reading).to_lowercase();
    Some(ClaimCheck {
        text: format!("{reading}: {proposition}"),
        entailment: 1.0,
        score,
        supporting: cited.iter().map(|h| h.id.clone()).collect(),
        caps: caps.into_iter().map(|c| format!("\"{first}\" to {proposition:?}: {c}")).collect(),
    })
}

/// The question's focus terms, which a claim may echo without support.
fn focus_terms(ask: &Ask) -> Vec<String> {
    ask.focus.iter().map(|(t, _)| t.clone()).collect()
}

/// Citations come only from claims that passed, one per supporting passage, with
/// the source sentence closest to the claim as the snippet.
fn citations(findings: &Findings<'_>) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    for claim in findings.claims.iter().filter(|c| c.score > 0.0) {
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
                origin: passage.origin,
                page: passage.page,
            });
        }
    }
    out
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
        origin: hit.origin,
        via: hit.via.clone(),
        page: chunk::page_of(&hit.id),
    }
}

/// Scores are shown to three decimals; more is noise.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::vocabulary::Vocabulary;

    fn hit(id: &str, text: &str) -> Hit {
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, ..Hit::default() }
    }

    /// "no" refuses, "partly" too (with what is missing), "yes" and silence leave it to the checks.
    #[test]
    fn the_judge_decides_whether_it_answers() {
        let missing = vec!["the fee".to_string()];
        assert_eq!(judge_verdict(prompts::Answers::Yes, &missing), Ok(()));
        assert_eq!(judge_verdict(prompts::Answers::Unsaid, &[]), Ok(()));
        assert_eq!(judge_verdict(prompts::Answers::No, &[]), Err(Miss::Judge { partly: false, missing: vec![] }));
        let partly = judge_verdict(prompts::Answers::Partly, &missing).unwrap_err();
        assert!(partly.describe().ends_with("answers only part of the question; it leaves out: the fee"), "{}", partly.describe());
    }

    /// "Yes." affirms the question's proposition and "No" denies it: each is
    /// checked against the source, and a "no" may meet another value.
    #[test]
    fn a_polar_answer_is_read_with_its_question() {
        let source = [hit("conduct-03", "A dog is not allowed in the kitchen. Dogs are allowed on Fridays.")];
        let known = support::known_names(&source);
        let check = |question: &str, answer: &str| {
            let ask = Ask::parse(question, &Vocabulary::default());
            polar_check(&ask, answer, &source, &known)
        };
        assert!(check("Is a dog allowed in the kitchen?", "Yes.").is_some_and(|c| c.score <= support::CONTRADICTION_CAP), "yes to what the source denies");
        assert!(check("Is a dog allowed in the kitchen?", "No, dogs stay out of the kitchen.").is_none());
        assert!(check("Are dogs allowed on Fridays?", "Yes, on Fridays.").is_none());
        assert!(check("Are dogs allowed on Fridays?", "No.").is_some(), "no to what the source states");
        assert!(check("Are dogs allowed on Mondays?", "No, only on Fridays.").is_none(), "a no may meet another day");
        assert!(check("What is allowed on Fridays?", "Yes.").is_none(), "not a yes/no question");
    }
}
