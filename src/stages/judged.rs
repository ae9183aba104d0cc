//! The judge's claims, checked: the deterministic caps that cut what a
//! (possibly fooled) judge let through on the Workers AI engine, beside
//! [`crate::stages::support`]'s per-claim checks: a claim the judge scored is
//! capped when its passages lack its numbers, names or words
//! ([`capped`]), a sentence of the answer the judge left out is scored on its
//! own ([`unchecked_sentences`]), a polar answer is read with its question
//! ([`polar_check`]), a name the corpus never mentions caps its claim, and the
//! answer is read with what its verified claims cite.

use crate::api::error::ApiError;
use crate::models::Models;
use crate::ports::{Clock, Corpus};
use crate::stages::pipeline::Pipeline;
use crate::stages::prompts;
use crate::stages::evidence::Focus;
use crate::stages::question::{Ask, Grounds, Kind, Miss};
use crate::stages::retrieve::{self, Hit};
use crate::stages::support::{self, ClaimCheck};
use crate::text;

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

/// A judged claim after the deterministic caps, checked against the passages the
/// judge said support it: no supporting passage scores 0; quantities, names,
/// quotes and negation must agree; no retrieved passage may deny it outright;
/// and almost no shared words caps it.
pub(super) fn capped(judged: &prompts::Judged, question_terms: &[String], context: &support::Context<'_>, hits: &[Hit]) -> ClaimCheck {
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
        let unwritten = support::unwritten_code(claim, hits, context.question);
        if !unwritten.is_empty() {
            score = score.min(support::QUOTE_CAP);
            caps.push(format!("{claim:?}: {} written in no passage", unwritten.join(", ")));
        }
        // Any retrieved passage, cited or not: a judge fooled into citing the
        // passage that agrees must not hide the one that denies the claim.
        if let Some((id, why)) = hits.iter().find_map(|h| support::denied_by(claim, &h.text, context.known).map(|why| (&h.id, why))) {
            score = score.min(support::CONTRADICTION_CAP);
            caps.push(format!("{claim:?}: {id} {why}"));
        }
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
pub(super) fn unchecked_sentences(answer: &str, judged: &[prompts::Judged], question_terms: &[String], cited: &[Hit], context: &support::Context<'_>) -> Vec<ClaimCheck> {
    let claims_text = judged.iter().map(|j| j.claim.as_str()).collect::<Vec<_>>().join(" ");
    let claim_terms = text::terms(&claims_text);
    let claim_quantities = text::quantities(&claims_text);
    text::sentences(answer)
        .into_iter()
        .filter_map(|sentence| {
            let check = support::check_across(sentence, question_terms, cited, context);
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
pub(super) fn judge_verdict(answers: prompts::Answers, missing: &[String]) -> Result<(), Miss> {
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
pub(super) fn polar_check(ask: &Ask, answer: &str, cited: &[Hit], known: &[String]) -> Option<ClaimCheck> {
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

/// A model's answer as the gate reads it: its text, its checked claims,
/// and its words that only passages not retrieved use (see
/// [`Pipeline::read_unseen_words`]).
pub(super) struct Answered<'a> {
    pub(super) text: &'a str,
    pub(super) checks: &'a [ClaimCheck],
    pub(super) elsewhere: &'a [String],
}

/// "Why …?" presupposes its proposition ("why are dogs banned on Fridays"
/// takes it that they are): when a retrieved passage states the opposite
/// ("Dogs are allowed … only on Fridays"), no reason given for it is an
/// answer, however well the judge scores it. The question's own numbers are
/// given (see [`support::contradicted`]).
pub(super) fn premise_check(ask: &Ask, hits: &[Hit]) -> Option<ClaimCheck> {
    if ask.kind != Kind::Reason {
        return None;
    }
    let words: Vec<&str> = ask.asking.trim_end_matches(['?', ' ']).split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("why"))?;
    let premise = words[at + 1..].join(" ");
    let given = |q: &text::Quantity| ask.quantities.iter().any(|a| q.agrees_with(a));
    hits.iter().find_map(|h| {
        let why = support::contradicted(&premise, &h.text, &given)?;
        Some(ClaimCheck {
            text: format!("premise: {premise}"),
            entailment: 0.0,
            score: support::CONTRADICTION_CAP,
            supporting: vec![h.id.clone()],
            caps: vec![format!("the question takes it that {premise:?}, and {} {why}", h.id)],
        })
    })
}

impl<C: Corpus, K: Clock, M: Models> Pipeline<'_, C, K, M> {
    /// One lookup for the answer's words the retrieved passages lack: caps
    /// the claims that name something (a plan, a room, a person) no passage
    /// of the corpus mentions, and returns the answer's other words that
    /// passages not retrieved do use. A common word the corpus never uses is
    /// the model's paraphrase ("Yes", "right away"), not a fabrication: the
    /// content that must come from the corpus is its names (and its numbers,
    /// which the sanity caps check). A word the corpus uses elsewhere may be
    /// a fact moved from there ("handled by *reception*").
    pub(super) async fn read_unseen_words(&self, answer: &str, checks: &mut [ClaimCheck], hits: &[Hit]) -> Result<Vec<String>, ApiError> {
        let retrieved: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).collect();
        let name_words = |claim: &str| -> Vec<(String, String)> { text::names(claim).iter().flat_map(|n| text::keyed_terms(n)).filter(|(t, _)| !text::is_numeric(t)).collect() };
        let mut unseen: Vec<String> = Vec::new();
        let said = checks.iter().flat_map(|c| name_words(&c.text)).map(|(t, _)| t).chain(text::distinct_terms(answer).into_iter().filter(|t| !text::is_numeric(t)));
        for term in said {
            if !retrieved.contains(&term) && !unseen.contains(&term) {
                unseen.push(term);
            }
        }
        let Some(expression) = retrieve::match_expression(&unseen) else { return Ok(Vec::new()) };
        let lookup = self.corpus.lookup(&self.scope, &self.query(&unseen, &expression, 0)).await?;
        let never: Vec<&String> = unseen.iter().zip(&lookup.doc_freqs).filter(|(_, df)| **df == 0).map(|(t, _)| t).collect();
        for check in checks.iter_mut() {
            let words: Vec<String> = name_words(&check.text).into_iter().filter(|(t, _)| never.contains(&t)).map(|(_, w)| w).collect();
            if !words.is_empty() {
                check.score = check.score.min(UNKNOWN_TERM_CAP);
                check.caps.push(format!("{:?}: the corpus never mentions {}", check.text, words.join(", ")));
            }
        }
        Ok(unseen.iter().zip(&lookup.doc_freqs).filter(|(_, df)| **df > 0).map(|(t, _)| t.clone()).collect())
    }

    /// Whether a model's answer answers the question (see
    /// [`Ask::answers_in_own_words`]), read with the passages its verified
    /// claims cite (`cited`), the source sentences they restate, every
    /// name and phrase the retrieved passages write, and the answer's words
    /// only passages not retrieved use.
    pub(super) fn answers_in_own_words(&self, ask: &Ask, focus: &Focus, answer: &Answered<'_>, cited: &str, hits: &[Hit]) -> Result<(), Miss> {
        let windows = self.verified_windows(answer.checks, hits);
        let known = support::known_names(hits);
        let pairs: Vec<_> = hits.iter().flat_map(|h| text::modifier_pairs(&format!("{}.\n{}", h.section, h.text))).collect();
        let alignments = self.alignments(answer.text, answer.checks, hits);
        let used: Vec<String> = hits.iter().flat_map(|h| text::terms(&format!("{}\n{}", h.section, h.text))).chain(answer.elsewhere.iter().cloned()).collect();
        let grounds = Grounds { cited, windows: &windows, known: &known, pairs: &pairs, alignments: &alignments, used: &used };
        ask.answers_in_own_words(focus, answer.text, &grounds)
    }

    /// The text of the passages the verified claims cite, and of the passages
    /// that referred to them (a hop's premise), sections included.
    pub(super) fn verified_sources(&self, checks: &[ClaimCheck], hits: &[Hit]) -> String {
        let cited: Vec<&Hit> = hits
            .iter()
            .filter(|h| checks.iter().any(|c| c.score >= self.config.gate_min_claim && c.supporting.contains(&h.id)))
            .collect();
        let referring = hits.iter().filter(|h| cited.iter().any(|c| c.via.as_ref() == Some(&h.id)));
        cited.iter().copied().chain(referring).map(|h| format!("{}\n{}", h.section, h.text)).collect::<Vec<_>>().join("\n")
    }

    /// The source sentences the verified claims align with (see
    /// [`support::aligned_sentence`]), each with its passage's heading.
    pub(super) fn verified_windows(&self, checks: &[ClaimCheck], hits: &[Hit]) -> String {
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
    pub(super) fn alignments(&self, answer: &str, checks: &[ClaimCheck], hits: &[Hit]) -> Vec<(String, String)> {
        let cited: Vec<&Hit> = hits.iter().filter(|h| checks.iter().any(|c| c.score >= self.config.gate_min_claim && c.supporting.contains(&h.id))).collect();
        text::sentences(answer)
            .into_iter()
            .map(|sentence| {
                let stretches: Vec<String> = cited.iter().filter_map(|h| support::aligned_neighbourhood(sentence, &h.text)).collect();
                (sentence.to_string(), stretches.join("\n"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::support;
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

    /// "Why …?" takes its proposition as given: a passage that states the
    /// opposite refuses any reason for it; one that agrees leaves it be.
    #[test]
    fn a_why_question_s_premise_is_checked() {
        let source = [hit("conduct-03", "Dogs are allowed at Harbor Commons only on Fridays, and no other pets are allowed at any time.")];
        let premise = |question: &str| premise_check(&Ask::parse(question, &Vocabulary::default()), &source);
        let false_premise = premise("Why are dogs banned on Fridays?").expect("the source says they are allowed");
        assert!(false_premise.score <= support::CONTRADICTION_CAP && false_premise.caps[0].contains("conduct-03"), "{false_premise:?}");
        assert!(premise("Why are dogs allowed on Fridays?").is_none());
        assert!(premise("Are dogs banned on Fridays?").is_none(), "not a why question");
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
