//! What a question asks, read by the grammar of English questions: the kind
//! of fact its answer must state (a person, a place, a time, an amount, …),
//! the words that make it specific (its focus, without the wh-phrase), the
//! names it is about, and the alternatives it offers ("X or Y?").
//!
//! Then whether an answer answers it: a supported sentence is not an answer
//! when it names another subject, states no fact of the asked kind, or states
//! one in a clause about something else ("asked when the team was founded, it
//! quoted the driver's birth date").

use crate::stages::evidence::Focus;
use crate::text::{self, names, Quantity, Unit};
use crate::corpus::vocabulary::Vocabulary;

/// The share of the question's weight that the core sentence of an answer
/// must cover by itself (see [`Ask::answers`]).
pub const CORE_COVERAGE: f64 = 0.5;

/// The kind of fact an answer must state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// who, whom, whose: a person or an organisation (a name, or "by" someone).
    Person,
    /// where, in what city: a place (a name or a place after a preposition of place).
    Place,
    /// when, what time, what day: a date, a year, a day or a clock time.
    Time,
    /// what year: a year.
    Year,
    /// how soon, how quickly: a time, or how long until it ("within 72 hours").
    Soon,
    /// how much does it cost, what is the price: an amount of money, or free.
    Money,
    /// how many, how much (not money), how big: a number.
    Number,
    /// how long: a duration or a length.
    Duration,
    /// how far: a length, or a duration ("how far ahead").
    Distance,
    /// how often: a frequency.
    Frequency,
    /// what percentage: a percentage.
    Percent,
    /// which X, what X: something new (a name, or the type noun with new words).
    Entity,
    /// why: a reason.
    Reason,
    /// is, does, can … ?: a statement that affirms or denies the asked relation.
    YesNo,
    /// what happens, how do I …: no particular kind of fact.
    Open,
}

impl Kind {
    /// The kind in words, for a refusal's detail.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Person => "a person or organisation",
            Kind::Place => "a place",
            Kind::Time => "a time or date",
            Kind::Year => "a year",
            Kind::Soon => "a time or how long until it",
            Kind::Money => "an amount of money",
            Kind::Number => "a number",
            Kind::Duration => "a duration or length",
            Kind::Distance => "a distance",
            Kind::Frequency => "how often",
            Kind::Percent => "a percentage",
            Kind::Entity => "the thing asked for",
            Kind::Reason => "a reason",
            Kind::YesNo => "a statement about the question",
            Kind::Open => "an answer",
        }
    }
}

/// The parts of a question the gates read.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    pub kind: Kind,
    /// The answer's type noun named in the question ("system" in "which
    /// booking system"), as a term.
    pub type_noun: Option<String>,
    /// Topic terms with the words the question wrote, after the corpus's
    /// synonyms and without the wh-phrase ("how long", "what year").
    pub focus: Vec<(String, String)>,
    /// Names the question is about (not its alternatives).
    pub names: Vec<String>,
    /// "X or Y?": the answer must name exactly one.
    pub options: Vec<String>,
    /// Numbers the question states: an answer that only repeats them states nothing new.
    pub quantities: Vec<Quantity>,
    /// Names the question joins with "and" ("are X and Y both …?"): each is
    /// a question of its own, and needs a core sentence of its own.
    pub conjuncts: Vec<String>,
    /// The names the core sentence of an answer must name itself (see
    /// [`Ask::answers`]): every name, for a question without a kind; the names
    /// of its subject, for one that asks for a fact of a kind.
    pub core_names: Vec<String>,
    /// The price terms the question asks with ("cost", "fee", "pay"): an
    /// amount of money answers it only in a clause that names the price too
    /// ("costs $450", not "insurance cover of $1,000,000").
    pub price_terms: Vec<String>,
    /// The terms that may be the question's predicate: the relation whose
    /// fact is asked ("born" in "what year was X born?", "attend" in "what
    /// college did X attend?"). The fact must sit in a clause with one.
    pub predicate: Vec<String>,
    /// The head of the asked relation, as a phrase: the run of content words
    /// around each predicate word ("the *gym add-on*"), or, in a yes/no
    /// question, the run after the auxiliary ("is there a *late fee* …",
    /// "can I *bring* …").
    pub head: Vec<String>,
}

/// Auxiliary and modal verbs: a question opening with one asks yes or no.
/// Modals express the question's mood, not its topic, so they are not focus.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "am", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must",
];
const MODALS: &[&str] = &["can", "will", "shall", "may", "might", "must"];
/// Verbs that, followed by "to", act as modals ("need to", "have to", "want
/// to", "ought to", "able to"): the semi-modals of English grammar.
const SEMI_MODALS: &[&str] = &["need", "needs", "needed", "have", "has", "had", "want", "wants", "wanted", "ought", "able", "going", "got", "like"];
/// Light (delexical) verbs: in "get a discount", "give notice", "take effect",
/// "goes off" the meaning sits in the noun or particle, not the verb.
const LIGHT_VERBS: &[&str] = &[
    "get", "gets", "got", "getting", "gotten", "give", "gives", "gave", "given", "giving", "take", "takes", "took",
    "taken", "taking", "make", "makes", "made", "making", "go", "goes", "went", "gone", "going",
];
/// Indefinite pronouns: they stand for whatever the answer is, not a topic.
/// The negative ones ("nobody", "nothing") stay: they carry the question's sense.
const INDEFINITE_PRONOUNS: &[&str] = &[
    "something", "anything", "everything", "someone", "anyone", "everyone", "somebody", "anybody", "everybody",
    "somewhere", "anywhere", "everywhere",
];
/// Request frames addressed to the system ("tell me", "do you know", "let me
/// know"): the verb is the asking, not the topic.
const REQUEST_VERBS: &[&str] = &["tell", "know", "wonder", "please", "explain", "let"];
const WH_WORDS: &[&str] = &["who", "whom", "whose", "what", "which", "when", "where", "why", "how"];

/// Words that ask for a price (English's verbs and nouns of paying).
const PRICE_WORDS: &[&str] = &[
    "cost", "costs", "costing", "price", "prices", "priced", "pricing", "fee", "fees", "charge", "charges", "charged",
    "pay", "pays", "paid", "paying", "spend", "spent",
];
/// The terms of the price words, whichever inflection a clause uses.
static PRICE_TERMS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| PRICE_WORDS.iter().chain(MONEY_NOUNS).chain(&["free"]).flat_map(|w| text::terms(w)).collect());

/// Type nouns after "what"/"which" that name the kind of the answer.
const TIME_NOUNS: &[&str] = &["time", "times", "hour", "hours", "date", "dates", "day", "days", "month", "months", "decade", "century", "season", "era", "period", "weekday"];
const PLACE_NOUNS: &[&str] = &[
    "city", "country", "state", "county", "town", "village", "province", "region", "continent", "place", "location",
    "island", "neighborhood", "neighbourhood", "borough", "district", "street", "area", "venue", "address", "floor", "room",
];
const NUMBER_NOUNS: &[&str] = &["number", "amount", "size", "height", "population", "weight", "capacity", "speed", "age", "score", "total", "count", "quantity"];
const LENGTH_NOUNS: &[&str] = &["length", "distance", "duration"];
const PERCENT_NOUNS: &[&str] = &["percentage", "percent", "proportion", "share"];
const MONEY_NOUNS: &[&str] = &["price", "cost", "fee", "fees", "charge", "rent", "salary", "budget"];

