//! Retrieval helpers: the FTS5 match expression and reciprocal-rank fusion.

use std::collections::BTreeMap;

use crate::api::response::Origin;
use crate::ports::StoredHit;

/// Reciprocal-rank fusion constant (Cormack et al.); 60 damps the head of each list.
pub const RRF_K: f64 = 60.0;

/// A retrieved passage, in fused order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hit {
    pub id: String,
    pub doc: String,
    pub section: String,
    pub text: String,
    /// Fused score scaled so that rank 1 in every list scores 1.0.
    pub score: f64,
    /// 1-based rank in the full-text (BM25) list.
    pub lexical_rank: Option<usize>,
    /// 1-based rank in the vector list (none on the local engine).
    pub vector_rank: Option<usize>,
    pub origin: Origin,
    /// The hit whose reference led here (one hop), for a followed passage.
    pub via: Option<String>,
}

impl Hit {
    /// Neither list ranked it and no reference led to it: it is the passage
    /// between two hits of one section (see [`gaps`]).
    pub fn fills_gap(&self) -> bool {
        self.lexical_rank.is_none() && self.vector_rank.is_none() && self.via.is_none()
    }
}

/// The passages that sit between two hits of one section: a passage not
/// retrieved whose neighbours on both sides were ("ch-files-14" and
/// "ch-files-16", so "ch-files-15"). A section cut into passages states its
/// rule across them, and the middle of two that match is part of what they
/// say (an example the rule before it sets up, the value the text after it
/// explains). Ids are a document's stem and a running number (see
/// `corpus::chunk`); each gap once, in the order of the hit before it.
pub fn gaps(hits: &[Hit]) -> Vec<String> {
    let numbered = |id: &str| -> Option<(String, char, usize)> {
        let at = id.rfind(['-', ':'])?;
        let number: usize = id[at + 1..].parse().ok()?;
        Some((id[..at].to_string(), id[at..].chars().next()?, number))
    };
    let mut found: Vec<String> = Vec::new();
    for hit in hits {
        let Some((stem, mark, n)) = numbered(&hit.id) else { continue };
        let id = |n: usize| format!("{stem}{mark}{n:02}");
        let after = hits.iter().any(|h| h.id == id(n + 2) && h.section == hit.section);
        let (middle, taken) = (id(n + 1), |m: &String| hits.iter().any(|h| &h.id == m));
        if after && !taken(&middle) && !found.contains(&middle) {
            found.push(middle);
        }
    }
    found
}

/// The passages the hits refer to, one hop: each followed reference's target
/// not already a hit, scored its referrer's score times `decay`, in the
/// referrers' order, at most `slots` of them. Reserved slots, beyond the
/// top k, so the decayed score cannot sort them out at once.
pub fn follow(hits: &[Hit], references: &[(String, StoredHit)], slots: usize, decay: f64) -> Vec<Hit> {
    let mut followed: Vec<Hit> = Vec::new();
    for hit in hits {
        for (_, target) in references.iter().filter(|(from, _)| *from == hit.id) {
            if followed.len() == slots {
                return followed;
            }
            if hits.iter().chain(&followed).any(|h| h.id == target.id) {
                continue;
            }
            followed.push(Hit {
                id: target.id.clone(),
                doc: target.doc.clone(),
                section: target.section.clone(),
                text: target.text.clone(),
                score: hit.score * decay,
                lexical_rank: None,
                vector_rank: None,
                origin: target.origin,
                via: Some(hit.id.clone()),
            });
        }
    }
    followed
}

/// The FTS5 expression for the question's terms: any term may match, BM25 ranks.
/// Terms come from [`crate::text::terms`] (letters and digits only), and each is
/// quoted anyway so no term can be read as FTS5 syntax. `None` when nothing is left.
pub fn match_expression(terms: &[String]) -> Option<String> {
    let quoted: Vec<String> = terms
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| format!("\"{}\"", t.replace('"', "")))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Most rows one lookup ranks, counted as the document frequencies of the
/// terms that pick its candidates. Ranking every passage that holds any
/// question term grows with the corpus (at 100,000 passages a common word is
/// in a third of them); bounded, the ranking costs the same at any size.
pub const CANDIDATE_ROWS: u64 = 2_000;

