//! The one tokenizer. Indexing (the FTS5 `terms` column), retrieval, the
//! evidence gate, the answerer and the support scorer all call these
//! functions, so a word means the same thing at every stage.
//!
//! Everything here follows general rules of English or a published source:
//! the Snowball stop list and the Snowball English (Porter2) stemmer
//! ([`stopwords`]), the closed classes of number words, units, weekdays and
//! months ([`numbers`]), capitalization ([`mod@names`]), the forms of place names from a
//! gazetteer ([`places`]). Words particular to one
//! corpus (its synonyms) ship with that corpus: see [`crate::corpus::vocabulary`].

pub mod grammar;
pub mod literal;
pub mod names;
pub mod numbers;
pub mod places;
pub mod stopwords;

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

pub use names::names;
pub use numbers::{months_after, periods, quantities, Quantity, Unit};
use stopwords::is_stopword;

/// The version of the tokenizer and the reference patterns: what indexing
/// reads. It is part of every passage hash, the corpus version and the cache
/// key: changing it re-indexes every passage and retires every cached answer.
/// A rule that only decides answers bumps [`crate::stages::ANSWERING_RULES`].
pub const RULES_VERSION: &str = "5";

/// Words that negate the statement they stand in (and "-n't").
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nobody", "nothing", "nowhere", "cannot", "neither", "nor", "without",
];

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "mr", "mrs", "ms", "dr", "st", "no", "vs", "approx", "jr", "sr", "inc", "ltd", "co", "etc"];

/// Clitics an apostrophe attaches ("member's", "they're", "don't"): dropped, so
/// "member's" is "member". Negation is read from the whole word by [`is_negated`].
const CLITICS: &[&str] = &["n't", "'s", "'re", "'ve", "'ll", "'d", "'m", "'"];

/// Splits text into lowercase words: runs of letters and digits (hyphens and
/// other punctuation split words), contractions in the stop list kept whole so
/// they are dropped as stopwords, other clitics and apostrophes removed. A
/// word hyphenated between letters is also read closed up ("Wi-Fi" is "wi",
/// "fi" and "wifi"; "e-mail" is "mail" and "email"): English writes one
/// compound hyphenated, spaced or closed, and each spelling finds the others.
fn words(text: &str, closed_up: bool) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}' || c == '-'))
        .flat_map(move |w| {
            let parts: Vec<&str> = w.split('-').filter(|p| !p.is_empty()).collect();
            let compound = closed_up && parts.len() > 1 && parts.iter().all(|p| p.chars().all(char::is_alphabetic));
            let closed = compound.then(|| parts.concat());
            parts.into_iter().map(str::to_string).chain(closed)
        })
        .map(|w| w.replace('\u{2019}', "'").to_lowercase())
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty())
        .map(|w| {
            if is_stopword(&w) {
                return w;
            }
            let base = CLITICS.iter().find_map(|c| w.strip_suffix(c)).unwrap_or(&w);
            base.replace('\'', "")
        })
        .filter(|w| !w.is_empty())
}

/// The words of a text as written, lowercase: runs of letters and digits
/// with their apostrophes (a curly one written straight: "don't", "member's"),
/// every other mark parting words. What the grammar of questions, answers
/// and screens reads; [`terms`] is what the index and the gates weigh.
pub fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.trim_matches(|c: char| c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
        .collect()
}

/// The Snowball English (Porter2) stem of a lowercase word; numbers are kept
/// as written.
pub fn stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    let mut stem = match Stemmer::create(Algorithm::English).stem(word) {
        Cow::Borrowed(s) => s.to_string(),
        Cow::Owned(s) => s,
    };
    // Porter2 undoubles a final consonant only after it strips a suffix
    // ("added" is "ad", "add" stays "add"): undouble the bare word's too, so
    // every form of a word has one stem.
    if DOUBLES.iter().any(|d| stem.ends_with(d)) && stem.len() > 2 {
        stem.pop();
    }
    stem
}

/// Whether two stems are one word's: equal, or one the other with an "r"
/// after it, as Porter2 leaves a verb in "-er" and its noun in "-ration"
/// ("register" is "regist", "registration" "registr"; "administer").
pub fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 5 && long.strip_prefix(short) == Some("r"))
}

/// The doubled consonants Porter2 undoubles after a suffix (its step 1b).
const DOUBLES: &[&str] = &["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"];

