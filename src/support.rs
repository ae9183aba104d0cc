//! Per-claim checking against the retrieved passages: a lexical entailment score,
//! then deterministic sanity caps that no score can talk its way past.
//!
//! - entailment: 1.0 for a verbatim quote; otherwise the share of the claim's
//!   terms found in the passage.
//! - sanity caps: every quantity (number, amount, time) of the claim must appear in
//!   the passage, so must every name it uses (a swapped "Flex Desk" for
//!   "Dedicated Desk"), a negation must not be added or dropped, and text the
//!   claim puts in quotation marks must exist verbatim.

use crate::retrieve::Hit;
use crate::text;

/// A score above this supports a claim on its own.
pub const SUPPORT_FLOOR: f64 = 0.7;
/// Ceiling for a claim stating a quantity its source does not.
pub const QUANTITY_CAP: f64 = 0.2;
/// Ceiling for a claim quoting text its source does not contain.
pub const QUOTE_CAP: f64 = 0.3;
/// Ceiling for a claim naming something (a plan, a room, a day) its source does not.
pub const ENTITY_CAP: f64 = 0.3;
/// Ceiling for a claim whose names and numbers each appear in the source but
/// never together in one sentence (a "Flex Desk" given the Dedicated Desk's price).
pub const PAIRING_CAP: f64 = 0.35;
/// Factor for a claim whose negation disagrees with its source sentence.
pub const NEGATION_FACTOR: f64 = 0.5;

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

/// Entailment of a claim by one passage's text, before caps.
pub fn entailment(claim: &str, passage: &str) -> f64 {
    let claim_flat = text::squash_whitespace(claim);
    if !claim_flat.is_empty() && text::squash_whitespace(passage).contains(&claim_flat) {
        return 1.0;
    }
    let claim_terms = text::distinct_terms(claim);
    if claim_terms.is_empty() {
        return 0.0;
    }
    let passage_terms = text::terms(passage);
    let found = claim_terms.iter().filter(|t| passage_terms.contains(t)).count();
    found as f64 / claim_terms.len() as f64
}

/// Applies the sanity caps to a score; returns the capped score and the reasons.
pub fn sanity(claim: &str, passage: &str, score: f64) -> (f64, Vec<String>) {
    let mut score = score;
    let mut caps = Vec::new();
    let source_quantities = text::quantities(passage);
    let missing: Vec<String> =
        text::quantities(claim).into_iter().filter(|q| !source_quantities.contains(q)).collect();
    if !missing.is_empty() {
        score = score.min(QUANTITY_CAP);
        caps.push(format!("{} not in the source", missing.join(", ")));
    }
    let source_terms = text::terms(passage);
    let unnamed: Vec<String> = text::entities(claim).into_iter().filter(|e| !names(e, &source_terms)).collect();
    if !unnamed.is_empty() {
        score = score.min(ENTITY_CAP);
        caps.push(format!("{} not named in the source", unnamed.join(", ")));
    }
    if unnamed.is_empty() && missing.is_empty() && !paired_in_one_sentence(claim, passage) {
        score = score.min(PAIRING_CAP);
        caps.push("its names and numbers never appear together in one source sentence".into());
    }
    for quoted in quoted_spans(claim) {
        if !text::squash_whitespace(passage).contains(&text::squash_whitespace(quoted)) {
            score = score.min(QUOTE_CAP);
            caps.push(format!("quoted text {quoted:?} not in the source"));
        }
    }
    if let Some(sentence) = closest_sentence(claim, passage) {
        if text::is_negated(claim) != text::is_negated(sentence) {
            score *= NEGATION_FACTOR;
            caps.push("negation differs from the source".into());
        }
    }
    (score, caps)
}

/// Scores a claim against every passage and keeps the best.
pub fn check(claim: &str, passages: &[Hit]) -> ClaimCheck {
    let scored: Vec<(&str, f64, f64, Vec<String>)> = passages
        .iter()
        .map(|p| {
            let raw = entailment(claim, &p.text);
            let (capped, caps) = sanity(claim, &p.text, raw);
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

/// The passage sentence sharing the most terms with the claim.
pub fn closest_sentence<'a>(claim: &str, passage: &'a str) -> Option<&'a str> {
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

/// True when one sentence of the source holds all of the claim's names together
/// with its numbers. Only claims stating a number and a name are checked: that is
/// the pairing a swap falsifies ("Flex Desk" given the Dedicated Desk's price);
/// names alone often span sentences in a faithful claim.
fn paired_in_one_sentence(claim: &str, passage: &str) -> bool {
    let entities = text::entities(claim);
    let numbers = text::quantities(claim);
    if entities.is_empty() || numbers.is_empty() {
        return true;
    }
    text::sentences(passage).into_iter().any(|sentence| {
        let terms = text::terms(sentence);
        let sentence_numbers = text::quantities(sentence);
        entities.iter().all(|e| names(e, &terms)) && numbers.iter().all(|q| sentence_numbers.contains(q))
    })
}

/// True when the text (as terms) names the entity: every word of the name is
/// there, whatever its case, quotes or possessive ("Allie Goertz" in
/// `Allison "Allie" Goertz`, "Miller's" for "Miller").
fn names(entity: &str, terms: &[String]) -> bool {
    let wanted = text::terms(entity);
    !wanted.is_empty() && wanted.iter().all(|t| terms.contains(t))
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
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, lexical_rank: None, vector_rank: None }
    }

    const DESK: &str = "A Dedicated Desk costs $450 per month. Dedicated Desks are not shared.";

    /// Table: claim -> expected score range against the desk passage.
    #[test]
    fn claims_score_as_their_support_deserves() {
        let cases: &[(&str, f64, f64)] = &[
            ("A Dedicated Desk costs $450 per month.", 1.0, 1.0),
            ("A dedicated desk costs 450 dollars a month", 0.7, 1.0),
            ("A Dedicated Desk costs $500 per month.", 0.0, QUANTITY_CAP),
            ("Dedicated Desks are shared.", 0.0, 0.5),
            ("The \"premium lounge\" comes with a Dedicated Desk.", 0.0, QUOTE_CAP),
            ("A Flex Desk costs $450 per month.", 0.0, ENTITY_CAP),
            ("Parking is free for members.", 0.0, 0.0),
        ];
        for &(claim, lo, hi) in cases {
            let got = check(claim, &[hit("pricing-03", DESK)]);
            assert!(got.score >= lo && got.score <= hi, "{claim}: {got:?}");
        }
    }

    /// Both the name and the price are in the passage, but not together.
    #[test]
    fn a_swapped_pairing_is_capped() {
        let plans = "A Dedicated Desk costs $450 per month. A Flex Desk costs $220 per month.";
        let swapped = check("A Flex Desk costs $450 per month.", &[hit("pricing-01", plans)]);
        assert!(swapped.score <= PAIRING_CAP, "{swapped:?}");
        assert_eq!(check("A Flex Desk costs $220 per month.", &[hit("pricing-01", plans)]).score, 1.0);
    }

    #[test]
    fn supporting_ids_come_from_the_best_passages() {
        let got = check("A Dedicated Desk costs $450 per month.", &[hit("hours-01", "Open at 8."), hit("pricing-03", DESK)]);
        assert_eq!(got.supporting, ["pricing-03"]);
        assert!(check("anything", &[]).supporting.is_empty());
    }

    #[test]
    fn closest_sentence_prefers_shared_terms() {
        assert_eq!(closest_sentence("desks shared", DESK), Some("Dedicated Desks are not shared."));
        assert_eq!(closest_sentence("lockers", DESK), None);
    }
}
