//! Per-claim checking against the retrieved passages: a lexical entailment
//! score, then deterministic sanity caps that no score can talk its way past.
//!
//! - entailment: 1.0 for a verbatim quote; otherwise the share of the claim's
//!   terms the passage contains, and the same share over only the terms that
//!   do not echo the question (the words that carry the claim's new fact),
//!   whichever is lower. A right answer is not penalised for question words
//!   the passage phrases differently; a new fact the passage lacks is caught.
//! - sanity caps: every quantity (compared as a value with its unit) and every
//!   name (in any case) of the claim must appear in the passage; a claim's
//!   names and numbers must meet in one source sentence; quoted text must exist
//!   verbatim; and a negation or antonym flip against the closest source
//!   sentence is a contradiction.

use crate::stages::retrieve::Hit;
use crate::text::{self, names};

/// A score above this supports a claim on its own.
pub const SUPPORT_FLOOR: f64 = 0.7;
/// Ceiling for a claim stating a quantity its source does not.
pub const QUANTITY_CAP: f64 = 0.2;
/// Ceiling for a claim quoting text its source does not contain.
pub const QUOTE_CAP: f64 = 0.3;
/// Ceiling for a claim naming something (a plan, a room, a person) its source does not.
pub const ENTITY_CAP: f64 = 0.3;
/// Ceiling for a claim whose names and numbers each appear in the source but
/// never together in one sentence, or not with each number after the same name
/// (a "Flex Desk" given the Dedicated Desk's price).
pub const PAIRING_CAP: f64 = 0.35;
/// Ceiling for a claim that contradicts its closest source sentence (a negation
/// or an antonym flipped): below any weakest-claim threshold worth setting.
pub const CONTRADICTION_CAP: f64 = 0.2;

/// Pairs of opposite words: one in the claim where the source says the other
/// is a contradiction. General English antonyms of the kind policies state.
const ANTONYMS: &[(&str, &str)] = &[
    ("open", "closed"), ("allowed", "forbidden"), ("allowed", "prohibited"), ("permitted", "prohibited"),
    ("permitted", "forbidden"), ("included", "excluded"), ("include", "exclude"), ("before", "after"),
    ("increase", "decrease"), ("more", "less"), ("minimum", "maximum"), ("earliest", "latest"), ("above", "below"),
    ("first", "last"), ("always", "never"), ("mandatory", "optional"), ("required", "optional"), ("accept", "reject"),
    ("accepted", "rejected"), ("enabled", "disabled"), ("refundable", "nonrefundable"), ("free", "paid"),
    ("upgrade", "downgrade"), ("inside", "outside"), ("lowest", "highest"), ("higher", "lower"), ("older", "younger"),
    ("largest", "smallest"), ("larger", "smaller"), ("early", "late"), ("win", "lose"), ("won", "lost"),
];

/// A claim scored against the passages.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCheck {
    pub text: String,
    /// Best entailment score before the caps.
    pub entailment: f64,
    /// Score after the sanity caps; this is what the gate reads.
    pub score: f64,
    /// Passages that support the claim (score within reach of the best).
    pub supporting: Vec<String>,
    /// Why caps were applied, for the stage detail.
    pub caps: Vec<String>,
}

/// Share of `terms` found in `among`; 1.0 for no terms (nothing to miss).
fn share(terms: &[String], among: &[String]) -> f64 {
    if terms.is_empty() {
        return 1.0;
    }
    terms.iter().filter(|t| among.contains(t)).count() as f64 / terms.len() as f64
}

/// The answer particles of English: they give a claim its polarity, not its content.
const AFFIRMATIVE_PARTICLES: &[&str] = &["yes", "yeah", "yep"];
const NEGATIVE_PARTICLES: &[&str] = &["no", "nope"];

