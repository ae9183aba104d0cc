//! What makes a question specific, and whether the evidence covers it.
//!
//! A verbatim sentence from the corpus is always "supported"; it is still a
//! fabricated answer when it does not answer the question asked. So every gate
//! weighs the question's own terms: rare terms weigh most (they are what the
//! question is about), and a term the corpus never mentions at all is decisive.

use crate::stages::retrieve::Hit;
use crate::text::{self, Quantity};

/// One term of the question with its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct FocusTerm {
    pub term: String,
    /// The word as the question wrote it, for messages.
    pub word: String,
    /// Passages containing the term.
    pub doc_freq: u32,
    /// Inverse document frequency: how much the term narrows the question.
    pub weight: f64,
    /// A word the corpus never uses that frames the question ("the coworking
    /// space") rather than naming what it asks (see [`Focus::framed`]).
    pub framing: bool,
    /// A word whose meaning lies near a retrieved passage (Workers AI):
    /// covered wherever that passage is (see [`Focus::meant`]).
    pub by_meaning: bool,
}

/// The question's terms, weighted by how specific they are in this corpus.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Focus {
    pub terms: Vec<FocusTerm>,
}

impl Focus {
    /// Weights each term by `ln(1 + N / (df + 0.5))`, N the passage count, so a
    /// term in every passage weighs little and an unseen one the most. Numbers are
    /// left out: "6:00" must not be matched by "6 monitors"; quantities are checked
    /// by [`crate::stages::question`] and the sanity caps instead.
    pub fn new(terms: &[(String, String)], doc_freqs: &[u32], total_passages: u32) -> Focus {
        let n = f64::from(total_passages.max(1));
        let terms = terms
            .iter()
            .zip(doc_freqs)
            // "9pm", "24x7": numbers with a unit, checked as quantities, not words.
            .filter(|((term, _), _)| term.chars().any(char::is_alphabetic) && !term.chars().any(|c| c.is_ascii_digit()))
            .map(|((term, word), &df)| FocusTerm {
                term: term.clone(),
                word: word.clone(),
                doc_freq: df,
                weight: (1.0 + n / (f64::from(df) + 0.5)).ln(),
                framing: false,
                by_meaning: false,
            })
            .collect();
        Focus { terms }
    }

    /// Marks the words the corpus never uses that are not the question's
    /// core (`core`: its names and the head of the asked relation) as framing:
    /// a visitor's own word for the place or thing ("the coworking space",
    /// "on the website") is not what is asked, so it does not decide alone.
    /// It weighs what the question's most common known term weighs: a word no
    /// passage holds tells nothing about where the answer is, and still
    /// lowers coverage. A question all of whose words are unknown keeps them
    /// decisive.
    pub fn framed(mut self, core: &[String]) -> Focus {
        let Some(least) = self.terms.iter().filter(|t| t.doc_freq > 0).map(|t| t.weight).min_by(f64::total_cmp) else {
            return self;
        };
        for t in self.terms.iter_mut().filter(|t| t.doc_freq == 0 && !core.contains(&t.term)) {
            t.framing = true;
            t.weight = least;
        }
        self
    }

    /// Keeps the spelling of each word the corpus uses (`variants`, see
    /// [`text::spelling_variants`]): the closed-up spelling is dropped when
    /// the corpus never uses it and uses every part ("gpllicensed" for "GPL"
    /// and "licensed"), and the parts the corpus never uses when it uses the
    /// closed-up one ("back" for "backup").
    pub fn spelled(mut self, variants: &[(String, Vec<String>)]) -> Focus {
        let known = |t: &str| self.terms.iter().any(|f| f.term == t && f.doc_freq > 0);
        let mut drop: Vec<String> = Vec::new();
        for (closed, parts) in variants {
            if known(closed) {
                drop.extend(parts.iter().filter(|p| !known(p)).cloned());
            } else if parts.iter().all(|p| known(p)) {
                drop.push(closed.clone());
            }
        }
        self.terms.retain(|t| !drop.contains(&t.term));
        self
    }