/// (term, word as written) for each topic word of a text, with repeats:
/// stopwords and single letters dropped, number words as digits, stems taken.
fn term_words(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    word_terms(text, true)
}

fn word_terms(text: &str, closed_up: bool) -> impl Iterator<Item = (String, String)> + '_ {
    words(text, closed_up)
        .filter(|w| !is_stopword(w) && (w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| match numbers::word_value(&w) {
            Some(value) => (value.to_string(), w),
            None => (stem(&w), w),
        })
}

/// The topic terms of a text, in order, with repeats. This is what the FTS5
/// index stores.
pub fn terms(text: &str) -> Vec<String> {
    term_words(text).map(|(term, _)| term).collect()
}

/// The terms of a phrase word by word, a hyphenated compound as its parts
/// only: a key that names a heading the same whichever way a reference
/// spells its compounds.
pub fn phrase_terms(text: &str) -> Vec<String> {
    word_terms(text, false).map(|(term, _)| term).collect()
}

/// The distinct topic terms of a text, in order of first appearance.
pub fn distinct_terms(text: &str) -> Vec<String> {
    keyed_terms(text).into_iter().map(|(term, _)| term).collect()
}

/// The distinct topic terms of a text, each with the word it was first written
/// as (so a refusal can say "parking", not the stem "park").
pub fn keyed_terms(text: &str) -> Vec<(String, String)> {
    distinct(term_words(text).collect())
}

/// (term, word as written) for each topic word of a text, in order, with repeats.
pub fn keyed_terms_with_repeats(text: &str) -> Vec<(String, String)> {
    term_words(text).collect()
}

/// The first (term, word) of each term, in order.
pub fn distinct(keyed: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for (term, word) in keyed {
        if !seen.iter().any(|(t, _)| *t == term) {
            seen.push((term, word));
        }
    }
    seen
}

/// True when a term is a number ("450", "2016"), not a word.
pub fn is_numeric(term: &str) -> bool {
    !term.chars().any(char::is_alphabetic)
}

/// How many negations the text states ("not", "no", "never", "-n't", ...),
/// leaving out the idiom for free ("can collect … at no charge" negates
/// nothing; "can not collect … at no charge" does).
pub fn negations(text: &str) -> usize {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
        .collect();
    words
        .iter()
        .enumerate()
        // "at no charge", "no extra cost": the idiom for free, not a negated statement.
        .filter(|(i, w)| !(*w == "no" && words[i + 1..].iter().take(2).any(|n| FREE_NOUNS.contains(&n.as_str()))))
        .filter(|(_, w)| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"))
        .count()
}

/// The nouns of English's idiom for free after "no": "no charge", "no extra cost".
const FREE_NOUNS: &[&str] = &["charge", "cost", "fee", "fees", "payment"];


/// Splits prose into sentences at `.`, `!` or `?` followed by whitespace and a
/// capital letter or digit (or an opening quote), leaving abbreviations and
/// decimals ("$4.50") intact, and at every blank line: a paragraph or a list
/// item ends its sentence whatever its last mark ("… namely:" before a list).
/// The number of a numbered item ("1. Minute") opens it, not a sentence of
/// its own. Each sentence is returned trimmed, as written.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if c == '\n' && chars[i + 1..].iter().map(|&(_, c)| c).take_while(|c| c.is_whitespace()).any(|c| c == '\n') {
            if is_emphasized_term(&text[start..at]) {
                continue;
            }
            push_trimmed(&mut out, &text[start..at]);
            start = at;
            continue;
        }
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let Some(&(_, next)) = chars.get(i + 1) else { continue };
        if !next.is_whitespace() {
            continue;
        }
        let following = chars[i + 1..].iter().map(|&(_, c)| c).find(|c| !c.is_whitespace());
        if !following.is_some_and(|f| f.is_uppercase() || f.is_ascii_digit() || matches!(f, '"' | '\u{201c}')) {
            continue;
        }
        let before = text[start..at].rsplit(char::is_whitespace).next().unwrap_or("");
        let before = before.trim_start_matches(|c: char| !c.is_alphanumeric());
        if c == '.' && (ABBREVIATIONS.contains(&before.to_lowercase().as_str()) || is_initial(before)) {
            continue;
        }
        if c == '.' && is_item_number(text[start..at + 1].trim()) {
            continue;
        }
        push_trimmed(&mut out, &text[start..at + c.len_utf8()]);
        start = at + c.len_utf8();
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