/// The terms that pick the candidates when the passages holding any term
/// would be more than [`CANDIDATE_ROWS`]: the rarest terms whose document
/// frequencies sum within it (the rarest present one always), which are the
/// ones BM25 weighs most. `None` when every term fits: all matches are ranked.
/// The candidates are still scored on every term, the chosen ones twice (FTS5
/// scores each phrase of `(chosen) AND (all)`).
pub fn candidate_terms<'a>(terms: &'a [String], doc_freqs: &[u32]) -> Option<Vec<&'a String>> {
    let total: u64 = doc_freqs.iter().map(|&n| u64::from(n)).sum();
    if total <= CANDIDATE_ROWS {
        return None;
    }
    let mut by_rarity: Vec<(&String, u32)> = terms.iter().zip(doc_freqs.iter().copied()).filter(|(_, n)| *n > 0).collect();
    by_rarity.sort_by_key(|(_, n)| *n);
    let mut chosen = Vec::new();
    let mut rows = 0u64;
    for (term, n) in by_rarity {
        if !chosen.is_empty() && rows + u64::from(n) > CANDIDATE_ROWS {
            break;
        }
        rows += u64::from(n);
        chosen.push(term);
    }
    Some(chosen)
}

/// The expression that ranks `expression`'s matches among the candidates
/// that `chosen` picks.
pub fn bounded_expression(chosen: &[&String], expression: &str) -> String {
    let chosen: Vec<String> = chosen.iter().map(|t| (*t).clone()).collect();
    match match_expression(&chosen) {
        Some(candidates) => format!("({candidates}) AND ({expression})"),
        None => expression.to_string(),
    }
}

