//! Explicit references between passages, found by general patterns of
//! English documents, not by any one corpus's wording:
//!
//! - numbered references: "Section 4.9.1", "Chapter 3", "§ 2.1",
//!   "Appendix B", "Annex III", "Article 6(2)", "Part II";
//! - "see …" (and "described in …", "refer to …", "defined in …", "set out
//!   in …") naming a heading, capitalized or quoted;
//! - Markdown links to another document (`pricing.md`) or heading (`#hours`).
//!
//! A corpus with wording of its own ("Rule 7", "pursuant to Exhibit C")
//! names its extra reference words in its vocabulary file
//! ([`ReferenceWords`]); they add to the general ones.
//!
//! A passage is known by its anchors: its heading's number, its heading's
//! words, and (the first passage of a document) its document. A reference is
//! a key of the same form. Keys are resolved against anchors only when
//! retrieval follows them, so a page of an ingest never needs the rest of the
//! corpus, and a reference nothing answers to is kept (and counted), not an
//! error.

use crate::corpus::chunk::{self, Passage};
use crate::corpus::vocabulary::ReferenceWords;
use crate::text;

/// Words that introduce a reference by number; the number alone is the key.
const NUMBERED: &[&str] = &["section", "sections", "chapter", "chapters", "§", "§§", "clause", "paragraph", "subsection"];
/// Words whose number is only meaningful with the word ("Appendix B").
const NAMED: &[&str] = &["appendix", "annex", "article", "articles", "part", "schedule"];
/// Words that introduce a heading by name.
const POINTERS: &[&[&str]] = &[
    &["see"], &["described", "in"], &["refer", "to"], &["defined", "in"], &["set", "out", "in"], &["explained", "in"],
    &["listed", "in"], &["specified", "in"], &["according", "to"],
];

/// A sentence that points elsewhere ("see Section 4.9.1", "as described in
/// Annex III", "set out in Part 2") instead of stating a fact: a pointer of
/// [`POINTERS`] with a word of [`NUMBERED`] or [`NAMED`] within three words
/// after it. The answer checks read this; the ingest follows such pointers.
pub fn points_elsewhere(sentence: &str) -> bool {
    let words = text::lower_words(sentence);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    (0..words.len()).any(|i| {
        POINTERS
            .iter()
            .find_map(|p| pointer_at(&words, i, p.iter().copied()))
            .is_some_and(|after| words[after..].iter().take(3).any(|w| NUMBERED.contains(w) || NAMED.contains(w)))
    })
}
/// Small words a heading's name may hold between its capitalized words.
const CONNECTORS: &[&str] = &["&", "and", "of", "the", "for", "a", "an", "to", "in", "on", "or", "with"];

/// The reference words in force: the general ones and a corpus's own.
#[derive(Debug, Clone, Default)]
pub struct Patterns {
    numbered: Vec<String>,
    named: Vec<String>,
    pointers: Vec<Vec<String>>,
}

impl Patterns {
    /// The general words and `extra`, lowercased.
    pub fn new(extra: &ReferenceWords) -> Patterns {
        let lower = |words: &[String]| words.iter().map(|w| w.trim().to_lowercase()).filter(|w| !w.is_empty()).collect::<Vec<_>>();
        Patterns {
            numbered: lower(&extra.numbered),
            named: lower(&extra.named),
            pointers: extra.pointers.iter().map(|p| p.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>()).filter(|p| !p.is_empty()).collect(),
        }
    }

    fn is_numbered(&self, word: &str) -> bool {
        NUMBERED.contains(&word) || self.numbered.iter().any(|w| w == word)
    }

    fn is_named(&self, word: &str) -> bool {
        NAMED.contains(&word) || self.named.iter().any(|w| w == word)
    }

    fn introduces_number(&self, word: &str) -> bool {
        self.is_numbered(word) || self.is_named(word)
    }

