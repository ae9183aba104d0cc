//! The local engine's answerer: quotes, verbatim, the fewest sentences of the
//! retrieved passages that answer the question. It never writes a word of its
//! own, so every claim it makes can be checked against its source.

use crate::stages::evidence::Focus;
use crate::stages::question::{self, Ask};
use crate::stages::retrieve::Hit;
use crate::text;

/// A sentence quoted from a passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    pub passage_id: String,
    pub sentence: String,
}

/// A further sentence must add at least this share of the question's weight
/// (or a name the question asks about); otherwise it is padding.
const MIN_EXTRA_GAIN: f64 = 0.15;

/// The opening words of a sentence, where English puts its subject: a name
/// there is what the sentence is about, not one it merely mentions.
const SUBJECT_WORDS: usize = 6;

struct Candidate<'a> {
    hit_rank: usize,
    position: usize,
    passage_id: &'a str,
    sentence: &'a str,
    terms: Vec<String>,
    names: Vec<String>,
    /// The terms of its opening words ([`SUBJECT_WORDS`]).
    opening: Vec<String>,
}

impl Candidate<'_> {
    fn key(&self) -> (usize, usize) {
        (self.hit_rank, self.position)
    }

    fn opens_with_back_reference(&self) -> bool {
        question::opens_with_back_reference(self.sentence)
    }
}

/// Picks the sentences that answer `ask`: an anchor that could be the core of
/// an answer where one can (else the one covering most of the question), the
/// sentence before it when the anchor opens with a pronoun, and then, up to
/// `max_sentences`, sentences that add question weight, a name the question
/// asks about, or the asked kind of fact. Returned in reading order.
///
/// A further sentence must share a name with a sentence already chosen (the
/// bridge of a two-step question), or, when the anchor names nothing, come
/// from the anchor's passage and share a salient question term with it: so
/// sentences about different people or plans are never stitched together. A
/// name the question itself asks about links sentences of two passages only
/// when one of them is about it (names it in its opening words): two films,
/// in two articles, that each mention the studio asked about are still two
/// subjects. Within one passage, a section of one document, it links as any
/// name does.
pub fn extract(ask: &Ask, focus: &Focus, hits: &[Hit], max_sentences: usize) -> Vec<Quote> {
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
                names: text::names(sentence),
                opening: text::distinct_terms(&sentence.split_whitespace().take(SUBJECT_WORDS).collect::<Vec<_>>().join(" ")),
            })
        })
        .collect();
    let Some(anchor) = best_anchor(ask, focus, &candidates) else { return Vec::new() };
    let mut chosen: Vec<&Candidate> = vec![anchor];
    chosen.extend(antecedent(&candidates, anchor));
    while chosen.len() < max_sentences {
        let covered: Vec<String> = chosen.iter().flat_map(|c| c.terms.iter().cloned()).collect();
        let base = focus.coverage(&covered);
        let names_missing = |cs: &[&Candidate]| ask.names.iter().filter(|n| !cs.iter().any(|c| text::names::mentions(&c.terms, n))).count();
        let missing_now = names_missing(&chosen);
        let kind_stated = chosen.iter().any(|c| ask.states_kind(c.sentence));
        let best = candidates
            .iter()
            .filter(|c| !chosen.iter().any(|p| std::ptr::eq(*p, *c)))
            .filter(|c| chosen.len() + 1 + usize::from(c.opens_with_back_reference()) <= max_sentences)
            .filter(|c| linked(ask, focus, &chosen, c))
            .map(|c| {
                let with: Vec<String> = covered.iter().chain(&c.terms).cloned().collect();
                let mut trial = chosen.clone();
                trial.push(c);
                let names_gained = missing_now - names_missing(&trial);
                let states = !kind_stated && ask.states_kind(c.sentence);
                (focus.coverage(&with) - base, names_gained + usize::from(states), c)
            })
            .filter(|(gain, gained, _)| *gain > MIN_EXTRA_GAIN || *gained > 0)
            // On a tie, a sentence that continues the anchor's passage before one from another.
            .max_by(|a, b| {
                let continues = |c: &Candidate| c.passage_id == anchor.passage_id;
                a.1.cmp(&b.1).then(a.0.total_cmp(&b.0)).then(continues(a.2).cmp(&continues(b.2))).then(b.2.key().cmp(&a.2.key()))
            });
        let Some((_, _, candidate)) = best else { break };
        chosen.push(candidate);
        // A sentence opening with a pronoun comes with the sentence it points back to.
        if let Some(before) = antecedent(&candidates, candidate).filter(|b| !chosen.iter().any(|c| std::ptr::eq(*c, *b))) {
            chosen.push(before);
        }
    }
    chosen.sort_by_key(|c| c.key());
    chosen.into_iter().map(|c| Quote { passage_id: c.passage_id.to_string(), sentence: c.sentence.to_string() }).collect()
}

