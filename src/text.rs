//! The one tokenizer. Indexing (the FTS5 `terms` column), retrieval, the evidence
//! gate, the answerer and the support scorer all call these functions, so a word
//! means the same thing at every stage.

/// Words that carry no topic: articles, pronouns, auxiliaries and question words.
/// Negations are here too (they are not topics); [`is_negated`] reads them separately.
const STOPWORDS: &[&str] = &[
    "a", "able", "about", "actually", "after", "all", "also", "am", "an", "and", "any",
    "anybody", "anyone", "anything", "are", "as", "at", "back", "be", "because", "become",
    "been", "before", "being", "between", "big", "both", "but", "by", "can", "cannot",
    "could", "did", "do", "does", "doing", "done", "during", "each", "either", "else",
    "etc", "ever", "every", "everyone", "exactly", "far", "for", "from", "get", "gets",
    "getting", "give", "go", "goes", "going", "got", "had", "happen", "happened", "happens",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "however",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "kind", "know", "let",
    "like", "long", "many", "may", "me", "might", "more", "most", "much", "must", "my",
    "need", "neither", "never", "no", "nobody", "none", "nor", "not", "of", "off", "ok",
    "okay", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "per",
    "please", "really", "right", "same", "shall", "she", "should", "so", "some", "somebody",
    "someone", "something", "such", "tell", "than", "that", "the", "their", "theirs",
    "them", "then", "there", "these", "they", "thing", "things", "this", "those", "through",
    "to", "too", "under", "until", "up", "upon", "us", "very", "via", "want", "wanted",
    "wants", "was", "way", "we", "were", "what", "whats", "when", "where", "whether",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without",
    "would", "yes", "you", "your", "yours", "yourself",
];

/// Words that negate the statement they stand in.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nobody", "nothing", "cannot", "neither", "nor", "without",
];

/// Everyday rewordings mapped onto the word the handbook uses. Kept deliberately
/// small: each entry widens what counts as "the same term", and a wrong entry turns
/// an honest refusal into a fabricated answer. Specific terms (fee, late, parking)
/// are never mapped onto general ones.
const SYNONYMS: &[(&str, &str)] = &[
    ("price", "cost"),
    ("prices", "cost"),
    ("priced", "cost"),
    ("pricing", "cost"),
    ("costs", "cost"),
    ("reimbursement", "refund"),
    ("reimbursed", "refund"),
    ("refunded", "refund"),
    ("cancellation", "cancel"),
    ("cancelling", "cancel"),
    ("canceling", "cancel"),
    ("cancelled", "cancel"),
    ("canceled", "cancel"),
    ("kids", "child"),
    ("kid", "child"),
    ("children", "child"),
    ("visitor", "guest"),
    ("visitors", "guest"),
    ("doggy", "dog"),
    ("puppy", "dog"),
    ("wifi", "wi-fi"),
    ("internet", "wi-fi"),
    ("print", "printing"),
    ("prints", "printing"),
    ("printed", "printing"),
    ("opens", "open"),
    ("opening", "open"),
    ("closes", "close"),
    ("closing", "close"),
    ("weekends", "weekend"),
    ("freeze", "pause"),
    ("frozen", "pause"),
    ("stolen", "theft"),
    ("steal", "theft"),
    ("rent", "book"),
    ("rental", "book"),
    ("deliver", "receive"),
    ("delivered", "receive"),
    ("delivery", "receive"),
    ("increase", "change"),
    ("raise", "change"),
    ("saturdays", "saturday"),
    ("sundays", "sunday"),
];

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "mr", "mrs", "ms", "dr", "st", "no", "vs", "approx"];

/// Number words read as digits, so "two guests" and "2 guests" agree.
const NUMBER_WORDS: &[(&str, &str)] = &[
    ("zero", "0"), ("one", "1"), ("two", "2"), ("three", "3"), ("four", "4"), ("five", "5"),
    ("six", "6"), ("seven", "7"), ("eight", "8"), ("nine", "9"), ("ten", "10"),
    ("eleven", "11"), ("twelve", "12"), ("fifteen", "15"), ("twenty", "20"), ("thirty", "30"),
    ("hundred", "100"),
];

fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// Splits text into lowercase words: runs of letters and digits, with inner
/// apostrophes dropped ("member's" -> "members") and hyphens splitting words.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
}

/// A light suffix stripper: plural, -ing, -ed and a final -e, so "booking",
/// "booked" and "books" all become "book". Not a linguistic stemmer; it only has to
/// be applied the same way to the corpus and the question.
pub fn stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) || !word.is_ascii() {
        return word.to_string();
    }
    let mut w = word.to_string();
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if w.len() > 3
        && w.ends_with('s')
        && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
    {
        w.truncate(w.len() - 1);
    }
    if w.len() > 5 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
    } else if w.len() > 4 && w.ends_with("ed") {
        w.truncate(w.len() - 2);
    }
    if w.len() > 3 && w.ends_with('e') && !w.ends_with("ee") {
        w.truncate(w.len() - 1);
    }
    w
}

fn canonical(word: &str) -> &str {
    SYNONYMS
        .iter()
        .find(|(from, _)| *from == word)
        .map_or(word, |(_, to)| to)
}

/// (term, word as written) for each topic word of a text, with repeats.
fn term_words(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    words(text)
        .filter(|w| !is_stopword(w) && (w.len() != 1 || w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| (stem(canonical(&w)), w))
}

/// The topic terms of a text, in order, with repeats: stopwords and single letters
/// dropped, rewordings mapped, stems taken. This is what the FTS5 index stores.
pub fn terms(text: &str) -> Vec<String> {
    term_words(text).map(|(term, _)| term).collect()
}

/// The distinct topic terms of a text, in order of first appearance.
pub fn distinct_terms(text: &str) -> Vec<String> {
    keyed_terms(text).into_iter().map(|(term, _)| term).collect()
}

/// The distinct topic terms of a text, each with the word it was first written
/// as (so a refusal can say "parking", not the stem "park").
pub fn keyed_terms(text: &str) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for (term, word) in term_words(text) {
        if !seen.iter().any(|(t, _)| *t == term) {
            seen.push((term, word));
        }
    }
    seen
}

/// True when the text states a negation ("not", "no", "never", "-n't", ...).
pub fn is_negated(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
        .any(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"))
}

/// The quantities a text states, normalized so that equal amounts compare equal:
/// "$450.00" and "450" -> "450", "7:00" -> "7:00", "1,200" -> "1200", "two" -> "2".
pub fn quantities(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for raw in text.split(|c: char| c.is_whitespace() || c == '/' || c == '-' || c == '(' || c == ')') {
        let token = raw.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '$'));
        let lower = token.to_lowercase();
        if let Some((_, digit)) = NUMBER_WORDS.iter().find(|(word, _)| *word == lower) {
            found.push(digit.to_string());
            continue;
        }
        let numeric: String = token
            .trim_start_matches('$')
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',' || *c == ':')
            .filter(|c| *c != ',')
            .collect();
        let numeric = numeric.trim_end_matches(['.', ':']);
        if numeric.is_empty() || !numeric.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let normalized = match numeric.split_once('.') {
            Some((whole, fraction)) if fraction.chars().all(|c| c == '0') => whole.to_string(),
            _ => numeric.to_string(),
        };
        found.push(normalized);
    }
    found
}

/// Splits prose into sentences at `.`, `!` or `?` followed by whitespace and a
/// capital letter or digit, leaving abbreviations and decimals ("$4.50") intact.
/// Each sentence is returned trimmed, exactly as written.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let Some(&(_, next)) = chars.get(i + 1) else { continue };
        if !next.is_whitespace() {
            continue;
        }
        let following = chars[i + 1..].iter().map(|&(_, c)| c).find(|c| !c.is_whitespace());
        if !following.is_some_and(|f| f.is_uppercase() || f.is_ascii_digit()) {
            continue;
        }
        let before = text[start..at].rsplit(char::is_whitespace).next().unwrap_or("");
        if c == '.' && ABBREVIATIONS.contains(&before.to_lowercase().as_str()) {
            continue;
        }
        push_trimmed(&mut out, &text[start..at + c.len_utf8()]);
        start = at + c.len_utf8();
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim();
    if !piece.is_empty() {
        out.push(piece);
    }
}