/// The polarity of an answer that opens with an answer particle: `Some(true)`
/// for "Yes, …", `Some(false)` for "No, …", `None` for any other opening.
pub fn polarity(answer: &str) -> Option<bool> {
    let first = answer.split(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty())?.to_lowercase();
    match first.as_str() {
        w if AFFIRMATIVE_PARTICLES.contains(&w) => Some(true),
        w if NEGATIVE_PARTICLES.contains(&w) => Some(false),
        _ => None,
    }
}

/// Entailment of a claim by one passage's text, before caps. `question` holds
/// the terms of the question the claim answers (empty when there is none).
/// A claim with no words of its own ("yes", "42") claims nothing a passage
/// could lack: it is not held against the answer (its numbers are checked by
/// the caps, and whether it answers the question by the gate).
pub fn entailment(claim: &str, question: &[String], passage: &str) -> f64 {
    let claim_flat = text::squash_whitespace(claim);
    if !claim_flat.is_empty() && text::squash_whitespace(passage).contains(&claim_flat) {
        return 1.0;
    }
    // Numbers are checked as quantities (values with units) by the caps, not as words.
    let claim_terms: Vec<String> = text::distinct_terms(claim)
        .into_iter()
        .filter(|t| !text::is_numeric(t) && polarity(t).is_none())
        .collect();
    let passage_terms = text::terms(passage);
    if claim_terms.is_empty() {
        return 1.0;
    }
    let new: Vec<String> = claim_terms.iter().filter(|t| !question.contains(t)).cloned().collect();
    share(&claim_terms, &passage_terms).min(share(&new, &passage_terms))
}

/// Applies the sanity caps to a score; returns the capped score and the
/// reasons. `known_names` are names the passages use (matched in any case).
pub fn sanity(claim: &str, passage: &str, known_names: &[String], score: f64) -> (f64, Vec<String>) {
    // "Yes, …" / "No, …" answers the question; the clause after it is the claim's statement.
    let claim = without_particle(claim);
    let mut score = score;
    let mut caps = Vec::new();
    let source_quantities = text::quantities(passage);
    let missing: Vec<String> = text::quantities(claim)
        .into_iter()
        .filter(|q| !source_quantities.iter().any(|s| q.agrees_with(s) && counts_alike(claim, q, passage, s)))
        .map(|q| q.written)
        .collect();
    if !missing.is_empty() {
        score = score.min(QUANTITY_CAP);
        caps.push(format!("{} not in the source", missing.join(", ")));
    }
    let source_terms = text::terms(passage);
    let claim_names = names::named_in(claim, known_names);
    let unnamed: Vec<String> = claim_names.iter().filter(|n| !names::mentions(&source_terms, n)).cloned().collect();
    if !unnamed.is_empty() {
        score = score.min(ENTITY_CAP);
        caps.push(format!("{} not named in the source", unnamed.join(", ")));
    }
    if unnamed.is_empty() && missing.is_empty() && !paired_in_a_window(claim, &claim_names, known_names, passage) {
        score = score.min(PAIRING_CAP);
        caps.push("its names and numbers never appear together, each number after the same name, in one source sentence or two that run on".into());
    }
    for quoted in quoted_spans(claim) {
        if !text::squash_whitespace(passage).contains(&text::squash_whitespace(quoted)) {
            score = score.min(QUOTE_CAP);
            caps.push(format!("quoted text {quoted:?} not in the source"));
        }
    }
    if let Some(why) = text::clauses_of(claim).into_iter().find_map(|clause| aligned_clause(clause, passage).and_then(|source| contradiction(clause, source))) {
        score = score.min(CONTRADICTION_CAP);
        caps.push(why);
    }
    (score, caps)
}