/// The anchor: among sentences covering some of the question, one that could
/// be the core of an answer ([`Ask::is_core`]) if any, then the one covering
/// most, then one stating the asked fact, then the first ranked.
fn best_anchor<'c>(ask: &Ask, focus: &Focus, candidates: &'c [Candidate<'c>]) -> Option<&'c Candidate<'c>> {
    candidates
        .iter()
        .map(|c| {
            let unit = match antecedent(candidates, c) {
                Some(before) => format!("{} {}", before.sentence, c.sentence),
                None => c.sentence.to_string(),
            };
            (ask.is_core(focus, &unit), focus.coverage(&text::terms(&unit)), ask.states_kind(&unit), c)
        })
        .filter(|(_, coverage, _, _)| *coverage > 0.0)
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)).then(b.3.key().cmp(&a.3.key())))
        .map(|(_, _, _, c)| c)
}

/// The sentence before `c` in its passage, when `c` opens with a pronoun.
fn antecedent<'c>(candidates: &'c [Candidate<'c>], c: &Candidate) -> Option<&'c Candidate<'c>> {
    if !c.opens_with_back_reference() {
        return None;
    }
    candidates.iter().find(|b| b.passage_id == c.passage_id && b.position + 1 == c.position)
}

/// Whether a further sentence may join the chosen ones (see [`extract`]).
fn linked(ask: &Ask, focus: &Focus, chosen: &[&Candidate], candidate: &Candidate) -> bool {
    let asked = |name: &str| {
        let terms = text::terms(name);
        ask.names.iter().any(|q| text::names::mentions(&terms, q) || text::names::mentions(&text::terms(q), name))
    };
    // `name`, from `owner`, links it to `other`.
    let joins = |name: &str, owner: &Candidate, other: &Candidate| {
        text::names::mentions(&other.terms, name)
            && (!asked(name)
                || owner.passage_id == other.passage_id
                || text::names::mentions(&owner.opening, name)
                || text::names::mentions(&other.opening, name))
    };
    let shares_name = chosen.iter().any(|c| {
        candidate.names.iter().any(|n| joins(n, candidate, c)) || c.names.iter().any(|n| joins(n, c, candidate))
    });
    if shares_name {
        return true;
    }
    let anchor = chosen[0];
    if !ask.options.is_empty() || anchor.passage_id != candidate.passage_id {
        return false;
    }
    // The next sentence, naming no other subject, continues the anchor's when it takes up one of its
    // words ("… a free member social … Each member may bring 1 guest to the monthly member social.").
    let next = candidate.position == anchor.position + 1 && candidate.names.iter().all(|n| anchor.names.contains(n));
    let salient = |t: &String| focus.is_salient(t) || (next && !text::stopwords::is_stopword(t));
    (anchor.names.is_empty() || next) && candidate.terms.iter().any(|t| anchor.terms.contains(t) && salient(t))
}