/// Prepositions of place: a place follows them ("in Delhi", "at the front desk").
const LOCATIVES: &[&str] = &[
    "in", "at", "on", "near", "inside", "outside", "beside", "behind", "under", "above", "below", "within", "from",
    "into", "across", "along", "between", "next", "opposite", "throughout", "around", "beneath", "upstairs",
    "downstairs",
];
/// Words that place a statement in time.
const TIME_WORDS: &[&str] = &[
    "today", "tomorrow", "yesterday", "tonight", "daily", "weekly", "monthly", "annually", "yearly", "immediately",
    "noon", "midnight", "morning", "afternoon", "evening", "night", "weekend", "weekends", "weekday", "weekdays",
    "spring", "summer", "autumn", "winter", "century", "decade",
];
/// Words that state how often.
const FREQUENCY_WORDS: &[&str] = &[
    "every", "each", "daily", "weekly", "monthly", "yearly", "annually", "hourly", "once", "twice", "times", "per",
    "always", "never",
];
/// Wording that means something costs nothing.
const FREE_PHRASES: &[&str] = &["free", "no charge", "no cost", "without charge", "not charged", "no fee", "no extra charge", "at no cost"];
/// Words that state a cause or purpose.
const REASON_WORDS: &[&str] = &["because", "since", "due", "owing", "result", "so that", "in order", "reason", "caused", "therefore", "thus", "hence"];
/// Words that point to another part of the documents instead of stating a fact.
const POINTER_CUES: &[&str] = &["see", "refer", "described in", "set out in", "defined in", "listed in", "specified in", "according to"];
const POINTER_TARGETS: &[&str] = &["section", "sections", "article", "articles", "annex", "appendix", "chapter", "part", "clause", "schedule", "paragraph", "page"];

/// Lowercase words of a text (apostrophes kept, other punctuation dropped; a
/// wh-word's contracted "is" written out: "what's" is "what is").
fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
        .flat_map(|w| match w.strip_suffix("'s").filter(|base| WH_WORDS.contains(base)) {
            Some(base) => vec![base.to_string(), "is".to_string()],
            None => vec![w],
        })
        .collect()
}

/// Conjunctions that may open the clause that asks ("…, so can my friend stay?").
const CONJUNCTIONS: &[&str] = &["so", "and", "but", "then", "or"];

impl Ask {
    /// Reads a question, with the corpus's synonyms.
    pub fn parse(question: &str, vocabulary: &Vocabulary) -> Ask {
        // The grammar is read in the clause that asks; the terms come from all of it.
        let asked = asking_clause(question);
        let words = lower_words(asked);
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        let (mut kind, consumed) = read_wh(&words);
        if matches!(kind, Kind::Open | Kind::Entity) && has(PRICE_WORDS) && !asks_what_happens(&words) && !starts_yes_no(&words) {
            kind = Kind::Money;
        }
        let mut consumed_terms: Vec<String> = consumed.iter().flat_map(|w| text::terms(w)).collect();
        consumed_terms.extend(frame_words(&words).iter().flat_map(|w| text::terms(w)));
        if kind == Kind::Money {
            // The asked amount stands for the price words ("cost", "pay").
            consumed_terms.extend(PRICE_WORDS.iter().flat_map(|w| text::terms(w)));
        }
        let type_noun = consumed.last().filter(|_| kind == Kind::Entity).and_then(|w| text::terms(w).pop());
        let focus = vocabulary
            .question_terms(question)
            .into_iter()
            .filter(|(term, _)| !consumed_terms.contains(term))
            .collect();
        let all_names = names(question);
        let name_terms: Vec<String> = all_names.iter().flat_map(|n| text::terms(n)).collect();
        let options = options(question, &all_names);
        let names: Vec<String> = all_names.iter().filter(|n| !options.contains(n)).cloned().collect();
        let core_names = match kind {
            Kind::Open | Kind::YesNo => names.clone(),
            _ => subject_names(asked, &words, &names),
        };
        // For an amount of money, the subject is the predicate: "what does the Scale plan cost" is about the plan.
        let skip: &[&str] = if kind == Kind::Money { PRICE_WORDS } else { &[] };
        let conjuncts = conjuncts(question, &names);
        let predicate = predicate(&words, &consumed, &name_terms, skip);
        let head = head_phrase(&words, &predicate, kind == Kind::YesNo);
        Ask {
            kind,
            type_noun,
            focus,
            conjuncts,
            names,
            options,
            quantities: text::quantities(question),
            price_terms: match kind {
                Kind::Money => words.iter().filter(|w| PRICE_WORDS.contains(&w.as_str())).flat_map(|w| text::terms(w)).collect(),
                _ => Vec::new(),
            },
            core_names,
            predicate,
            head,
        }
    }

    /// The question's core: the terms of its names and alternatives, the head
    /// of the asked relation (its predicate; in a yes/no question, the first
    /// word after the auxiliary and its subject pronoun: "can I *bring* …",
    /// "is there *wifi*"), and its negative words ("what happens to items
    /// *nobody* claims": they carry its sense). A question that asks for no
    /// kind of fact ("what happens to my stuff …") is all core: its words are
    /// all it asks. A word of the core that the corpus never uses refuses on
    /// its own; any other unknown word only frames the question (see
    /// [`Focus::framed`]).
    pub fn core_terms(&self) -> Vec<String> {
        if self.kind == Kind::Open {
            return self.focus.iter().map(|(t, _)| t.clone()).collect();
        }
        let negative = self.focus.iter().filter(|(_, word)| text::negations(word) > 0).map(|(t, _)| t.clone());
        self.names.iter().chain(&self.options).flat_map(|n| text::terms(n)).chain(self.head.iter().cloned()).chain(negative).collect()
    }

    /// The focus terms that are not part of a name: the relation asked about
    /// ("founded" in "when was Team X founded").
    pub fn relation_terms(&self) -> Vec<&str> {
        let name_terms: Vec<String> = self.names.iter().chain(&self.options).flat_map(|n| text::terms(n)).collect();
        self.focus.iter().map(|(t, _)| t.as_str()).filter(|t| !name_terms.iter().any(|n| n == t) && !text::is_numeric(t)).collect()
    }

    /// Whether `answer` answers this question. It names every name the
    /// question names and exactly one of its alternatives, if it offers some;
    /// it does not only point elsewhere; and one sentence of it (with the
    /// sentence before, when it opens with a pronoun) is the core of the
    /// answer: it covers at least [`CORE_COVERAGE`] of the question's weight,
    /// answers any number the question states with a number of the same kind,
    /// and states a fact of the asked kind in a clause about the question.
    ///
    /// The core names the question's subject: a question that asks for a fact
    /// of a kind (who, when, how much …) may be answered in two steps, the core
    /// stating the fact about something another sentence of the answer ties to
    /// the question's other names ("the film X stars Y. Y served as Z"); but
    /// the names of its subject ("the Scale plan" in "what does the Scale plan
    /// cost?") must be in the core. A question without a kind ("what does X
    /// include?", "is X …?") is answered in one step: its core names every
    /// name. Further sentences may add to the core; they cannot stand in for it.
    pub fn answers(&self, focus: &Focus, answer: &str) -> Result<(), Miss> {
        let terms = text::terms(answer);
        let missing: Vec<String> = self.names.iter().filter(|n| !names::mentions(&terms, n)).cloned().collect();
        if !missing.is_empty() {
            return Err(Miss::Names(missing));
        }
        if !self.options.is_empty() && self.options.iter().filter(|o| names::mentions(&terms, o)).count() != 1 {
            return Err(Miss::Options(self.options.clone()));
        }
        let sentences = text::sentences(answer);
        if !sentences.is_empty() && sentences.iter().all(|s| is_pointer(s)) {
            return Err(Miss::Pointer);
        }
        let units = units(&sentences);
        // "Are X and Y both …?" is two questions: each conjunct needs its own core.
        let parts: Vec<Option<&String>> = if self.conjuncts.is_empty() { vec![None] } else { self.conjuncts.iter().map(Some).collect() };
        for part in parts {
            let mut nearest: Option<(f64, Miss)> = None;
            let mut found = false;
            for unit in &units {
                match self.core_miss(focus, unit, part) {
                    None => {
                        found = true;
                        break;
                    }
                    Some(miss) => {
                        let coverage = focus.coverage(&text::terms(unit));
                        if nearest.as_ref().is_none_or(|(best, _)| coverage > *best) {
                            nearest = Some((coverage, miss));
                        }
                    }
                }
            }
            if !found {
                return Err(nearest.map_or(Miss::Kind(self.kind), |(_, miss)| miss));
            }
        }
        Ok(())
    }