/// A bare count goes with the noun it counts: "1 meeting-room hour" is not
/// stated by "one person". When the claim writes words after a plain number,
/// one of them must follow the same number in the source (within three
/// words, so "300 printed pages" meets "300 black-and-white pages"). Numbers
/// with a unit (money, time, percent) carry their noun in the unit.
fn counts_alike(claim: &str, q: &text::Quantity, passage: &str, s: &text::Quantity) -> bool {
    if q.unit != text::Unit::Plain {
        return true;
    }
    let after = |text: &str, written: &str| -> Vec<Vec<String>> {
        let lower = text.to_lowercase();
        let written = written.to_lowercase();
        lower.match_indices(&written).map(|(at, _)| lower[at + written.len()..].split_whitespace().take(3).flat_map(text::terms).collect()).collect()
    };
    let Some(counted) = after(claim, &q.written).into_iter().next().filter(|t| !t.is_empty()) else { return true };
    after(passage, &s.written).iter().any(|source| source.is_empty() || counted.iter().any(|t| source.contains(t)))
}

/// A clause of the claim and a clause of the source say the same thing, up to
/// polarity, when the source clause holds at least this share of the claim
/// clause's terms (and two of them at least): all but a quarter, so that a
/// clause sharing only its subject ("unused hours … roll over" against
/// "unused hours expire") restates nothing.
pub const ALIGNED: f64 = 0.75;

/// The source clause a claim's clause is set against: the one holding most
/// of its terms, if it holds [`ALIGNED`] of them. A clause the source does not
/// state at all ("they don't roll over", where the source says only that they
/// expire) aligns with nothing, so it cannot contradict anything: whether the
/// source supports it is the entailment score's question, not this one's.
fn aligned_clause<'a>(clause: &str, passage: &'a str) -> Option<&'a str> {
    let wanted: Vec<String> = text::distinct_terms(clause).into_iter().filter(|t| !text::is_numeric(t)).collect();
    let (shared, best) = text::clauses_of(passage)
        .into_iter()
        .map(|c| {
            let terms = text::terms(c);
            // A word set against its antonym ("closed" for "open") is the same place in the clause.
            let holds = |t: &String| terms.contains(t) || opposites(t).iter().any(|o| terms.contains(o));
            (wanted.iter().filter(|t| holds(t)).count(), c)
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(std::cmp::Ordering::Greater))?;
    (shared >= 2 && shared as f64 >= ALIGNED * wanted.len() as f64).then_some(best)
}

/// A claim without its opening answer particle ("No, the desk is …" is "the desk is …").
pub fn without_particle(claim: &str) -> &str {
    let trimmed = claim.trim_start();
    let first = trimmed.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    if !first.is_empty() && polarity(first).is_some() {
        let rest = trimmed[first.len()..].trim_start_matches([',', '.', '!', ';', ':', ' ']);
        if !rest.is_empty() {
            return rest;
        }
    }
    trimmed
}

/// The auxiliary and modal verbs: a claim with one of them (or a negation)
/// is a statement that could have been negated; a claim without is a phrase
/// ("Saturday Night Live", "professional tennis player") with no polarity.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "has", "have", "had", "can", "could", "will",
    "would", "shall", "should", "may", "might", "must",
];

/// The terms of a term's antonyms in [`ANTONYMS`].
fn opposites(term: &str) -> Vec<String> {
    ANTONYMS
        .iter()
        .flat_map(|&(a, b)| [(a, b), (b, a)])
        .filter(|(said, _)| text::stem(said) == term)
        .map(|(_, opposite)| text::stem(opposite))
        .collect()
}

/// A negation or antonym flip of a claim's clause against the source clause it aligns with.
fn contradiction(claim: &str, sentence: &str) -> Option<String> {
    let statement = text::negations(claim) > 0 || lower_words(claim).iter().any(|w| AUXILIARIES.contains(&w.as_str()));
    if statement && text::negations(claim) != text::negations(sentence) {
        return Some("negation differs from the source".into());
    }
    let (claim_words, source_words) = (lower_words(claim), lower_words(sentence));
    let has = |words: &[String], w: &str| words.iter().any(|x| x == w);
    ANTONYMS.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).find_map(|(said, opposite)| {
        let flipped = has(&claim_words, said)
            && !has(&claim_words, opposite)
            && has(&source_words, opposite)
            && !has(&source_words, said);
        flipped.then(|| format!("says {said:?} where the source says {opposite:?}"))
    })
}

fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Scores a claim against every passage and keeps the best. `question` holds
/// the question's terms (see [`entailment`]).
pub fn check(claim: &str, question: &[String], passages: &[Hit]) -> ClaimCheck {
    let known = known_names(passages);
    let scored: Vec<(&str, f64, f64, Vec<String>)> = passages
        .iter()
        .map(|p| {
            let raw = entailment(claim, question, &p.text);
            let (capped, caps) = sanity(claim, &p.text, &known, raw);
            (p.id.as_str(), raw, capped, caps)
        })
        .collect();
    let Some(best) = scored.iter().max_by(|a, b| a.2.total_cmp(&b.2).then(b.1.total_cmp(&a.1))) else {
        return ClaimCheck { text: claim.into(), entailment: 0.0, score: 0.0, supporting: vec![], caps: vec![] };
    };
    let supporting = scored
        .iter()
        .filter(|s| s.2 > 0.0 && (s.2 >= SUPPORT_FLOOR || s.2 >= best.2 - 1e-9))
        .map(|s| s.0.to_string())
        .collect();
    ClaimCheck { text: claim.into(), entailment: best.1, score: best.2, supporting, caps: best.3.clone() }
}

/// Every name the passages use, so a claim's names are found in any case.
pub fn known_names(passages: &[Hit]) -> Vec<String> {
    let mut known: Vec<String> = Vec::new();
    for p in passages {
        for name in text::names(&format!("{}. {}", p.section, p.text)) {
            if !known.contains(&name) {
                known.push(name);
            }
        }
    }
    known
}

/// The passage sentence sharing the most terms with the claim (the claim
/// itself, when the passage quotes it verbatim).
pub fn closest_sentence<'a>(claim: &str, passage: &'a str) -> Option<&'a str> {
    let claim_flat = text::squash_whitespace(claim);
    if let Some(same) = text::sentences(passage).into_iter().find(|s| text::squash_whitespace(s) == claim_flat) {
        return Some(same);
    }
    let claim_terms = text::distinct_terms(claim);
    text::sentences(passage)
        .into_iter()
        .map(|s| {
            let terms = text::distinct_terms(s);
            (claim_terms.iter().filter(|t| terms.contains(t)).count(), s)
        })
        .filter(|(shared, _)| *shared > 0)
        // Most shared terms; among equals the first sentence.
        .max_by(|a, b| a.0.cmp(&b.0).then(std::cmp::Ordering::Greater))
        .map(|(_, s)| s)
}

/// True when the source binds the claim's values and names as the claim
/// does. A number goes with the name written before it: where the source
/// writes the same value after a name (in its sentence, or the sentence it
/// runs on from), the claim must write it after the same name ("$450" goes
/// with "Dedicated Desk", not "Flex Desk"); where the source binds it to no
/// name, any name the passage holds may carry it. And the claim's names must
/// meet in one stretch of the source, with at least half of its other words
/// ("the Event Hall" put on a rule about every event is a swap): one
/// sentence for a claim relating two names, or, for a claim about one, also
/// two sentences where the second runs on from the first (see [`runs_on`]).
/// A claim without names is left to the quantity check.
fn paired_in_a_window(claim: &str, claim_names: &[String], known_names: &[String], passage: &str) -> bool {
    if claim_names.is_empty() {
        return true;
    }
    let all_names: Vec<String> = claim_names.iter().chain(known_names).cloned().collect();
    if !text::quantities(claim).iter().all(|q| bound_alike(claim, q, &all_names, passage)) {
        return false;
    }
    let name_terms: Vec<String> = claim_names.iter().flat_map(|n| text::terms(n)).collect();
    let said: Vec<String> = text::distinct_terms(claim).into_iter().filter(|t| !name_terms.contains(t) && !text::is_numeric(t)).collect();
    // Two names in one claim are a relation between them: one sentence must
    // state it. One name is a subject, and the sentence that runs on may add to it.
    let stretches = if claim_names.len() == 1 { windows(passage) } else { text::sentences(passage).into_iter().map(str::to_string).collect() };
    stretches.iter().any(|window| {
        let terms = text::terms(window);
        claim_names.iter().all(|n| names::mentions(&terms, n)) && share(&said, &terms) >= 0.5
    })
}

