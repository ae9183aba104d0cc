//! Names: the proper nouns a text mentions, read by the rules of English
//! capitalization ("Flex Desk", "Bank of America", "Larkport Harbor Day"), and
//! matched whatever their case, so a claim that writes "flex desk" still names
//! the Flex Desk.

use super::grammar::AUXILIARIES;
use super::numbers;
use super::stopwords::is_stopword;

/// Lowercase words that may join the parts of a name ("Bank of America",
/// "First for Women", "Ludwig van Beethoven"): "of", "for" and "the" (English
/// titles), and the particles of European surnames. Not "and" or "in": they
/// join two names more often than they sit inside one.
const NAME_PARTICLES: &[&str] = &["de", "del", "della", "der", "di", "du", "la", "le", "van", "von", "y"];

fn is_capitalized(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

/// A capitalized word that is not a function word, a weekday, a month or a
/// cardinal number word: those are capitalized by rule or at the start of a
/// sentence, not because they name something.
fn is_name_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    is_capitalized(word)
        && !is_stopword(&lower.replace('\u{2019}', "'"))
        && numbers::word_value(&lower).is_none()
        && !numbers::is_calendar_word(&lower)
}

/// A word written in capitals ("GUI", "CI", "JSONs"): an abbreviation,
/// which shortens a common noun as often as a name.
pub fn is_abbreviation(word: &str) -> bool {
    let letters = word.strip_suffix('s').unwrap_or(word);
    letters.chars().count() >= 2 && letters.chars().all(|c| c.is_ascii_uppercase())
}

/// The names a text mentions: runs of capitalized words, joined across
/// lowercase particles ("Bank of America"), leaving out a lone capitalized word
/// that only starts a sentence ("Members can …"). Possessives are dropped
/// ("Arthur's Magazine" stays whole; "Miller's" reads "Miller").
pub fn names(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for sentence in super::sentences(text) {
        let mut tokens: Vec<&str> = sentence.split_whitespace().collect();
        // A numbered item's first word ("1. Minute") is capitalized as a sentence's is.
        if super::is_list_item(sentence) {
            tokens.remove(0);
        }
        // A question opens with its auxiliary, set before the subject ("Will Billwren cover it?"): a verb, no name's first word.
        let inverted = |i: usize, word: &str| i == 0 && sentence.trim_end().ends_with('?') && AUXILIARIES.contains(&word.to_lowercase().as_str());
        let mut run: Vec<&str> = Vec::new();
        let mut run_opens_sentence = false;
        let mut i = 0;
        while i < tokens.len() {
            let raw = tokens[i];
            let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let ends = raw.ends_with([',', '.', ';', ':', '!', '?', ')', '"', '\u{201d}']);
            if is_name_word(word) && !inverted(i, word) {
                if run.is_empty() {
                    // A word set in code marks is a literal name wherever it stands ("`Optional` is …"),
                    // not capitalized for opening the sentence.
                    run_opens_sentence = i == 0 && !raw.starts_with('`');
                }
                // A name joined to a lowercase word ("X-enabled", "GPL-licensed") is the name, modified:
                // the word says what of it, as a phrase would ("with X support", "licensed under the GPL").
                match word.split_once('-').filter(|(_, rest)| !rest.is_empty() && rest.chars().all(|c| c.is_lowercase())) {
                    Some((name, _)) => {
                        run.push(name);
                        flush(&mut run, run_opens_sentence, &mut found);
                    }
                    None => run.push(word),
                }
            } else {
                let lower = word.to_lowercase();
                let joins = !run.is_empty()
                    && (NAME_PARTICLES.contains(&lower.as_str()) || matches!(lower.as_str(), "of" | "for" | "the"))
                    && tokens.get(i + 1).is_some_and(|next| is_name_word(next.trim_matches(|c: char| !c.is_alphanumeric())));
                if joins && !raw.ends_with([',', '.', ';', ':']) {
                    run.push(word);
                    i += 1;
                    continue;
                }
                flush(&mut run, run_opens_sentence, &mut found);
            }
            if ends {
                flush(&mut run, run_opens_sentence, &mut found);
            }
            i += 1;
        }
        flush(&mut run, run_opens_sentence, &mut found);
    }
    found
}