    /// Whether a model's answer, in its own words, answers this question: the
    /// deterministic reading of [`Ask::answers`] where it is strong, and no
    /// more. The question's names are in the answer or in the passages its
    /// verified claims cite (`cited`); it picks one alternative; it does not
    /// only point elsewhere; it answers the question's numbers with numbers
    /// of their kind; a sentence of it states the asked kind of fact (read
    /// generously: a role or pronoun answers "who", a value answers "which …
    /// value"); and no sentence is about another subject. Whether its words
    /// cover the question is the judge's call, not a word count's.
    pub fn answers_in_own_words(&self, focus: &Focus, answer: &str, cited: &str) -> Result<(), Miss> {
        let terms = text::terms(&format!("{answer}\n{cited}"));
        let missing: Vec<String> = self.names.iter().filter(|n| !names::mentions(&terms, n)).cloned().collect();
        if !missing.is_empty() {
            return Err(Miss::Names(missing));
        }
        let answer_terms = text::terms(answer);
        if !self.options.is_empty() && self.options.iter().filter(|o| names::mentions(&answer_terms, o)).count() != 1 {
            return Err(Miss::Options(self.options.clone()));
        }
        let sentences = text::sentences(answer);
        if !sentences.is_empty() && sentences.iter().all(|s| is_pointer(s)) {
            return Err(Miss::Pointer);
        }
        if let Some(other) = self.other_subject(&sentences) {
            return Err(Miss::OtherSubject(other));
        }
        // The question's numbers are the answer's, or its evidence's ("the parts of two version numbers").
        let stated = text::quantities(&format!("{answer}\n{cited}"));
        let unanswered: Vec<String> = self
            .quantities
            .iter()
            .filter(|asked| !stated.iter().any(|s| s.unit == asked.unit || (asked.unit == Unit::Plain && s.unit == Unit::Plain)))
            .map(|q| q.written.clone())
            .collect();
        if !unanswered.is_empty() && !matches!(self.kind, Kind::YesNo) {
            return Err(Miss::Quantities(unanswered));
        }
        // A sentence is about the question when it shares a word or a name with
        // it, or opens the answer with a pronoun, which then points to the
        // question's subject ("It is $450 a month.").
        let about = |unit: &str| {
            let unit_terms = text::terms(unit);
            focus.terms.iter().any(|t| unit_terms.contains(&t.term))
                || self.core_names.iter().any(|n| names::mentions(&unit_terms, n))
                || (sentences.first() == Some(&unit) && opens_with_back_reference(unit))
        };
        let states = units(&sentences).iter().any(|unit| {
            let sentence_names = names(unit);
            (matches!(self.kind, Kind::YesNo | Kind::Open) || about(unit))
                && text::clauses_of(unit).into_iter().filter(|c| !opens_pointer(c)).any(|clause| {
                    let clause_terms = text::terms(clause);
                    self.clause_states(clause, &clause_terms, &sentence_names) || self.generously_states(clause)
                })
        });
        if !states {
            return Err(Miss::Kind(self.kind));
        }
        Ok(())
    }

    /// The readings of the asked kind that a model's own words need: a
    /// person is also a pronoun or a role in the subject's place ("You do",
    /// "the member pays"); the thing asked for is also a value the question
    /// did not state (an identifier, a quoted or code word, a number).
    fn generously_states(&self, clause: &str) -> bool {
        let words = lower_words(clause);
        let new_term = |w: &String| text::terms(w).iter().any(|t| !text::is_numeric(t) && !self.focus.iter().any(|(f, _)| f == t));
        match self.kind {
            Kind::Person => {
                let opening: Vec<&String> = words.iter().take(4).collect();
                opening.iter().any(|w| PERSONAL_PRONOUNS.contains(&w.as_str())) || opening.iter().any(|w| new_term(w))
            }
            Kind::Entity => {
                let value = |w: &str| w.contains(['_', '/', '.', '`', '"', '\'']) || w.chars().any(|c| c.is_ascii_digit()) || w.contains('-');
                clause.split_whitespace().any(|w| value(w.trim_end_matches([',', '.', ';', ':']))) || words.iter().any(new_term)
            }
            _ => false,
        }
    }

    /// A sentence that names something the question does not, and none of
    /// the question's names, when the question names something: it speaks
    /// of another plan, room or person than the one asked about.
    fn other_subject(&self, sentences: &[&str]) -> Option<String> {
        if self.core_names.is_empty() {
            return None;
        }
        let asked: Vec<String> = self.names.iter().chain(&self.options).flat_map(|n| text::terms(n)).collect();
        sentences.iter().find_map(|sentence| {
            let terms = text::terms(sentence);
            if self.names.iter().any(|n| names::mentions(&terms, n)) {
                return None;
            }
            names(sentence).into_iter().find(|n| text::terms(n).iter().all(|t| !asked.contains(t)))
        })
    }

    /// True when `unit` (a sentence, with its antecedent) could be the core of
    /// an answer (for one of the question's conjuncts, if it joins some).
    pub fn is_core(&self, focus: &Focus, unit: &str) -> bool {
        match self.conjuncts.is_empty() {
            true => self.core_miss(focus, unit, None).is_none(),
            false => self.conjuncts.iter().any(|c| self.core_miss(focus, unit, Some(c)).is_none()),
        }
    }

    /// Why one sentence (with its antecedent) is not the core of an answer,
    /// for the question as a whole or for one of its conjuncts (the other
    /// conjuncts are then neither required nor counted as missing).
    fn core_miss(&self, focus: &Focus, unit: &str, conjunct: Option<&String>) -> Option<Miss> {
        let mut terms = text::terms(unit);
        let excused: Vec<&String> = self.conjuncts.iter().filter(|c| conjunct.is_some_and(|own| own != *c)).collect();
        let missing: Vec<String> =
            self.core_names.iter().filter(|n| !excused.contains(n) && !names::mentions(&terms, n)).cloned().collect();
        if !missing.is_empty() {
            return Some(Miss::Names(missing));
        }
        if is_pointer(unit) {
            return Some(Miss::Pointer);
        }
        terms.extend(excused.iter().flat_map(|c| text::terms(c)));
        if focus.coverage(&terms) < CORE_COVERAGE {
            return Some(Miss::Scattered);
        }
        // "Are X and Y both Z?" asks Z of each: a conjunct's sentence that
        // names it without saying Z affirms nothing about it.
        if conjunct.is_some() && self.kind == Kind::YesNo && !self.relation_terms().iter().all(|r| terms.iter().any(|t| t == r)) {
            return Some(Miss::Kind(self.kind));
        }
        let stated = text::quantities(unit);
        let unanswered: Vec<String> = self
            .quantities
            .iter()
            .filter(|asked| !stated.iter().any(|s| s.unit == asked.unit || (asked.unit == Unit::Plain && s.unit == Unit::Plain)))
            .map(|q| q.written.clone())
            .collect();
        if !unanswered.is_empty() {
            return Some(Miss::Quantities(unanswered));
        }
        (!self.states_kind(unit)).then_some(Miss::Kind(self.kind))
    }