    /// Where the words after a pointer start, if one is at `i`.
    fn pointer_at(&self, words: &[&str], i: usize) -> Option<usize> {
        let general = POINTERS.iter().find_map(|p| pointer_at(words, i, p.iter().copied()));
        general.or_else(|| self.pointers.iter().find_map(|p| pointer_at(words, i, p.iter().map(String::as_str))))
    }

    /// The key of a numbered reference.
    fn number_key(&self, word: &str, number: &str) -> String {
        if self.is_named(word) {
            format!("n:{word} {number}")
        } else {
            format!("n:{number}")
        }
    }
}

/// The keys a passage answers to.
pub fn anchors(passage: &Passage, patterns: &Patterns) -> Vec<String> {
    let mut keys = Vec::new();
    let words: Vec<&str> = passage.section.split_whitespace().collect();
    let rest = match words.first().map(|w| w.to_lowercase()) {
        Some(first) if patterns.introduces_number(&first) => match words.get(1).and_then(|w| number(w)) {
            Some(n) => {
                keys.push(patterns.number_key(&first, &n));
                &words[2..]
            }
            None => &words[..],
        },
        Some(_) => match words.first().and_then(|w| heading_number(w)) {
            Some(n) => {
                keys.push(format!("n:{n}"));
                if n.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    keys.push(format!("n:appendix {n}"));
                }
                &words[1..]
            }
            None => &words[..],
        },
        None => &words[..],
    };
    if let Some(name) = heading_key(&rest.join(" ")) {
        keys.push(name);
    }
    if chunk::opens_document(passage) {
        keys.push(format!("d:{}", passage.doc));
    }
    keys.sort();
    keys.dedup();
    keys
}

/// The keys a passage's text refers to (its own anchors left out).
pub fn references(passage: &Passage, patterns: &Patterns) -> Vec<String> {
    let words: Vec<&str> = passage.text.split_whitespace().collect();
    let mut keys = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let lower = bare(word).to_lowercase();
        if patterns.introduces_number(&lower) {
            if let Some(n) = words.get(i + 1).and_then(|w| number(w)) {
                keys.push(patterns.number_key(&lower, &n));
            }
        }
    }
    for i in 0..words.len() {
        if let Some(after) = patterns.pointer_at(&words, i) {
            if let Some(key) = named_heading(&words[after..], patterns) {
                keys.push(key);
            }
        }
    }
    keys.extend(links(&passage.text));
    let own = anchors(passage, patterns);
    keys.retain(|k| !own.contains(k));
    keys.sort();
    keys.dedup();
    keys
}

/// Keys of a workspace's passages, kept apart from the shared corpus's and
/// every other workspace's: an upload's "see Section 2" means its own
/// Section 2. Shared keys stay as they are.
pub fn scoped(keys: Vec<String>, workspace: Option<&str>) -> Vec<String> {
    match workspace {
        None => keys,
        Some(id) => keys.into_iter().map(|k| format!("{}/{k}", crate::corpus::workspace::token(Some(id)))).collect(),
    }
}

/// A word without the punctuation around it.
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | ':' | '"' | '\'' | '“' | '”' | '‘' | '’'))
}

/// A reference's number: dotted digits ("4.9.1"), digits with a paragraph
/// ("6(2)" is article 6), a Roman numeral ("III") or a letter with optional
/// dotted digits ("B", "B.2"); lowercased, trailing dots dropped.
fn number(word: &str) -> Option<String> {
    let word = bare(word).trim_end_matches(['.', ',', ';', ':']);
    let word = word.split('(').next().unwrap_or(word);
    let lower = word.to_lowercase();
    let dotted = |s: &str| !s.is_empty() && s.split('.').all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let roman = !lower.is_empty() && lower.len() <= 6 && lower.bytes().all(|b| b"ivxlc".contains(&b));
    let lettered = lower.len() == 1 && lower.bytes().all(|b| b.is_ascii_alphabetic())
        || lower.split_once('.').is_some_and(|(l, rest)| l.len() == 1 && l.bytes().all(|b| b.is_ascii_alphabetic()) && dotted(rest));
    (dotted(&lower) || roman || lettered).then_some(lower)
}

