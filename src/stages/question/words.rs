//! The closed word lists of English grammar that reading a question and
//! judging its answers use: auxiliaries, modals, light verbs, the wh-words,
//! the words of price, time, place and number, prepositions and pronouns.

use crate::text;
pub(super) use crate::text::grammar::{is_generic_adjective, is_peripheral, AUXILIARIES, CAUSATIVE_VERBS, LIGHT_VERBS};

/// The auxiliaries after which the relation is a verb ("does X *cost*",
/// "can I *bring*"): "do" and the modals, not "be" or "have".
pub(super) const VERBAL_AUXILIARIES: &[&str] = &["do", "does", "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must"];
pub(super) const MODALS: &[&str] = &["can", "will", "shall", "may", "might", "must"];
/// Verbs that, followed by "to", act as modals ("need to", "have to", "want
/// to", "ought to", "able to"): the semi-modals of English grammar.
pub(super) const SEMI_MODALS: &[&str] = &["need", "needs", "needed", "have", "has", "had", "want", "wants", "wanted", "ought", "able", "going", "got", "like"];
/// Indefinite pronouns: they stand for whatever the answer is, not a topic.
pub(super) const INDEFINITE_PRONOUNS: &[&str] = &[
    "something", "anything", "everything", "someone", "anyone", "everyone", "somebody", "anybody", "everybody",
    "somewhere", "anywhere", "everywhere",
];
/// English's plurals not made with "-s".
const IRREGULAR_PLURALS: &[&str] = &["people", "children", "men", "women", "feet", "teeth", "mice", "geese"];

/// A plural noun's form: "-s" (not "-ss", "-us", "-is": "class", "bus", "basis") or an irregular plural.
pub(super) fn is_plural(word: &str) -> bool {
    IRREGULAR_PLURALS.contains(&word) || (word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is"))
}

/// Conjunctions that open a subordinate clause: what follows conditions or
/// explains the question, it does not hold its predicate.
pub(super) const SUBORDINATORS: &[&str] = &["if", "unless", "because", "although", "though", "whether", "while", "whereas", "once"];
/// Conjunctions that open a clause of time, which conditions a yes/no
/// question as "if" does ("Do I get money back *when* …?").
pub(super) const TEMPORAL_SUBORDINATORS: &[&str] = &["when", "whenever", "after", "before", "until"];
/// Request frames addressed to the system ("tell me", "do you know", "let me
/// know"): the verb is the asking, not the topic.
pub(super) const REQUEST_VERBS: &[&str] = &["tell", "know", "wonder", "please", "explain", "let"];
pub(super) const WH_WORDS: &[&str] = &["who", "whom", "whose", "what", "which", "when", "where", "why", "how"];

/// Words that ask for a price (English's verbs and nouns of paying).
pub(super) const PRICE_WORDS: &[&str] = &[
    "cost", "costs", "costing", "price", "prices", "priced", "pricing", "fee", "fees", "charge", "charges", "charged",
    "pay", "pays", "paid", "paying", "spend", "spent",
];
/// The terms of the price words, whichever inflection a clause uses.
pub(super) static PRICE_TERMS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| PRICE_WORDS.iter().chain(MONEY_NOUNS).chain(&["free"]).flat_map(|w| text::terms(w)).collect());

/// Type nouns after "what"/"which" that name the kind of the answer.
pub(super) const TIME_NOUNS: &[&str] = &["time", "times", "hour", "hours", "date", "dates", "day", "days", "month", "months", "decade", "century", "season", "era", "period", "weekday"];
pub(super) const PLACE_NOUNS: &[&str] = &[
    "city", "country", "state", "county", "town", "village", "province", "region", "continent", "place", "location",
    "island", "neighborhood", "neighbourhood", "borough", "district", "street", "area", "venue", "address", "floor", "room",
];
pub(super) const NUMBER_NOUNS: &[&str] = &["number", "amount", "size", "height", "population", "weight", "capacity", "speed", "age", "score", "total", "count", "quantity"];
pub(super) const LENGTH_NOUNS: &[&str] = &["length", "distance", "duration"];
pub(super) const PERCENT_NOUNS: &[&str] = &["percentage", "percent", "proportion", "share"];
pub(super) const MONEY_NOUNS: &[&str] = &["price", "cost", "fee", "fees", "charge", "rent", "salary", "budget"];

/// Prepositions of place: a place follows them ("in Delhi", "at the front desk").
pub(super) const LOCATIVES: &[&str] = &[
    "in", "at", "on", "near", "inside", "outside", "beside", "behind", "under", "above", "below", "within", "from",
    "into", "across", "along", "between", "next", "opposite", "throughout", "around", "beneath", "upstairs",
    "downstairs",
];
/// Words that place a statement in time.
pub(super) const TIME_WORDS: &[&str] = &[
    "today", "tomorrow", "yesterday", "tonight", "daily", "weekly", "monthly", "annually", "yearly", "immediately",
    "noon", "midnight", "morning", "afternoon", "evening", "night", "weekend", "weekends", "weekday", "weekdays",
    "spring", "summer", "autumn", "winter", "century", "decade", "instantly", "now", "later", "right away", "straight away",
    "at once",
];
/// Words that place a fact in time by another event ("*after* the package
/// is unpacked", "*until* the grace period ends", "*at the end of* the
/// month"): followed by what the question did not say, they answer "when".
pub(super) const TEMPORAL_MARKERS: &[&str] = &[
    "before", "after", "until", "till", "during", "when", "whenever", "since", "upon", "within", "end", "start", "beginning",
];
/// Words that state how often.
pub(super) const FREQUENCY_WORDS: &[&str] = &[
    "every", "each", "daily", "weekly", "monthly", "yearly", "annually", "hourly", "once", "twice", "times", "per",
    "always", "never",
];
/// Wording that means something costs nothing.
pub(super) const FREE_PHRASES: &[&str] = &["free", "no charge", "no cost", "without charge", "not charged", "no fee", "no extra charge", "at no cost"];
/// Words that state a cause or purpose.
pub(super) const REASON_WORDS: &[&str] = &["because", "since", "due", "owing", "result", "so that", "in order", "reason", "caused", "therefore", "thus", "hence"];

/// Lowercase words of a text (apostrophes kept, other punctuation dropped; a
/// wh-word's contracted "is" written out: "what's" is "what is").
pub(super) fn lower_words(text: &str) -> Vec<String> {
    text::lower_words(text)
        .into_iter()
        .flat_map(|w| match w.strip_suffix("'s").filter(|base| WH_WORDS.contains(base)) {
            Some(base) => vec![base.to_string(), "is".to_string()],
            None => vec![w],
        })
        .collect()
}

/// Conjunctions that may open the clause that asks ("…, so can my friend stay?").
pub(super) const CONJUNCTIONS: &[&str] = &["so", "and", "but", "then", "or"];


/// The personal pronouns that can stand as the subject who does something.
pub(super) const PERSONAL_PRONOUNS: &[&str] = &["i", "you", "we", "he", "she", "they", "someone", "everyone", "nobody", "no one"];

/// Prepositions that open a phrase trailing the predicate ("cost per month",
/// "produced by X at Y"): the stop list's prepositions and a few more.
pub(super) const PREPOSITIONS: &[&str] = &[
    "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before", "after",
    "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "per", "within",
    "without", "since", "until", "via", "near", "across", "along", "around", "among",
];
