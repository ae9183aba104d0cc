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

use crate::stages::question::opens_with_back_reference;
use crate::stages::retrieve::Hit;
use crate::text::grammar::{is_function_word, AUXILIARIES, CONDITIONALS, CONSEQUENCES};
use crate::text::{self, literal, names};

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
const ANTONYMS: &[[&str; 2]] = &[
    ["open", "closed"], ["allowed", "forbidden"], ["allowed", "prohibited"], ["allowed", "banned"], ["permitted", "banned"], ["permitted", "prohibited"],
    ["permitted", "forbidden"], ["included", "excluded"], ["include", "exclude"], ["before", "after"],
    ["increase", "decrease"], ["more", "less"], ["minimum", "maximum"], ["earliest", "latest"], ["above", "below"],
    ["first", "last"], ["always", "never"], ["mandatory", "optional"], ["required", "optional"], ["accept", "reject"],
    ["accepted", "rejected"], ["enabled", "disabled"], ["refundable", "nonrefundable"], ["free", "paid"],
    ["upgrade", "downgrade"], ["inside", "outside"], ["lowest", "highest"], ["higher", "lower"], ["older", "younger"],
    ["largest", "smallest"], ["larger", "smaller"], ["early", "late"], ["win", "lose"], ["won", "lost"],
];

/// Closed sets of English whose members exclude one another as the value of
/// one slot, as two numbers do: the names of the marks that separate text.
/// A claim naming one where the source names another ("separated by
/// semicolons" where the source says "by commas") changes the value.
const EXCLUSIVE_VALUES: &[&[&str]] = &[&["comma", "semicolon", "colon", "space", "tab", "hyphen", "slash", "underscore", "newline"]];

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
/// An elliptical "no" ("Not right away.", see [`elliptical_no`]) is a "no".
pub fn polarity(answer: &str) -> Option<bool> {
    if elliptical_no(answer).is_some() {
        return Some(false);
    }
    particle(answer.split(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty())?)
}

/// The polarity of a word that is an answer particle.
fn particle(word: &str) -> Option<bool> {
    match word.to_lowercase().as_str() {
        w if AFFIRMATIVE_PARTICLES.contains(&w) => Some(true),
        w if NEGATIVE_PARTICLES.contains(&w) => Some(false),
        _ => None,
    }
}

/// An elliptical negative answer opening a text: "not" and at most three
/// more words, closing their clause ("Not right away.", "Not yet, …", "Not
/// necessarily:"): the fragment a "no" is said with. Returns the rest of the
/// text after it. "Not all packages need it" runs on: a statement, not a reply.
fn elliptical_no(text: &str) -> Option<&str> {
    const CLOSES: [char; 6] = ['.', ',', ';', ':', '!', '\u{2014}'];
    let trimmed = text.trim_start();
    let end = trimmed.find(CLOSES).unwrap_or(trimmed.len());
    let words: Vec<&str> = trimmed[..end].split_whitespace().collect();
    let is_reply = words.first().is_some_and(|w| w.eq_ignore_ascii_case("not")) && words.len() <= 4;
    is_reply.then(|| trimmed[end..].trim_start_matches(|c: char| CLOSES.contains(&c) || c == ' '))
}

/// Entailment of a claim by one passage's text, before caps. `question` holds
/// the terms of the question the claim answers (empty when there is none).
/// A claim with no words of its own ("yes", "42") claims nothing a passage
/// could lack: it is not held against the answer (its numbers are checked by
/// the caps, and whether it answers the question by the gate).
pub fn entailment(claim: &str, question: &[String], passage: &str) -> f64 {
    // "Not right away." is a "no" with its qualifier: a reply, not a statement a passage could lack.
    if elliptical_no(claim).is_some_and(str::is_empty) {
        return 1.0;
    }
    let claim_flat = text::squash_whitespace(claim);
    if !claim_flat.is_empty() && text::squash_whitespace(passage).contains(&claim_flat) {
        return 1.0;
    }
    // Numbers are checked as quantities (values with units) by the caps, not as words.
    let claim_terms: Vec<String> = text::distinct_terms(claim)
        .into_iter()
        .filter(|t| !text::is_numeric(t) && particle(t).is_none())
        .collect();
    let passage_terms = text::terms(passage);
    if claim_terms.is_empty() {
        return 1.0;
    }
    let new: Vec<String> = claim_terms.iter().filter(|t| !question.contains(t)).cloned().collect();
    share(&claim_terms, &passage_terms).min(share(&new, &passage_terms))
}

/// What a claim is checked with besides its passages' text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The passages' headings, which name what their text is about.
    pub heading: &'a str,
    /// Names the passages use (matched in any case).
    pub known: &'a [String],
    /// The numbers the question states: the asker's own, and so given.
    pub asked: &'a [text::Quantity],
    /// The numbers the whole answer writes: a number one claim derives may
    /// rest on numbers another states (see [`shown_work`]).
    pub shown: &'a [text::Quantity],
    /// The question as asked: a value it writes is the asker's, which may
    /// fill a passage's template.
    pub question: &'a str,
    /// The claim is in the asker's words (a yes/no question's proposition):
    /// its names and numbers must be the source's, its other words need not.
    pub asker_words: bool,
}

/// Applies the sanity caps to a score; returns the capped score and the reasons.
pub fn sanity(claim: &str, passage: &str, context: &Context<'_>, score: f64) -> (f64, Vec<String>) {
    let (heading, known_names) = (context.heading, context.known);
    // "Yes, …" / "No, …" answers the question; the clause after it is the claim's statement.
    let claim = without_particle(claim);
    let mut score = score;
    let mut caps = Vec::new();
    let source_quantities = text::quantities(passage);
    let derived = shown_work(&source_quantities, context);
    let given_values = literal::given_values(context.question);
    // The month the asker's date reaches after a period the source states ("notice on March 10th" and "30 days").
    let reached = text::months_after(context.asked, &source_quantities);
    let missing: Vec<String> = text::quantities(claim)
        .into_iter()
        .filter(|q| !source_quantities.iter().any(|s| q.agrees_with(s) && counts_alike(claim, q, passage, s)))
        .filter(|q| !derived.iter().any(|d| (d - q.value).abs() < 1e-9))
        .filter(|q| !counts_its_list(claim, q))
        .filter(|q| !(q.unit == text::Unit::Month && reached.contains(&q.value)))
        // The asker's own numbers ("with 8 employees, …", the "2.4" of their `libfrob-2.4.so`) are given, not claimed.
        .filter(|q| !context.asked.iter().any(|a| q.agrees_with(a)) && !literal::piece_of(&q.written, &given_values))
        .map(|q| q.written)
        .collect();
    if !missing.is_empty() {
        score = score.min(QUANTITY_CAP);
        caps.push(format!("{} not in the source", missing.join(", ")));
    }
    // A passage names what its heading names.
    let source_terms = text::terms(&format!("{heading}\n{passage}"));
    let claim_names = names::named_in(claim, known_names);
    let unnamed: Vec<String> = claim_names.iter().filter(|n| !names::mentions(&source_terms, n)).cloned().collect();
    if !unnamed.is_empty() {
        score = score.min(ENTITY_CAP);
        caps.push(format!("{} not named in the source", unnamed.join(", ")));
    }
    if unnamed.is_empty() && missing.is_empty() && !paired_in_a_window(claim, &claim_names, known_names, passage, heading, context.asker_words) {
        score = score.min(PAIRING_CAP);
        caps.push("its names and numbers never appear together, each number after the same name, in one source sentence or two that run on".into());
    }
    if let Some(setting) = unheld_setting(claim, passage, heading) {
        score = score.min(PAIRING_CAP);
        caps.push(format!("{setting:?}: the passage does not say it holds there"));
    }
    for quoted in quoted_spans(claim) {
        if !text::squash_whitespace(passage).contains(&text::squash_whitespace(quoted)) {
            score = score.min(QUOTE_CAP);
            caps.push(format!("quoted text {quoted:?} not in the source"));
        }
    }
    let given = |q: &text::Quantity| derived.iter().any(|d| (d - q.value).abs() < 1e-9) || context.asked.iter().any(|a| q.agrees_with(a));
    if let Some(why) = contradicted(claim, passage, &given).or_else(|| replaced_literal(claim, passage, context.question)) {
        score = score.min(CONTRADICTION_CAP);
        caps.push(why);
    }
    (score, caps)
}

/// A literal the claim writes in the place of another the passage writes:
/// the same word before it and after it ("in the `perl` package" where the
/// passage says "in the `debian-policy` package"), the claim not writing the
/// passage's value nor the passage the claim's. A value the asker gave, or
/// a template of the passage filled with it, is the asker's.
fn replaced_literal(claim: &str, passage: &str, question: &str) -> Option<String> {
    let framed = |text: &str| -> Vec<(String, String, String)> { framed_literals(text).into_iter().chain(framed_identifiers(text)).collect() };
    let (claimed, stated) = (framed(claim), framed(passage));
    let values = |framed: &[(String, String, String)], text: &str| -> Vec<String> { code_values(text).into_iter().chain(framed.iter().map(|(_, v, _)| v.clone())).collect() };
    let (own, theirs) = (values(&claimed, claim), values(&stated, passage));
    let (given, holes, forms) = (literal::given_values(question), literal::placeholders(passage), [literal::literal_form(passage)]);
    let asker = |v: &str| v.split_whitespace().all(|w| literal::piece_of(w, &given)) || literal::fills_template(v, &given, &holes, &forms);
    claimed.iter().filter(|(_, v, _)| !theirs.contains(v) && !asker(v)).find_map(|(before, value, after)| {
        stated
            .iter()
            .find(|(b, w, a)| b == before && a == after && !own.contains(w))
            .map(|(_, w, _)| format!("says `{value}` where the source says `{w}`"))
    })
}

/// Each literal of a text in code marks (as [`code_values`] reads it) with
/// the word before and the word after it; one at the text's edge has no frame.
fn framed_literals(text: &str) -> Vec<(String, String, String)> {
    let pieces: Vec<&str> = text.split('`').collect();
    (1..pieces.len().saturating_sub(1))
        .step_by(2)
        .filter(|&i| !pieces[i].trim().is_empty())
        .filter_map(|i| {
            let before = text::lower_words(pieces[i - 1]).pop()?;
            let after = text::lower_words(pieces[i + 1]).into_iter().next()?;
            Some((before, text::squash_whitespace(pieces[i]).to_lowercase(), after))
        })
        .collect()
}