/// Determiners and quantifiers the stop list leaves out: capitalized at the
/// start of a sentence, they open a phrase, not a name ("Every MTA package").
const DETERMINERS: &[&str] = &["every", "each", "all", "any", "some", "both", "either", "neither", "many", "most", "several", "another", "such", "no"];

fn flush(run: &mut Vec<&str>, opens_sentence: bool, found: &mut Vec<String>) {
    let mut opens_sentence = opens_sentence;
    while run.len() > 1 && DETERMINERS.contains(&run[0].to_lowercase().as_str()) {
        run.remove(0);
        opens_sentence = false;
    }
    // A name must have words: initials and dotted abbreviations ("J.", "U.S.") alone are not one.
    let has_words = run.iter().any(|w| !super::terms(w).is_empty());
    if has_words && (run.len() > 1 || (run.len() == 1 && !opens_sentence)) {
        let name = run.join(" ");
        let name = name.strip_suffix("'s").or_else(|| name.strip_suffix("\u{2019}s")).unwrap_or(&name).to_string();
        if !found.contains(&name) {
            found.push(name);
        }
    }
    run.clear();
}

/// True when a text whose terms are `terms` names `name`: every term of the
/// name is there, whatever its case ("flex desk" names "Flex Desk"); a
/// hyphenated compound, closed up or as its parts ("GPL-licensed" is named
/// by "licensed under the GPL"); a place in any of its forms ("Irish" is
/// named by "the courts of Ireland", see [`super::places`]).
pub fn mentions(terms: &[String], name: &str) -> bool {
    let all = |wanted: Vec<String>| !wanted.is_empty() && wanted.iter().all(|t| terms.contains(t));
    let as_written = |name: &str| all(super::terms(&name.replace('-', ""))) || all(super::phrase_terms(name));
    as_written(name) || super::places::other_forms(name).into_iter().any(as_written)
}

/// The names among `known` (say, every name of the retrieved passages) that a
/// text mentions (see [`written_at`]: a one-word name as it is written, so
/// "a native version number" names no `Version` field), plus the
/// capitalized names it writes itself.
pub fn named_in(text: &str, known: &[String]) -> Vec<String> {
    let terms = super::terms(text);
    let mut found = names(text);
    for name in known {
        let already = found.iter().any(|f| f.eq_ignore_ascii_case(name));
        if !already && mentions(&terms, name) && !written_at(text, name).is_empty() {
            found.push(name.clone());
        }
    }
    found
}

/// Where `text` writes `name` as whole words: a name of two words or more in
/// any case ("flex desk" is the Flex Desk), a one-word name as the name is
/// written ("Data" the heading is not "data" the noun). Byte spans, in order.
pub fn written_at(text: &str, name: &str) -> Vec<(usize, usize)> {
    let words = |s: &str| -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        let mut start = None;
        for (at, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
            match (c.is_alphanumeric() || c == '_', start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    spans.push((from, at));
                    start = None;
                }
                _ => {}
            }
        }
        spans
    };
    let (text_words, name_words) = (words(text), words(name));
    if name_words.is_empty() {
        return Vec::new();
    }
    let one_word = name_words.len() == 1;
    let same = |a: &str, b: &str| if one_word { a == b } else { a.eq_ignore_ascii_case(b) };
    text_words
        .windows(name_words.len())
        .filter(|w| w.iter().zip(&name_words).all(|(t, n)| same(&text[t.0..t.1], &name[n.0..n.1])))
        .map(|w| (w[0].0, w[w.len() - 1].1))
        .collect()
}