/// A paragraph that is only an emphasized term ("**`Optional`**") heads the
/// paragraph after it, as a definition list's term does: the two are one
/// statement ("`Optional`: old name for `Suggests`.").
fn is_emphasized_term(paragraph: &str) -> bool {
    let paragraph = paragraph.trim();
    ["**", "__", "*", "_"].iter().any(|mark| {
        paragraph.len() > 2 * mark.len()
            && paragraph.starts_with(mark)
            && paragraph.ends_with(mark)
            && !paragraph[mark.len()..].starts_with(char::is_whitespace)
            && !paragraph.contains('\n')
    })
}

/// A sentence that is an item of a list: it opens with its number ("1.",
/// "2)") or a bullet ("-", "*").
pub fn is_list_item(sentence: &str) -> bool {
    let first = sentence.split_whitespace().next().unwrap_or("");
    is_item_number(first) || matches!(first, "-" | "*")
}

/// The number of a numbered item: digits and a stop or bracket ("1.", "2)").
fn is_item_number(word: &str) -> bool {
    word.len() > 1 && word.ends_with(['.', ')']) && word[..word.len() - 1].chars().all(|c| c.is_ascii_digit())
}

/// A capital initial ("J." in "J. R. R. Tolkien") or a dotted abbreviation
/// ("U.S.", "D.C.") does not end a sentence.
fn is_initial(word: &str) -> bool {
    let mut chars = word.chars();
    let single = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase());
    let dotted = word.contains('.') && word.split('.').all(|part| part.chars().count() == 1 && part.chars().all(char::is_alphabetic));
    single || dotted
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim();
    if !piece.is_empty() {
        out.push(piece);
    }
}

/// Splits a sentence into clauses at the marks that set clauses apart: `;`,
/// `:`, dashes, brackets, and commas (except a comma before a digit, part of a
/// date: "March 2, 1991", or between two capitalized words, part of a place:
/// "Orlando, Florida"). A fact and the words it is about must share a clause
/// for the fact to answer a question about them.
pub fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = sentence.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|&(_, n)| n);
        let after_space = chars.get(i + 2).map(|&(_, n)| n);
        let splits = match c {
            ';' | ':' | '(' | ')' | '[' | ']' | '\u{2014}' | '\u{2013}' => !(c == ':' && next.is_some_and(|n| n.is_ascii_digit())),
            ',' => {
                let previous_capitalized = sentence[start..at].split_whitespace().last().is_some_and(|w| w.starts_with(char::is_uppercase));
                let joins_date = after_space.is_some_and(|n| n.is_ascii_digit()) || next.is_some_and(|n| n.is_ascii_digit());
                let joins_place = previous_capitalized && after_space.is_some_and(char::is_uppercase);
                !(joins_date || joins_place)
            }
            _ => false,
        };
        if splits {
            push_trimmed(&mut out, &sentence[start..at]);
            start = at + c.len_utf8();
        }
    }
    push_trimmed(&mut out, &sentence[start..]);
    out
}

/// The clauses of every sentence of a text, in order.
pub fn clauses_of(text: &str) -> Vec<&str> {
    sentences(text).into_iter().flat_map(clauses).collect()
}

/// The terms of each two words a text writes side by side, closed up into
/// one ("user name" is `usernam`): English writes a compound spaced or
/// closed, and a text that writes it spaced states the closed word.
pub fn closed_pairs(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()).collect();
    words.windows(2).filter_map(|pair| terms(&pair.concat()).pop()).collect()
}

/// The particles of English phrasal verbs that close up into a noun: "back
/// up" is a "backup", "sign up" a "signup", "check out" a "checkout" ("in"
/// and "on" end too many phrases that are no compound: "allowed in").
const PARTICLES: &[&str] = &["up", "down", "out", "off", "over"];