/// The identifiers a text writes outside code marks, framed as
/// [`framed_literals`] frames its code: lowercase words joined by hyphens
/// ("in the debian-policy package"), which a manual writes with or without
/// the marks. English writes some compounds so ("a two-person team"); set
/// in another's frame, one of those is a changed value all the same.
fn framed_identifiers(text: &str) -> Vec<(String, String, String)> {
    let identifier = |w: &str| {
        w.contains('-') && w.chars().any(|c| c.is_ascii_lowercase()) && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !w.starts_with('-') && !w.ends_with('-')
    };
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    text.split('`')
        .step_by(2)
        .flat_map(|stretch| {
            let words: Vec<&str> = stretch.split_whitespace().collect();
            // A word with a mark after it ends its phrase: no frame runs across the mark.
            (1..words.len().saturating_sub(1))
                .filter(|&i| identifier(words[i]) && !words[i - 1].ends_with(|c: char| !c.is_alphanumeric()))
                .map(|i| (bare(words[i - 1]), words[i].to_string(), bare(words[i + 1])))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The most operations a number the answer works out may take ("$29 + (5 -
/// 3) × $8" is three).
pub const MAX_STEPS: usize = 3;

/// The numbers an answer works out and shows its work for: each written in
/// the answer (`context.shown`) and reached from other numbers written in
/// the answer or the question in at most [`MAX_STEPS`] additions,
/// subtractions, multiplications or divisions, where each operand is stated
/// by the passages, given by the question, or itself so worked out ("$220
/// plus $40 comes to $260"; "with 8 employees, $15 plus $3 for each one over
/// 5 is $24"). A number only the answer writes, reached by no such sum, is
/// not stated.
pub fn shown_work(source: &[text::Quantity], context: &Context<'_>) -> Vec<f64> {
    // Counts, amounts and measures add up; a day, a month, a clock time, a rank or a share does not.
    let arithmetic = |q: &&text::Quantity| matches!(q.unit, text::Unit::Plain | text::Unit::Money(_) | text::Unit::Measure(_));
    let stated = |q: &text::Quantity| source.iter().any(|s| q.agrees_with(s)) || context.asked.iter().any(|a| q.agrees_with(a));
    let mut operands: Vec<f64> = context.asked.iter().filter(arithmetic).map(|q| q.value).collect();
    operands.extend(context.shown.iter().filter(arithmetic).filter(|q| stated(q)).map(|q| q.value));
    let mut pending: Vec<f64> = context.shown.iter().filter(arithmetic).filter(|q| !stated(q)).map(|q| q.value).collect();
    // Each number once: "10% … 10%" is not two tens to divide by five.
    operands.sort_by(f64::total_cmp);
    operands.dedup();
    let mut derived = Vec::new();
    // Each pass may work out numbers the next pass builds on.
    loop {
        let before = derived.len();
        pending.retain(|&target| {
            let others: Vec<f64> = operands.iter().copied().filter(|&o| (o - target).abs() > 1e-9).collect();
            if reachable(target, &others, MAX_STEPS) {
                derived.push(target);
                false
            } else {
                true
            }
        });
        if derived.len() == before {
            return derived;
        }
        operands.extend(&derived[before..]);
    }
}

/// A count the claim shows by listing what it counts: "three forms: `any`,
/// which matches every architecture, `os-any` …, and `any-cpu` …" (a list
/// after a colon), "the two ways, shipping it … or managing it …, must not
/// be mixed" (a list in apposition). Each item is the claim's to support;
/// the count is its own arithmetic. Items are the list's comma-separated
/// parts, the last one's "and" or "or" parts too; a part that opens with a
/// relative pronoun describes the item before it.
fn counts_its_list(claim: &str, q: &text::Quantity) -> bool {
    let small_count = q.unit == text::Unit::Plain && q.value.fract() == 0.0 && (2.0..=12.0).contains(&q.value);
    let lower = claim.to_lowercase();
    let Some(at) = lower.find(&q.written.to_lowercase()).filter(|_| small_count) else { return false };
    let rest = &lower[at + q.written.len()..];
    // The list ends with its clause or its sentence (". ", not the dot of a ".dsc").
    let rest = &rest[..[rest.find(';'), rest.find(". ")].into_iter().flatten().min().unwrap_or(rest.len())];
    let list = match (rest.find(':'), rest.find(',')) {
        (Some(colon), comma) if comma.is_none_or(|c| colon < c) => rest[colon + 1..].trim_end_matches('.').to_string(),
        (_, Some(comma)) => {
            let after = &rest[comma + 1..];
            after[..after.find(',').unwrap_or(after.len())].to_string()
        }
        _ => return false,
    };
    let parts: Vec<&str> = list.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let relative = |p: &str| matches!(p.split_whitespace().next(), Some("which" | "who" | "that" | "where" | "whose"));
    let mut items = parts.iter().filter(|p| !relative(p)).count();
    // "A or B" and "A, B and C": the last part may join two items.
    if let Some(last) = parts.iter().rev().find(|p| !relative(p)) {
        let last = last.trim_start_matches("and ").trim_start_matches("or ");
        items += [" and ", " or "].iter().map(|w| last.matches(w).count()).sum::<usize>();
    }
    items == q.value as usize
}

/// `target` is some combination of at least two of `operands` (each used
/// once) by +, -, × and ÷, in at most `steps` operations; multiplying or
/// dividing by 1 and adding or subtracting 0 are no steps.
fn reachable(target: f64, operands: &[f64], steps: usize) -> bool {
    fn search(values: &[f64], target: f64, steps: usize, combined: bool) -> bool {
        if combined && values.iter().any(|v| (v - target).abs() < 1e-9) {
            return true;
        }
        if steps == 0 {
            return false;
        }
        for i in 0..values.len() {
            for j in 0..values.len() {
                if i == j {
                    continue;
                }
                let (a, b) = (values[i], values[j]);
                let mut results = vec![a + b, a - b, a * b];
                if b != 0.0 {
                    results.push(a / b);
                }
                if a == 0.0 || b == 0.0 || a == 1.0 || b == 1.0 {
                    continue;
                }
                let rest: Vec<f64> = values.iter().enumerate().filter(|(k, _)| *k != i && *k != j).map(|(_, v)| *v).collect();
                for r in results {
                    let mut next = rest.clone();
                    next.push(r);
                    if search(&next, target, steps - 1, true) {
                        return true;
                    }
                }
            }
        }
        false
    }
    // Few numbers are ever written in one answer; more than eight is not shown work.
    operands.len() >= 2 && operands.len() <= 8 && search(operands, target, steps, false)
}

/// A bare count goes with the noun it counts: "1 meeting-room hour" is not
/// stated by "one person". When the claim writes words after a plain number,
/// one of them must stand by the same number in the source: within three
/// words after it ("300 printed pages" meets "300 black-and-white pages"),
/// or, when the source counts at a rate ("5 per month") or measures a noun
/// with "of" ("teams of 2 to 6"), in its clause before it ("invoices are
/// limited to 5 per month", "a two-person team"). Numbers with a unit
/// (money, time, percent) carry their noun in the unit, and a partitive
/// ("two of the three") counts members of a set it does not name again.
fn counts_alike(claim: &str, q: &text::Quantity, passage: &str, s: &text::Quantity) -> bool {
    if q.unit != text::Unit::Plain {
        return true;
    }
    const MARKS: [char; 8] = ['.', ',', ';', ':', '!', '?', '(', ')'];
    // The words by each place a text writes the number, within its clause: "Three: once …" counts nothing written.
    let near = |text: &str, written: &str, rate: bool| -> Vec<Vec<String>> {
        let lower = text.to_lowercase();
        let written = written.to_lowercase();
        lower
            .match_indices(&written)
            .map(|(at, _)| {
                let rest = &lower[at + written.len()..];
                // A partitive ("two of the three", "2 of them") counts members of a set named before: no noun of its own.
                let partitive = rest.trim_start().starts_with("of ");
                let after: Vec<String> =
                    rest[..rest.find(MARKS).unwrap_or(rest.len())].split_whitespace().take(3).filter(|_| !partitive).flat_map(text::terms).collect();
                let head = &lower[..at];
                let before = &head[head.rfind(MARKS).map_or(0, |m| m + 1)..];
                // ("Teams of 2 to 6": a number after "of" measures the noun before it, as a rate's count does.)
                let counted_before = rate && (rest.trim_start().starts_with("per ") || before.trim_end().ends_with(" of"));
                after.into_iter().chain(before.split_whitespace().filter(|_| counted_before).flat_map(text::terms)).collect()
            })
            .collect()
    };
    let Some(counted) = near(claim, &q.written, false).into_iter().next().filter(|t| !t.is_empty()) else { return true };
    // A source number with a unit counts that unit ("a single day" counts days, not meeting-room hours).
    let unit: Vec<String> = match s.unit {
        text::Unit::Plain => Vec::new(),
        _ => s.written.split_whitespace().last().map(text::terms).unwrap_or_default().into_iter().filter(|t| !text::is_numeric(t)).collect(),
    };
    near(passage, &s.written, true).iter().any(|source| {
        let source: Vec<&String> = unit.iter().chain(source).collect();
        source.is_empty() || counted.iter().any(|t| source.contains(&t))
    })
}

/// A clause of the claim and a clause of the source say the same thing, up to
/// polarity, when the source clause holds at least this share of the claim
/// clause's terms (and two of them at least): all but a quarter, so that a
/// clause sharing only its subject ("unused hours … roll over" against
/// "unused hours expire") restates nothing.
pub const ALIGNED: f64 = 0.75;

/// The source clause a claim's clause is set against: the one holding most
/// of its terms, if it holds [`ALIGNED`] of them and they are half of its
/// own. A clause the source does not state at all ("they don't roll over",
/// where the source says only that they expire) aligns with nothing, so it
/// cannot contradict anything: whether the source supports it is the
/// entailment score's question, not this one's. Nor does a short claim set
/// against a long clause whose negation sits in the part it does not
/// restate ("the account is suspended" against "an account whose breach is
/// not fixed … is suspended"). But where that clause states no value of
/// the claim's kind, a source clause that states the claim's value and
/// holds [`ALIGNED`] of its terms is the one it restates, however long:
/// "Receipt Scanning would be $6 a month" restates "The Receipt Scanning
/// add-on costs $6 per month and includes 200 receipt scans per month",
/// not "unused receipt scans do not carry over to the next month".
fn aligned_clause<'a>(clause: &str, passage: &'a str) -> Option<&'a str> {
    let wanted = content_terms(clause);
    let sharing = sharing_clauses(&wanted, passage);
    let best = sharing
        .iter()
        .filter(|&&(shared, own, _)| restates(shared, own, wanted.len()))
        // Of two clauses holding as many of the claim's terms, the one with fewer terms of its own restates it.
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(std::cmp::Ordering::Greater))?
        .2;
    let values = text::quantities(clause);
    if values.is_empty() || text::quantities(best).iter().any(|s| values.iter().any(|q| q.unit == s.unit)) {
        return Some(best);
    }
    let states_its_value = |source: &str| text::quantities(source).iter().any(|s| values.iter().any(|q| q.agrees_with(s)));
    let valued = sharing
        .iter()
        .filter(|&&(shared, _, source)| holds_enough(shared, wanted.len()) && states_its_value(source))
        .max_by(|a, b| a.0.cmp(&b.0).then(std::cmp::Ordering::Greater));
    Some(valued.map_or(best, |v| v.2))
}

/// A source clause holding `shared` of a claim clause's `wanted` terms,
/// with `own` terms of its own, restates it (see [`aligned_clause`]): it
/// holds enough of them, and they are half of its own.
fn restates(shared: usize, own: usize, wanted: usize) -> bool {
    holds_enough(shared, wanted) && 2 * shared >= own
}

/// A source clause holding `shared` of a claim clause's `wanted` terms
/// holds enough of them to restate it: [`ALIGNED`] of them, two at least.
fn holds_enough(shared: usize, wanted: usize) -> bool {
    shared >= 2 && shared as f64 >= ALIGNED * wanted as f64
}

/// Each source clause with how many of the `wanted` terms it holds, and its own count.
fn sharing_clauses<'a>(wanted: &[String], passage: &'a str) -> Vec<(usize, usize, &'a str)> {
    text::clauses_of(passage)
        .into_iter()
        .map(|c| {
            let terms: Vec<String> = content_terms(c).into_iter().filter(|t| text::negations(t) == 0).collect();
            // A word set against its antonym ("closed" for "open") is the same place in the clause.
            let holds = |t: &String| terms.contains(t) || opposites(t).iter().any(|o| terms.contains(o));
            (wanted.iter().filter(|t| holds(t)).count(), terms.len(), c)
        })
        .collect()
}

/// The first clause of a claim set against the source clause it restates
/// and contradicting it: a negation or an antonym flipped, or a value
/// changed (see [`changed_value`]; `given`: the values that need no source).
pub fn contradicted(claim: &str, passage: &str, given: &dyn Fn(&text::Quantity) -> bool) -> Option<String> {
    text::clauses_of(claim)
        .into_iter()
        .flat_map(coordinated)
        .find_map(|clause| {
            aligned_clause(clause, passage)
                .and_then(|source| contradiction(clause, source))
                .or_else(|| changed_value(clause, passage, given))
                .or_else(|| scope_changed(clause, passage))
        })
        .or_else(|| swapped_literals(claim, passage))
        .or_else(|| borrowed_literal(claim, passage))
        .or_else(|| reordered(claim, passage))
}