/// Fuses ranked id lists by reciprocal rank. Returns (id, score, rank in each
/// list) best first; ties keep the order of the first list.
pub fn fuse(lists: &[&[String]]) -> Vec<(String, f64, Vec<Option<usize>>)> {
    let mut fused: BTreeMap<&str, (f64, Vec<Option<usize>>, usize)> = BTreeMap::new();
    let mut order = 0;
    for (list_index, list) in lists.iter().enumerate() {
        for (rank0, id) in list.iter().enumerate() {
            let entry = fused.entry(id.as_str()).or_insert_with(|| {
                order += 1;
                (0.0, vec![None; lists.len()], order)
            });
            entry.0 += 1.0 / (RRF_K + rank0 as f64 + 1.0);
            entry.1[list_index] = Some(rank0 + 1);
        }
    }
    let best_possible = lists.len() as f64 / (RRF_K + 1.0);
    let mut out: Vec<_> = fused
        .into_iter()
        .map(|(id, (score, ranks, first_seen))| (id.to_string(), score / best_possible, ranks, first_seen))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.3.cmp(&b.3)));
    out.into_iter().map(|(id, score, ranks, _)| (id, score, ranks)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(id: &str, section: &str) -> Hit {
        Hit { id: id.into(), section: section.into(), ..Hit::default() }
    }

    /// The passage between two hits of one section is theirs; one beside a
    /// single hit, or between two sections, or already retrieved, is not.
    #[test]
    fn the_passage_between_two_hits_of_a_section_is_a_gap() {
        let hits = [at("ch-files-16", "10.4"), at("ch-files-14", "10.4"), at("ch-files-17", "10.4"), at("guide:3:02", "Intro"), at("guide:3:04", "Intro")];
        assert_eq!(gaps(&hits), ["ch-files-15", "guide:3:03"]);
        assert!(gaps(&[at("rules-01", "A"), at("rules-03", "B")]).is_empty(), "two sections");
        assert!(gaps(&[at("rules-01", "A"), at("rules-02", "A"), at("rules-03", "A")]).is_empty(), "every passage retrieved");
        assert!(gaps(&[at("rules-01", "A"), at("rules-04", "A")]).is_empty(), "two passages apart");
        assert!(gaps(&[at("rules-09", "A"), at("rules-11", "A")]) == ["rules-10"], "numbers past nine");
    }

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn match_expression_ors_quoted_terms() {
        assert_eq!(match_expression(&ids(&["desk", "cost"])).as_deref(), Some("\"desk\" OR \"cost\""));
    }

    fn stored(id: &str) -> StoredHit {
        StoredHit { id: id.into(), doc: "d".into(), section: "S".into(), text: "t".into(), origin: Origin::Corpus }
    }

    /// Followed passages keep their referrer's order, skip what is already a
    /// hit or already followed, fill at most the reserved slots, and decay.
    #[test]
    fn one_hop_fills_the_reserved_slots_in_referrer_order() {
        let hit = |id: &str, score: f64| Hit { id: id.into(), score, ..Hit::default() };
        let hits = [hit("a", 1.0), hit("b", 0.8)];
        let refs = vec![
            ("b".to_string(), stored("x")),
            ("a".to_string(), stored("b")),
            ("a".to_string(), stored("y")),
            ("b".to_string(), stored("y")),
            ("b".to_string(), stored("z")),
        ];
        let followed = follow(&hits, &refs, 2, 0.5);
        assert_eq!(followed.iter().map(|h| (h.id.as_str(), h.via.as_deref(), h.score)).collect::<Vec<_>>(), [("y", Some("a"), 0.5), ("x", Some("b"), 0.4)]);
        assert!(follow(&hits, &refs, 0, 0.5).is_empty());
        assert_eq!(follow(&hits, &refs, 8, 0.5).len(), 3);
    }

    /// Under the budget every match is ranked; over it, the rarest terms
    /// that fit pick the candidates, and at least one always does.
    #[test]
    fn candidates_are_picked_by_the_rarest_terms_within_the_budget() {
        let terms = ids(&["american", "film", "director", "nolan", "absent"]);
        assert_eq!(candidate_terms(&terms, &[10, 20, 30, 1, 0]), None);
        let budget = CANDIDATE_ROWS as u32;
        let chosen = candidate_terms(&terms, &[budget * 10, budget * 5, budget / 2, 12, 0]).unwrap();
        assert_eq!(chosen, [&terms[3], &terms[2]]);
        let huge = candidate_terms(&terms[..2], &[budget * 30, budget * 25]).unwrap();
        assert_eq!(huge, [&terms[1]], "the rarest present term, even over the budget");
        assert_eq!(bounded_expression(&chosen, "\"a\" OR \"b\""), "(\"nolan\" OR \"director\") AND (\"a\" OR \"b\")");
        assert_eq!(match_expression(&ids(&["a\"b"])).as_deref(), Some("\"ab\""));
        assert_eq!(match_expression(&[]), None);
    }

    /// Agreement between lists outranks a single first place.
    #[test]
    fn fusion_rewards_agreement() {
        let lexical = ids(&["a", "b", "c"]);
        let vector = ids(&["b", "d", "a"]);
        let fused = fuse(&[&lexical, &vector]);
        let order: Vec<&str> = fused.iter().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(order, ["b", "a", "d", "c"]);
        assert_eq!(fused[0].2, vec![Some(2), Some(1)]);
        assert_eq!(fused[2].2, vec![None, Some(2)]);
    }

    #[test]
    fn single_list_keeps_order_and_tops_at_one() {
        let fused = fuse(&[&ids(&["x", "y"])]);
        assert_eq!(fused[0].0, "x");
        assert!((fused[0].1 - 1.0).abs() < 1e-12);
        assert!(fused[1].1 < 1.0);
    }
}