/// The answer text: the quotes in order.
pub fn compose(quotes: &[Quote]) -> String {
    quotes.iter().map(|q| q.sentence.as_str()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::vocabulary::Vocabulary;

    fn hit(id: &str, text: &str) -> Hit {
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, ..Hit::default() }
    }

    fn setup(question: &str) -> (Ask, Focus) {
        let ask = Ask::parse(question, &Vocabulary::default());
        let dfs = vec![1; ask.focus.len()];
        let focus = Focus::new(&ask.focus, &dfs, 40);
        (ask, focus)
    }

    fn extract_for(question: &str, hits: &[Hit]) -> Vec<Quote> {
        let (ask, focus) = setup(question);
        extract(&ask, &focus, hits, 3)
    }

    #[test]
    fn quotes_the_sentence_that_states_the_asked_fact() {
        let hits = [hit("pricing-02", "A Day Pass includes coffee and Wi-Fi. A Day Pass costs $25.")];
        let quotes = extract_for("How much does a day pass cost?", &hits);
        assert_eq!(quotes, [Quote { passage_id: "pricing-02".into(), sentence: "A Day Pass costs $25.".into() }]);
    }

    /// A two-part question takes one sentence from each passage, in reading order.
    #[test]
    fn multi_part_questions_combine_passages() {
        let hits = [
            hit("hours-01", "The Front Desk opens at 8:00 am."),
            hit("pricing-03", "A Dedicated Desk costs $450 per month. Dedicated Desks are by the window."),
        ];
        let quotes = extract_for("What does a Dedicated Desk cost, and when does the Front Desk open?", &hits);
        let ids: Vec<&str> = quotes.iter().map(|q| q.passage_id.as_str()).collect();
        assert_eq!(ids.len(), 1, "different subjects are not stitched together: {ids:?}");
        let linked = [hit("pricing-03", "A Dedicated Desk costs $450 per month. A Dedicated Desk member gets 10 meeting-room hours.")];
        let quotes = extract_for("What does a Dedicated Desk cost and how many meeting-room hours come with it?", &linked);
        assert_eq!(quotes.len(), 2);
    }

    /// Sentences about other subjects are not stitched on to cover leftover terms.
    #[test]
    fn unrelated_sentences_are_not_stitched_together() {
        let hits = [
            hit("pricing-03", "A private office requires a minimum term of 6 months."),
            hit("membership-04", "The Business Address add-on costs $40 per month."),
        ];
        let quotes = extract_for("How much does a private office cost per month?", &hits);
        assert_eq!(quotes.len(), 1);
    }

    /// A two-step question: the sentences share the bridge name.
    #[test]
    fn a_bridge_name_links_two_sentences() {
        let hits = [hit(
            "entry-7",
            "The film Harbor Lights stars Ada Brook as a sailor. Ada Brook later served as Mayor of Larkport.",
        )];
        let quotes = extract_for("What office did the star of Harbor Lights serve as?", &hits);
        assert_eq!(quotes.len(), 2, "{quotes:?}");
    }

    /// Two articles that each mention the studio asked about are two subjects;
    /// within one article the same sentences may be read together.
    #[test]
    fn a_name_asked_about_does_not_stitch_two_articles() {
        let question = "For how many years did the Larkport Studios era that Harbor Lights was released in last?";
        let first = "Harbor Lights is a 1999 drama film produced by Larkport Studios.";
        let second = "Quiet Tides, released in 1973, was the last film of the Larkport Studios era.";
        let quotes = extract_for(question, &[hit("films-1", first), hit("films-2", second)]);
        assert_eq!(quotes.len(), 1, "{quotes:?}");
        let quotes = extract_for(question, &[hit("films-1", &format!("{first} {second}"))]);
        assert_eq!(quotes.len(), 2, "{quotes:?}");
    }

    /// The anchor's next sentence continues its subject, before a rule of another passage that names the same place.
    #[test]
    fn the_next_sentence_continues_the_anchors_subject() {
        let hits = [
            hit("visits-1", "Each member may bring up to 3 friends to Larkport Library on weekdays."),
            hit("events-1", "Larkport Library runs a poetry evening for members on Mondays. Each member may bring 1 friend along."),
        ];
        let quotes = compose(&extract_for("Can I bring my partner to the poetry evening on Mondays?", &hits));
        assert!(quotes.contains("1 friend") && !quotes.contains("3 friends"), "{quotes}");
    }

    #[test]
    fn a_sentence_opening_with_a_pronoun_brings_the_one_before() {
        let hits = [hit("p", "Peggy Seeger is a folksinger. She has lived in Britain for 30 years.")];
        let quotes = extract_for("How long has Peggy Seeger lived in Britain?", &hits);
        assert_eq!(compose(&quotes), "Peggy Seeger is a folksinger. She has lived in Britain for 30 years.");
    }

    #[test]
    fn nothing_relevant_quotes_nothing() {
        let hits = [hit("a", "Lockers are blue.")];
        assert!(extract_for("parking", &hits).is_empty());
        assert!(extract_for("lockers", &[]).is_empty());
    }
}