/// The claim binds `q` to a name the source writes before the same value
/// (in its sentence, or in the sentence it runs on from), or the source
/// writes the value after no name at all (see [`paired_in_a_window`]). Any
/// name before it counts, not only the nearest: "the Flex Desk plan at
/// Harbor Commons costs $220" binds $220 to the Flex Desk too.
fn bound_alike(claim: &str, q: &text::Quantity, names: &[String], passage: &str) -> bool {
    let Some(said) = bound_name(claim, names, q) else { return true };
    let said_terms = text::terms(said);
    let same = |n: &String| names::mentions(&text::terms(n), said) || names::mentions(&said_terms, n);
    let named_in = |text: &str| -> Vec<&String> {
        let lower = text.to_lowercase();
        names.iter().filter(|n| lower.contains(&n.to_lowercase())).collect()
    };
    let sentences = text::sentences(passage);
    sentences.iter().enumerate().any(|(i, sentence)| {
        let lower = sentence.to_lowercase();
        text::quantities(sentence).into_iter().filter(|s| s.agrees_with(q)).any(|s| {
            let at = lower.find(&s.written.to_lowercase()).unwrap_or(lower.len());
            let mut before = named_in(&sentence[..at.min(sentence.len())]);
            if before.is_empty() {
                if let Some(previous) = i.checked_sub(1).map(|b| sentences[b]).filter(|b| runs_on(b, sentence)) {
                    before = named_in(previous);
                }
            }
            before.is_empty() || before.into_iter().any(same)
        })
    })
}

/// The window of `passage` (a sentence, or two that run on) that shares the
/// most terms with `claim`: where the passage states what the claim says.
pub fn aligned_window(claim: &str, passage: &str) -> Option<String> {
    let wanted = text::distinct_terms(claim);
    windows(passage)
        .into_iter()
        .map(|w| {
            let terms = text::terms(&w);
            (wanted.iter().filter(|t| terms.contains(t)).count(), w)
        })
        .filter(|(shared, _)| *shared > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(std::cmp::Ordering::Greater))
        .map(|(_, w)| w)
}

/// The opening words of a sentence, where English puts its subject.
const SUBJECT_WORDS: usize = 6;

/// Each sentence of a passage, and each pair of neighbours where the second
/// runs on from the first.
fn windows(passage: &str) -> Vec<String> {
    let sentences = text::sentences(passage);
    let mut out: Vec<String> = sentences.iter().map(|s| s.to_string()).collect();
    out.extend(sentences.windows(2).filter(|pair| runs_on(pair[0], pair[1])).map(|pair| format!("{} {}", pair[0], pair[1])));
    out
}

/// The second sentence goes on about the first one's subject: it opens with
/// a pronoun pointing back, or its opening words (its subject) share a term
/// with the first ("Meeting rooms can be booked 14 days ahead. Bookings are
/// made in the app."). "Members clear desks daily. The Quiet Zone is silent."
/// are two subjects.
pub fn runs_on(first: &str, second: &str) -> bool {
    if crate::stages::question::opens_with_back_reference(second) {
        return true;
    }
    let opening = text::terms(&second.split_whitespace().take(SUBJECT_WORDS).collect::<Vec<_>>().join(" "));
    let before = text::terms(first);
    opening.iter().any(|t| !text::is_numeric(t) && before.contains(t))
}