/// Two spellings of one word a text may use, as terms: a closed-up word
/// and its parts written apart. A hyphenated compound ("GPL-licensed":
/// `gpllicens`, and `gpl` with `licens`), and a phrasal verb with the noun
/// it closes up into ("backed up": `backup`, and `back`). A corpus that uses
/// either spelling uses the word.
pub fn spelling_variants(text: &str) -> Vec<(String, Vec<String>)> {
    let raw: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')).filter(|w| !w.is_empty()).collect();
    let mut groups = Vec::new();
    for (i, word) in raw.iter().enumerate() {
        let parts: Vec<&str> = word.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() > 1 && parts.iter().all(|p| p.chars().all(char::is_alphabetic)) {
            if let Some(closed) = terms(&parts.concat()).pop() {
                groups.push((closed, parts.iter().flat_map(|p| terms(p)).collect()));
            }
        }
        let next = raw.get(i + 1).map(|w| w.to_lowercase()).unwrap_or_default();
        if PARTICLES.contains(&next.as_str()) && word.chars().all(char::is_alphabetic) {
            if let Some(verb) = terms(word).pop() {
                groups.push((stem(&format!("{verb}{next}")), vec![verb]));
            }
        }
    }
    groups
}

/// The words that open a noun phrase: articles, possessives, demonstratives,
/// quantifiers and prepositions (English's closed classes).
const NOUN_PHRASE_OPENERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their", "each",
    "every", "any", "some", "no", "all", "both", "per", "of", "at", "by", "for", "with", "in", "on", "to", "from",
    "into", "about", "without", "within", "under", "over", "whose",
];

/// The first two words of each noun phrase a text writes, as (term, word)
/// each: a modifier and its noun ("a *colour page*", "*Day lockers* are
/// free", "per *black-and-white page*"). A phrase opens at the start of a
/// clause or after an article, possessive, quantifier, number or preposition, so a
/// verb and its object ("I *bring dogs*") are not one; a hyphenated compound
/// is one word; numbers, stopwords, marks and identifiers (see
/// [`without_identifiers`]) part words.
pub fn modifier_pairs(text: &str) -> Vec<[(String, String); 2]> {
    let mut pairs = Vec::new();
    let text = without_identifiers(text);
    for piece in text.split([',', '.', ';', ':', '(', ')', '!', '?', '"', '\u{201c}', '\u{201d}']) {
        let raw: Vec<&str> = piece
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}' || c == '-'))
            .map(|w| w.trim_matches(|c: char| c == '-' || c == '\'' || c == '\u{2019}'))
            .filter(|w| !w.is_empty())
            .collect();
        let term = |w: &str| {
            let opener = NOUN_PHRASE_OPENERS.contains(&w.to_lowercase().as_str());
            word_terms(&w.split('-').collect::<String>(), false).next().filter(|(t, _)| !opener && !is_numeric(t)).map(|(t, _)| (t, w.to_string()))
        };
        for i in 0..raw.len().saturating_sub(1) {
            let before = if i == 0 { String::new() } else { raw[i - 1].to_lowercase() };
            // A count opens a phrase too: "one colour page", "300 black-and-white pages".
            let opens = i == 0 || NOUN_PHRASE_OPENERS.contains(&before.as_str()) || numbers::word_value(&before).is_some() || before.chars().all(|c| c.is_ascii_digit());
            if let (true, Some(a), Some(b)) = (opens, term(raw[i]), term(raw[i + 1])) {
                pairs.push([a, b]);
            }
        }
    }
    pairs
}

/// `text` with each identifier written as "it": a token with an
/// underscore, a slash, or a dot before a letter or digit in a word with
/// letters (`DEB_BUILD_OPTIONS`, `debian/rules`, `.dsc`, `orig.tar.gz`;
/// not a decimal, "$0.10") names one thing, and its pieces are no words of
/// a phrase. Like a pronoun it holds its place, but it is no term and opens
/// no noun phrase: "the `.dsc` Files field" writes no "dsc files", and "a
/// `DEB_BUILD_OPTIONS` tag" no "tag asks".
pub fn without_identifiers(text: &str) -> String {
    let identifier = |token: &str| {
        let token = token.trim_end_matches(|c: char| !c.is_alphanumeric());
        let inner_dot = token.char_indices().any(|(at, c)| c == '.' && token[at + 1..].starts_with(char::is_alphanumeric));
        token.contains(['_', '/']) || (inner_dot && token.contains(char::is_alphabetic))
    };
    text.split_whitespace().map(|token| if identifier(token) { "it" } else { token }).collect::<Vec<_>>().join(" ")
}

/// The phrases of English that open an illustration: what follows shows a
/// form with values of its own ("e.g. Jane Doe <jane@example.org>"), and
/// states no fact of the documents.
const ILLUSTRATION_OPENERS: &[&str] = &["e.g.", "for example", "for instance"];