/// A sequence a claim puts in another order than the source: the claim's
/// clause that says "first" and the source's share their relation ("are
/// compared first", "first the epoch … is compared"), yet the claim puts
/// first a thing the source names only later in that sentence, and names
/// later the thing the source puts first.
fn reordered(claim: &str, passage: &str) -> Option<String> {
    let says_first = |clause: &str| text::lower_words(clause).iter().any(|w| w == "first");
    // Each clause saying "first", with its terms, and the terms of its sentence's later clauses.
    let sequences = |text: &'_ str| -> Vec<(Vec<String>, Vec<String>)> {
        text::sentences(text)
            .into_iter()
            .flat_map(|sentence| {
                let clauses = text::clauses(sentence);
                (0..clauses.len())
                    .filter(|&i| says_first(clauses[i]))
                    .map(|i| {
                        let own = content_terms(clauses[i]).into_iter().filter(|t| !text::same_word(t, "first")).collect();
                        (own, clauses[i + 1..].iter().flat_map(|c| content_terms(c)).collect())
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let source = sequences(passage);
    sequences(claim).into_iter().find_map(|(claimed_first, claimed_later)| {
        source.iter().find_map(|(source_first, source_later)| {
            let relation = claimed_first.iter().any(|t| source_first.contains(t));
            let moved_up = claimed_first.iter().find(|t| !source_first.contains(t) && source_later.contains(t))?;
            let moved_down = source_first.iter().find(|t| !claimed_first.contains(t) && claimed_later.contains(t))?;
            relation.then(|| format!("puts {moved_up} first where the source puts {moved_down} first"))
        })
    })
}

/// A literal value a claim takes from a parallel clause of the source: the
/// claim restates one source sentence (it shares more of the claim's other
/// words than any other, at least half of them) whose clause says of one
/// value what another sentence's clause says, word for word, of another
/// ("if … `foo` only adds HTML, … declare at most a `Suggests`"; "Otherwise,
/// … declare at most a `Recommends`"), and the claim writes the other
/// value and none of the restated sentence's, and two words of its case
/// the other sentence lacks: the value of another case. So does a value of
/// the restated sentence's kind that another sentence of the passage writes
/// (see [`same_kind`]).
fn borrowed_literal(claim: &str, passage: &str) -> Option<String> {
    let own = code_values(claim);
    let sentences = text::sentences(passage);
    let restated = restated_sentence(claim, &sentences)?;
    if code_values(restated).iter().any(|v| own.contains(v)) {
        return None;
    }
    // A value of the restated sentence's own kind, written elsewhere in the passage ("`/var/spool/mail`"
    // where the sentence restated says "The system-wide mail directory is `/var/mail`"), is moved in.
    let elsewhere: Vec<String> = sentences.iter().filter(|s| **s != restated).flat_map(|s| code_values(s)).collect();
    let moved = own.iter().filter(|v| elsewhere.contains(v)).find_map(|v| code_values(restated).into_iter().find(|r| same_kind(v, r)).map(|r| (v, r)));
    if let Some((value, theirs)) = moved {
        return Some(format!("says `{value}` where the sentence it restates says `{theirs}`"));
    }
    let theirs: Vec<(&str, Vec<String>)> = text::clauses_of(restated).into_iter().filter(|c| !code_values(c).is_empty()).map(|c| (c, said(c))).collect();
    // The restated sentence's words the claim says: its case, if another sentence lacks two of them.
    let claimed = content_terms(claim);
    let case: Vec<String> = content_terms(restated).into_iter().filter(|t| claimed.contains(t)).collect();
    sentences.iter().filter(|s| **s != restated).find_map(|sentence| {
        let other_terms = content_terms(sentence);
        if case.iter().filter(|t| !other_terms.contains(t)).count() < 2 {
            return None;
        }
        text::clauses_of(sentence).into_iter().find_map(|clause| {
            let value = code_values(clause).into_iter().find(|v| own.contains(v))?;
            let words = said(clause);
            let (parallel, _) = theirs.iter().find(|(_, other)| !words.is_empty() && *other == words)?;
            Some(format!("says `{value}` where the sentence it restates says {parallel:?}"))
        })
    })
}

/// Two literal values a claim sets in each other's clauses: the clause of
/// the claim holding one restates (by its other words) the source clause
/// that holds the other, and the other way round ("the `.changes` must list
/// it, but the `.dsc` should leave it out" where the source has the `.dsc`
/// list it and the `.changes` leave it out). Each value is the same literal;
/// what is said of it is swapped.
fn swapped_literals(claim: &str, passage: &str) -> Option<String> {
    let clauses: Vec<(&str, Vec<String>)> = text::clauses_of(claim).into_iter().map(|c| (c, code_values(c))).filter(|(_, v)| !v.is_empty()).collect();
    let source: Vec<(&str, Vec<String>)> = text::clauses_of(passage).into_iter().map(|c| (c, code_values(c))).collect();
    // The source clause a claim clause restates by its words other than its values.
    let restated = |clause: &str, values: &[String]| {
        let own: Vec<String> = values.iter().flat_map(|v| text::terms(v)).collect();
        let wanted: Vec<String> = content_terms(clause).into_iter().filter(|t| !own.contains(t)).collect();
        let shared = |c: &str| {
            let terms = content_terms(c);
            wanted.iter().filter(|t| terms.contains(t)).count()
        };
        let best = source.iter().map(|(c, _)| shared(c)).max().filter(|&n| n > 0)?;
        let mut at_best = source.iter().filter(|(c, _)| shared(c) == best);
        match (at_best.next(), at_best.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    };
    for (i, (first, first_values)) in clauses.iter().enumerate() {
        for (second, second_values) in &clauses[i + 1..] {
            let (Some(here), Some(there)) = (restated(first, first_values), restated(second, second_values)) else { continue };
            let swapped = first_values.iter().find_map(|a| {
                second_values.iter().find(|b| a != *b && !first_values.contains(b) && !second_values.contains(a) && here.1.contains(b) && !here.1.contains(a) && there.1.contains(a) && !there.1.contains(b)).map(|b| (a, b))
            });
            if let Some((a, b)) = swapped {
                return Some(format!("swaps {a} and {b}: the source says {:?} and {:?}", here.0, there.0));
            }
        }
    }
    None
}

/// A text's words other than its values: what it says of them.
fn said(text: &str) -> Vec<String> {
    let values: Vec<String> = code_values(text).iter().flat_map(|v| text::terms(v)).collect();
    content_terms(text).into_iter().filter(|t| !values.contains(t)).collect()
}

/// The one sentence of `sentences` a claim restates: it shares more of the
/// claim's words other than its values than any other, and at least half.
fn restated_sentence<'a>(claim: &str, sentences: &[&'a str]) -> Option<&'a str> {
    let wanted = said(claim);
    let shared = |s: &str| {
        let terms = content_terms(s);
        wanted.iter().filter(|t| terms.contains(t)).count()
    };
    let best = sentences.iter().map(|s| shared(s)).max().filter(|&n| n > 0 && 2 * n >= wanted.len())?;
    let mut at_best = sentences.iter().filter(|s| shared(s) == best);
    match (at_best.next(), at_best.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// Two literal values of one kind: paths, or names, that share a part
/// ("/var/mail" and "/var/spool/mail").
fn same_kind(a: &str, b: &str) -> bool {
    let parts = |v: &str| v.split(|c: char| !c.is_alphanumeric()).filter(|p| p.len() >= 3).map(str::to_string).collect::<Vec<_>>();
    a != b && a.starts_with('/') == b.starts_with('/') && parts(a).iter().any(|p| parts(b).contains(p))
}

/// The code values of a text, lowercased, without their marks.
fn code_values(text: &str) -> Vec<String> {
    literal::code_spans(text).into_iter().map(|v| text::squash_whitespace(v).to_lowercase()).collect()
}

/// The first clause of a claim that a passage denies outright (see [`denied`]).
pub fn denied_by(claim: &str, passage: &str, known: &[String]) -> Option<String> {
    text::clauses_of(without_particle(claim)).into_iter().flat_map(coordinated).find_map(|clause| denied(clause, passage, known))
}

/// An affirmative clause of a claim that states every term of a source
/// clause denying it ("service credits are applied automatically to your
/// next invoice" against "Billwren does not apply service credits
/// automatically"), where no affirmative source clause states all of the
/// claim's: the claim affirms what the source denies, whatever it adds. A
/// name opening the denial is left out of it, as the agent a passive
/// restatement drops ("Billwren does not apply …"), and so is its emphasis.
fn denied(clause: &str, passage: &str, known: &[String]) -> Option<String> {
    if negated(clause) > 0 {
        return None;
    }
    let claimed = content_terms(clause);
    let clauses = text::clauses_of(passage);
    // An affirmative source clause with all the claim's terms states it: the
    // denial nearby is of something else ("… but not on weekends").
    let restated = |c: &str| negated(c) == 0 && { let own = content_terms(c); claimed.iter().all(|t| own.contains(t)) };
    if clauses.iter().any(|c| restated(c)) {
        return None;
    }
    // "limited to 1 user" is the fact "cannot have more than 1 user" states.
    let bound = upper_bound(clause);
    clauses.into_iter().filter(|c| negated(c) > 0 && !(bound && negated_comparative(c))).find_map(|c| {
        // A name that opens the denial is its agent, which a passive restatement drops.
        let agent: Vec<String> = known.iter().filter(|n| c.trim_start().starts_with(n.as_str())).flat_map(|n| text::terms(n)).collect();
        let denial: Vec<String> = content_terms(&without_emphasis(c)).into_iter().filter(|t| text::negations(t) == 0 && !agent.contains(t)).collect();
        let denies_a_predicate = denial.iter().any(|t| predicate_terms(c).contains(t));
        (denial.len() >= 2 && denies_a_predicate && denial.iter().all(|t| claimed.contains(t))).then(|| format!("affirms what the source denies: {:?}", c.trim()))
    })
}

/// The terms a negated clause denies of its subject: from the word before
/// its first negation on ("are *not allowed*", "does not *apply* service
/// credits", "*no* pets are *allowed*"). A clause whose negation denies only
/// through a light verb ("a build target that does nothing") denies no
/// predicate a claim could affirm: the claim that names its subject ("the
/// build target") says nothing it denies.
fn predicate_terms(clause: &str) -> Vec<String> {
    let words = text::lower_words(clause);
    let first = words.iter().position(|w| negated(w) > 0).unwrap_or(0);
    content_terms(&words[first.saturating_sub(1)..].join(" "))
}

/// The emphatic phrases a negation takes ("no other pets are allowed *at any
/// time*"): they strengthen the "no", and say nothing a restatement must repeat.
const NEGATIVE_EMPHASIS: &[&str] = &["at any time", "at all", "whatsoever", "in any way", "under any circumstances", "in any case", "of any kind"];
/// A negated clause without its emphatic phrases (see [`NEGATIVE_EMPHASIS`]).
fn without_emphasis(clause: &str) -> String {
    NEGATIVE_EMPHASIS.iter().fold(clause.to_string(), |rest, phrase| {
        // ASCII lowercasing keeps byte offsets, so a match indexes `rest` itself.
        let lower = rest.to_ascii_lowercase();
        let whole = |at: usize| !rest[..at].ends_with(char::is_alphanumeric) && !rest[at + phrase.len()..].starts_with(char::is_alphanumeric);
        match lower.match_indices(phrase).map(|(at, _)| at).find(|&at| whole(at)) {
            Some(at) => format!("{} {}", &rest[..at], &rest[at + phrase.len()..]),
            None => rest,
        }
    })
}

/// Distributive phrases of English: a value holds for each one of what follows.
const DISTRIBUTIVE: &[&str] = &["per", "for each", "for every", "with each", "on each"];
/// Collective phrases: a value holds for all of what follows together.
const COLLECTIVE: &[&str] = &["across all", "shared by all", "shared across", "combined across", "in total across", "not per"];

/// A value a claim's clause states for each one of something ("300 requests
/// per minute *for each API key*") where the passage counts it across all
/// of them ("counted per account, *across all API keys*", "not per user"):
/// a distributive reading set against the source's collective one.
fn scope_changed(clause: &str, passage: &str) -> Option<String> {
    let claimed = scoped_nouns(clause, DISTRIBUTIVE);
    // (The passage is read only for a clause that scopes a value.)
    if claimed.is_empty() || text::quantities(clause).is_empty() {
        return None;
    }
    let pooled = scoped_nouns(passage, COLLECTIVE);
    claimed.into_iter().find(|(noun, _)| pooled.iter().any(|(p, _)| p == noun)).map(|(_, phrase)| {
        format!("says {phrase:?} where the source counts across all of them")
    })
}

/// The noun each of `markers` scopes in `text` (the last term of the
/// words after it, up to a function word or a clause's end), with the phrase.
fn scoped_nouns(text: &str, markers: &[&str]) -> Vec<(String, String)> {
    let words = text::lower_words(text);
    let mut found = Vec::new();
    for marker in markers {
        let marker: Vec<&str> = marker.split(' ').collect();
        for (at, _) in words.windows(marker.len()).enumerate().filter(|(_, window)| *window == marker.as_slice()) {
            let rest = &words[at + marker.len()..];
            let noun: Vec<&String> = rest.iter().take(3).take_while(|w| !text::stopwords::is_stopword(w) && !is_function_word(w)).collect();
            if let Some(last) = noun.last().and_then(|w| text::terms(w).pop()) {
                let phrase = marker.iter().copied().chain(noun.iter().map(|w| w.as_str())).collect::<Vec<_>>().join(" ");
                found.push((last, phrase));
            }
        }
    }
    found
}

/// English's phrases that join two statements within one clause ("can be
/// used for household budgeting *as well as* for business use"): each side
/// is set against the source on its own.
const PHRASAL_COORDINATORS: &[&str] = &[" as well as ", " along with ", " together with ", " in addition to "];

/// A clause split at its [`PHRASAL_COORDINATORS`].
fn coordinated(clause: &str) -> Vec<&str> {
    PHRASAL_COORDINATORS.iter().fold(vec![clause], |parts, marker| parts.into_iter().flat_map(|p| p.split(marker)).collect())
}

/// A claim without its opening answer particle ("No, the desk is …" is "the desk is …").
pub fn without_particle(claim: &str) -> &str {
    let trimmed = claim.trim_start();
    if let Some(rest) = elliptical_no(trimmed).filter(|rest| !rest.is_empty()) {
        return rest;
    }
    let first = trimmed.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    if !first.is_empty() && particle(first).is_some() {
        let rest = trimmed[first.len()..].trim_start_matches([',', '.', '!', ';', ':', ' ']);
        if !rest.is_empty() {
            return rest;
        }
    }
    trimmed
}

/// The terms of a term's antonyms in [`ANTONYMS`].
fn opposites(term: &str) -> Vec<String> {
    ANTONYMS
        .iter()
        .flat_map(|&[a, b]| [(a, b), (b, a)])
        .filter(|(said, _)| text::stem(said) == term)
        .map(|(_, opposite)| text::stem(opposite))
        .collect()
}

/// A negation or antonym flip of a claim's clause against the source clause it aligns with.
fn contradiction(claim: &str, sentence: &str) -> Option<String> {
    // "… and so should copyright statements": the clause before says what; its polarity is checked there.
    let words = text::lower_words(claim);
    let opening: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "and").take(2).collect();
    if matches!(opening[..], ["so" | "neither" | "nor", auxiliary] if AUXILIARIES.contains(&auxiliary)) {
        return None;
    }
    let statement = negated(claim) > 0 || words.iter().any(|w| AUXILIARIES.contains(&w.as_str()));
    let same_bound = negated(claim) == 0 && upper_bound(claim) && negated_comparative(sentence);
    // Polarity is whether a clause negates: "not kept … and never kept" says one "not" twice.
    // A condition's polarity says which case it names, not whether a fact holds.
    let a_case = names_a_case(claim) || names_a_case(sentence);
    if statement && (negated(claim) > 0) != (negated(sentence) > 0) && !same_bound && !a_case {
        return Some("negation differs from the source".into());
    }
    let (claim_words, source_words) = (text::lower_words(claim), text::lower_words(sentence));
    let has = |words: &[String], w: &str| words.iter().any(|x| x == w);
    // An antonym as written; a separator mark in any inflection ("commas").
    swapped(ANTONYMS.iter().map(|pair| pair.as_slice()), |w| has(&claim_words, w), |w| has(&source_words, w)).or_else(|| {
        let (claimed, stated) = (text::terms(claim), text::terms(sentence));
        swapped(EXCLUSIVE_VALUES.iter().copied(), |v| claimed.contains(&text::stem(v)), |v| stated.contains(&text::stem(v)))
    })
}

/// A clause that opens with a condition, its subordinator among its first
/// three words (after a coordinator or a focus adverb: "and only if"). It
/// names a case, and its polarity says which: "if every room had a
/// deposit" and "if one room has no deposit" are two cases, "(unless the
/// guest has a badge)" an exception to a rule, and none of them states a
/// fact that another clause could deny or affirm ("If anyone can open a
/// locker they can take …" is no rule that "a locker must not be open to
/// anyone" flips). The statement a condition governs is a clause of its
/// own, and is still set against the source's.
fn names_a_case(clause: &str) -> bool {
    text::lower_words(clause).iter().take(3).any(|w| CONDITIONALS.contains(&w.as_str()))
}

/// The first of `sets` of values that exclude one another (a pair of
/// antonyms, or [`EXCLUSIVE_VALUES`]) where the claim names members of the
/// set and the source names only others.
fn swapped<'a>(sets: impl IntoIterator<Item = &'a [&'a str]>, in_claim: impl Fn(&str) -> bool, in_source: impl Fn(&str) -> bool) -> Option<String> {
    sets.into_iter().find_map(|set| {
        let said: Vec<&str> = set.iter().copied().filter(|v| in_claim(v)).collect();
        let stated: Vec<&str> = set.iter().copied().filter(|v| in_source(v)).collect();
        let swapped = !said.is_empty() && !stated.is_empty() && !said.iter().any(|v| stated.contains(v));
        swapped.then(|| format!("says {:?} where the source says {:?}", said.join(", "), stated.join(", ")))
    })
}

/// A value of a claim's clause where the source clauses that restate it
/// state another value of the same unit ("within 72 hours" set against
/// "within 48 hours"), and no sentence holding as much of the clause states
/// this one: a changed fact, though the passage may state the claim's value
/// elsewhere ("updates every 72 hours"). A value the answer works out or
/// the question gives (`given`) is not the source's to state. A bare number
/// counts only written in digits on both sides.
fn changed_value(clause: &str, passage: &str, given: &dyn Fn(&text::Quantity) -> bool) -> Option<String> {
    let wanted = content_terms(clause);
    let sharing = sharing_clauses(&wanted, passage);
    let aligned: Vec<&(usize, usize, &str)> = sharing.iter().filter(|&&(shared, own, _)| restates(shared, own, wanted.len())).collect();
    let most = aligned.iter().map(|a| a.0).max()?;
    let as_close: Vec<&str> = sharing.iter().filter(|c| c.0 >= most).map(|c| c.2).collect();
    let stated: Vec<text::Quantity> =
        text::sentences(passage).into_iter().filter(|s| as_close.iter().any(|c| s.contains(c))).flat_map(text::quantities).collect();
    let rivals: Vec<text::Quantity> = aligned.iter().flat_map(|a| text::quantities(a.2)).collect();
    text::quantities(clause).into_iter().filter(|q| !given(q)).find_map(|q| {
        let rival = rivals.iter().find(|s| s.unit == q.unit && (q.unit != text::Unit::Plain || digits(&q.written) && digits(&s.written)))?;
        (!stated.iter().any(|s| q.agrees_with(s))).then(|| format!("says {} where the source says {}", q.written, rival.written))
    })
}

/// A number written in digits: "one" is as often a pronoun as a count.
fn digits(written: &str) -> bool {
    written.chars().any(|c| c.is_ascii_digit())
}

/// English's verbs whose meaning holds a "not": "omitted" is "not
/// included", "fails to" is "does not", "left out" is "not put in".
const NEGATIVE_VERBS: &[&str] = &[
    "omit", "omits", "omitted", "omitting", "elide", "elides", "elided", "eliding", "disallow", "disallows", "disallowed", "exclude", "excludes", "excluded", "excluding", "lack", "lacks", "lacked", "lacking",
    "fail", "fails", "failed", "failing", "refuse", "refuses", "refused", "refusing", "deny", "denies", "denied", "denying",
    "avoid", "avoids", "avoided", "avoiding", "prevent", "prevents", "prevented", "preventing", "prohibit", "prohibits",
    "prohibited", "forbid", "forbids", "forbidden", "forbade", "ban", "bans", "banned",
];
/// The same, as a verb with its particle.
const NEGATIVE_PHRASAL_VERBS: &[&str] = &["leave out", "leaves out", "left out", "leaving out"];

/// How many negations a clause states, a verb that means "not …" among
/// them (see [`NEGATIVE_VERBS`]) and "unless": "should be left out" and "should not be
/// included" say one thing.
fn negated(clause: &str) -> usize {
    let words = text::lower_words(clause);
    let joined = format!(" {} ", words.join(" "));
    let verbs = words.iter().filter(|w| NEGATIVE_VERBS.contains(&w.as_str())).count();
    let phrasal = NEGATIVE_PHRASAL_VERBS.iter().map(|p| joined.matches(&format!(" {p} ")).count()).sum::<usize>();
    // "unless" is "if not": "add it unless it is listed" is "do not add it if it is listed".
    let unless = words.iter().filter(|w| *w == "unless").count();
    // "whether it is broken or not" asks both ways: its "not" denies nothing (and nor does the
    // "or not" that opens what is left of such a clause once an aside has split it off).
    let asks_both_ways = words.iter().any(|w| w == "whether") || joined.starts_with(" or not ");
    let both_ways = if asks_both_ways { joined.matches(" or not ").count() } else { 0 };
    (text::negations(clause) + verbs + phrasal + unless).saturating_sub(both_ways)
}

/// English's ways of stating an upper bound without a negation: "limited
/// to 1 user", "at most 10", "up to 50", "a maximum of 5".
const UPPER_BOUNDS: &[&str] = &["limited to", "at most", "up to", "maximum", "no more than", "capped at"];

/// The clause states an upper bound (see [`UPPER_BOUNDS`]).
fn upper_bound(clause: &str) -> bool {
    let lower = format!(" {} ", text::lower_words(clause).join(" "));
    UPPER_BOUNDS.iter().any(|b| lower.contains(&format!(" {b} ")))
}

/// The clause negates a comparative ("cannot have more than 1 user", "must
/// not exceed 10"): an upper bound, the same fact as "limited to 1 user",
/// not the opposite of it.
fn negated_comparative(clause: &str) -> bool {
    let words = text::lower_words(clause);
    words.iter().enumerate().any(|(i, w)| {
        text::negations(w) > 0 && words[i + 1..].iter().take(4).any(|n| matches!(n.as_str(), "more" | "exceed" | "exceeds" | "over" | "longer" | "beyond"))
    })
}

/// The distinct terms of a text that say what it is about: not numbers
/// (checked as quantities), not function words ("can", "get", "instead":
/// how a statement holds, which a restatement need not repeat).
pub fn content_terms(text: &str) -> Vec<String> {
    let function: Vec<String> = text::lower_words(text).into_iter().filter(|w| is_function_word(w)).flat_map(|w| text::terms(&w)).collect();
    text::distinct_terms(text).into_iter().filter(|t| !text::is_numeric(t) && !function.contains(t)).collect()
}


/// Scores a claim against every passage and keeps the best. `question` holds
/// the question's terms (see [`entailment`]).
pub fn check(claim: &str, question: &[String], passages: &[Hit]) -> ClaimCheck {
    let known = known_names(passages);
    check_in(claim, question, passages, &Context { known: &known, ..Context::default() })
}

/// [`check`] with the question's and the answer's numbers (`context`; its
/// heading is each passage's own).
pub fn check_in(claim: &str, question: &[String], passages: &[Hit], context: &Context<'_>) -> ClaimCheck {
    let scored: Vec<(&str, f64, f64, Vec<String>)> = passages
        .iter()
        .map(|p| {
            let raw = entailment(claim, question, &p.text);
            let (capped, caps) = sanity(claim, &p.text, &Context { heading: &p.section, ..*context }, raw);
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

/// [`check_in`], and when no one passage bears the claim out uncapped,
/// the passages read as one: a sentence of a model's answer may state what
/// two cited passages state together ("$220 for the Flex Desk plan plus $40
/// for the Business Address add-on"). Each value is still bound as its own
/// source sentence binds it (see [`paired_in_a_window`]).
pub fn check_across(claim: &str, question: &[String], passages: &[Hit], context: &Context<'_>) -> ClaimCheck {
    let alone = check_in(claim, question, passages, context);
    if alone.caps.is_empty() || passages.len() < 2 {
        return alone;
    }
    let joined = |part: fn(&Hit) -> &str, between: &str| passages.iter().map(part).collect::<Vec<_>>().join(between);
    let text = joined(|h| h.text.as_str(), "\n");
    let heading = joined(|h| h.section.as_str(), ". ");
    let raw = entailment(claim, question, &text);
    let (score, caps) = sanity(claim, &text, &Context { heading: &heading, ..*context }, raw);
    if !caps.is_empty() || score < alone.score {
        return alone;
    }
    ClaimCheck { text: claim.into(), entailment: raw, score, supporting: passages.iter().map(|h| h.id.clone()).collect(), caps }
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
/// does, clause by clause. A value goes with the name its clause writes
/// nearest it, on either side ("the Growth plan comes with 99.5%", "99.5%
/// for the Growth plan"): the source must state the value in a sentence that
/// names the same (where it names nothing, the sentence it runs on from), or
/// under a heading that does, and not bound there to a
/// sibling of the name ("a Flex Desk costs $198 and a Dedicated Desk $405":
/// the nearest name before a value, when it shares a word with the claim's).
/// A source that binds the value to no name lets any name carry it. And a
/// clause's names must meet in one stretch of the source with at least half
/// of the clause's other words ("the Event Hall" put on a rule about every
/// event is a swap): one sentence for a clause relating two names, or, for a
/// clause about one, also two sentences where the second runs on from the
/// first (see [`runs_on`]). A claim without names is left to the quantity check.
fn paired_in_a_window(claim: &str, claim_names: &[String], known_names: &[String], passage: &str, heading: &str, asker_words: bool) -> bool {
    if claim_names.is_empty() {
        return true;
    }
    let all_names: Vec<String> = claim_names.iter().chain(known_names).cloned().collect();
    let clauses = text::clauses_of(claim);
    // A clause opening with a pronoun ("…; they come with the Growth plan") speaks of what the clause before it does.
    let antecedents = clauses.iter().enumerate().map(|(i, c)| i.checked_sub(1).filter(|_| opens_with_back_reference(c)).map(|b| clauses[b]));
    let parts = clauses.iter().zip(antecedents).flat_map(|(c, before)| value_conjuncts(c).into_iter().map(move |part| (part, before)));
    parts.flat_map(|(part, before)| relation_conjuncts(part, claim_names).into_iter().map(move |p| (p, before))).all(|(clause, before)| {
        let clause_names: Vec<&String> = claim_names.iter().filter(|n| names::phrase_in(clause, n)).collect();
        if clause_names.is_empty() {
            return true;
        }
        // A heading's name ("Uptime Commitment") names its whole passage: a value is bound to the names beside it.
        let candidates: Vec<String> = clause_names.iter().filter(|n| !names::phrase_in(heading, n)).map(|n| n.to_string()).collect();
        // (A count of the claim's own list is bound to nothing the source writes.)
        let bound = text::quantities(clause).iter().filter(|q| !counts_its_list(claim, q)).all(|q| {
            // The claim binds its value as the source does (see [`clause_binding`]), or to the name nearest it.
            let mut claimed = clause_binding(clause, q, &candidates);
            if claimed.is_empty() {
                // A name written after the value, as a source clause stating the value writes it too, qualifies it
                // ("9:00 am to 5:30 pm *Irish* time"): the claim binds the value to no other name than the source does.
                let after = |text: &str, n: &str| text.find(q.written.as_str()).is_some_and(|at| !names::written_at(&text[at..], n).is_empty());
                let qualifies = |n: &&String| text::clauses_of(passage).into_iter().any(|c| text::quantities(c).iter().any(|s| s.agrees_with(q)) && after(c, n));
                claimed.extend(nearest_name(clause, &candidates.iter().collect::<Vec<_>>(), q).filter(|n| !qualifies(n)));
            }
            claimed.is_empty() || claimed.iter().any(|name| bound_alike(q, name, &all_names, passage, heading))
        });
        bound && (asker_words || concludes(clause) || related(clause, before, &clause_names, passage, heading))
    })
}

/// A clause that draws a conclusion from what the answer said before it:
/// it opens with a consequence connective ("…, so the cheapest option is
/// Starter"), or its verb is in the conditional mood, the source's facts
/// applied to the asker's case ("you'd need to move up to Growth"). No one
/// stretch of the source writes an inference, and the judge weighs it. Its
/// names and numbers are still the source's, each bound as the source binds it.
fn concludes(clause: &str) -> bool {
    // (`lower_words` keeps a contraction whole and writes its apostrophe straight: "you'd".)
    let words = text::lower_words(clause);
    let conditional_mood = words.iter().any(|w| w == "would" || w.ends_with("'d"));
    conditional_mood || words.first().is_some_and(|w| CONSEQUENCES.contains(&w.as_str()))
}

/// The coordinator words of English that join two statements of value.
const COORDINATORS: &[&str] = &["and", "plus", "or"];

/// A clause's coordinated statements of value, each one of its own: "$220
/// for the Flex Desk plan plus $40 for the Business Address add-on" is two,
/// split before a coordinator that a number or an amount follows, when
/// the phrase before it states one too ("raised a regiment and £10,000" is
/// one statement). An article may come before the value ("the $220 Flex
/// Desk plan plus the $40 Business Address add-on").
fn value_conjuncts(clause: &str) -> Vec<&str> {
    let opens_with_value = |text: &str| {
        let text = text.trim_start();
        let article = text.split_once(' ').filter(|(word, _)| matches!(word.to_ascii_lowercase().as_str(), "the" | "a" | "an"));
        article.map_or(text, |(_, rest)| rest.trim_start()).starts_with(|c: char| c.is_ascii_digit() || matches!(c, '$' | '€' | '£'))
    };
    split_at_coordinators(clause, |before, after| opens_with_value(after) && !text::quantities(before).is_empty())
}

/// `clause` split before each coordinator where `splits` holds of the
/// phrase since the last split and the rest after the coordinator.
fn split_at_coordinators(clause: &str, splits: impl Fn(&str, &str) -> bool) -> Vec<&str> {
    let lower = clause.to_lowercase();
    let mut markers: Vec<(usize, usize)> =
        COORDINATORS.iter().flat_map(|w| lower.match_indices(&format!(" {w} ")).map(|(at, m)| (at, at + m.len())).collect::<Vec<_>>()).collect();
    markers.sort();
    let (mut out, mut start) = (Vec::new(), 0);
    for (at, next) in markers {
        if at > start && splits(&clause[start..at], &clause[next..]) {
            out.push(clause[start..at].trim());
            start = next;
        }
    }
    out.push(clause[start..].trim());
    out
}

/// A clause's coordinated relations, each one of its own: "`Optional` is the
/// old name for `Suggests` and `Class` the old name for `Priority`" relates
/// two pairs of names, which the source may state in two sentences. It is
/// split before a coordinator when the phrases on both sides each name two
/// or more of the claim's names; "`Depends` and `Recommends` name packages"
/// stays one relation.
fn relation_conjuncts<'c>(clause: &'c str, claim_names: &[String]) -> Vec<&'c str> {
    let named = |phrase: &str| claim_names.iter().filter(|n| names::phrase_in(phrase, n)).count();
    split_at_coordinators(clause, |before, after| named(before) >= 2 && named(after) >= 2)
}

/// A fronted phrase of place or context that the passage does not say the
/// claim holds in: "At the lighthouse room, a member can cancel …" where the
/// sentence stating the cancellation (or its heading) says nothing of a
/// lighthouse room. The phrase is the claim's first clause, a preposition
/// and at most four words; the words it says must be the source's there.
fn unheld_setting<'c>(claim: &'c str, passage: &str, heading: &str) -> Option<&'c str> {
    let clauses = text::clauses_of(claim);
    let (front, rest) = (clauses.first()?, clauses.get(1)?);
    let words = text::lower_words(front);
    if !words.first().is_some_and(|w| PREPOSITIONS.contains(&w.as_str())) || words.len() > 5 {
        return None;
    }
    let near = text::terms(&format!("{heading}\n{}", aligned_sentence(rest, passage).unwrap_or_default()));
    content_terms(front).iter().any(|t| !near.contains(t)).then_some(*front)
}

/// A sentence's first clause when it is a phrase of place, time or
/// context set before the rest ("For a customer on the Free plan, …").
fn fronted_setting(sentence: &str) -> Option<&str> {
    let clauses = text::clauses(sentence);
    let (front, _) = (clauses.first()?, clauses.get(1)?);
    text::lower_words(front).first().is_some_and(|w| PREPOSITIONS.contains(&w.as_str())).then_some(*front)
}

/// The prepositions a fronted phrase of place, time or context opens with.
const PREPOSITIONS: &[&str] = &["at", "in", "on", "for", "with", "under", "during", "within", "inside", "from"];

/// A clause's names meet in one stretch of the source with at least half
/// of its other words (see [`paired_in_a_window`]), those of the clause its
/// pronoun stands for (`antecedent`) among them.
fn related(clause: &str, antecedent: Option<&str>, clause_names: &[&String], passage: &str, heading: &str) -> bool {
    let name_terms: Vec<String> = clause_names.iter().flat_map(|n| text::terms(n)).collect();
    let other_names: Vec<String> = antecedent.map(|a| text::names(a).iter().flat_map(|n| text::terms(n)).collect()).unwrap_or_default();
    let said_text = format!("{} {clause}", antecedent.unwrap_or_default());
    let said: Vec<String> = content_terms(&said_text)
        .into_iter()
        .filter(|t| !name_terms.contains(t) && !other_names.contains(t) && particle(t).is_none())
        .collect();
    let said = word_units(&said, &said_text);
    // Two names in one clause are a relation between them: one sentence must
    // state it. One name is a subject, and the sentence that runs on may add to it.
    let stretches = if clause_names.len() == 1 { windows(passage) } else { text::sentences(passage).into_iter().map(str::to_string).collect() };
    // The heading names what its passage is about, in every stretch of it.
    let headed = text::terms(heading);
    stretches.iter().any(|window| {
        let terms = text::terms(window);
        let named = |n: &&String| names::mentions(&terms, n) || names::mentions(&headed, n);
        let met = said.iter().filter(|unit| unit.iter().any(|spelling| spelling.iter().all(|t| terms.contains(t)))).count();
        clause_names.iter().all(named) && 2 * met >= said.len()
    })
}

/// The words `terms` (of `text`) stand for, each as the spellings that
/// meet it, a spelling met when a stretch holds all its terms: a
/// hyphenated compound ("comma-separated") is one word, met closed up or
/// by its parts ("separated by commas"), not three words.
fn word_units(terms: &[String], text: &str) -> Vec<Vec<Vec<String>>> {
    let compounds: Vec<(String, Vec<String>)> = text::spelling_variants(text).into_iter().filter(|(closed, _)| terms.contains(closed)).collect();
    let in_compound = |t: &String| compounds.iter().any(|(closed, parts)| closed == t || parts.contains(t));
    let mut units: Vec<Vec<Vec<String>>> = terms.iter().filter(|t| !in_compound(t)).map(|t| vec![vec![t.clone()]]).collect();
    units.extend(compounds.into_iter().map(|(closed, parts)| vec![vec![closed], parts]));
    units
}

/// The source states `q` in a sentence bound to `name` (see [`paired_in_a_window`]).
fn bound_alike(q: &text::Quantity, name: &str, names: &[String], passage: &str, heading: &str) -> bool {
    // A number the source writes as part of the name ("14 Pier Street", "Route 66") is the name's own.
    if text::squash_whitespace(passage).contains(&format!("{} {name}", q.written)) || text::squash_whitespace(passage).contains(&format!("{name} {}", q.written)) {
        return true;
    }
    let name_terms = text::terms(name);
    let same = |n: &String| names::mentions(&text::terms(n), name) || names::mentions(&name_terms, n);
    let named_in = |text: &str| -> Vec<&String> { names.iter().filter(|n| !names::written_at(text, n).is_empty()).collect() };
    let sentences = text::sentences(passage);
    sentences.iter().enumerate().any(|(i, sentence)| {
        text::clauses(sentence).into_iter().any(|clause| {
            text::quantities(clause).into_iter().filter(|s| s.agrees_with(q)).any(|s| {
                let mut binding = clause_binding(clause, &s, names);
                if binding.is_empty() {
                    binding = named_in(sentence);
                }
                // A fronted setting ("For a customer on the Free plan, …") binds its names to the whole sentence.
                binding.extend(fronted_setting(sentence).map(named_in).unwrap_or_default());
                if binding.is_empty() {
                    if let Some(previous) = i.checked_sub(1).map(|b| sentences[b]).filter(|b| runs_on(b, sentence)) {
                        binding = named_in(previous);
                    }
                }
                // The heading names what its whole passage is about.
                binding.extend(named_in(heading));
                binding.is_empty() || binding.into_iter().any(same) || leads_to(clause, &s, name)
            })
        })
    })
}

/// A name that opens the stretch of its clause leading to a value, with no
/// other value between them, is the value's subject, whatever names the
/// verb brings in on the way ("A Scale plan customer can ask Billwren for
/// one move" binds the one move to the Scale plan, as much as to Billwren).
/// A value after another ("Flex costs $200 and Dedicated $450") is the
/// nearer name's.
fn leads_to(clause: &str, s: &text::Quantity, name: &str) -> bool {
    let Some(at) = clause.to_lowercase().find(&s.written.to_lowercase()) else { return false };
    let head = &clause[..at];
    names::written_at(head, name).first().is_some_and(|&(_, end)| text::quantities(&head[end..]).is_empty())
}

/// The names a source clause binds its value `s` to: those a preposition
/// brings in after it ("99.5% uptime *for the Starter and Growth* plans", "a
/// minimum term *of the Private Office*"), else the nearest before it ("*the
/// Business Address* add-on costs $40 …"). Empty when the clause names none.
fn clause_binding<'n>(clause: &str, s: &text::Quantity, names: &'n [String]) -> Vec<&'n String> {
    let Some(at) = clause.to_lowercase().find(&s.written.to_lowercase()) else { return Vec::new() };
    // Within a few words after the value: a preposition and the names it brings in.
    let after: Vec<&str> = clause.get(at + s.written.len()..).unwrap_or("").split_whitespace().take(8).collect();
    if let Some(p) = after.iter().position(|w| matches!(w.to_lowercase().as_str(), "for" | "of" | "on" | "with")) {
        let phrase = after[p + 1..].join(" ");
        let brought: Vec<&String> = names.iter().filter(|n| !names::written_at(&phrase, n).is_empty()).collect();
        if !brought.is_empty() {
            return brought;
        }
        // A source that writes the name in lowercase there ("three components of the policy version") binds
        // the value to it all the same: the phrase after the value is what the value counts.
        let phrase_terms = text::terms(&phrase);
        let lowercase: Vec<&String> = names.iter().filter(|n| names::mentions(&phrase_terms, n)).collect();
        if !lowercase.is_empty() {
            return lowercase;
        }
    }
    nearest_before(clause.get(..at).unwrap_or(""), names).into_iter().collect()
}

/// The name of `names` a clause writes nearest `q`, on either side (before, on a tie).
fn nearest_name<'n>(clause: &str, names: &[&'n String], q: &text::Quantity) -> Option<&'n String> {
    let at = clause.to_lowercase().find(&q.written.to_lowercase())?;
    let end = at + q.written.len();
    names
        .iter()
        .filter_map(|n| {
            let spans = names::written_at(clause, n);
            let before = spans.iter().filter(|s| s.1 <= at).map(|s| at - s.1).min();
            let after = spans.iter().filter(|s| s.0 >= end).map(|s| s.0 - end).min();
            before.into_iter().chain(after).min().map(|d| (d, *n))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The last of `names` written in `text` (see [`names::written_at`]); of two ending together, the longer.
fn nearest_before<'n>(text: &str, names: &'n [String]) -> Option<&'n String> {
    names.iter().filter_map(|n| names::written_at(text, n).last().map(|&(_, end)| (end, n))).max_by_key(|(end, n)| (*end, n.len())).map(|(_, n)| n)
}