/// The name's words appear together, in order, in the text (any case), so
/// "flex desk" is found in "a flex desk" but not in "desk flex".
pub fn phrase_in(text: &str, name: &str) -> bool {
    let lower = |s: &str| s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect::<Vec<_>>();
    let (text, name) = (lower(text), lower(name));
    !name.is_empty() && text.windows(name.len()).any(|w| w == name.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A known one-word name is named as it is written; a name of more words in any case.
    #[test]
    fn a_known_name_of_one_word_is_named_as_written() {
        let known = ["Version".to_string(), "Flex Desk".to_string()];
        assert!(named_in("Use a native version number.", &known).is_empty());
        assert_eq!(named_in("then set the Version field.", &known), ["Version"]);
        assert_eq!(named_in("A flex desk costs less.", &known), ["Flex Desk"]);
    }

    #[test]
    fn names_are_capitalized_runs() {
        assert_eq!(names("The Flex Desk plan costs $220."), ["Flex Desk"]);
        assert_eq!(names("Members can bring dogs on Fridays, not on Larkport Harbor Day."), ["Larkport Harbor Day"]);
        assert!(names("Members can bring guests.").is_empty());
        assert_eq!(names("Which magazine came first, Arthur's Magazine or First for Women?"), ["Arthur's Magazine", "First for Women"]);
        assert_eq!(names("It is run by the Bank of America in New York City."), ["Bank of America", "New York City"]);
        assert_eq!(names("Every MTA package must have it."), ["MTA"]);
        assert!(names("6. Username").is_empty(), "a numbered item opens as a sentence does");
        assert_eq!(names("7. Command to Harbor Commons"), ["Harbor Commons"]);
        assert_eq!(names("`Locker` is the old name for `Storage`."), ["Locker", "Storage"], "a literal opening a sentence is a name");
        assert!(names("Locker rules apply.").is_empty());
    }

    /// A name joined by a hyphen to a lowercase word is the name, modified;
    /// joined to another capitalized word or a number, the compound is one name.
    #[test]
    fn a_name_joined_to_a_lowercase_word_is_the_name() {
        assert_eq!(names("Provide an alternative Xfce-enabled version of the package."), ["Xfce"]);
        assert_eq!(names("A package that is GPL-licensed may refer to it."), ["GPL"]);
        assert_eq!(names("Connect to the Wi-Fi with UTF-8 names in the Pre-Depends field."), ["Wi-Fi", "UTF-8", "Pre-Depends"]);
        assert_eq!(names("Scooby Doo, the All-Star Laff-a-Lympics dog."), ["Scooby Doo", "All-Star Laff-a-Lympics"], "a lowercase word inside a name");
    }

    /// A question's opening auxiliary is its verb, set before the subject;
    /// the same word opening a statement may be a name's first word.
    #[test]
    fn a_questions_opening_auxiliary_is_no_part_of_a_name() {
        assert_eq!(names("Will Billwren cover that fee?"), ["Billwren"]);
        assert_eq!(names("Can Harbor Commons hold my mail?"), ["Harbor Commons"]);
        assert_eq!(names("Will Smith starred in it."), ["Will Smith"]);
    }

    /// A lowercase swap of a known name is still a name.
    #[test]
    fn known_names_are_found_in_any_case() {
        let known = vec!["Flex Desk".to_string(), "Dedicated Desk".to_string()];
        assert_eq!(named_in("a flex desk costs $450", &known), ["Flex Desk"]);
        assert!(named_in("every desk is flexible", &known).is_empty());
        assert!(mentions(&super::super::terms("the FLEX desk plan"), "Flex Desk"));
    }

    /// A hyphenated name is named closed up or as its parts, not by one part.
    #[test]
    fn a_hyphenated_name_is_named_by_its_parts() {
        let terms = |text: &str| super::super::terms(text);
        assert!(mentions(&terms("a package licensed under the GPL"), "GPL-licensed"));
        assert!(mentions(&terms("the member wifi"), "Wi-Fi"));
        assert!(!mentions(&terms("the GPL text"), "GPL-licensed"));
        assert!(mentions(&terms("the courts of Ireland"), "Irish"));
        assert!(!mentions(&terms("the courts of Canada"), "Irish"));
    }
}