/// `text` without its illustrations: each run from an illustration's opener
/// (see [`ILLUSTRATION_OPENERS`]) to the comma, semicolon or bracket that
/// closes it outside code marks, or to its sentence's end. What the text
/// states around them stays.
pub fn without_illustrations(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some((start, opener)) = ILLUSTRATION_OPENERS.iter().filter_map(|o| lower[at..].find(o).map(|p| (at + p, o.len()))).min() {
        out.push_str(&text[at..start]);
        let mut in_code = false;
        let mut end = text.len();
        for (i, c) in text[start + opener..].char_indices() {
            let here = start + opener + i;
            match c {
                '`' => in_code = !in_code,
                ',' | ';' | ')' if !in_code => {
                    end = here;
                    break;
                }
                '.' | '!' | '?' if !in_code && text[here + 1..].starts_with(char::is_whitespace) || here + 1 == text.len() => {
                    end = here;
                    break;
                }
                _ => {}
            }
        }
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Collapses runs of whitespace to one space, for verbatim comparisons.
pub fn squash_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_illustration_states_no_fact() {
        assert_eq!(without_illustrations("Name first, then the email in angle brackets, e.g. Jane Doe <jane@example.org>."), "Name first, then the email in angle brackets, .");
        assert_eq!(
            without_illustrations("Use an exact relation, e.g. `Built-Using: libfoo (= 1.2-3)`, so the archive keeps it."),
            "Use an exact relation, , so the archive keeps it."
        );
        assert_eq!(without_illustrations("Bugs go in a list (for example 42 43) after the colon."), "Bugs go in a list () after the colon.");
        assert_eq!(without_illustrations("A Day Pass costs $35."), "A Day Pass costs $35.");
    }

    #[test]
    fn terms_drop_stopwords_and_stem() {
        assert_eq!(terms("How much does a Dedicated Desk cost?"), ["much", "dedic", "desk", "cost"]);
        assert_eq!(terms("Bookings, booked, booking"), ["book", "book", "book"]);
        assert_eq!(terms("member's lockers"), ["member", "locker"]);
        assert_eq!(terms("They're sure it isn't free"), ["sure", "free"]);
    }

    /// A verb in "-er" and its noun in "-ration" are one word; other stems a letter apart are not.
    #[test]
    fn a_verb_and_its_nominalization_are_one_word() {
        assert!(same_word(&stem("register"), &stem("registration")));
        assert!(same_word(&stem("administer"), &stem("administration")));
        assert!(!same_word(&stem("use"), &stem("user")));
        assert!(!same_word(&stem("plan"), &stem("plane")));
    }

    /// Every form of a word has one stem, Porter2's undoubling included.
    #[test]
    fn inflections_share_one_stem() {
        assert_eq!(stem("add"), stem("added"));
        assert_eq!(stem("staff"), stem("staffed"));
        assert_eq!(stem("plan"), stem("planned"));
    }

    #[test]
    fn number_words_are_numbers() {
        assert_eq!(terms("two guests"), terms("2 guests"));
        assert!(is_numeric(&terms("forty")[0]));
    }

    /// No synonym is built in: a reworded question shares only the words it shares.
    #[test]
    fn inflections_share_a_term_but_synonyms_do_not() {
        assert_eq!(terms("cancellation"), terms("cancel"));
        assert_eq!(terms("prices"), terms("priced"));
        assert_ne!(terms("price"), terms("cost"));
        assert_ne!(terms("late fee"), terms("cost"));
    }

    /// A hyphenated compound holds its parts and its closed-up spelling, so
    /// "wifi" finds "Wi-Fi" and "late payment" finds "late-payment".
    #[test]
    fn hyphenated_words_split_and_close_up() {
        let hyphenated = terms("late-payment fee");
        assert!(terms("late payment fee").iter().all(|t| hyphenated.contains(t)));
        assert!(hyphenated.contains(&terms("latepayment")[0]));
        assert!(terms("member Wi-Fi").contains(&terms("wifi")[0]));
        assert!(terms("an e-mail").contains(&terms("email")[0]));
        assert_eq!(terms("9:00-11:00 on 2-3 May"), terms("9:00 11:00 on 2 3 May"), "numbers are not compounds");
    }

    #[test]
    fn spellings_of_one_word_are_grouped() {
        assert_eq!(spelling_variants("a GPL-licensed package"), [(stem("gpllicensed"), terms("gpl licensed"))]);
        assert_eq!(spelling_variants("is my data backed up"), [(stem("backup"), vec![stem("backed")])]);
        assert!(spelling_variants("the data").is_empty());
    }

    /// The first two words of a noun phrase; a verb and its object are not one.
    #[test]
    fn modifier_pairs_open_noun_phrases() {
        let pairs = |t: &str| modifier_pairs(t).into_iter().map(|[a, b]| format!("{} {}", a.1, b.1)).collect::<Vec<_>>();
        assert_eq!(pairs("A permanent locker costs $25."), ["permanent locker"]);
        assert_eq!(pairs("Day lockers are free, and so are black-and-white pages"), ["Day lockers"]);
        assert_eq!(pairs("It costs $0.10 per black-and-white page."), ["black-and-white page"]);
        assert!(pairs("Can I bring dogs?").is_empty());
        assert!(pairs("the desk of the member").is_empty());
        assert_eq!(modifier_pairs("colour page")[0][0].0, stem("colour"));
        // An identifier is one word of no phrase: its pieces modify nothing, and it opens nothing.
        assert!(pairs("The .dsc Files field lists them.").is_empty());
        assert!(pairs("unless a DEB_BUILD_OPTIONS tag asks otherwise in debian/rules files").is_empty());
        assert_eq!(pairs("an orig.tar.gz for the upstream tarball"), ["upstream tarball"]);
        assert_eq!(pairs("It costs $0.10 per black-and-white page, 2.5 colour pages."), ["black-and-white page", "colour pages"], "a decimal is a number");
    }

    #[test]
    fn negation_is_detected() {
        for text in ["Pets are not allowed.", "No refunds.", "You can't", "We cannot", "Never"] {
            assert_eq!(negations(text), 1, "{text}");
        }
        assert_eq!(negations("Pets are allowed on Fridays."), 0);
        assert_eq!(negations("Notice is required."), 0);
        assert_eq!(negations("You can not collect it at no charge."), 1, "\"at no charge\" is the idiom for free");
        assert_eq!(negations("A temporary card is issued at no extra cost."), 0);
        assert_eq!(negations("No other pets are allowed."), 1);
    }

    #[test]
    fn sentences_split_on_terminal_punctuation_only() {
        assert_eq!(
            sentences("A day pass costs $4.50 today. Guests sign in, e.g. at the desk. Done!"),
            ["A day pass costs $4.50 today.", "Guests sign in, e.g. at the desk.", "Done!"]
        );
        assert_eq!(sentences("Open at 9. 24 hours later it closes."), ["Open at 9.", "24 hours later it closes."]);
        assert_eq!(sentences("lower case. continues"), ["lower case. continues"]);
        assert_eq!(sentences("Written by J. R. R. Tolkien. It sold."), ["Written by J. R. R. Tolkien.", "It sold."]);
        assert_eq!(sentences("Confirmed by the U.S. Senate in 2001."), ["Confirmed by the U.S. Senate in 2001."]);
        assert!(sentences("   ").is_empty());
        assert_eq!(
            sentences("The file has three fields; namely:\n\n1. Minute\n\n2. Username\n\nRanges are allowed."),
            ["The file has three fields; namely:", "1. Minute", "2. Username", "Ranges are allowed."]
        );
        // A definition list's term heads its definition; a bullet does not join the next item.
        assert_eq!(
            sentences("**`Optional`**\n\nOld name for `Suggests`.\n\n**`Class`**\n\nOld name for `Priority`."),
            ["**`Optional`**\n\nOld name for `Suggests`.", "**`Class`**\n\nOld name for `Priority`."]
        );
        assert_eq!(sentences("* one\n\n* two"), ["* one", "* two"]);
    }

    #[test]
    fn clauses_split_at_clause_marks_but_not_inside_dates() {
        assert_eq!(
            clauses("Allie Goertz (born March 2, 1991) is an American musician; she sings."),
            ["Allie Goertz", "born March 2, 1991", "is an American musician", "she sings."]
        );
        assert_eq!(clauses("It costs $1,200, payable at 9:30."), ["It costs $1,200", "payable at 9:30."]);
        assert_eq!(clauses("A band from Orlando, Florida, formed in 2009."), ["A band from Orlando, Florida", "formed in 2009."]);
    }
}