/// The sentence of `passage` that shares the most content terms with
/// `claim`: where the passage states what the claim says.
pub fn aligned_sentence<'a>(claim: &str, passage: &'a str) -> Option<&'a str> {
    let sentences = text::sentences(passage);
    aligned_at(claim, &sentences).map(|at| sentences[at])
}

/// The sentence [`aligned_sentence`] finds with the sentences on either
/// side of it: what one statement of the passage may draw on (two facts of
/// neighbouring sentences are one answer). A sentence that ends in a colon
/// goes on in the list after it ("… have seven fields; namely: 1. Minute …"),
/// and an item of that list is read with the sentence that introduces it.
pub fn aligned_neighbourhood(claim: &str, passage: &str) -> Option<String> {
    let sentences = text::sentences(passage);
    let at = aligned_at(claim, &sentences)?;
    let introduced = text::is_list_item(sentences[at]).then(|| (0..at).rev().find(|&j| !text::is_list_item(sentences[j]))).flatten().filter(|&j| sentences[j].ends_with(':'));
    let start = introduced.unwrap_or(at.saturating_sub(1));
    let end = if sentences[at].ends_with(':') || introduced.is_some() { sentences.len() } else { (at + 2).min(sentences.len()) };
    Some(sentences[start..end].join(" "))
}