/// The name a number belongs to: the last of `names` written before it (any
/// case); of two that start together, the longer ("Flex Desk Plan" over "Flex Desk").
fn bound_name<'n>(sentence: &str, names: &'n [String], quantity: &text::Quantity) -> Option<&'n String> {
    let lower = sentence.to_lowercase();
    let at = lower.find(&quantity.written.to_lowercase())?;
    names.iter().filter_map(|n| lower[..at].rfind(&n.to_lowercase()).map(|i| (i, n))).max_by_key(|(i, n)| (*i, n.len())).map(|(_, n)| n)
}

/// Text between double quotation marks.
fn quoted_spans(claim: &str) -> Vec<&str> {
    let mut spans: Vec<&str> = claim.split(['"', '\u{201c}', '\u{201d}']).skip(1).step_by(2).collect();
    spans.retain(|s| !s.trim().is_empty());
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, text: &str) -> Hit {
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, ..Hit::default() }
    }

    const DESK: &str = "A Dedicated Desk costs $450 per month. Dedicated Desks are not shared.";

    /// Table: claim -> expected score range against the desk passage.
    #[test]
    fn claims_score_as_their_support_deserves() {
        let cases: &[(&str, f64, f64)] = &[
            ("A Dedicated Desk costs $450 per month.", 1.0, 1.0),
            ("A dedicated desk costs 450 dollars a month", 0.7, 1.0),
            ("A Dedicated Desk costs four hundred and fifty dollars per month.", 0.7, 1.0),
            ("A Dedicated Desk costs $500 per month.", 0.0, QUANTITY_CAP),
            ("A Dedicated Desk costs 450 percent per month.", 0.0, QUANTITY_CAP),
            ("Dedicated Desks are shared.", 0.0, CONTRADICTION_CAP),
            ("The \"premium lounge\" comes with a Dedicated Desk.", 0.0, QUOTE_CAP),
            ("A Flex Desk costs $450 per month.", 0.0, ENTITY_CAP),
            ("Parking is free for members.", 0.0, 0.0),
        ];
        for &(claim, lo, hi) in cases {
            let got = check(claim, &[], &[hit("pricing-03", DESK)]);
            assert!(got.score >= lo && got.score <= hi, "{claim}: {got:?}");
        }
    }

    /// Both the name and the price are in the passage, but not together, or
    /// together but with another name's price; a lowercase swap is caught the
    /// same way, and so is a name moved onto another subject's rule.
    #[test]
    fn a_swapped_pairing_is_capped() {
        let plans = "A Dedicated Desk costs $450 per month. A Flex Desk costs $220 per month.";
        let together = "With the discount, a Flex Desk costs $198 and a Dedicated Desk costs $405.";
        let cases = [
            ("A Flex Desk costs $450 per month.", plans),
            ("a flex desk costs $450 per month.", plans),
            ("With the discount, a Dedicated Desk costs $198.", together),
            ("The Quiet Zone members must clear desks daily.", "Members must clear desks daily. The Quiet Zone is silent."),
            ("Event Hall alcohol may be served only by a licensed caterer.", "Drinks are allowed in the Event Hall. Alcohol may be served only by a licensed caterer."),
        ];
        for (claim, source) in cases {
            let swapped = check(claim, &[], &[hit("p", source)]);
            assert!(swapped.score <= PAIRING_CAP, "{claim}: {swapped:?}");
        }
        assert_eq!(check("A Flex Desk costs $220 per month.", &[], &[hit("pricing-01", plans)]).score, 1.0);
        assert!(check("With the discount, a Flex Desk costs $198.", &[], &[hit("p", together)]).score >= 0.7);
    }

    /// A flip is a flip even in a sentence that already negates something else.
    #[test]
    fn a_negation_added_beside_another_contradicts() {
        let source = [hit("hours-03", "A member can collect a temporary card from reception at no charge.")];
        assert!(check("A member can not collect a temporary card from reception at no charge.", &[], &source).score <= CONTRADICTION_CAP);
        assert_eq!(check("A member can collect a temporary card from reception at no charge.", &[], &source).score, 1.0);
    }

    /// Two facts of one subject from neighbouring sentences are one answer;
    /// a name carried onto the next subject's sentence is still a swap.
    #[test]
    fn neighbouring_sentences_of_one_subject_pair() {
        let rooms = "The Lighthouse Room can be booked up to 14 days ahead. Bookings are made in the member app. The Harbor Room seats 4.";
        let joined = check("The Lighthouse Room can be booked 14 days ahead in the member app.", &[], &[hit("membership-02", rooms)]);
        assert!(joined.score >= 0.7, "{joined:?}");
        let swapped = check("The Harbor Room can be booked up to 14 days ahead.", &[], &[hit("membership-02", rooms)]);
        assert!(swapped.score <= PAIRING_CAP, "{swapped:?}");
        assert!(!runs_on("Members must clear desks daily.", "The Quiet Zone is silent."));
        assert!(runs_on("Dogs are allowed on Fridays.", "They must be kept on a leash."));
    }

    /// A negation is a contradiction only against the clause it restates: a
    /// clause the source does not state at all aligns with nothing.
    #[test]
    fn a_negation_needs_an_aligned_clause() {
        let source = [hit("membership-01", "Unused meeting-room hours expire at the end of each month.")];
        let paraphrase = check("Unused hours don't roll over; they expire at the end of the month.", &[], &source);
        assert!(!paraphrase.caps.iter().any(|c| c.contains("negation")), "{paraphrase:?}");
        let flipped = check("Unused meeting-room hours do not expire at the end of each month.", &[], &source);
        assert!(flipped.score <= CONTRADICTION_CAP, "{flipped:?}");
    }

    /// A count is stated only with the noun it counts.
    #[test]
    fn a_count_goes_with_its_noun() {
        let source = [hit("pricing-04", "A Day Pass gives one person access for a single day. Each floor has 300 black-and-white pages of quota.")];
        assert!(check("A Day Pass includes 1 meeting-room hour.", &[], &source).score <= QUANTITY_CAP);
        assert!(check("A Day Pass is for 1 person.", &[], &source).score > QUANTITY_CAP);
        assert!(check("Each floor has 300 printed pages of quota.", &[], &source).caps.iter().all(|c| !c.contains("not in the source")));
    }

    #[test]
    fn an_antonym_flip_contradicts() {
        let source = [hit("hours-01", "The kitchen is open on Sundays.")];
        assert!(check("The kitchen is closed on Sundays.", &[], &source).score <= CONTRADICTION_CAP);
    }

    /// Words that echo the question do not count against a right answer; a new
    /// word the passage lacks does.
    #[test]
    fn question_echoes_are_not_held_against_the_answer() {
        let knowledge = "The Oberoi Group is a hotel company with its head office in Delhi.";
        let question = text::terms("The Oberoi family is part of a hotel company that has a head office in what city?");
        assert_eq!(entailment("Delhi", &question, knowledge), 1.0);
        assert!(entailment("The Oberoi family's hotel company is based in Mumbai.", &question, knowledge) < 0.5);
    }

    #[test]
    fn supporting_ids_come_from_the_best_passages() {
        let got = check("A Dedicated Desk costs $450 per month.", &[], &[hit("hours-01", "Open at 8."), hit("pricing-03", DESK)]);
        assert_eq!(got.supporting, ["pricing-03"]);
        assert!(check("anything", &[], &[]).supporting.is_empty());
    }

    #[test]
    fn closest_sentence_prefers_shared_terms() {
        assert_eq!(closest_sentence("desks shared", DESK), Some("Dedicated Desks are not shared."));
        assert_eq!(closest_sentence("lockers", DESK), None);
    }
}