    /// A clause of the answer states a fact of the asked kind, and that clause
    /// is about the question: it holds the question's predicate; failing one,
    /// a name of its subject, whole ("Dedicated Desk" is not "Flex Desk");
    /// failing that, a term of the relation asked about.
    pub fn states_kind(&self, answer: &str) -> bool {
        if matches!(self.kind, Kind::Open | Kind::YesNo) {
            return true;
        }
        let relation = self.relation_terms();
        text::sentences(answer).into_iter().filter(|s| !is_pointer(s)).any(|sentence| {
            let sentence_names = names(sentence);
            text::clauses(sentence).into_iter().filter(|c| !opens_pointer(c)).any(|clause| {
                let clause_terms = text::terms(clause);
                let priced = self.price_terms.is_empty() || clause_terms.iter().any(|t| PRICE_TERMS.iter().any(|p| p == t));
                let about = priced && if !self.predicate.is_empty() {
                    self.predicate.iter().any(|p| clause_terms.contains(p))
                } else if !self.core_names.is_empty() {
                    self.core_names.iter().any(|n| names::mentions(&clause_terms, n))
                } else {
                    relation.is_empty() || relation.iter().any(|a| clause_terms.iter().any(|t| t == a))
                };
                about && self.clause_states(clause, &clause_terms, &sentence_names)
            })
        })
    }

    fn clause_states(&self, clause: &str, clause_terms: &[String], sentence_names: &[String]) -> bool {
        let new_quantities: Vec<Quantity> =
            text::quantities(clause).into_iter().filter(|q| !self.quantities.iter().any(|asked| asked.agrees_with(q))).collect();
        let lower = format!(" {} ", lower_words(clause).join(" "));
        let has_phrase = |list: &[&str]| list.iter().any(|p| lower.contains(&format!(" {p} ")));
        let new_name = || sentence_names.iter().any(|n| clause.contains(n.as_str()) && self.is_new(n));
        let new_term = |t: &String| !text::is_numeric(t) && !self.focus.iter().any(|(f, _)| f == t);
        match self.kind {
            Kind::Person => new_name() || self.after(&lower_words(clause), &["by"], new_term),
            Kind::Place => self.after(&lower_words(clause), LOCATIVES, new_term) || (new_name() && has_phrase(LOCATIVES)),
            Kind::Time => new_quantities.iter().any(is_point_in_time) || has_phrase(TIME_WORDS),
            Kind::Soon => new_quantities.iter().any(|q| is_point_in_time(q) || q.unit.is_duration()) || has_phrase(TIME_WORDS),
            Kind::Year => new_quantities.iter().any(Quantity::is_year),
            Kind::Money => new_quantities.iter().any(|q| matches!(q.unit, Unit::Money(_))) || has_phrase(FREE_PHRASES),
            Kind::Number => new_quantities.iter().any(|q| !matches!(q.unit, Unit::Weekday | Unit::Month | Unit::Clock | Unit::Ordinal)),
            Kind::Duration => new_quantities.iter().any(|q| q.unit.is_duration() || q.unit.is_length()),
            Kind::Distance => new_quantities.iter().any(|q| q.unit.is_length() || q.unit.is_duration()),
            Kind::Frequency => has_phrase(FREQUENCY_WORDS),
            Kind::Percent => new_quantities.iter().any(|q| q.unit == Unit::Percent),
            Kind::Entity => {
                new_name() || self.type_noun.as_ref().is_some_and(|noun| clause_terms.contains(noun) && clause_terms.iter().any(new_term))
            }
            Kind::Reason => has_phrase(REASON_WORDS),
            Kind::YesNo | Kind::Open => true,
        }
    }

    /// A name the question did not already state.
    fn is_new(&self, name: &str) -> bool {
        let focus: Vec<String> = self.focus.iter().map(|(t, _)| t.clone()).collect();
        !names::mentions(&focus, name)
    }

    /// Some word of `after` is followed, within three words, by a word whose term is new.
    fn after(&self, words: &[String], after: &[&str], new_term: impl Fn(&String) -> bool) -> bool {
        words.iter().enumerate().any(|(i, w)| {
            after.contains(&w.as_str()) && words[i + 1..].iter().take(3).flat_map(|w| text::terms(w)).any(|t| new_term(&t))
        })
    }
}

/// Why an answer does not answer the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// It does not name what the question is about.
    Names(Vec<String>),
    /// No one sentence of it is about the question: its parts are about other things.
    Scattered,
    /// It does not answer the numbers the question states (a time, an amount).
    Quantities(Vec<String>),
    /// It names none, or more than one, of the question's alternatives.
    Options(Vec<String>),
    /// It only points to another part of the documents.
    Pointer,
    /// It states no fact of the asked kind about the question.
    Kind(Kind),
    /// A sentence of it is about another subject: it names something the
    /// question does not, and none of the question's names.
    OtherSubject(String),
    /// The judge read it as answering part of the question, or another one.
    Judge { partly: bool, missing: Vec<String> },
}

impl Miss {
    /// The refusal's detail.
    pub fn describe(&self) -> String {
        match self {
            Miss::Names(names) => format!("the answer is about something else: it does not name {}", names.join(", ")),
            Miss::Scattered => "no sentence of the answer is about the question; its parts are about other things".into(),
            Miss::Quantities(asked) => format!("the question states {}, and the answer says nothing of the kind", asked.join(", ")),
            Miss::Options(options) => format!("the answer does not pick one of {}", options.join(" or ")),
            Miss::Pointer => "the answer only refers to another part of the documents".into(),
            Miss::Kind(kind) => format!("the question asks for {}, and the answer states none about it", kind.describe()),
            Miss::OtherSubject(name) => format!("the answer speaks of {name}, another subject than the question's"),
            Miss::Judge { partly, missing } => {
                let what = if *partly { "answers only part of the question" } else { "does not answer the question" };
                match missing.is_empty() {
                    true => format!("the judge says the answer {what}"),
                    false => format!("the judge says the answer {what}; it leaves out: {}", missing.join("; ")),
                }
            }
        }
    }
}

/// A clock time, a day, a month, a year, or a date ("the 5th").
fn is_point_in_time(q: &Quantity) -> bool {
    matches!(q.unit, Unit::Clock | Unit::Weekday | Unit::Month)
        || q.is_year()
        || (q.unit == Unit::Ordinal && q.written.starts_with(|c: char| c.is_ascii_digit()))
}

/// The personal pronouns that can stand as the subject who does something.
const PERSONAL_PRONOUNS: &[&str] = &["i", "you", "we", "he", "she", "they", "someone", "everyone", "nobody", "no one"];

/// Words that open a sentence by pointing back to the one before ("She is
/// also …", "It opens …"): the personal and demonstrative pronouns of the stop list.
pub const BACK_REFERENCES: &[&str] = &["he", "she", "it", "they", "his", "her", "its", "their", "this", "these", "those", "him", "them"];

