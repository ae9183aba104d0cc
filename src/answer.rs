//! The local engine's answerer: quotes, verbatim, the fewest sentences of the
//! retrieved passages that together cover the question's terms. It never writes a
//! word of its own, so every claim it makes can be checked against its source.

use crate::evidence::Focus;
use crate::intent::{self, Expected};
use crate::retrieve::Hit;
use crate::text;

/// A sentence quoted from a passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    pub passage_id: String,
    pub sentence: String,
}

/// A further sentence must add at least this share of the question's weight;
/// otherwise it is padding that dilutes the answer.
const MIN_EXTRA_GAIN: f64 = 0.15;

struct Candidate<'a> {
    hit_rank: usize,
    position: usize,
    passage_id: &'a str,
    sentence: &'a str,
    terms: Vec<String>,
}

/// Picks sentences greedily by the question weight they add (a weighted set
/// cover), at most `max_sentences`, and returns them in reading order. Among
/// sentences adding the same weight, one that states the kind of fact the
/// question asks for (`expected`) wins.
///
/// The first sentence anchors the answer. A further sentence must come from the
/// anchor's passage or share a salient question term with the anchor: otherwise
/// sentences about different things could be stitched together to cover every
/// term of a question that nothing answers ("private office" + "costs $40").
pub fn extract(focus: &Focus, expected: Option<Expected>, hits: &[Hit], max_sentences: usize) -> Vec<Quote> {
    let candidates: Vec<Candidate> = hits
        .iter()
        .enumerate()
        .flat_map(|(hit_rank, hit)| {
            text::sentences(&hit.text).into_iter().enumerate().map(move |(position, sentence)| Candidate {
                hit_rank,
                position,
                passage_id: &hit.id,
                sentence,
                terms: text::distinct_terms(sentence),
            })
        })
        .collect();

    let mut covered: Vec<String> = Vec::new();
    let mut chosen: Vec<&Candidate> = Vec::new();
    while chosen.len() < max_sentences {
        let base = focus.coverage(&covered);
        let best = candidates
            .iter()
            .filter(|c| !chosen.iter().any(|p| std::ptr::eq(*p, *c)))
            .filter(|c| chosen.first().is_none_or(|anchor| linked(focus, anchor, c)))
            .map(|c| {
                let with: Vec<String> = covered.iter().chain(&c.terms).cloned().collect();
                let states = expected.is_some_and(|kind| intent::satisfied(kind, c.sentence));
                (focus.coverage(&with) - base, states, c)
            })
            // Highest gain; then the sentence stating what was asked; then the
            // earlier passage and sentence.
            .max_by(|a, b| {
                a.0.total_cmp(&b.0)
                    .then(a.1.cmp(&b.1))
                    .then((b.2.hit_rank, b.2.position).cmp(&(a.2.hit_rank, a.2.position)))
            });
        let Some((gain, _, candidate)) = best else { break };
        let threshold = if chosen.is_empty() { 0.0 } else { MIN_EXTRA_GAIN };
        if gain <= threshold {
            break;
        }
        covered.extend(candidate.terms.iter().cloned());
        chosen.push(candidate);
    }
    chosen.sort_by_key(|c| (c.hit_rank, c.position));
    chosen
        .into_iter()
        .map(|c| Quote { passage_id: c.passage_id.to_string(), sentence: c.sentence.to_string() })
        .collect()
}

/// Same passage as the anchor, or a shared salient question term.
fn linked(focus: &Focus, anchor: &Candidate, candidate: &Candidate) -> bool {
    anchor.passage_id == candidate.passage_id
        || candidate.terms.iter().any(|t| anchor.terms.contains(t) && focus.is_salient(t))
}

/// The answer text: the quotes in order.
pub fn compose(quotes: &[Quote]) -> String {
    quotes.iter().map(|q| q.sentence.as_str()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, text: &str) -> Hit {
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, lexical_rank: None, vector_rank: None }
    }

    fn focus(question: &str) -> Focus {
        let terms = text::keyed_terms(question);
        let dfs = vec![1; terms.len()];
        Focus::new(&terms, &dfs, 40)
    }

    #[test]
    fn quotes_the_sentence_that_covers_the_question() {
        let hits = [hit("pricing-02", "A Day Pass costs $25. A Day Pass includes coffee and Wi-Fi.")];
        let quotes = extract(&focus("How much does a day pass cost?"), None, &hits, 3);
        assert_eq!(quotes, [Quote { passage_id: "pricing-02".into(), sentence: "A Day Pass costs $25.".into() }]);
    }

    /// A two-part question takes one sentence from each passage, in reading order.
    #[test]
    fn multi_part_questions_combine_passages() {
        let hits = [
            hit("hours-01", "The front desk opens at 8:00 am."),
            hit("pricing-03", "A Dedicated Desk costs $450 per month. Dedicated Desks are by the window."),
        ];
        let quotes = extract(&focus("dedicated desk cost and front desk opening time"), None, &hits, 3);
        let ids: Vec<&str> = quotes.iter().map(|q| q.passage_id.as_str()).collect();
        assert_eq!(ids, ["hours-01", "pricing-03"]);
        assert_eq!(compose(&quotes), "The front desk opens at 8:00 am. A Dedicated Desk costs $450 per month.");
    }

    /// Sentences about other subjects are not stitched on to cover leftover terms.
    #[test]
    fn unrelated_sentences_are_not_stitched_together() {
        let hits = [
            hit("pricing-03", "A private office requires a minimum term of 6 months."),
            hit("membership-04", "The Business Address add-on costs $40 per month."),
        ];
        let terms = text::keyed_terms("How much does a private office cost per month?");
        let focus = Focus::new(&terms, &[3, 3, 9, 20], 52);
        let quotes = extract(&focus, None, &hits, 3);
        assert_eq!(quotes.len(), 1);
        assert_eq!(quotes[0].passage_id, "pricing-03");
    }

    /// Between equally relevant sentences, the one with the asked-for fact wins.
    #[test]
    fn the_sentence_stating_the_asked_fact_wins_a_tie() {
        let hits = [hit("a", "Flex Desk members can use the shared monitors. Flex Desk members can enter from 7:00 am.")];
        let quotes = extract(&focus("Can Flex Desk members come in early?"), Some(Expected::Time), &hits, 1);
        assert_eq!(quotes[0].sentence, "Flex Desk members can enter from 7:00 am.");
    }

    #[test]
    fn nothing_relevant_quotes_nothing() {
        let hits = [hit("a", "Lockers are blue.")];
        assert!(extract(&focus("parking"), None, &hits, 3).is_empty());
        assert!(extract(&focus("lockers"), None, &[], 3).is_empty());
    }
}
