//! Sentence-level citations: `[n]` after each sentence of the answer, `n` the
//! place (from 1) in the response's `citations` of a verified passage that
//! supports a claim of that sentence. A sentence whose claims are not
//! verified carries no marker, so a marker is never shown for an unchecked
//! claim.

use crate::text;

/// A verified claim: its text and the passages that support it.
pub struct Verified<'a> {
    pub text: &'a str,
    pub passages: &'a [String],
}

/// The answer with markers. `citations` are the cited passage ids, in order.
pub fn mark(answer: &str, claims: &[Verified], citations: &[String]) -> String {
    let sentences = text::sentences(answer);
    let mut numbers: Vec<Vec<usize>> = vec![Vec::new(); sentences.len()];
    for claim in claims {
        let Some(home) = sentence_of(&sentences, claim.text) else { continue };
        for id in claim.passages {
            if let Some(n) = citations.iter().position(|c| c == id).map(|i| i + 1) {
                if !numbers[home].contains(&n) {
                    numbers[home].push(n);
                }
            }
        }
    }
    sentences
        .iter()
        .zip(numbers)
        .map(|(sentence, mut ns)| {
            ns.sort_unstable();
            let markers: String = ns.iter().map(|n| format!(" [{n}]")).collect();
            format!("{sentence}{markers}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sentence a claim belongs to: the one holding it verbatim (the local
/// engine quotes), else the one sharing most of its terms (a judge's
/// decomposition), if any shares one.
fn sentence_of(sentences: &[&str], claim: &str) -> Option<usize> {
    let claim_squashed = text::squash_whitespace(claim);
    if let Some(i) = sentences.iter().position(|s| text::squash_whitespace(s).contains(&claim_squashed)) {
        return Some(i);
    }
    let terms = text::distinct_terms(claim);
    let shared = |s: &str| text::distinct_terms(s).iter().filter(|t| terms.contains(t)).count();
    let (best, count) = sentences.iter().enumerate().map(|(i, s)| (i, shared(s))).max_by_key(|&(i, n)| (n, std::cmp::Reverse(i)))?;
    (count > 0).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_sentence_carries_its_own_verified_passages() {
        let answer = "A dedicated desk costs $450 per month. It includes a locker. Guests pay $15.";
        let (a, b) = (ids(&["pricing-02"]), ids(&["pricing-02", "guests-01"]));
        let claims = [
            Verified { text: "A dedicated desk costs $450 per month.", passages: &a },
            Verified { text: "guests pay fifteen dollars each", passages: &b },
        ];
        let marked = mark(answer, &claims, &ids(&["pricing-02", "guests-01"]));
        assert_eq!(marked, "A dedicated desk costs $450 per month. [1] It includes a locker. Guests pay $15. [1] [2]");
    }

    #[test]
    fn passages_not_cited_and_claims_with_no_home_get_no_marker() {
        let passages = ids(&["other-01"]);
        let claims = [Verified { text: "Nothing in common here", passages: &passages }];
        assert_eq!(mark("The desk costs $450.", &claims, &ids(&["pricing-02"])), "The desk costs $450.");
    }
}