/// True when a sentence opens with a pronoun that points to the sentence before.
pub fn opens_with_back_reference(sentence: &str) -> bool {
    let first = sentence.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).unwrap_or("");
    BACK_REFERENCES.contains(&first.to_lowercase().as_str())
}

/// Each sentence, joined to the one before when it opens with a pronoun.
fn units(sentences: &[&str]) -> Vec<String> {
    sentences
        .iter()
        .enumerate()
        .map(|(i, s)| match i.checked_sub(1).filter(|_| opens_with_back_reference(s)) {
            Some(before) => format!("{} {s}", sentences[before]),
            None => s.to_string(),
        })
        .collect()
}

/// The words of a question that shape it rather than name its topic: the
/// adjective of a "how" phrase, modals and semi-modals ("need to"), light
/// verbs, indefinite pronouns, prepositions the stop list leaves out ("per"),
/// request frames ("tell me", "do you know"), "whose", and "happen" in "what
/// happens".
fn frame_words(words: &[String]) -> Vec<String> {
    let frame = frame_positions(words);
    words.iter().zip(frame).filter(|(_, f)| *f).map(|(w, _)| w.clone()).collect()
}

/// For each word of a question, whether it is a frame word (see [`frame_words`]).
fn frame_positions(words: &[String]) -> Vec<bool> {
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let next = words.get(i + 1).map(String::as_str).unwrap_or("");
            let before = i.checked_sub(1).and_then(|b| words.get(b)).map(String::as_str).unwrap_or("");
            let w = w.as_str();
            MODALS.contains(&w)
                // The adjective of any "how …" phrase ("how many", "how long"), as in the first.
                || (before == "how" && !AUXILIARIES.contains(&w) && !text::stopwords::is_stopword(w))
                || (SEMI_MODALS.contains(&w) && next == "to")
                || LIGHT_VERBS.contains(&w)
                || INDEFINITE_PRONOUNS.contains(&w)
                || (REQUEST_VERBS.contains(&w) && matches!(next, "me" | "us" | "you" | "if" | "whether" | "what" | "how" | "when" | "where" | "why" | "who" | "which"))
                || (w == "know" && before == "you")
                || PREPOSITIONS.contains(&w)
                || w == "please"
                || w == "whose"
                || (matches!(w, "happen" | "happens" | "happened") && matches!(before, "what" | "will" | "would" | "does" | "did"))
        })
        .collect()
}

/// Prepositions that open a phrase trailing the predicate ("cost per month",
/// "produced by X at Y"): the stop list's prepositions and a few more.
const PREPOSITIONS: &[&str] = &[
    "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before", "after",
    "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "per", "within",
    "without", "since", "until", "via", "near", "across", "along", "around", "among",
];

/// The terms that may be the question's predicate, read by position (see
/// [`Ask::predicate`]):
/// - "who founded X?": the word after the wh-phrase, when no auxiliary follows it;
/// - "what year was X born?", "how much does X cost per month?": the last
///   content word before the phrases that trail it, and the last before a
///   relative clause ("when was the actress born who …");
/// - "X was born in what year?": the last content word before the wh-phrase.
///
/// Names, numbers, stopwords and the question's framing words are skipped.
fn predicate(words: &[String], consumed: &[String], name_terms: &[String], skip: &[&str]) -> Vec<String> {
    let Some(at) = wh_position(words) else { return Vec::new() };
    let after = at + 1 + consumed.len();
    let frame = frame_positions(words);
    let content = |i: usize| {
        let w = &words[i];
        !text::stopwords::is_stopword(w)
            && !skip.contains(&w.as_str())
            && !AUXILIARIES.contains(&w.as_str())
            && !frame[i]
            && text::terms(w).first().is_some_and(|t| !text::is_numeric(t) && !name_terms.contains(t))
    };
    let term = |i: usize| text::terms(&words[i]).into_iter().next();
    let last_content = |from: usize, to: usize| (from..to).rev().find(|&i| content(i)).and_then(term);
    if at > 1 {
        // Statement-shaped: the word before "in what city", "… called what".
        let Some(before) = words[..at].iter().rposition(|w| !PREPOSITIONS.contains(&w.as_str())) else { return Vec::new() };
        return last_content(before.saturating_sub(2), before + 1).into_iter().collect();
    }
    // "What number album of X did Y win?": the wh-phrase runs to the auxiliary.
    let after = match consumed.is_empty() {
        false => words[after..].iter().position(|w| AUXILIARIES.contains(&w.as_str())).map_or(after, |p| after + p),
        true => after,
    };
    match words.get(after) {
        Some(next) if !AUXILIARIES.contains(&next.as_str()) && content(after) => term(after).into_iter().collect(),
        Some(_) => {
            // A second question joined on ("… cost, and how many …") has a predicate of its own.
            let joined = words[after..].windows(2).position(|w| matches!(w[0].as_str(), "and" | "or") && WH_WORDS.contains(&w[1].as_str()));
            let tail = &words[after..after + joined.unwrap_or(words.len() - after)];
            // Cut the trailing prepositional phrases: at most three words each.
            let mut end = tail.len();
            // "to" after a semi-modal ("have to ask") marks a verb, not a phrase.
            let opens_phrase = |i: usize| {
                PREPOSITIONS.contains(&tail[i].as_str()) && !(tail[i] == "to" && i > 0 && SEMI_MODALS.contains(&tail[i - 1].as_str()))
            };
            while let Some(p) = (0..end).rev().find(|&i| opens_phrase(i)) {
                if end - p > 4 || p == 0 {
                    break;
                }
                end = p;
            }
            let relative = tail.iter().position(|w| matches!(w.as_str(), "who" | "whom" | "whose" | "that" | "which"));
            let mut found: Vec<String> = last_content(after, after + end).into_iter().collect();
            found.extend(relative.and_then(|r| last_content(after, after + r)).filter(|t| !found.contains(t)));
            found
        }
        None => Vec::new(),
    }
}

/// The head of the asked relation (see [`Ask::head`]): the runs of content
/// words (not stopwords, auxiliaries or the question's frame) that hold a
/// predicate term, and, for a yes/no question, the first run after its auxiliary.
fn head_phrase(words: &[String], predicate: &[String], yes_no: bool) -> Vec<String> {
    let frame = frame_positions(words);
    let content = |i: usize| !text::stopwords::is_stopword(&words[i]) && !AUXILIARIES.contains(&words[i].as_str()) && !frame[i];
    let run = |i: usize| {
        let start = (0..=i).rev().take_while(|&j| content(j)).last().unwrap_or(i);
        let end = (i..words.len()).take_while(|&j| content(j)).last().unwrap_or(i);
        (start..=end).flat_map(|j| text::terms(&words[j])).collect::<Vec<_>>()
    };
    let mut head: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if content(i) && text::terms(w).iter().any(|t| predicate.contains(t)) {
            head.extend(run(i));
        }
    }
    if yes_no {
        if let Some(first) = (1..words.len()).find(|&i| content(i)) {
            head.extend(run(first));
        }
    }
    head
}

