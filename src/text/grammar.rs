//! The closed word classes of English grammar that more than one stage
//! reads: auxiliaries and modals, light verbs, and the words that are never
//! the topic of a statement or a question (pronouns, general nouns,
//! adverbs of time, degree and focus the stop list leaves out).

/// Auxiliary and modal verbs: a question opening with one asks yes or no.
/// Modals express the question's mood, not its topic, so they are not focus.
pub const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "am", "be", "been", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must",
];
/// Subordinators that open a condition: the clause they open names a case
/// ("if it is listed", "unless it is listed", "until it is purged").
pub const CONDITIONALS: &[&str] = &["if", "unless", "until", "whenever"];
/// Connectives that open a conclusion drawn from what was said before
/// ("…, *so* the cheapest option is Starter"): the clause infers, it does
/// not restate.
pub const CONSEQUENCES: &[&str] = &["so", "therefore", "thus", "hence", "consequently"];
/// Light (delexical) verbs: in "get a discount", "give notice", "take effect",
/// "goes off" the meaning sits in the noun or particle, not the verb.
pub const LIGHT_VERBS: &[&str] = &[
    "get", "gets", "got", "getting", "gotten", "give", "gives", "gave", "given", "giving", "take", "takes", "took",
    "taken", "taking", "make", "makes", "made", "making", "go", "goes", "went", "gone", "going",
];
/// Causative verbs that take "to": in "arrange for them to be rotated",
/// "cause the file to be removed" the verb says that the
/// relation is brought about; the relation is its complement's verb.
pub const CAUSATIVE_VERBS: &[&str] = &["arrange", "arranges", "cause", "causes", "enable", "enables", "force", "forces"];
/// Adjectives that pick out or compare members of a kind without naming a
/// kind of their own: "any *particular* mail agent" is any mail agent, "a
/// *matching* file" any file that matches.
pub const GENERIC_ADJECTIVES: &[&str] = &[
    "particular", "specific", "certain", "given", "individual", "respective", "various", "matching", "corresponding", "whole",
    "entire", "same", "other", "different", "actual",
];

/// True for a word that names no kind of its own (see [`GENERIC_ADJECTIVES`]).
pub fn is_generic_adjective(word: &str) -> bool {
    GENERIC_ADJECTIVES.contains(&word.to_lowercase().as_str())
}

/// Words a question may use that are never the head of what it asks, though
/// they stay among its terms (a corpus that uses them is searched for them):
/// the negative pronouns ("items *nobody* claims" is about the items) and
/// "ones" ("setgid *ones*"), the
/// general nouns, which stand for whatever the answer names ("what happens
/// to my *things*"), and the adverbs of time, degree and focus the stop
/// list leaves out ("*just* to keep track", "*straight away*", "*already*
/// sent"), and "whose", the one relative pronoun it leaves out (it has
/// "who", "whom", "which").
pub const PERIPHERAL: &[&str] = &[
    "nobody", "nothing", "nowhere", "ones", "thing", "things", "stuff", "whose",
    "just", "also", "even", "still", "already", "yet", "now", "soon", "later", "again", "instead", "ever", "away",
    "straight", "really", "quite", "rather", "almost", "maybe", "perhaps", "anyway", "else", "actually", "simply",
    "right", "back", "together", "meanwhile", "otherwise",
];

/// True for a word that is never the head of what a question asks (see [`PERIPHERAL`]).
pub fn is_peripheral(word: &str) -> bool {
    PERIPHERAL.contains(&word)
}
/// A word that says how a statement holds, not what it is about: an
/// auxiliary or modal, a light verb, or one of [`PERIPHERAL`].
pub fn is_function_word(word: &str) -> bool {
    AUXILIARIES.contains(&word) || LIGHT_VERBS.contains(&word) || is_peripheral(word)
}