fn aligned_at(claim: &str, sentences: &[&str]) -> Option<usize> {
    let wanted = content_terms(claim);
    sentences
        .iter()
        .enumerate()
        .map(|(i, sentence)| {
            let terms = text::terms(sentence);
            (wanted.iter().filter(|t| terms.contains(t)).count(), i)
        })
        .filter(|(shared, _)| *shared > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(std::cmp::Ordering::Greater))
        .map(|(_, i)| i)
}

/// The opening words of a sentence, where English puts its subject.
const SUBJECT_WORDS: usize = 6;

/// Each sentence of a passage, each pair of neighbours where the second
/// runs on from the first, and each sentence that ends in a colon with all
/// that follows it (the list it introduces, as [`aligned_neighbourhood`] reads it).
fn windows(passage: &str) -> Vec<String> {
    let sentences = text::sentences(passage);
    let mut out: Vec<String> = sentences.iter().map(|s| s.to_string()).collect();
    out.extend(sentences.windows(2).filter(|pair| runs_on(pair[0], pair[1])).map(|pair| format!("{} {}", pair[0], pair[1])));
    out.extend((0..sentences.len()).filter(|&i| sentences[i].ends_with(':') && i + 1 < sentences.len()).map(|i| sentences[i..].join(" ")));
    out
}