/// The clause that asks, when a statement sets the scene before it: "If the
/// variable is unset, *which program …*?", "Binaries are stripped by default;
/// *which option …*?". A question that opens with its wh-word, a preposition
/// and one, or an auxiliary is read whole (a later "which" there opens a
/// relative clause), and so is one whose clauses open with none.
fn asking_clause(question: &str) -> &str {
    let opens = |text: &str| {
        let mut words = lower_words(text);
        if words.first().is_some_and(|w| CONJUNCTIONS.contains(&w.as_str())) {
            words.remove(0);
        }
        let first = words.first().map(String::as_str).unwrap_or("");
        let fronted = PREPOSITIONS.contains(&first) && words.get(1).is_some_and(|w| WH_WORDS.contains(&w.as_str()));
        (WH_WORDS.contains(&first) || fronted, AUXILIARIES.contains(&first))
    };
    let (wh, auxiliary) = opens(question);
    // "When a package lists keywords, through which variable …?": a "when" or
    // "where" with no auxiliary after it opens a subordinate clause, not the question.
    let words = lower_words(question);
    let subordinate = matches!(words.first().map(String::as_str), Some("when" | "where")) && words.get(1).is_some_and(|w| !AUXILIARIES.contains(&w.as_str()));
    if (wh && !subordinate) || auxiliary {
        return question;
    }
    let starts = question.char_indices().filter(|(_, c)| matches!(c, ';' | ':' | ',')).map(|(i, c)| i + c.len_utf8());
    let asking: Vec<usize> = starts.filter(|&i| opens(&question[i..]).0).collect();
    asking.last().map_or(question, |&i| question[i..].trim_start())
}

/// Where the question's own wh-word stands: first, or, in a statement-shaped
/// question, the last one ("… in what city?"). None for a yes/no question.
fn wh_position(words: &[String]) -> Option<usize> {
    match words.first() {
        Some(first) if WH_WORDS.contains(&first.as_str()) => Some(0),
        // "In what year …", "Between what hours …": a fronted wh-phrase.
        Some(first) if PREPOSITIONS.contains(&first.as_str()) && words.get(1).is_some_and(|w| WH_WORDS.contains(&w.as_str())) => Some(1),
        Some(first) if AUXILIARIES.contains(&first.as_str()) => None,
        _ => words.iter().rposition(|w| WH_WORDS.contains(&w.as_str())),
    }
}

/// The names of the question's subject: those after the auxiliary that
/// follows the wh-phrase ("what year was *Allie Goertz* born?"), or, in a
/// statement-shaped question, those before its wh-word ("*Harbor Lights* was
/// filmed in what city?"), in both cases stopping at a relative clause, which
/// describes a bridge rather than the subject ("the actor who played *X*").
fn subject_names(question: &str, words: &[String], all_names: &[String]) -> Vec<String> {
    let Some(wh) = wh_position(words) else { return all_names.to_vec() };
    let relative = |from: usize| {
        words.iter().enumerate().skip(from).find(|(i, w)| *i != wh && matches!(w.as_str(), "who" | "whom" | "whose" | "that" | "which")).map(|(i, _)| i)
    };
    let (start, end) = if wh <= 1 {
        let start = words.iter().skip(wh + 1).position(|w| AUXILIARIES.contains(&w.as_str())).map_or(wh + 1, |p| wh + 2 + p);
        (start, relative(start).unwrap_or(words.len()))
    } else {
        (0, relative(1).unwrap_or(wh).min(wh))
    };
    let region = words_between(question, start, end);
    all_names.iter().filter(|n| region.contains(n.as_str())).cloned().collect()
}

/// The part of `question` from its `start`-th word up to (not including) its `end`-th.
fn words_between(question: &str, start: usize, end: usize) -> &str {
    let mut offsets = Vec::new();
    let mut in_word = false;
    for (at, c) in question.char_indices() {
        let part = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        if part && !in_word {
            offsets.push(at);
        }
        in_word = part;
    }
    let from = offsets.get(start).copied().unwrap_or(question.len());
    let to = offsets.get(end).copied().unwrap_or(question.len());
    question.get(from..to.max(from)).unwrap_or("")
}

fn starts_yes_no(words: &[String]) -> bool {
    words.first().is_some_and(|w| AUXILIARIES.contains(&w.as_str()))
}

fn asks_what_happens(words: &[String]) -> bool {
    words.windows(2).any(|w| w[0] == "what" && matches!(w[1].as_str(), "happens" | "happened" | "happen" | "if"))
}

/// The kind a question's wh-phrase asks for, and the words of the wh-phrase
/// that are not topic words ("long" in "how long", "year" in "what year").
fn read_wh(words: &[String]) -> (Kind, Vec<String>) {
    let Some(at) = wh_position(words) else {
        let kind = if starts_yes_no(words) { Kind::YesNo } else { Kind::Open };
        return (kind, Vec::new());
    };
    let next = |k: usize| words.get(at + k).map(String::as_str).unwrap_or("");
    let one = |kind: Kind, k: usize| (kind, words[at + 1..(at + 1 + k).min(words.len())].to_vec());
    match words[at].as_str() {
        "who" | "whom" | "whose" => (Kind::Person, Vec::new()),
        "where" => (Kind::Place, Vec::new()),
        "when" => (Kind::Time, Vec::new()),
        "why" => (Kind::Reason, Vec::new()),
        "how" => match next(1) {
            "come" => one(Kind::Reason, 1),
            // "how much notice …": the noun after "much" is what is counted, unless it is a price.
            "much" if !next(2).is_empty() && !AUXILIARIES.contains(&next(2)) && !text::stopwords::is_stopword(next(2)) && !PRICE_WORDS.contains(&next(2)) && !MONEY_NOUNS.contains(&next(2)) => one(Kind::Number, 1),
            "much" if PRICE_WORDS.iter().any(|p| words.iter().any(|w| w == p)) || AUXILIARIES.contains(&next(2)) => one(Kind::Money, 1),
            "much" | "many" | "old" => one(Kind::Number, 1),
            "long" if next(2) == "ago" => one(Kind::Time, 2),
            "long" => one(Kind::Duration, 1),
            "far" => one(Kind::Distance, 1),
            "often" | "frequently" => one(Kind::Frequency, 1),
            "soon" | "quickly" => one(Kind::Soon, 1),
            "early" | "late" => one(Kind::Time, 1),
            w if w.is_empty() || AUXILIARIES.contains(&w) || text::stopwords::is_stopword(w) => (Kind::Open, Vec::new()),
            // "how big", "how tall", "how heavy": a measure.
            _ => one(Kind::Number, 1),
        },
        _ => read_type_noun(words, at),
    }
}

/// "what year", "which city", "what is the population of", "which booking system".
fn read_type_noun(words: &[String], at: usize) -> (Kind, Vec<String>) {
    let mut k = at + 1;
    // "what is the length of …": the noun after the copula and article.
    if words.get(k).is_some_and(|w| matches!(w.as_str(), "is" | "are" | "was" | "were")) && words.get(k + 1).is_some_and(|w| w == "the") {
        k += 2;
        if let Some(kind) = words.get(k).and_then(|w| noun_kind(w)) {
            return (kind, vec![words[k].clone()]);
        }
        return (Kind::Open, Vec::new());
    }
    let Some(noun) = words.get(k).filter(|w| !text::stopwords::is_stopword(w) && !AUXILIARIES.contains(&w.as_str())) else {
        return (Kind::Open, Vec::new());
    };
    // "what happens if …" asks for an event, not a thing.
    if matches!(noun.as_str(), "happens" | "happened" | "happen") {
        return (Kind::Open, Vec::new());
    }
    if noun == "year" || noun == "years" {
        return (Kind::Year, vec![noun.clone()]);
    }
    if let Some(kind) = noun_kind(noun) {
        return (kind, vec![noun.clone()]);
    }
    // A type noun phrase: at most two words ("booking system", "tennis player").
    let mut phrase = vec![noun.clone()];
    if let Some(second) = words.get(k + 1).filter(|w| !text::stopwords::is_stopword(w) && !AUXILIARIES.contains(&w.as_str())) {
        phrase.push(second.clone());
    }
    (Kind::Entity, phrase)
}