/// A heading's leading number: "4.9.1", "4." or "A.2" (a single letter
/// alone is a word, not a number, unless a dot follows it).
fn heading_number(word: &str) -> Option<String> {
    let digits_first = word.starts_with(|c: char| c.is_ascii_digit());
    let letter_dot = word.len() >= 2 && word.starts_with(|c: char| c.is_ascii_alphabetic()) && word[1..].starts_with('.');
    if digits_first || letter_dot {
        number(word).filter(|n| !n.bytes().all(|b| b"ivxlc".contains(&b)) || digits_first)
    } else {
        None
    }
}

/// The key of a heading's name: its index terms, in order.
fn heading_key(name: &str) -> Option<String> {
    let terms = text::phrase_terms(name);
    (!terms.is_empty()).then(|| format!("h:{}", terms.join(" ")))
}

/// Where the words after `pointer` ("see", "described in") start, if it is at `i`.
fn pointer_at<'p>(words: &[&str], i: usize, pointer: impl Iterator<Item = &'p str>) -> Option<usize> {
    let mut len = 0;
    for (j, p) in pointer.enumerate() {
        if !words.get(i + j).is_some_and(|w| bare(w).eq_ignore_ascii_case(p)) {
            return None;
        }
        len = j + 1;
    }
    (len > 0).then_some(i + len)
}

/// A heading named after a pointer: quoted words, or capitalized words with
/// small connectors between them, up to the first punctuation that ends a
/// name. A numbered reference ("see Section 4") is left to the numbered rule.
fn named_heading(words: &[&str], patterns: &Patterns) -> Option<String> {
    let first = *words.first()?;
    let lower = bare(first).to_lowercase();
    if patterns.introduces_number(&lower) {
        return None;
    }
    let quoted = first.trim_start_matches('(').starts_with(['"', '“']);
    let mut name: Vec<&str> = Vec::new();
    for word in words.iter().take(12) {
        let core = bare(word);
        let capitalized = core.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit());
        if !quoted && !capitalized && !CONNECTORS.contains(&core.to_lowercase().as_str()) {
            break;
        }
        name.push(core);
        let ends = word.ends_with([')', ',', ';', ':', '.', '"', '”']) && !(quoted && name.len() == 1 && !word.trim_end_matches([')', ',', ';', ':', '.']).ends_with(['"', '”']));
        if ends {
            break;
        }
    }
    while name.last().is_some_and(|w| CONNECTORS.contains(&w.to_lowercase().as_str())) {
        name.pop();
    }
    if name.is_empty() || !name[0].starts_with(|c: char| c.is_uppercase()) && !quoted {
        return None;
    }
    heading_key(&name.join(" "))
}