    /// Keeps one form of each place (`places`: the question's own form's
    /// term and another's, see [`text::places::forms`]): the question's own
    /// when the corpus writes it, else the other when the corpus writes that.
    pub fn placed(mut self, places: &[(String, String)]) -> Focus {
        let known = |t: &str| self.terms.iter().any(|f| f.term == t && f.doc_freq > 0);
        let drop: Vec<String> = places.iter().map(|(own, other)| if known(own) || !known(other) { other.clone() } else { own.clone() }).collect();
        self.terms.retain(|t| !drop.contains(&t.term));
        self
    }

    /// Marks the words whose meaning a retrieved passage holds (`meant`,
    /// read by the embedding model): they count as covered, a framing word
    /// ("coworking"), the head of the asked relation ("who do I *talk* to",
    /// "can you *shut* my account") and a word the passage says otherwise
    /// ("unset" for "not set") alike. A name (`names`) never does: a plan
    /// the corpus never names is none of its plans, however near in meaning.
    pub fn meant(mut self, meant: &[String], names: &[String]) -> Focus {
        for t in self.terms.iter_mut().filter(|t| meant.contains(&t.term) && !names.contains(&t.term)) {
            t.by_meaning = true;
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// A salient term weighs at least the mean of the question's terms: it is part of
    /// what the question is about, not a word most passages share.
    pub fn is_salient(&self, term: &str) -> bool {
        let mean = self.terms.iter().map(|t| t.weight).sum::<f64>() / self.terms.len().max(1) as f64;
        // The epsilon keeps equal weights salient despite rounding in the mean.
        self.terms.iter().any(|t| t.term == term && t.weight >= mean - 1e-9)
    }

    /// The question's terms no passage of the corpus contains.
    pub fn unused(&self) -> Vec<String> {
        self.terms.iter().filter(|t| t.doc_freq == 0).map(|t| t.term.clone()).collect()
    }

    /// Words of the question's core no passage of the corpus contains, nor
    /// a retrieved one holds in meaning.
    pub fn unknown(&self) -> Vec<&str> {
        self.terms.iter().filter(|t| t.doc_freq == 0 && !t.framing && !t.by_meaning).map(|t| t.word.as_str()).collect()
    }

    /// The weighted share of the question's terms found in `present` (0..=1).
    pub fn coverage(&self, present: &[String]) -> f64 {
        let total: f64 = self.terms.iter().map(|t| t.weight).sum();
        if total == 0.0 {
            return 0.0;
        }
        let covered: f64 = self.terms.iter().filter(|t| t.by_meaning || present.contains(&t.term)).map(|t| t.weight).sum();
        covered / total
    }

    /// The question's words whose terms are missing from `present`, most specific first.
    pub fn missing(&self, present: &[String]) -> Vec<&str> {
        let mut missing: Vec<&FocusTerm> = self.terms.iter().filter(|t| !t.by_meaning && !present.contains(&t.term)).collect();
        missing.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        missing.into_iter().map(|t| t.word.as_str()).collect()
    }
}

/// The evidence gate's decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// Enough of the question is covered to compose an answer.
    Sufficient { coverage: f64 },
    /// Refuse before composing (or paying for) an answer; `why` is shown.
    /// `weak`: passages were found but cover too little of the question, the
    /// one refusal a second lookup of the uncovered words can undo.
    Insufficient { coverage: f64, why: String, weak: bool },
}

/// Judges whether the retrieved passages, together, cover the question.
/// `asked` holds the numbers the question states: a question made of numbers
/// and at most one word ("What is 12 times 7?") is about its numbers, and
/// passages that state none of them are no evidence for it.
pub fn judge(focus: &Focus, asked: &[Quantity], hits: &[Hit], min_coverage: f64) -> Evidence {
    if focus.is_empty() && asked.is_empty() {
        return Evidence::Insufficient { coverage: 0.0, why: "the question names nothing to look up".into(), weak: false };
    }
    if !asked.is_empty() && focus.terms.len() <= 1 {
        let stated: Vec<Quantity> = hits.iter().flat_map(|h| text::quantities(&h.text)).collect();
        if !asked.iter().any(|q| stated.iter().any(|s| q.agrees_with(s))) {
            let written: Vec<&str> = asked.iter().map(|q| q.written.as_str()).collect();
            return Evidence::Insufficient { coverage: 0.0, why: format!("no passage states {}", written.join(", ")), weak: false };
        }
    }
    if focus.is_empty() {
        return Evidence::Insufficient { coverage: 0.0, why: "the question names nothing to look up".into(), weak: false };
    }
    let unknown = focus.unknown();
    if !unknown.is_empty() {
        return Evidence::Insufficient {
            coverage: 0.0,
            why: format!("the corpus never mentions: {}", unknown.join(", ")),
            weak: false,
        };
    }
    if hits.is_empty() {
        return Evidence::Insufficient { coverage: 0.0, why: "no passage matches the question".into(), weak: false };
    }
    let present: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
    let coverage = focus.coverage(&present);
    if coverage < min_coverage {
        return Evidence::Insufficient {
            coverage,
            why: format!(
                "the passages cover {:.0}% of the question (need {:.0}%); missing: {}",
                coverage * 100.0,
                min_coverage * 100.0,
                focus.missing(&present).join(", ")
            ),
            weak: true,
        };
    }
    Evidence::Sufficient { coverage }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, text: &str) -> Hit {
        Hit {
            id: id.into(),
            doc: "d".into(),
            section: "S".into(),
            text: text.into(),
            score: 1.0,
            lexical_rank: Some(1),
            ..Hit::default()
        }
    }