fn noun_kind(noun: &str) -> Option<Kind> {
    let is = |list: &[&str]| list.contains(&noun);
    if noun == "year" || noun == "years" {
        Some(Kind::Year)
    } else if is(TIME_NOUNS) {
        Some(Kind::Time)
    } else if is(PLACE_NOUNS) {
        Some(Kind::Place)
    } else if is(MONEY_NOUNS) {
        Some(Kind::Money)
    } else if is(PERCENT_NOUNS) {
        Some(Kind::Percent)
    } else if is(LENGTH_NOUNS) {
        Some(Kind::Duration)
    } else if is(NUMBER_NOUNS) {
        Some(Kind::Number)
    } else {
        None
    }
}

/// The names a question joins with "and" ("Are Wenling and Xinzheng both in
/// China?", "What do X, Y and Z have in common?").
fn conjuncts(question: &str, names: &[String]) -> Vec<String> {
    let mut joined: Vec<String> = Vec::new();
    for pair in names.windows(2) {
        let (Some(a), Some(b)) = (question.find(pair[0].as_str()), question.find(pair[1].as_str())) else { continue };
        let between = question.get(a + pair[0].len()..b).unwrap_or("").trim().trim_start_matches(',').trim();
        if matches!(between, "and" | "," | "&") {
            for name in pair {
                if !joined.contains(name) {
                    joined.push(name.clone());
                }
            }
        }
    }
    joined
}

/// The names on either side of an "or" ("Arthur's Magazine or First for Women").
fn options(question: &str, all_names: &[String]) -> Vec<String> {
    let lower = question.to_lowercase();
    let Some(or) = lower.find(" or ") else { return Vec::new() };
    let before = all_names.iter().rfind(|n| question[..or].contains(n.as_str()));
    let after = all_names.iter().find(|n| question[or..].contains(n.as_str()));
    match (before, after) {
        (Some(a), Some(b)) if a != b => vec![a.clone(), b.clone()],
        _ => Vec::new(),
    }
}

/// A sentence that points elsewhere ("see Section 4.9.1", "as described in
/// Annex III") instead of stating the fact.
/// A clause that sends the reader elsewhere by name: "See Maintainer
/// scripts", "refer to “Hours & Access”", "cf. Chapter 6". The names in it
/// are places to look, not facts stated (lowercase after "see" is a verb's
/// object: "see you at the desk").
fn opens_pointer(clause: &str) -> bool {
    let words: Vec<&str> = clause.split_whitespace().collect();
    let lead = words.first().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).unwrap_or_default();
    let skip = match (lead.as_str(), words.get(1).map(|w| w.to_lowercase())) {
        ("see", Some(next)) if next == "also" => 2,
        ("see" | "cf", _) => 1,
        ("refer", Some(next)) if next == "to" => 2,
        _ => return false,
    };
    words.get(skip).is_some_and(|w| w.trim_start_matches(['"', '“', '‘', '\'', '`']).starts_with(char::is_uppercase) || w.starts_with(['"', '“', '‘']))
}