/// The second sentence goes on about the first one's subject: it opens with
/// a pronoun pointing back, or its opening words (its subject) share a term
/// with the first ("Meeting rooms can be booked 14 days ahead. Bookings are
/// made in the app."). "Members clear desks daily. The Quiet Zone is silent."
/// are two subjects.
pub fn runs_on(first: &str, second: &str) -> bool {
    if opens_with_back_reference(second) {
        return true;
    }
    let opening = text::terms(&second.split_whitespace().take(SUBJECT_WORDS).collect::<Vec<_>>().join(" "));
    let before = text::terms(first);
    opening.iter().any(|t| !text::is_numeric(t) && before.contains(t))
}

/// The code spans of a claim (text between backticks: a path, a command, a
/// field's name) that none of `passages` writes, in its section or text. A
/// code span is a literal value: one no passage holds is made up, as a
/// number is, however many of its words the passages share
/// (`/usr/share/menu` where they say `/usr/share/applications`). It may come
/// from any retrieved passage, not only those its claim cites: a model names
/// a field from one passage and states its rule from another.
///
/// A passage writes a literal however it typesets it (code marks, emphasis, a
/// shell line continued), and writes a template's filling when the filling is
/// the asker's own value: `/var/log/mydaemon/*.log` for the manual's
/// `/var/log/foo/*.log`, when the question names `mydaemon`.
pub fn unwritten_code<'a>(claim: &'a str, passages: &[Hit], question: &str) -> Vec<&'a str> {
    let spans = literal::code_spans(claim);
    if spans.is_empty() {
        return spans;
    }
    let texts: Vec<String> = passages.iter().map(|p| format!("{}\n{}", p.section, p.text)).collect();
    let written = literal::Written::new(texts.iter().map(String::as_str), question);
    spans.into_iter().filter(|span| !written.writes(span)).collect()
}

/// A text's literal values: its code spans and the text it quotes.
pub fn literal_spans(text: &str) -> Vec<&str> {
    let mut spans = literal::code_spans(text);
    spans.extend(quoted_spans(text));
    spans
}

/// Text between double quotation marks.
fn quoted_spans(claim: &str) -> Vec<&str> {
    delimited(claim, &['"', '\u{201c}', '\u{201d}'])
}