    fn judge_q(focus: &Focus, hits: &[Hit], min_coverage: f64) -> Evidence {
        judge(focus, &[], hits, min_coverage)
    }

    fn focus(question: &str, df: &[u32]) -> Focus {
        Focus::new(&text::keyed_terms(question), df, 50)
    }

    /// Numbers and one common word: passages that state none of the numbers
    /// (only the word) are no evidence; one that states them is.
    #[test]
    fn a_question_of_numbers_needs_its_numbers() {
        let asked = text::quantities("What is 12 times 7?");
        let times = focus("times", &[9]);
        let verdict = judge(&times, &asked, &[hit("a", "The printer prints at most 300 pages at a time.")], 0.6);
        assert!(matches!(verdict, Evidence::Insufficient { ref why, .. } if why == "no passage states 12, 7"), "{verdict:?}");
        assert!(matches!(judge(&times, &asked, &[hit("a", "Each pack holds 12 cards, 7 times a year.")], 0.6), Evidence::Sufficient { .. }));
        let desk = focus("dedicated desk cost", &[2, 2, 9]);
        let hits = [hit("p", "A Dedicated Desk costs $450 per month.")];
        assert!(matches!(judge(&desk, &text::quantities("for 3 months"), &hits, 0.6), Evidence::Sufficient { .. }), "words decide there");
    }

    #[test]
    fn numbers_are_not_focus_terms() {
        let f = focus("open at 6:00", &[4, 1, 1]);
        assert_eq!(f.terms.iter().map(|t| t.term.as_str()).collect::<Vec<_>>(), ["open"]);
    }

    #[test]
    fn rare_terms_weigh_more() {
        let f = focus("desk cost", &[3, 40]);
        assert!(f.terms[0].weight > f.terms[1].weight);
        assert!(f.coverage(&["desk".into()]) > 0.5);
        assert_eq!(f.missing(&["cost".into()]), ["desk"]);
    }

    /// A core term the corpus never mentions refuses, however well the rest matches.
    #[test]
    fn unknown_term_refuses() {
        let core = text::terms("rooftop terrace");
        let verdict = judge_q(&focus("rooftop terrace cost", &[0, 0, 9]).framed(&core), &[hit("a", "It costs $5.")], 0.6);
        let Evidence::Insufficient { why, .. } = verdict else { panic!("{verdict:?}") };
        assert_eq!(why, "the corpus never mentions: rooftop, terrace");
    }