pub fn is_pointer(sentence: &str) -> bool {
    let lower = format!(" {} ", lower_words(sentence).join(" "));
    POINTER_CUES.iter().any(|cue| {
        lower.match_indices(&format!(" {cue} ")).any(|(at, _)| {
            let rest: Vec<&str> = lower[at + cue.len() + 2..].split_whitespace().take(3).collect();
            rest.iter().any(|w| POINTER_TARGETS.contains(w))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(question: &str) -> Ask {
        Ask::parse(question, &Vocabulary::default())
    }

    /// Whether `answer` answers `question`, every focus term equally rare.
    fn check(question: &str, answer: &str) -> Result<(), Miss> {
        let ask = ask(question);
        let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40);
        ask.answers(&focus, answer)
    }

    /// A statement before the asking clause sets the scene; the clause asks.
    #[test]
    fn the_asking_clause_is_read() {
        assert_eq!(asking_clause("If the tank is empty, which valve should be closed first?"), "which valve should be closed first?");
        assert_eq!(asking_clause("Boats are fuelled at dawn; when does the fuel dock close?"), "when does the fuel dock close?");
        assert_eq!(asking_clause("Which tool, which the docs name, rebuilds the index?"), "Which tool, which the docs name, rebuilds the index?");
        assert_eq!(asking_clause("Harbor Lights was filmed in what city?"), "Harbor Lights was filmed in what city?");
        assert_eq!(asking_clause("Does the pool open, when it rains?"), "Does the pool open, when it rains?");
        assert_eq!(ask("Binaries are stripped by default; which option keeps symbols when debugging?").kind, Kind::Entity);
    }

    /// Table: question -> the kind of fact it asks for.
    #[test]
    fn kinds_table() {
        let cases: &[(&str, Kind)] = &[
            ("How much does a private office cost per month?", Kind::Money),
            ("How much is a day pass?", Kind::Money),
            ("What would a Flex Desk member pay per month?", Kind::Money),
            ("How much notice do I need to give?", Kind::Number),
            ("Is there a fee for paying late?", Kind::YesNo),
            ("How many guests can I bring?", Kind::Number),
            ("How long is footage kept?", Kind::Duration),
            ("How far ahead can I book?", Kind::Distance),
            ("How often is the fridge emptied?", Kind::Frequency),
            ("Where can I keep my bike?", Kind::Place),
            ("When is the member breakfast?", Kind::Time),
            ("What year was the band founded?", Kind::Year),
            ("The Oberoi family is part of a hotel company that has a head office in what city?", Kind::Place),
            ("Who founded the company?", Kind::Person),
            ("Which booking system do I use for meeting rooms?", Kind::Entity),
            ("What is the length of the track?", Kind::Duration),
            ("Why are dogs banned on Fridays?", Kind::Reason),
            ("What happens if I pay late?", Kind::Open),
            ("How do I cancel?", Kind::Open),
            ("How can I pause my plan?", Kind::Open),
            ("Can I bring my dog?", Kind::YesNo),
            ("What percentage is the team discount?", Kind::Percent),
        ];
        for &(question, kind) in cases {
            assert_eq!(ask(question).kind, kind, "{question}");
        }
    }

    /// Table: question -> the predicate whose fact is asked.
    #[test]
    fn predicates_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("What year was Allie Goertz born?", Some("born")),
            ("The presenter of Volatile History was born in what year?", Some("born")),
            ("What college did the Chiefs leading rusher attend?", Some("attend")),
            ("Who founded the company?", Some("founded")),
            ("Which truck is produced by Leyland Trucks at their Farington plant?", Some("produced")),
            ("What hours is a Day Pass valid on a Saturday?", Some("valid")),
            ("How long is footage kept?", Some("kept")),
            ("The Oberoi family is part of a hotel company that has a head office in what city?", Some("office")),
            ("How much does a private office cost per month?", Some("office")),
            ("What does the Flex Desk plan include?", Some("include")),
        ];
        for &(question, expected) in cases {
            assert_eq!(ask(question).predicate.first().cloned(), expected.map(text::stem), "{question}");
        }
    }

    #[test]
    fn the_wh_phrase_is_not_focus() {
        let terms = |q: &str| ask(q).focus.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        assert_eq!(terms("How long is footage kept?"), text::distinct_terms("footage kept"));
        assert_eq!(terms("What year was Allie Goertz born?"), text::distinct_terms("Allie Goertz born"));
        assert_eq!(terms("Can I bring my dog?"), text::distinct_terms("bring dog"));
    }

    #[test]
    fn subject_names_are_those_the_core_must_name() {
        assert_eq!(ask("What year was Allie Goertz born?").core_names, ["Allie Goertz"]);
        assert_eq!(ask("What does the Scale plan cost per month?").core_names, ["Scale"]);
        assert!(ask("What year was the actor who played Sherlock Holmes in Sherlock born?").core_names.is_empty());
        assert_eq!(ask("Harbor Lights was filmed in what city?").core_names, ["Harbor Lights"]);
        assert_eq!(ask("Does the Flex Desk plan include Wi-Fi?").core_names, ["Flex Desk", "Wi-Fi"]);
    }

    /// "X and Y both": each conjunct answered by a sentence of its own.
    #[test]
    fn conjuncts_each_need_a_core() {
        let question = "Are Wenling and Xinzheng both in China?";
        assert_eq!(ask(question).conjuncts, ["Wenling", "Xinzheng"]);
        assert!(check(question, "Wenling is a city in China. Xinzheng is a city in China.").is_ok());
        assert!(check(question, "Wenling is a city in China.").is_err(), "one conjunct unanswered");
        let question = "Are Ada Brook and Tom Vale both keyboardists?";
        assert!(check(question, "Ada Brook is a singer and keyboardist. Tom Vale is a keyboardist.").is_ok());
        assert!(check(question, "Ada Brook is a singer and keyboardist. Tom Vale was a singer.").is_err(), "said of one only");
    }

    #[test]
    fn names_and_alternatives() {
        let a = ask("Which magazine was started first, Arthur's Magazine or First for Women?");
        assert_eq!(a.options, ["Arthur's Magazine", "First for Women"]);
        assert!(a.names.is_empty());
        assert_eq!(ask("What does the Flex Desk plan include?").names, ["Flex Desk"]);
    }

    /// Supported sentences that do not answer: another subject, no fact of the
    /// kind, a fact in a clause about something else.
    #[test]
    fn answers_that_do_not_answer() {
        let cases: &[(&str, &str, bool)] = &[
            ("How much does a private office cost?", "A private office requires a minimum term of 6 months.", false),
            ("How much does a day pass cost?", "A Day Pass costs $35.", true),
            ("What does the Flex Desk plan include?", "The Dedicated Desk plan includes a locker.", false),
            ("When was Harbor United founded?", "Harbor United signed Jo Park (born 4 May 1990) as its driver.", false),
            ("When was Harbor United founded?", "Harbor United, founded in 1990, signs drivers.", true),
            ("What year was Allie Goertz born?", "Allie Goertz (born March 2, 1991) is an American musician.", true),
            ("What year was Allie Goertz born?", "Allie Goertz released her first album in 2012.", false),
            ("How long is the Nile?", "The Nile begins at Lake Victoria.", false),
            ("How long is the Nile?", "The Nile is 6,650 km long.", true),
            ("Which magazine was started first, Arthur's Magazine or First for Women?", "Arthur's Magazine and First for Women are magazines.", false),
            ("In what city is the Oberoi Group's head office?", "The Oberoi Group is a hotel company with its head office in Delhi.", true),
            ("How long is footage kept?", "See Section 4.2 for footage.", false),
            ("Which tool rebuilds the index?", "The index is rebuilt every night (see Search Tools and Jobs).", false),
            ("Which tool rebuilds the index?", "The index is rebuilt every night by Quillsort.", true),
            ("How long is footage kept?", "Footage is kept for 30 days, then deleted.", true),
            ("How many guests can I bring?", "Members can bring 2 guests at a time.", true),
            ("Can a Flex Desk member come in at 6:00 am?", "Flex Desk members can use the 6 shared monitors.", false),
            ("Can a Flex Desk member come in at 6:00 am?", "Flex Desk members can come in from 7:00 am to 9:00 pm.", true),
            ("How much does a private office cost?", "A private office fits 6 people. The locker add-on costs $40 per month.", false),
            ("How much does a private office cost?", "A private office team needs insurance cover of at least $1,000,000.", false),
            ("How much does a phone booth cost?", "Phone booths are free to use.", true),
        ];
        for &(question, answer, answers) in cases {
            let got = check(question, answer);
            assert_eq!(got.is_ok(), answers, "{question} / {answer}: {got:?}");
        }
    }

    /// A model's answer in its own words: the names may sit in the cited
    /// passages, a role or pronoun answers "who", a value answers "which …",
    /// and a sentence about another plan is another subject.
    #[test]
    fn answers_in_own_words() {
        let in_own_words = |question: &str, answer: &str, cited: &str| {
            let ask = ask(question);
            let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40);
            ask.answers_in_own_words(&focus, answer, cited)
        };
        let cited = "The member pays for any damage a guest causes at Harbor Commons.";
        assert!(in_own_words("Who pays if a guest breaks something?", "You do: the member pays for damage their guest causes.", cited).is_ok());
        assert!(in_own_words("Which priority value should most packages use?", "Most packages should use `optional`.", "Packages should use priority optional.").is_ok());
        assert!(in_own_words("How much does the Dedicated Desk cost?", "It is $450 a month.", "A Dedicated Desk costs $450 per month.").is_ok(), "the name sits in the cited passage");
        let other = in_own_words("How much does the Dedicated Desk cost?", "A Flex Desk costs $220 per month.", "A Flex Desk costs $220 per month.");
        assert!(matches!(other, Err(Miss::Names(_)) | Err(Miss::OtherSubject(_))), "{other:?}");
        assert_eq!(in_own_words("How long is security footage kept?", "Lost property is held for 30 days.", "Lost property is held for 30 days."), Err(Miss::Kind(Kind::Duration)));
        assert!(in_own_words("Can I bring my dog?", "Yes, on Fridays.", "Dogs are allowed on Fridays.").is_ok());
    }

    /// The core: names, the head phrase, negative words; an open question is all core.
    #[test]
    fn the_core_of_a_question() {
        let core = |q: &str| ask(q).core_terms();
        assert!(core("How much is the gym add-on?").contains(&text::stem("gym")));
        assert!(core("Is there a late fee if I pay after the due date?").contains(&text::stem("fee")));
        assert!(!core("Can I bring my dog to the coworking space?").contains(&text::stem("coworking")));
        assert!(core("What happens to lost items nobody claims?").contains(&text::stem("nobody")));
        assert_eq!(core("What happens to my stuff?"), text::terms("stuff"));
        assert_eq!(ask("My friend is visiting, what's the wifi password for them?"), ask("My friend is visiting, what is the wifi password for them?"));
        assert_eq!(ask("How much notice do members get before a price increase?").kind, Kind::Number);
        assert_eq!(ask("When a package lists keywords, through which variable does it get the command?").kind, Kind::Entity);
    }

    #[test]
    fn pointers() {
        assert!(is_pointer("Details are set out in Annex III."));
        assert!(is_pointer("See Section 3.1.2."));
        assert!(!is_pointer("See you at the front desk at 9:00 am."));
        assert!(opens_pointer("See Package maintainer scripts and installation procedure"));
        assert!(opens_pointer("see also “Hours & Access”"));
        assert!(opens_pointer("cf. Chapter 6"));
        assert!(!opens_pointer("See you at the front desk"));
        assert!(!opens_pointer("Seeing Eye dogs are welcome"));
    }
}
