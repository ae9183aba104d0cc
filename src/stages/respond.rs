//! Shaping the one response: what the stages established ([`Findings`])
//! and how they ended ([`Ending`]) become an [`AskResponse`], with
//! citations only from verified claims and `[n]` markers after each
//! sentence.

use crate::api::response::{AskResponse, CacheInfo, Citation, Claim, Cost, EngineInfo, Groundedness, Reason, Retrieved, Status};
use crate::corpus::chunk;
use crate::cost;
use crate::models::Models;
use crate::ports::{Clock, Corpus};
use crate::stages::cite;
use crate::stages::metering::Meter;
use crate::stages::pipeline::Pipeline;
use crate::stages::retrieve::Hit;
use crate::stages::support::{self, ClaimCheck};
use crate::stages::Stages;

/// What the stages have established so far; becomes the response.
#[derive(Default)]
pub(super) struct Findings<'s> {
    pub(super) stages: Stages<'s>,
    pub(super) retrieval: Vec<Retrieved>,
    pub(super) claims: Vec<ClaimCheck>,
    pub(super) groundedness: Option<Groundedness>,
    pub(super) meter: Meter,
}

/// How the answering stages ended, before it is shaped into a response.
pub(super) enum Ending {
    Answered(String),
    Refused(Reason),
    Blocked(Reason),
}

impl<C: Corpus, K: Clock, M: Models> Pipeline<'_, C, K, M> {
    pub(super) fn response(&self, request_id: &str, corpus_version: &str, f: Findings<'_>, ending: Ending) -> AskResponse {
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

/// Citations come only from claims that passed, one per supporting passage, with
/// the source sentence closest to the claim as the snippet.
pub(super) fn citations(findings: &Findings<'_>) -> Vec<Citation> {
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

pub(super) fn retrieved(hit: &Hit) -> Retrieved {
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
pub(super) fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