    /// A place is read in the form the corpus writes: "Europe" where it
    /// writes only "European", "Europe" itself where it writes that.
    #[test]
    fn a_place_is_read_in_the_form_the_corpus_writes() {
        let core = text::terms("europe");
        let places = [(text::terms("Europe").remove(0), text::terms("European").remove(0))];
        let only_other = focus("data europe european", &[3, 0, 2]).placed(&places).framed(&core);
        assert!(only_other.unknown().is_empty());
        assert_eq!(only_other.terms.len(), 2);
        let own = focus("data europe european", &[3, 2, 2]).placed(&places);
        assert_eq!(own.terms.iter().map(|t| t.word.as_str()).collect::<Vec<_>>(), ["data", "europe"]);
        let neither = focus("data europe european", &[3, 0, 0]).placed(&places).framed(&core);
        assert_eq!(neither.unknown(), ["europe"]);
    }

    /// A visitor's own word for the place frames the question: it lowers
    /// coverage, as the question's most common word would, and decides nothing
    /// alone; the same word at the question's core still refuses.
    #[test]
    fn an_unknown_framing_word_lowers_coverage_only() {
        let hits = [hit("conduct-03", "Dogs are allowed only on Fridays, and dogs must be kept on a leash.")];
        let framed = focus("dog allowed coworking", &[1, 6, 0]).framed(&[]);
        assert!(framed.unknown().is_empty());
        let Evidence::Sufficient { coverage } = judge_q(&framed, &hits, 0.6) else { panic!("framing word decided") };
        assert!(coverage < 1.0 && coverage > 0.6, "{coverage}");
        let core = focus("dog allowed coworking", &[1, 6, 0]).framed(&text::terms("coworking"));
        assert!(matches!(judge_q(&core, &hits, 0.6), Evidence::Insufficient { .. }));
        let all_unknown = focus("rooftop terrace", &[0, 0]).framed(&[]);
        assert_eq!(all_unknown.unknown(), ["rooftop", "terrace"]);
    }

    /// Read by meaning (Workers AI), a word the corpus never uses is covered
    /// when a retrieved passage holds its sense, the head of the asked
    /// relation too ("who do I *talk* to"); a name never is.
    #[test]
    fn an_unknown_word_near_a_passage_in_meaning_is_covered() {
        let hits = [hit("pricing-03", "Private office requests are handled by the community manager.")];
        let talk = focus("talk private office", &[0, 3, 5]).framed(&text::terms("talk")).meant(&text::terms("talk"), &[]);
        assert!(talk.unknown().is_empty());
        assert!(matches!(judge_q(&talk, &hits, 0.6), Evidence::Sufficient { .. }));
        let far = focus("talk private office", &[0, 3, 5]).framed(&text::terms("talk")).meant(&[], &[]);
        assert_eq!(far.unknown(), ["talk"], "not near any passage: still unknown");
        let named = focus("platinum plan", &[0, 9]).framed(&text::terms("platinum")).meant(&text::terms("platinum"), &text::terms("platinum"));
        assert_eq!(named.unknown(), ["platinum"], "a name is never read by meaning");
    }

    /// The near miss: payments are covered, the fee is not.
    #[test]
    fn partial_coverage_refuses() {
        let hits = [hit("refunds-02", "Payment is due on the 1st of each month.")];
        let verdict = judge_q(&focus("late payment fee", &[2, 5, 3]), &hits, 0.6);
        assert!(matches!(verdict, Evidence::Insufficient { coverage, .. } if coverage < 0.6), "{verdict:?}");
    }

    #[test]
    fn covered_question_passes() {
        let hits = [hit("pricing-03", "A Dedicated Desk costs $450 per month.")];
        let verdict = judge_q(&focus("dedicated desk cost", &[2, 2, 9]), &hits, 0.6);
        assert_eq!(verdict, Evidence::Sufficient { coverage: 1.0 });
    }

    #[test]
    fn empty_question_terms_and_no_hits_refuse() {
        assert!(matches!(judge_q(&Focus::default(), &[], 0.6), Evidence::Insufficient { .. }));
        assert!(matches!(judge_q(&focus("desk", &[2]), &[], 0.6), Evidence::Insufficient { .. }));
    }
}