/// The names a text mentions: runs of capitalized words ("Flex Desk", "Larkport
/// Harbor Day", "Fridays"), leaving out stopwords and a lone capitalized word
/// that only starts a sentence ("Members can ...").
pub fn entities(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for sentence in sentences(text) {
        let mut run: Vec<&str> = Vec::new();
        let mut run_starts_sentence = false;
        let tokens: Vec<&str> = sentence.split_whitespace().collect();
        for (i, raw) in tokens.iter().enumerate() {
            let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let capitalized = word.chars().next().is_some_and(char::is_uppercase) && !is_stopword(&word.to_lowercase());
            if capitalized {
                if run.is_empty() {
                    run_starts_sentence = i == 0;
                }
                run.push(word);
            }
            let ends_run = !capitalized || raw.ends_with([',', '.', ';', ':', '!', '?']) || i + 1 == tokens.len();
            if ends_run && !run.is_empty() {
                if run.len() > 1 || !run_starts_sentence {
                    found.push(run.join(" "));
                }
                run.clear();
            }
        }
    }
    found
}

/// Collapses runs of whitespace to one space, for verbatim comparisons.
pub fn squash_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn terms_drop_stopwords_and_stem() {
        assert_eq!(terms("How much does a Dedicated Desk cost?"), ["dedicat", "desk", "cost"]);
        assert_eq!(terms("Bookings, booked, booking"), ["book", "book", "book"]);
        assert_eq!(terms("member's lockers"), ["member", "locker"]);
    }

    #[test]
    fn rewordings_share_a_term_but_specific_words_stay_apart() {
        assert_eq!(terms("What is the price?"), terms("What does it cost?"));
        assert_eq!(terms("cancellation"), terms("cancel"));
        assert_ne!(terms("late fee"), terms("cost"));
    }

    #[test]
    fn hyphenated_words_split() {
        assert_eq!(terms("late-payment fee"), terms("late payment fee"));
        assert_eq!(terms("late-payment fee").len(), 3);
    }

    #[test]
    fn negation_is_detected() {
        for text in ["Pets are not allowed.", "No refunds.", "You can't", "We cannot", "Never"] {
            assert!(is_negated(text), "{text}");
        }
        assert!(!is_negated("Pets are allowed on Fridays."));
        assert!(!is_negated("Notice is required."));
    }

    #[test]
    fn quantities_normalize_money_times_and_number_words() {
        assert_eq!(quantities("A desk costs $450.00 per month."), ["450"]);
        assert_eq!(quantities("Open 7:00 am to 9:30 pm, 1,200 pages."), ["7:00", "9:30", "1200"]);
        assert_eq!(quantities("Bring two guests for $4.50."), ["2", "4.50"]);
        assert_eq!(quantities("Access 24/7 (30 days)."), ["24", "7", "30"]);
        assert!(quantities("No numbers here.").is_empty());
    }

    #[test]
    fn entities_are_capitalized_runs() {
        assert_eq!(entities("The Flex Desk plan costs $220."), ["Flex Desk"]);
        assert_eq!(entities("Members can bring dogs on Fridays, not on Larkport Harbor Day."), ["Fridays", "Larkport Harbor Day"]);
        assert!(entities("Members can bring guests.").is_empty());
    }

    #[test]
    fn sentences_split_on_terminal_punctuation_only() {
        assert_eq!(
            sentences("A day pass costs $4.50 today. Guests sign in, e.g. at the desk. Done!"),
            ["A day pass costs $4.50 today.", "Guests sign in, e.g. at the desk.", "Done!"]
        );
        assert_eq!(sentences("Open at 9. 24 hours later it closes."), ["Open at 9.", "24 hours later it closes."]);
        assert_eq!(sentences("lower case. continues"), ["lower case. continues"]);
        assert!(sentences("   ").is_empty());
    }
}
