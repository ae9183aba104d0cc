//! Looking the question up: BM25 over the corpus and, on Workers AI, the
//! vector index, fused by reciprocal rank; the one hop to what the hits
//! refer to; the question's unknown words read by meaning; and the one
//! rewrite on weak evidence.

use crate::api::error::ApiError;
use crate::api::response::Retrieved;
use crate::corpus::vocabulary::Vocabulary;
use crate::cost;
use crate::models::{ModelError, Models, Role};
use crate::ports::{Clock, Corpus, Lookup, Query, StoredHit};
use crate::stages::evidence::Focus;
use crate::stages::metering::Meter;
use crate::stages::pipeline::Pipeline;
use crate::stages::prompts;
use crate::stages::question::Ask;
use crate::stages::respond::{retrieved, Findings};
use crate::stages::retrieve::{self, Hit};
use crate::text;

/// What retrieval found.
pub(super) struct Retrieval {
    pub(super) lookup: Lookup,
    pub(super) vector: Option<Vec<(String, f64)>>,
    pub(super) hits: Vec<Hit>,
    pub(super) lexical_count: usize,
    /// The question's words the corpus never uses, or the lookup's passages
    /// lack, that lie near a retrieved passage in meaning.
    pub(super) meant: Vec<String>,
}

/// How a lookup reads the question's words the corpus never uses.
#[derive(Clone, Copy)]
pub(super) enum Unknown {
    /// By meaning, on Workers AI: embedded beside the question (see [`Pipeline::retrieve`]).
    ByMeaning,
    /// As words only (`/search`, the rewrite's second lookup).
    AsWords,
}

/// The question's words to read by meaning, at most
/// [`cost::MAX_MEANING_WORDS`]: those the corpus never uses first, then
/// those no passage the lookup found holds ("unset" where the passage says
/// "not set"). Numbers are values, read as values.
fn unheld_words(keyed: &[(String, String)], lookup: &Lookup) -> Vec<(String, String)> {
    let held: Vec<String> = lookup.hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
    let words = || keyed.iter().zip(&lookup.doc_freqs).filter(|((term, _), _)| !text::is_numeric(term));
    let never = words().filter(|(_, df)| **df == 0);
    let unheld = words().filter(|((term, _), df)| **df > 0 && !held.contains(term));
    never.chain(unheld).map(|(pair, _)| pair.clone()).take(cost::MAX_MEANING_WORDS).collect()
}

/// The cosine of two vectors (0 for a zero vector).
pub(super) fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    match norm(a) * norm(b) {
        n if n > 0.0 => dot / n,
        _ => 0.0,
    }
}