/// Markdown links to another document (`d:` its stem) or to a heading (`h:`
/// its words); links to other sites are not references into the corpus.
fn links(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].trim();
        rest = &after[end..];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
        if !fragment.is_empty() {
            keys.extend(heading_key(&fragment.replace(['-', '_'], " ")));
        } else if !path.is_empty() {
            let stem = chunk::doc_stem(path);
            if !stem.is_empty() {
                keys.push(format!("d:{stem}"));
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::vocabulary::Vocabulary;

    /// The keys under the general words alone.
    fn anchors(p: &Passage) -> Vec<String> {
        super::anchors(p, &Patterns::default())
    }

    fn references(p: &Passage) -> Vec<String> {
        super::references(p, &Patterns::default())
    }

    /// A corpus's own words add to the general ones: "Rule 7" finds the
    /// heading "7 Guests", "Exhibit C" the heading "Exhibit C: Fees", and "as
    /// provided in" introduces a heading by name.
    #[test]
    fn a_vocabulary_adds_its_own_reference_words() {
        let json = r#"{"references": {"numbered": ["Rule"], "named": ["exhibit"], "pointers": ["as provided in"]}}"#;
        let own = Patterns::new(&Vocabulary::parse(json).unwrap().references);
        let p = passage("club-02", "Visits", "Guests are welcome under Rule 7, at the rates in Exhibit C, as provided in Guest Passes.");
        assert_eq!(super::references(&p, &own), ["h:guest pass", "n:7", "n:exhibit c"]);
        assert!(references(&p).is_empty(), "no general word names them");
        assert!(super::anchors(&passage("club-09", "Exhibit C: Fees", "x"), &own).contains(&"n:exhibit c".to_string()));
        assert!(super::anchors(&passage("club-05", "7 Guests", "x"), &own).contains(&"n:7".to_string()));
    }

    /// An upload's keys are its workspace's own; the shared corpus's are bare.
    #[test]
    fn workspace_keys_are_scoped() {
        let keys = vec!["n:2".to_string()];
        assert_eq!(scoped(keys.clone(), None), keys);
        assert_eq!(scoped(keys, Some("00000000000000aa")), ["w00000000000000aa/n:2"]);
    }

    fn passage(id: &str, section: &str, text: &str) -> Passage {
        let doc = id.rsplit_once('-').map_or(id, |(d, _)| d).to_string();
        Passage { id: id.into(), doc, section: section.into(), text: text.into() }
    }

    #[test]
    fn headings_answer_to_their_number_their_words_and_their_document() {
        let p = passage("policy-01", "4.9.1 Main building script: debian/rules", "x");
        let keys = anchors(&p);
        assert!(keys.contains(&"n:4.9.1".to_string()), "{keys:?}");
        assert!(keys.contains(&"d:policy".to_string()));
        assert!(keys.iter().any(|k| k.starts_with("h:main build script")), "{keys:?}");
        assert_eq!(anchors(&passage("act-07", "Annex III: High-risk systems", "x"))[0], "h:high risk system");
        assert!(anchors(&passage("act-07", "Annex III: High-risk systems", "x")).contains(&"n:annex iii".to_string()));
        assert!(anchors(&passage("act-02", "Article 6 Classification rules", "x")).contains(&"n:article 6".to_string()));
        assert!(anchors(&passage("p-03", "B.2 Package relationships", "x")).contains(&"n:appendix b.2".to_string()));
        assert!(anchors(&passage("p-03", "4. Source packages", "x")).contains(&"n:4".to_string()));
        assert!(!anchors(&passage("p-03", "A quiet room", "x")).iter().any(|k| k.starts_with("n:")), "a word is not a number");
    }

    #[test]
    fn numbered_references_are_found_in_any_form() {
        let p = passage(
            "a-02",
            "Scope",
            "A system is high-risk if it appears in Annex III. See Section 4.9.1 (Main building script) and §2.1, \
             as Article 6(2) and Appendix B say; Chapter 3. covers the rest.",
        );
        let refs = references(&p);
        for key in ["n:annex iii", "n:4.9.1", "n:article 6", "n:appendix b", "n:3"] {
            assert!(refs.contains(&key.to_string()), "{key} in {refs:?}");
        }
    }

    #[test]
    fn see_names_a_heading_capitalized_or_quoted() {
        let p = passage("h-01", "Membership", "Members get 24/7 access via keycard (see Hours & Access). Details are in the \"late fees\" table; see below for more.");
        let refs = references(&p);
        assert!(refs.contains(&"h:hour access".to_string()), "{refs:?}");
        assert!(!refs.iter().any(|k| k.contains("below")), "lowercase words are not a heading");
        let described = references(&passage("h-02", "X", "The rules are described in Late Payment Fees, which apply monthly."));
        assert!(described.contains(&"h:late payment fee".to_string()), "{described:?}");
    }

    #[test]
    fn markdown_links_point_at_documents_and_headings() {
        let p = passage("a-03", "X", "Read [the price list](pricing.md), [hours](hours.md#opening-hours) and [the site](https://example.org/x.md).");
        let refs = references(&p);
        assert_eq!(refs, ["d:pricing", "h:open hour"]);
    }

    #[test]
    fn a_passage_does_not_refer_to_itself() {
        let p = passage("s-04", "4.2 Fees", "Fees are set in Section 4.2 and in Section 5.");
        assert_eq!(references(&p), ["n:5"]);
    }
}