/// The non-blank stretches of `text` between pairs of `marks`.
fn delimited<'a>(text: &'a str, marks: &[char]) -> Vec<&'a str> {
    text.split(marks).skip(1).step_by(2).filter(|span| !span.trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, text: &str) -> Hit {
        Hit { id: id.into(), doc: "d".into(), section: "S".into(), text: text.into(), score: 1.0, ..Hit::default() }
    }

    const DESK: &str = "A Dedicated Desk costs $450 per month. Dedicated Desks are not shared.";

    #[test]
    fn a_code_span_no_passage_writes_is_made_up() {
        let passages = [hit("menu-01", "Desktop entries go in `/usr/share/applications`."), hit("menu-02", "Menus are refreshed by a trigger named `update-menus`.")];
        let claim = "Desktop entries go in `/usr/share/menu`, and `update-menus` refreshes them.";
        assert_eq!(unwritten_code(claim, &passages, ""), ["/usr/share/menu"]);
        // From any of the passages, spaced as they like.
        assert!(unwritten_code("Put them in `/usr/share/applications`; `update-menus`  runs.", &passages, "").is_empty());
        assert!(unwritten_code("No code here, only words.", &passages, "").is_empty());
        // Typeset or continued, a passage writes the literal; its template filled with the asker's value too.
        let manual = [hit("scripts-01", "`dpkg` calls: `old-postrm` disappear \\\n    overwriter *overwriter-version*"), hit("logs-01", "For example: /var/log/foo/*.log {")];
        assert!(unwritten_code("It runs `old-postrm disappear overwriter overwriter-version`.", &manual, "").is_empty());
        assert!(unwritten_code("Rotate `/var/log/mine/*.log`.", &manual, "My logs are in /var/log/mine").is_empty());
        assert_eq!(unwritten_code("Rotate `/var/log/mine/*.log`.", &manual, "Where do logs go?"), ["/var/log/mine/*.log"]);
        // A value the question writes itself, in plain text, is the asker's.
        assert!(unwritten_code("So `mytool-doc` should only suggest it.", &passages, "Should mytool-doc recommend it?").is_empty());
        assert_eq!(unwritten_code("So `mytool-doc` should only suggest it.", &passages, "Should the docs recommend it?"), ["mytool-doc"]);
    }

    #[test]
    fn a_claim_affirming_what_a_passage_denies_is_caught() {
        let known = vec!["Harbor Commons".to_string()];
        let passage = "Harbor Commons does not refund unused day passes. Day passes are valid for one visit.";
        let why = denied_by("Unused day passes are refunded at the end of the month.", passage, &known);
        assert!(why.is_some_and(|w| w.contains("does not refund unused day passes")));
        // The denial restated, or a clause the source affirms, is no contradiction.
        assert_eq!(denied_by("No, unused day passes are not refunded.", passage, &known), None);
        assert_eq!(denied_by("A day pass is valid for one visit.", passage, &known), None);
        // An affirmative clause holding all the claim's terms states it: the denial is the rule it excepts.
        let both = "Guests may not use the kitchen. Guests may use the kitchen with a member present.";
        assert_eq!(denied_by("Guests may use the kitchen with a member.", both, &[]), None);
        // A negation's emphasis ("at any time") is no term a restatement must repeat; only whole words are emphasis.
        let pets = "Dogs are allowed on Fridays. No other pets are allowed at any time.";
        assert!(denied_by("Pets of any kind are allowed on Fridays.", pets, &[]).is_some());
        assert_eq!(without_emphasis("Note that all fees are not refundable at all."), "Note that all fees are not refundable  .");
        // A negation through a light verb denies nothing of its subject that a claim naming it affirms.
        let idle = "Provide a `build-a` and a `build-b` target, and a `build` target that does nothing.";
        assert_eq!(denied_by("The build target is invoked before the binary target.", idle, &[]), None);
        assert!(denied_by("The build target compiles the sources.", "The build target does not compile the sources.", &[]).is_some());
        // An upper bound is what a negated comparative states.
        assert_eq!(denied_by("The plan is limited to 1 user.", "The plan cannot have more than 1 user.", &[]), None);
    }

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

    /// A conclusion drawn from the facts before it relates its name by
    /// inference; the same words stated as a fact must be the source's.
    #[test]
    fn a_conclusion_is_not_a_restated_relation() {
        let source = [hit("plans-02", "The Free plan has no API access. The Starter plan allows 60 requests per minute.")];
        let concluded = check("The Free plan has no API access, so the cheapest option is Starter.", &[], &source);
        assert!(concluded.caps.is_empty(), "{concluded:?}");
        let stated = check("The cheapest option is Starter.", &[], &source);
        assert!(stated.score <= PAIRING_CAP, "{stated:?}");
        let unbound = check("The Free plan has no API access, so Starter allows 90 requests per minute.", &[], &source);
        assert!(unbound.score <= QUANTITY_CAP, "{unbound:?}");
        let advised = check("You'd need to move up to Starter for API access.", &[], &source);
        assert!(advised.caps.is_empty(), "{advised:?}");
        let stated = check("Starter is the plan that adds API access.", &[], &source);
        assert!(stated.score <= PAIRING_CAP, "{stated:?}");
    }

    /// A hyphenated compound is one word of the clause, met closed up or
    /// by its parts written apart: "e-mail" against a source that writes
    /// "email" is one word met, not one met and one missed.
    #[test]
    fn a_compound_is_one_word_of_its_clause() {
        let source = [hit("support-02", "A Growth account includes email support.")];
        let restated = check("Growth offers e-mail.", &[], &source);
        assert!(restated.caps.is_empty(), "{restated:?}");
        let other = check("Growth offers phone calls.", &[], &source);
        assert!(other.score <= PAIRING_CAP, "{other:?}");
    }

    /// A clause stating a value is set against the source clause stating
    /// that value with its words, not against a shorter one that shares
    /// its words and negates something else; a value stated in a clause
    /// about something else leaves the negated relation to be checked.
    #[test]
    fn a_value_is_restated_by_the_clause_stating_it() {
        let source = [hit("plans-07", "The Receipt Scanning add-on costs $6 per month and includes 200 receipt scans per month, and unused receipt scans do not carry over to the next month.")];
        let priced = check("So Receipt Scanning would be $6 a month.", &[], &source);
        assert!(priced.caps.is_empty(), "{priced:?}");
        let flipped = check("Unused receipt scans can carry over to the next month.", &[], &source);
        assert!(flipped.score <= CONTRADICTION_CAP && flipped.caps.iter().any(|c| c.contains("negation")), "{flipped:?}");
        let source = [hit("rooms-03", "Quay Builders renovated the Harbor Room in spring. The Harbor Room (opened 2019) seats twelve.")];
        let denied = check("The Harbor Room was not renovated in 2019.", &[], &source);
        assert!(denied.score <= CONTRADICTION_CAP && denied.caps.iter().any(|c| c.contains("negation")), "{denied:?}");
    }

    #[test]
    fn two_values_set_in_each_others_clauses_are_swapped() {
        let source = [hit("files-01", "On a new revision the `.dsc` must still list the tarball in its `Files` field, but the `.changes` file should leave it out.")];
        let swapped = check("The `.changes` must still list the tarball in its `Files` field, but the `.dsc` should leave it out.", &[], &source);
        assert!(swapped.score <= CONTRADICTION_CAP && swapped.caps.iter().any(|c| c.contains("swaps")), "{swapped:?}");
        assert_eq!(check("The `.dsc` still lists the tarball in its `Files` field, but the `.changes` leaves it out.", &[], &source).score, 1.0);
    }

    /// A literal in the place of the passage's, between the same words,
    /// changes a fact; the passage's own, or its template filled with the
    /// asker's value, does not.
    #[test]
    fn a_literal_in_another_literals_place_is_changed() {
        let source = [hit("plugins-01", "Each plugin is installed in the `/usr/lib/foo` directory, where foo is the package name.")];
        let moved = check("The plugin goes in the `/opt/frob` directory.", &[], &source);
        assert!(moved.score <= CONTRADICTION_CAP && moved.caps.iter().any(|c| c.contains("says `/opt/frob` where the source says `/usr/lib/foo`")), "{moved:?}");
        let kept = check("The plugin goes in the `/usr/lib/foo` directory.", &[], &source);
        assert!(kept.caps.is_empty(), "{kept:?}");
        let known = known_names(&source);
        let context = Context { known: &known, question: "Where do the plugins of my package frobber go?", ..Context::default() };
        let filled = check_in("The plugin goes in the `/usr/lib/frobber` directory.", &[], &source, &context);
        assert!(filled.caps.is_empty(), "{filled:?}");
    }

    /// A hyphenated identifier written without code marks is a literal too:
    /// another in its place changes the fact, the passage's own does not.
    #[test]
    fn an_identifier_in_another_identifiers_place_is_changed() {
        let source = [hit("docs-04", "The style guide ships in the frob-handbook package, beside the reference.")];
        let moved = check("The style guide is in the frob-reference package.", &[], &source);
        assert!(moved.score <= CONTRADICTION_CAP && moved.caps.iter().any(|c| c.contains("where the source says `frob-handbook`")), "{moved:?}");
        let kept = check("You'll find the style guide in the frob-handbook package.", &[], &source);
        assert!(kept.caps.is_empty(), "{kept:?}");
        let source = [hit("teams-02", "A four-person team may book the Harbor Room.")];
        let changed = check("A six-person team may book the Harbor Room.", &[], &source);
        assert!(changed.score <= CONTRADICTION_CAP, "{changed:?}");
    }

    #[test]
    fn a_sequence_in_another_order_is_contradicted() {
        let source = [hit("renewals-02", "When two requests collide, first the priorities are compared, then the arrival times if the priorities are equal.")];
        let reordered = check("The arrival times are compared first; if they are equal the priorities decide.", &[], &source);
        assert!(reordered.score <= CONTRADICTION_CAP && reordered.caps.iter().any(|c| c.contains("first where the source puts")), "{reordered:?}");
        let kept = check("The priorities are compared first, and the arrival times break a tie.", &[], &source);
        assert!(kept.caps.iter().all(|c| !c.contains("first where")), "{kept:?}");
    }

    /// A claim that restates one case's sentence with the value of a parallel sentence about another case changes a fact.
    #[test]
    fn a_value_taken_from_a_parallel_case_is_changed() {
        let source = [hit(
            "locks-02",
            "If the service only reads the spool, its unit should declare at most a `Wants` on the spool unit. Otherwise, its unit should declare at most a `Requires` on the spool unit.",
        )];
        let borrowed = check("A service that only reads the spool should declare at most a `Requires` on the spool unit.", &[], &source);
        assert!(borrowed.score <= CONTRADICTION_CAP && borrowed.caps.iter().any(|c| c.contains("`requires`")), "{borrowed:?}");
        assert_eq!(check("A service that only reads the spool should declare at most a `Wants` on the spool unit.", &[], &source).score, 1.0);
        assert_eq!(check("Any other service should declare at most a `Requires` on the spool unit.", &[], &source).score, 1.0);
    }

    /// A claim that restates a sentence with a value of its kind written
    /// elsewhere in the passage moves that value in; the value where the
    /// passage writes it is stated.
    #[test]
    fn a_value_moved_in_from_another_sentence_is_changed() {
        let source = [hit("post-03", "The shared mail directory is `/srv/mail`. The old location `/srv/spool/mail` is deprecated.")];
        let moved = check("Deliver into `/srv/spool/mail`, the shared mail directory.", &[], &source);
        assert!(moved.score <= CONTRADICTION_CAP && moved.caps.iter().any(|c| c.contains("`/srv/mail`")), "{moved:?}");
        let kept = check("Deliver into `/srv/mail`, the shared mail directory.", &[], &source);
        assert!(kept.caps.is_empty(), "{kept:?}");
        assert_eq!(check("The old location `/srv/spool/mail` is deprecated.", &[], &source).score, 1.0);
    }

    /// A flip is a flip even in a sentence that already negates something else.
    #[test]
    fn a_negation_added_beside_another_contradicts() {
        let source = [hit("hours-03", "A member can collect a temporary card from reception at no charge.")];
        assert!(check("A member can not collect a temporary card from reception at no charge.", &[], &source).score <= CONTRADICTION_CAP);
        assert_eq!(check("A member can collect a temporary card from reception at no charge.", &[], &source).score, 1.0);
    }

    /// A condition names a case: another case, or a statement of fact, set
    /// against it is no flip; the statement it governs still is.
    #[test]
    fn a_condition_names_a_case_and_is_no_flip() {
        let source = [hit("lockers-05", "If anyone can open a shared locker they can take what is inside it.")];
        let rule = check("A shared locker must not be open to anyone.", &[], &source);
        assert!(rule.caps.iter().all(|c| !c.contains("negation")), "{rule:?}");
        let source = [hit("rooms-03", "If one room of a booking has no deposit, the booking is held for a day.")];
        let other_case = check("If every room of a booking had a deposit, the booking would be confirmed.", &[], &source);
        assert!(other_case.caps.iter().all(|c| !c.contains("negation")), "{other_case:?}");
        let flipped = check("If one room of a booking has no deposit, the booking is not held for a day.", &[], &source);
        assert!(flipped.score <= CONTRADICTION_CAP, "{flipped:?}");
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

    /// "A is B and C is D" relates two pairs of names: each pair is stated by
    /// its own sentence, and a swapped pair is still capped.
    #[test]
    fn coordinated_relations_are_checked_one_by_one() {
        let names = |text: &str| text::names(text);
        assert_eq!(
            relation_conjuncts("`Locker` is the old name for `Storage` and `Booth` the old name for `Pod`", &names("`Locker` is the old name for `Storage` and `Booth` the old name for `Pod`.")),
            ["`Locker` is the old name for `Storage`", "`Booth` the old name for `Pod`"]
        );
        let one = "The Flex Desk and Dedicated Desk plans include Wi-Fi";
        assert_eq!(relation_conjuncts(one, &names(one)), [one], "one relation of three names");
        let glossary = [hit("terms-04", "**`Locker`**\n\nOld name for `Storage`.\n\n**`Booth`**\n\nOld name for `Pod`.\n\n**`Cubby`**\n\nOld name for `Shelf`.")];
        let right = check("`Locker` is the old name for `Storage` and `Booth` is the old name for `Pod`.", &[], &glossary);
        assert!(right.caps.is_empty(), "{right:?}");
        let swapped = check("`Locker` is the old name for `Shelf` and `Booth` is the old name for `Pod`.", &[], &glossary);
        assert!(swapped.score <= PAIRING_CAP, "{swapped:?}");
    }

    /// A value counts what the phrase after it names, though the source
    /// writes that name in lowercase and another name later in the sentence.
    #[test]
    fn a_value_counts_the_phrase_after_it_in_any_case() {
        let source = [hit("codes-02", "A room code has four parts. Only the first three parts of the room code are printed on the *Door-Sign* label.")];
        let right = check("Only the first three parts of the Room code are printed on the `Door-Sign` label.", &[], &source);
        assert!(right.caps.is_empty(), "{right:?}");
        let other = check("Only the first three parts of the Door-Sign code are printed on the `Room` label.", &[], &source);
        assert!(other.score <= PAIRING_CAP, "{other:?}");
    }

    /// A clause opening with a pronoun speaks of what the clause before it
    /// does: "…; they come with the Pro tier" names the Pro tier for the
    /// exports, and the source must say so of the exports.
    #[test]
    fn a_pronoun_clause_is_read_with_its_antecedent() {
        let tiers = "The Basic tier does not include scheduled exports. The Pro tier adds scheduled exports and audit logs.";
        let source = [hit("tiers-01", tiers)];
        let right = check("The Basic tier doesn't include scheduled exports; they come with the Pro tier.", &[], &source);
        assert!(right.caps.is_empty(), "{right:?}");
        let other = "The Basic tier does not include scheduled exports. Invoices are sent monthly. The Pro tier adds a second workspace.";
        let moved = check("The Basic tier doesn't include scheduled exports; they come with the Pro tier.", &[], &[hit("tiers-01", other)]);
        assert!(moved.score <= PAIRING_CAP, "the Pro tier's sentence says nothing of exports: {moved:?}");
    }

    /// An item of a list is read with the sentence that introduces it: "the
    /// third of four columns" draws on the count before the colon and the
    /// numbered item after it.
    #[test]
    fn a_list_item_is_read_with_its_introduction() {
        let passage = "Each row of the log has four columns; namely:\n\n1. Date\n\n2. Amount\n\n3. Payee name, as on the invoice\n\n4. Note\n\nRows are sorted by date.";
        let claim = "The payee name, as on the invoice, is the third of four columns.";
        let around = aligned_neighbourhood(claim, passage).unwrap_or_default();
        assert!(around.starts_with("Each row of the log has four columns") && around.contains("3. Payee name"), "{around}");
        assert!(check(claim, &[], &[hit("log-01", passage)]).caps.is_empty());
    }

    /// A value goes with the name its clause writes nearest it, on either side;
    /// the source binds it to the names of its sentence, or to its heading.
    #[test]
    fn a_value_is_bound_on_either_side() {
        let uptime = "Billwren commits to 99.5% monthly uptime for the Starter and Growth plans. Billwren commits to 99.9% monthly uptime for the Scale plan.";
        let source = [hit("service-levels-01", uptime)];
        assert!(check("The Growth plan comes with a 99.5% monthly uptime commitment.", &[], &source).caps.is_empty());
        assert!(check("The Growth plan comes with a 99.9% monthly uptime commitment.", &[], &source).score <= PAIRING_CAP);
        let headed = [Hit { section: "Dedicated Desk".into(), ..hit("pricing-02", "It costs $450 per month.") }];
        assert!(check("A Dedicated Desk is $450 a month.", &[], &headed).caps.is_empty(), "the heading binds its passage");
        // The subject that leads to a value binds it, whatever name the verb brings in before it.
        let moves = [hit("data-01", "A Scale plan customer can ask Billwren for one move of the account to the other data region.")];
        assert!(check("Only Scale customers can ask for one move to the other region.", &[], &moves).caps.is_empty());
        let desks = [hit("pricing-01", "The Flex Desk costs $200 a month and the Dedicated Desk costs $450 a month.")];
        assert!(check("The Flex Desk costs $450 a month.", &[], &desks).score <= PAIRING_CAP, "a value after another is the nearer name's");
    }

    /// A fronted phrase of place holds only where the sentence it introduces says so.
    #[test]
    fn a_setting_is_the_source_s() {
        let source = [hit("guests-05", "Drinks are allowed in the Event Hall. Alcohol may be served at a member event only by a licensed caterer.")];
        assert!(check("At the lighthouse room, alcohol may be served only by a licensed caterer.", &[], &source).score <= PAIRING_CAP);
        let saturday = [hit("hours-02", "On Saturdays, a Day Pass is valid from 10:00 am to 4:00 pm.")];
        assert!(check("On Saturdays, a Day Pass is valid from 10:00 am to 4:00 pm.", &[], &saturday).caps.is_empty());
    }

    /// A number the answer works out from numbers it and the question state,
    /// showing its work, is stated; one it shows no work for is not.
    #[test]
    fn a_worked_out_number_is_stated() {
        let plans = [hit("plans-04", "The Growth plan costs $29 per month and includes 3 users. An extra user costs $8 per month.")];
        let asked = text::quantities("There are five of us on the Growth plan.");
        let known = known_names(&plans);
        let answer = "Growth is $29 a month and includes 3 users, and each of your 2 extra users costs $8 a month, so you'd pay $45 a month.";
        let shown = text::quantities(answer);
        let context = Context { known: &known, asked: &asked, shown: &shown, ..Context::default() };
        assert!(check_in(answer, &[], &plans, &context).caps.iter().all(|c| !c.contains("not in the source")), "29 + (5 - 3) x 8 = 45");
        let wrong = "Growth is $29 a month and includes 3 users, so you'd pay $47 a month.";
        let shown = text::quantities(wrong);
        let context = Context { shown: &shown, ..context };
        assert!(check_in(wrong, &[], &plans, &context).score <= QUANTITY_CAP, "no sum of the numbers shown makes 47");
    }

    /// "Limited to 1" and "cannot have more than 1" state one bound; "more than 1" flips it.
    #[test]
    fn an_upper_bound_is_not_a_negation_flip() {
        let source = [hit("plans-06", "Extra users can be added only to the Growth plan, and the Starter plan cannot have more than 1 user.")];
        assert!(check("The Starter plan is limited to 1 user.", &[], &source).caps.is_empty());
        assert!(check("The Starter plan can have more than 1 user.", &[], &source).score <= CONTRADICTION_CAP);
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

    /// A clause's polarity is whether it negates, not how many times: a
    /// second negation joined on ("and never …") restates the same "not".
    #[test]
    fn polarity_is_a_negation_not_a_count() {
        let source = [hit("lockers-02", "Day lockers are not kept overnight and must be emptied by closing time.")];
        let joined = check("Day lockers are not kept overnight and are never kept past closing time.", &[], &source);
        assert!(!joined.caps.iter().any(|c| c.contains("negation")), "{joined:?}");
        let flipped = check("Day lockers are kept overnight and are emptied by closing time.", &[], &source);
        assert!(flipped.score <= CONTRADICTION_CAP, "{flipped:?}");
    }

    /// A count is stated only with the noun it counts.
    #[test]
    fn a_count_goes_with_its_noun() {
        let source = [hit("pricing-04", "A Day Pass gives one person access for a single day. Each floor has 300 black-and-white pages of quota.")];
        assert!(check("A Day Pass includes 1 meeting-room hour.", &[], &source).score <= QUANTITY_CAP);
        assert!(check("A Day Pass is for 1 person.", &[], &source).score > QUANTITY_CAP);
        // "a single day" is one day, and counts days only.
        assert!(check("A Day Pass gives access for one day.", &[], &source).caps.iter().all(|c| !c.contains("not in the source")));
        assert!(check("Each floor has 300 printed pages of quota.", &[], &source).caps.iter().all(|c| !c.contains("not in the source")));
        // A partitive counts members of a set it does not name again.
        let lending = [hit("equipment-04", "A member can borrow at most 2 tools at once.")];
        let asked = text::quantities("Can I take all three tools out at once?");
        let known = known_names(&lending);
        let context = Context { known: &known, asked: &asked, ..Context::default() };
        let right = "A member can borrow at most 2 tools at once, so pick two of the three.";
        assert!(check_in(right, &[], &lending, &context).caps.is_empty());
        let wrong = "A member can borrow at most 2 rooms at once, so pick two of the three.";
        assert!(check_in(wrong, &[], &lending, &context).score <= QUANTITY_CAP, "two rooms are not two tools");
        // A number after "of" measures the noun before it.
        let offices = [hit("pricing-03", "Private offices take teams of 2 to 6, for a minimum term of 6 months.")];
        assert!(check("A two-person team can rent a private office.", &[], &offices).caps.iter().all(|c| !c.contains("not in the source")));
        assert!(check("A private office has 2 desks.", &[], &offices).score <= QUANTITY_CAP, "two desks are not a team of two");
    }

    /// A count the claim shows by listing its items is the claim's own; a
    /// count its list does not make is not stated.
    #[test]
    fn a_count_of_the_claims_own_list_is_shown() {
        let source = [hit("wildcards-01", "Architecture wildcards are written as `any`, as `linux-any` or as `any-amd64`. Handling a file by hand and handling it by script must not be mixed.")];
        let listed = check("There are three forms: `any`, which matches everything, `linux-any` and `any-amd64`.", &[], &source);
        assert!(listed.caps.iter().all(|c| !c.contains("not in the source") && !c.contains("never appear together")), "{listed:?}");
        let miscounted = check("There are four forms: `any`, which matches everything, `linux-any` and `any-amd64`.", &[], &source);
        assert!(miscounted.score <= QUANTITY_CAP, "{miscounted:?}");
        let apposed = check("The two ways, handling a file by hand or handling it by script, must not be mixed.", &[], &source);
        assert!(apposed.caps.iter().all(|c| !c.contains("not in the source")), "{apposed:?}");
        assert!(check("The three ways, handling a file by hand or handling it by script, must not be mixed.", &[], &source).score <= QUANTITY_CAP);
        // Nor does the source bind the count to the name the claim counts for.
        let plans = [hit("plans-03", "The Growth plan includes the Invoicing, Payroll and Reports add-ons.")];
        let named = check("The Growth plan includes three add-ons: Invoicing, Payroll and Reports.", &[], &plans);
        assert!(named.caps.is_empty(), "{named:?}");
    }

    /// A value changed against the clause it restates contradicts it, though
    /// the passage states that value elsewhere; of clauses that restate the
    /// claim alike, any one that states its value bears it out.
    #[test]
    fn a_changed_value_contradicts_its_clause() {
        let incidents = [hit("data-07", "Billwren notifies owners by email within 48 hours after Billwren confirms a security incident. Billwren sends an update at least every 72 hours until the incident is closed.")];
        assert!(check("Billwren notifies owners by email within 72 hours after it confirms a security incident.", &[], &incidents).score <= CONTRADICTION_CAP);
        assert!(check("Billwren notifies owners by email within 48 hours after it confirms a security incident.", &[], &incidents).caps.is_empty());
        let credits = [hit(
            "service-levels-02",
            "A customer whose uptime falls below 99.0% but stays at or above 95.0% receives a service credit of 25% of that month's plan fee. A customer whose uptime falls below 95.0% receives a service credit of 50% of that month's plan fee.",
        )];
        let tied = check("You'd get a service credit of 25% of that month's plan fee.", &[], &credits);
        assert!(tied.caps.iter().all(|c| !c.contains("where the source says")), "{tied:?}");
        assert!(check("You'd get a service credit of 30% of that month's plan fee.", &[], &credits).score <= QUANTITY_CAP);
    }

    /// A value said to hold for each one of something that the passage counts
    /// across all of them is a changed fact; said across all, or of another
    /// noun, it is not.
    #[test]
    fn a_value_per_each_where_the_source_pools_it_contradicts() {
        let quota = [hit(
            "storage-02",
            "A Team workspace can store up to 500 GB. The storage quota is counted per workspace, across all projects of that workspace, and not per member.",
        )];
        let capped = |claim: &str| check(claim, &[], &quota).caps.iter().any(|c| c.contains("counts across all"));
        assert!(capped("A Team workspace can store up to 500 GB for each project."));
        assert!(capped("A Team workspace can store up to 500 GB per member."));
        assert!(!capped("A Team workspace can store up to 500 GB across all its projects."));
        assert!(!capped("A Team workspace can store up to 500 GB per workspace."));
        assert!(!capped("Each project counts toward the quota."), "no value scoped");
    }

    /// Two values joined by "plus" or "and" are two statements, each bound to
    /// its own name; a sentence may draw them from two cited passages.
    #[test]
    fn coordinated_values_are_bound_one_by_one() {
        assert_eq!(value_conjuncts("$220 for the Flex Desk plan plus $40 for the Business Address add-on"), ["$220 for the Flex Desk plan", "$40 for the Business Address add-on"]);
        assert_eq!(value_conjuncts("members and guests"), ["members and guests"]);
        assert_eq!(value_conjuncts("raised a regiment and £10,000"), ["raised a regiment and £10,000"]);
        let passages = [
            hit("pricing-01", "The Flex Desk plan costs $220 per month."),
            hit("pricing-06", "The Business Address add-on costs $40 per month. The Day Locker add-on costs $25 per month."),
        ];
        let known = known_names(&passages);
        let context = Context { known: &known, ..Context::default() };
        let right = "You pay $220 for the Flex Desk plan plus $40 for the Business Address add-on.";
        assert!(check_in(right, &[], &passages, &context).score < SUPPORT_FLOOR, "no one passage states both");
        let across = check_across(right, &[], &passages, &context);
        assert!(across.caps.is_empty() && across.supporting.len() == 2, "{across:?}");
        let swapped = "You pay $220 for the Flex Desk plan plus $25 for the Business Address add-on.";
        assert!(check_across(swapped, &[], &passages, &context).score <= PAIRING_CAP, "$25 is the Day Locker's");
        // An article may come before each value: "the $220 Flex Desk plan plus the $40 … add-on".
        assert_eq!(value_conjuncts("the $220 Flex Desk plan plus the $40 Business Address add-on"), ["the $220 Flex Desk plan", "the $40 Business Address add-on"]);
        let attributive = "You pay the $220 Flex Desk plan plus the $40 Business Address add-on.";
        let across = check_across(attributive, &[], &passages, &context);
        assert!(across.caps.is_empty(), "{across:?}");
        let swapped = "You pay the $220 Flex Desk plan plus the $25 Business Address add-on.";
        assert!(check_across(swapped, &[], &passages, &context).score <= PAIRING_CAP, "$25 is the Day Locker's");
    }

    /// A fronted setting binds its names to the whole sentence's values.
    #[test]
    fn a_fronted_setting_binds_the_sentence() {
        let source = [hit("liability-02", "For a customer on the Free plan, the total liability of Wrenfield Labs is capped at $100. For a customer on the Growth plan, it is capped at $500.")];
        assert!(check("The liability of Wrenfield Labs is capped at $100 if you're on the Free plan.", &[], &source).caps.is_empty());
        assert!(check("The liability of Wrenfield Labs is capped at $100 if you're on the Growth plan.", &[], &source).score <= PAIRING_CAP);
    }

    /// Each side of "as well as" is set against the source on its own.
    #[test]
    fn each_side_of_a_phrasal_coordinator_is_checked() {
        let source = [hit("acceptable-use-06", "Billwren is for business use by companies, and Billwren must not be used only for personal household budgeting.")];
        let joined = "Billwren can be used for personal household budgeting as well as for business use by companies.";
        assert!(check(joined, &[], &source).score <= CONTRADICTION_CAP, "the budgeting half says otherwise");
        assert!(check("Billwren is for business use by companies.", &[], &source).caps.is_empty());
    }

    /// A number the source writes as part of a name ("14 Pier Street") is that name's.
    #[test]
    fn a_number_in_a_name_is_the_name_s() {
        let source = [hit("hours-01", "Harbor Commons operates one location at 14 Pier Street in Larkport.")];
        assert!(check("Harbor Commons has one location, at 14 Pier Street in Larkport.", &[], &source).caps.is_empty());
        assert!(check("Harbor Commons has one location, at 16 Pier Street in Larkport.", &[], &source).score <= QUANTITY_CAP);
    }

    /// A verb that means "not …" is a negation: "left out" restates "not
    /// included", and "so should …" takes the polarity of the clause before.
    #[test]
    fn a_negative_verb_is_a_negation() {
        let source = [hit("ch-controlfields-39", "Instructions for using the package should not be included. Copyright statements should not be included either.")];
        let restated = check("Instructions for using the package should be left out, and so should copyright statements.", &[], &source);
        assert!(restated.caps.is_empty(), "{restated:?}");
        assert!(check("Instructions for using the package should be included.", &[], &source).score <= CONTRADICTION_CAP);
    }

    /// A name after a value qualifies it as the source's does ("5:30 pm
    /// Irish time"); a name after it that the source binds elsewhere does not.
    #[test]
    fn a_name_after_a_value_qualifies_it_as_in_the_source() {
        let source = [hit("support-01", "Larkport support hours are 9:00 am to 5:30 pm Irish time, Monday to Friday. Paris support hours are 8:00 am to 4:00 pm.")];
        let qualified = check("Support hours are 9:00 am to 5:30 pm Irish time.", &[], &source);
        assert!(qualified.caps.is_empty(), "{qualified:?}");
        assert!(!check("Support hours are 8:00 am to 4:00 pm Larkport time.", &[], &source).caps.is_empty());
    }

    /// "Unless" is "if not": a rule stated with it and one stated with "not … if" say one thing.
    #[test]
    fn unless_is_a_negation() {
        let source = [hit("lockers-04", "Members should not renew a locker if it is already booked for the month.")];
        let restated = check("Members should renew a locker unless it is already booked for the month.", &[], &source);
        assert!(!restated.caps.iter().any(|c| c.contains("negation")), "{restated:?}");
        assert!(check("Members should renew a locker if it is already booked for the month.", &[], &source).score <= CONTRADICTION_CAP);
    }

    /// "Whether … or not" asks both ways: its "not" denies nothing, and a
    /// claim that leaves it out says the same; one that denies still does.
    #[test]
    fn whether_or_not_is_no_negation() {
        let source = [hit("status-01", "The field records whether the package is broken or not and what its current state is.")];
        let restated = check("The field records whether the package is broken and what its current state is.", &[], &source);
        assert!(!restated.caps.iter().any(|c| c.contains("negation")), "{restated:?}");
        let aside = [hit("status-01", "The field records whether the package is broken (requiring re-installation) or not and what its current state is.")];
        let restated = check("The field records whether the package is broken and needs reinstalling, and what its current state is.", &[], &aside);
        assert!(restated.caps.is_empty(), "{restated:?}");
        assert!(check("The field does not record whether the package is broken.", &[], &source).score <= CONTRADICTION_CAP);
    }

    /// "Not right away." is a "no" said with its qualifier: a reply, which
    /// no passage need state; "Not all …" opens a statement.
    #[test]
    fn an_elliptical_no_is_a_reply() {
        assert_eq!(polarity("Not right away. The switch takes effect at renewal."), Some(false));
        assert_eq!(polarity("Not all lockers can be renewed."), None);
        let source = [hit("billing-06", "A switch from annual to monthly billing takes effect at the end of the annual term.")];
        assert_eq!(check("Not right away.", &[], &source).score, 1.0);
        assert_eq!(without_particle("Not yet, the switch takes effect at the end of the term."), "the switch takes effect at the end of the term.");
        assert_eq!(without_particle("Not all lockers can be renewed."), "Not all lockers can be renewed.");
    }

    #[test]
    fn an_antonym_flip_contradicts() {
        let source = [hit("hours-01", "The kitchen is open on Sundays.")];
        assert!(check("The kitchen is closed on Sundays.", &[], &source).score <= CONTRADICTION_CAP);
    }

    #[test]
    fn a_separator_swapped_for_another_contradicts() {
        let source = [hit("export-02", "The fields of an exported row are separated by commas.")];
        assert!(check("An exported row's fields are separated by semicolons.", &[], &source).score <= CONTRADICTION_CAP);
        // Naming the source's mark, with another beside it, changes nothing.
        assert!(check("An exported row's fields are separated by commas and a space.", &[], &source).caps.is_empty());
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