impl<C: Corpus, K: Clock, M: Models> Pipeline<'_, C, K, M> {
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
    pub(super) async fn retrieve(&self, question: &str, keyed: &[(String, String)], k: usize, reading: Unknown, meter: &mut Meter) -> Result<Result<Retrieval, ModelError>, ApiError> {
        let terms: Vec<String> = keyed.iter().map(|(t, _)| t.clone()).collect();
        let lookup = match retrieve::match_expression(&terms) {
            Some(expression) => self.corpus.lookup(&self.scope, &self.query(&terms, &expression, k)).await?,
            None => Lookup::default(),
        };
        let lexical_count = lookup.hits.len();
        let unknown: Vec<(String, String)> = match reading {
            Unknown::ByMeaning => unheld_words(keyed, &lookup),
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
        // The slots beyond the top k: first the passages between two hits of
        // one section, nearer to what the hits say than one they refer to.
        let filled = self.fill_gaps(&hits, self.config.hop_slots).await?;
        let followed = self.follow(&hits, self.config.hop_slots - filled.len()).await?;
        hits.extend(filled);
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
    pub(super) async fn meant(&self, models: &M, unknown: &[(String, String)], vectors: &[Vec<f32>], hits: &[Hit]) -> Result<Vec<String>, ModelError> {
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
    pub(super) async fn rewrite(&self, question: &str, ask: &Ask, vocabulary: &Vocabulary, focus: &Focus, hits: &[Hit], f: &mut Findings<'_>) -> Result<Result<Option<(Vec<Hit>, String)>, ModelError>, ApiError> {
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
    pub(super) async fn rewrite_query(&self, question: &str, ask: &Ask, vocabulary: &Vocabulary, focus: &Focus, hits: &[Hit], f: &mut Findings<'_>) -> Result<Option<(String, Vec<(String, String)>)>, ModelError> {
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

    pub(super) fn query<'q>(&self, terms: &'q [String], expression: &'q str, k: usize) -> Query<'q> {
        Query { terms, expression, k, heading_weight: self.config.heading_weight }
    }

    /// The passages between two hits of one section (see [`retrieve::gaps`]),
    /// at most `slots` of them, scored as the lowest hit.
    pub(super) async fn fill_gaps(&self, hits: &[Hit], slots: usize) -> Result<Vec<Hit>, ApiError> {
        let ids: Vec<String> = retrieve::gaps(hits).into_iter().take(slots).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let stored = self.corpus.passages(&self.scope, &ids).await?;
        let lowest = hits.iter().map(|h| h.score).fold(f64::INFINITY, f64::min);
        Ok(stored
            .into_iter()
            .map(|h| Hit { id: h.id, doc: h.doc, section: h.section, text: h.text, score: lowest, lexical_rank: None, vector_rank: None, origin: h.origin, via: None })
            .collect())
    }

    /// One hop: the passages the hits refer to, in the `slots` left of those reserved.
    pub(super) async fn follow(&self, hits: &[Hit], slots: usize) -> Result<Vec<Hit>, ApiError> {
        if slots == 0 || hits.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
        let references = self.corpus.references(&self.scope, &ids).await?;
        Ok(retrieve::follow(hits, &references, slots, self.config.hop_decay))
    }

    /// No evidence to weigh: no passage shares a term with the question (the
    /// vector matches under `VECTOR_MIN_SCORE` never enter the fusion, see
    /// [`Pipeline::retrieve`]; the words of the passages that do decide),
    /// unless every word of the question lies near a retrieved passage in
    /// meaning (`focus`: "the address of *the space*", where the corpus says
    /// "Harbor Commons").
    pub(super) fn weak_vectors(&self, vector: Option<&[(String, f64)]>, lexical_count: usize, focus: &Focus) -> Option<String> {
        let vector = vector?;
        if !focus.is_empty() && focus.terms.iter().all(|t| t.by_meaning) && vector.first().is_some_and(|(_, s)| *s >= self.config.vector_min_score) {
            return None;
        }
        let best = vector.first().map_or(f64::NEG_INFINITY, |(_, s)| *s);
        match (lexical_count, best < self.config.vector_min_score) {
            (0, true) => Some(format!("no passage shares a term with the question, and the best vector match {best:.2} is under the floor {:.2}", self.config.vector_min_score)),
            (0, false) => Some("no passage shares a term with the question".to_string()),
            _ => None,
        }
    }

    /// Lexical and vector lists fused by reciprocal rank, cut to `top_k`.
    pub(super) async fn fuse(&self, lexical: Vec<StoredHit>, vector: Option<&[(String, f64)]>, k: usize) -> Result<Vec<Hit>, ApiError> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::response::Origin;

    /// Read by meaning: first the words the corpus never uses, then those
    /// the passages found lack; never a number.
    #[test]
    fn the_words_read_by_meaning_are_those_no_passage_found_holds() {
        let keyed = text::keyed_terms("If the EDITOR variable is unset, which editor should start in 2 cases?");
        let doc_freqs: Vec<u32> = keyed.iter().map(|(t, _)| if t == "unset" { 0 } else { 3 }).collect();
        let hit = StoredHit { id: "p-01".into(), doc: "p".into(), section: "Editors".into(), text: "When EDITOR is not set, programs use the editor.".into(), origin: Origin::Corpus };
        let lookup = Lookup { total_passages: 9, doc_freqs, hits: vec![hit] };
        let words: Vec<String> = unheld_words(&keyed, &lookup).into_iter().map(|(_, w)| w).collect();
        assert_eq!(words, ["unset", "variable", "start", "cases"]);
    }
}
