//! Reading a question by the grammar of English questions: the kind of fact
//! its answer must state, its focus, its names, alternatives and conjuncts,
//! its predicate and head phrase, and its core.

use super::words::*;
use crate::corpus::vocabulary::Vocabulary;
use crate::text::{self, names, Quantity};

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
    /// how much (not money), how big: a number.
    Number,
    /// how many: a count of things, not an amount of money, a share or a time.
    Count,
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
            Kind::Count => "a count",
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
    /// The words the question writes side by side, with the corpus's
    /// synonyms ("a permanent locker", "a Flex Desk" for "a hot desk"): a
    /// modifier and its noun, among others (see [`Ask::sibling`]).
    pub pairs: Vec<[(String, String); 2]>,
    /// "… relative or absolute?": the single words on either side of an
    /// "or" that ends the question; an answer names one of them.
    pub alternatives: Vec<String>,
    /// A yes/no question's proposition: the head of its relation and the
    /// noun phrase after it ("can they *book* a *meeting room*").
    pub proposition: Vec<String>,
    /// Two spellings of one word the question may use (see
    /// [`text::spelling_variants`]): the corpus's decides.
    pub variants: Vec<(String, Vec<String>)>,
    /// Each place the question names, as its term and another form's
    /// ([`text::places::forms`]): looked up too, and read where the corpus
    /// writes only the other form.
    pub places: Vec<(String, String)>,
    /// The terms of the asking clause before any subordinate clause ("what
    /// happens to my *things*" in "… if my account is downgraded?"): a quote
    /// answers it only if it holds one.
    pub main_terms: Vec<String>,
    /// A yes/no question's condition: the first content words of the clause
    /// that conditions it ("… when *the building* is *closed* for a day?").
    pub condition: Vec<String>,
    /// The asking clause negates its relation ("items *nobody* claims").
    pub negated: bool,
    /// The head of a second question joined on with "and" or "or" ("…, and
    /// is there a *deadline*?"): part of the core, though the first part's
    /// predicate alone decides which clause answers the first.
    pub joined: Vec<String>,
    /// The names of the corpus's own publisher and service (the
    /// vocabulary's `hosts`): never another subject than the question's.
    pub hosts: Vec<String>,
    /// "What are the steps …?", "what is the usual way …?": the question asks
    /// what a thing is, and its answer states it without naming its kind.
    pub asks_what_it_is: bool,
    /// The question as read, with the corpus's synonyms.
    pub text: String,
    /// The clause that asks, without a statement that sets the scene before
    /// it ("can they book a meeting room?" in "My friend has a day pass; can
    /// they book a meeting room?").
    pub asking: String,
}

impl Ask {
    /// Reads a question, with the corpus's synonyms.
    pub fn parse(question: &str, vocabulary: &Vocabulary) -> Ask {
        let original = question;
        // Names and phrases are read as the corpus writes them ("a hot desk" is the Flex Desk).
        let rewritten = vocabulary.rewrite(question);
        let question = rewritten.as_str();
        // The grammar is read in the clause that asks; the terms come from all of it.
        let asked = asking_clause(question);
        let words = lower_words(asked);
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        let (mut kind, consumed) = read_wh(&words);
        // "How do I …" asks for a way, whatever it pays for.
        let asks_how = words.first().is_some_and(|w| w == "how");
        if matches!(kind, Kind::Open | Kind::Entity) && has(PRICE_WORDS) && !asks_what_happens(&words) && !starts_yes_no(&words) && !asks_how {
            kind = Kind::Money;
        }
        let mut consumed_terms: Vec<String> = consumed.iter().flat_map(|w| text::terms(w)).collect();
        consumed_terms.extend(frame_words(&words).iter().flat_map(|w| text::terms(w)));
        if kind == Kind::Money {
            // The asked amount stands for the price words ("cost", "pay").
            consumed_terms.extend(PRICE_WORDS.iter().flat_map(|w| text::terms(w)));
        }
        let type_noun = consumed.last().filter(|_| kind == Kind::Entity).and_then(|w| text::terms(w).pop());
        let variants = text::spelling_variants(original);
        let mut focus: Vec<(String, String)> = vocabulary
            .question_terms(original)
            .into_iter()
            .filter(|(term, _)| !consumed_terms.contains(term))
            .collect();
        // A phrasal verb is looked up in its closed-up spelling too ("backed up" as "backup").
        for (closed, parts) in &variants {
            if !focus.iter().any(|(t, _)| t == closed) {
                let said = focus.iter().find(|(t, _)| parts.contains(t)).map_or_else(|| closed.clone(), |(_, w)| w.clone());
                focus.push((closed.clone(), said));
            }
        }
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
        let predicate = complement_verb(&words, predicate(&words, &consumed, &name_terms, skip));
        let joined = joined_head(&words);
        let head = head_phrase(&words, &predicate, kind == Kind::YesNo);
        let proposition = match kind {
            // "… every month. Can I do that on Starter?": "do that" stands for the statement's verb phrase.
            Kind::YesNo if has_pro_verb(&words) => proposition(&lower_words(question.split(asked).next().unwrap_or(""))),
            Kind::YesNo => proposition(&words),
            _ => Vec::new(),
        };
        let condition = if kind == Kind::YesNo { condition(&words) } else { Vec::new() };
        Ask {
            condition,
            pairs: text::modifier_pairs(question),
            alternatives: alternatives(asked),
            proposition,
            variants,
            places: text::places::forms(original),
            main_terms: main_terms(&words, &consumed_terms),
            joined,
            negated: text::negations(&main_clause(&words).join(" ")) > 0,
            hosts: vocabulary.hosts.clone(),
            asks_what_it_is: asks_what_it_is(&words),
            text: question.to_string(),
            asking: asked.to_string(),
            kind,
            type_noun,
            focus,
            conjuncts,
            names,
            options,
            quantities: asked_quantities(question),
            price_terms: match kind {
                Kind::Money => words.iter().filter(|w| PRICE_WORDS.contains(&w.as_str())).flat_map(|w| text::terms(w)).collect(),
                _ => Vec::new(),
            },
            core_names,
            predicate,
            head,
        }
    }

    /// The question's core: the terms of its names and alternatives that the
    /// clause that asks writes or points back to (a name only the asker's
    /// scene writes, "we're a small company in Dublin", is a detail of their
    /// case, not what is asked), the head of the asked relation (its
    /// predicate; in a yes/no question, the first word after the auxiliary
    /// and its subject pronoun: "can I *bring* …", "is there *wifi*"), and its negative words ("what happens to items
    /// *nobody* claims": they carry its sense). A question that asks for no
    /// kind of fact ("what happens to my stuff …") is all core: its words are
    /// all it asks. A word of the core that the corpus never uses refuses on
    /// its own; any other unknown word only frames the question (see
    /// [`Focus::framed`]).
    pub fn core_terms(&self) -> Vec<String> {
        // A pronoun of the asking clause may stand for a name of the scene ("I'm on Zephyr. What does *it* cost?").
        let points_back = lower_words(&self.asking).iter().any(|w| super::BACK_REFERENCES.contains(&w.as_str()) || w == "that" || w == "there");
        let asked = |n: &&String| points_back || names::phrase_in(&self.asking, n);
        let named: Vec<String> = self.names.iter().chain(&self.options).filter(asked).flat_map(|n| text::terms(n)).collect();
        named.into_iter().chain(self.head.iter().cloned()).chain(self.joined.iter().cloned()).collect()
    }

    /// The terms of the question's names and alternatives: what no reading
    /// by meaning may stand in for (a plan the corpus never names is not one
    /// of its plans, however near in meaning).
    pub fn name_terms(&self) -> Vec<String> {
        self.names.iter().chain(&self.options).flat_map(|n| text::terms(n)).collect()
    }

    /// The terms to look up with the words they stand for: the focus, and
    /// the other forms of the places it names.
    pub fn lookup_terms(&self) -> Vec<(String, String)> {
        let others = self.places.iter().filter_map(|(own, other)| self.focus.iter().find(|(t, _)| t == own).map(|(_, said)| (other.clone(), said.clone())));
        self.focus.iter().cloned().chain(others).collect()
    }

    /// Reads as words, not names, the abbreviations among the question's
    /// names the corpus never writes (`unused`: the terms it never uses).
    /// "GUI" or "CI" shortens a kind of thing as often as it names one, and
    /// what the corpus never writes is none of its names; read as a word, it
    /// is held by meaning where the engine has meaning, and frames the
    /// question where it has none. A name in capitals the corpus writes
    /// ("EU", "GPL") stays a name. So does the rest of a longer name such an
    /// abbreviation ends or starts ("an X11 GUI" names X11).
    pub fn unnamed_abbreviations(mut self, unused: &[String]) -> Ask {
        let unknown = |w: &str| names::is_abbreviation(w) && text::terms(w).iter().all(|t| unused.contains(t));
        let rest = |names: &mut Vec<String>| {
            let trimmed = |n: &String| {
                let mut words: Vec<&str> = n.split_whitespace().collect();
                while words.last().is_some_and(|w| unknown(w)) {
                    words.pop();
                }
                words.into_iter().skip_while(|w| unknown(w)).collect::<Vec<_>>().join(" ")
            };
            let kept: Vec<String> = names.iter().map(trimmed).filter(|n| !n.is_empty()).collect();
            names.clear();
            for name in kept {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        };
        rest(&mut self.names);
        rest(&mut self.core_names);
        self
    }

    /// The focus terms that are not part of a name: the relation asked about
    /// ("founded" in "when was Team X founded").
    pub fn relation_terms(&self) -> Vec<&str> {
        let name_terms = self.name_terms();
        self.focus.iter().map(|(t, _)| t.as_str()).filter(|t| !name_terms.iter().any(|n| n == t) && !text::is_numeric(t)).collect()
    }

}

/// The words of a question that shape it rather than name its topic: the
/// adjective of a "how" phrase, modals and semi-modals ("need to"), light
/// verbs, indefinite pronouns, prepositions the stop list leaves out ("per"),
/// request frames ("tell me", "do you know"), "whose", and "happen" in "what
/// happens".
pub(super) fn frame_words(words: &[String]) -> Vec<String> {
    let frame = frame_positions(words);
    words.iter().zip(frame).filter(|(_, f)| *f).map(|(w, _)| w.clone()).collect()
}

/// For each word of a question, whether it is a frame word (see [`frame_words`]).
pub(super) fn frame_positions(words: &[String]) -> Vec<bool> {
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
                // The object pronoun the Snowball list leaves out.
                || w == "us"
                || w == "whose"
                || (matches!(w, "happen" | "happens" | "happened") && matches!(before, "what" | "will" | "would" | "does" | "did"))
        })
        .collect()
}

/// The terms that may be the question's predicate, read by position (see
/// [`Ask::predicate`]):
/// - "who founded X?": the word after the wh-phrase, when no auxiliary follows it;
/// - "what year was X born?", "how much does X cost per month?": the last
///   content word before the phrases that trail it, and the last before a
///   relative clause ("when was the actress born who …");
/// - "X was born in what year?": the last content word before the wh-phrase.
///
/// Names, numbers, stopwords and the question's framing words are skipped.
pub(super) fn predicate(words: &[String], consumed: &[String], name_terms: &[String], skip: &[&str]) -> Vec<String> {
    let Some(at) = wh_position(words) else { return Vec::new() };
    let after = at + 1 + consumed.len();
    let frame = frame_positions(words);
    let content = |i: usize| {
        let w = &words[i];
        !text::stopwords::is_stopword(w)
            && !skip.contains(&w.as_str())
            && !AUXILIARIES.contains(&w.as_str())
            && !frame[i]
            && !is_peripheral(w)
            && text::terms(w).first().is_some_and(|t| !text::is_numeric(t) && !name_terms.contains(t))
    };
    let term = |i: usize| text::terms(&words[i]).into_iter().next();
    let last_content = |from: usize, to: usize| (from..to).rev().find(|&i| content(i)).and_then(term);
    if at > 1 {
        // Statement-shaped: the word before "in what city", "… called what".
        let Some(before) = words[..at].iter().rposition(|w| !PREPOSITIONS.contains(&w.as_str())) else { return Vec::new() };
        return last_content(before.saturating_sub(2), before + 1).into_iter().collect();
    }
    // "How many bank accounts can I …": what is counted is what is asked.
    if matches!(consumed, [w] if w == "many") && words.get(after).is_some_and(|_| content(after)) {
        let end = (after..words.len()).take_while(|&i| content(i)).last().unwrap_or(after);
        // The counted noun is plural, and a verb after a plural subject is not
        // ("how many *people* fit", "how many printed *pages* come with …"):
        // the run's first plural ends the noun phrase; failing one, its last word.
        let counted = (after..=end).find(|&i| is_plural(&words[i])).unwrap_or(end);
        return term(counted).into_iter().collect();
    }
    // "What number album of X did Y win?": the wh-phrase runs to the auxiliary.
    let after = match consumed.is_empty() {
        false => words[after..].iter().position(|w| AUXILIARIES.contains(&w.as_str())).map_or(after, |p| after + p),
        true => after,
    };
    match words.get(after) {
        Some(next) if !AUXILIARIES.contains(&next.as_str()) && content(after) => term(after).into_iter().collect(),
        Some(_) => {
            // A second question joined on ("… cost, and how many …", "… my car, and is parking free") has a predicate of its own.
            let joined = words[after..]
                .windows(2)
                .position(|w| matches!(w[0].as_str(), "and" | "or") && (WH_WORDS.contains(&w[1].as_str()) || AUXILIARIES.contains(&w[1].as_str())));
            let tail = &words[after..after + joined.unwrap_or(words.len() - after)];
            // "… charged if I return the projector late": a subordinate clause conditions the question.
            let tail = &tail[..tail.iter().position(|w| SUBORDINATORS.contains(&w.as_str())).unwrap_or(tail.len())];
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
            // "Where can I park my car": after a pronoun subject, the verb opens the predicate.
            // (Past a preposition it is a phrase's object: "who do I talk to about *renting* …" has no verb of its own.)
            let verb = tail
                .get(1)
                .filter(|w| PERSONAL_PRONOUNS.contains(&w.as_str()))
                .and_then(|_| (after + 2..after + end).find(|&i| content(i) || PREPOSITIONS.contains(&words[i].as_str())))
                .filter(|&i| content(i))
                .and_then(term);
            let mut found: Vec<String> = verb.or_else(|| last_content(after, after + end)).into_iter().collect();
            found.extend(relative.and_then(|r| last_content(after, after + r)).filter(|t| !found.contains(t)));
            found
        }
        None => Vec::new(),
    }
}

/// The head of a joined second question (see [`Ask::joined`]): the last
/// content word of what follows its "and" or "or" and wh-word or auxiliary.
pub(super) fn joined_head(words: &[String]) -> Vec<String> {
    let Some(at) = words.windows(2).position(|w| matches!(w[0].as_str(), "and" | "or") && (WH_WORDS.contains(&w[1].as_str()) || AUXILIARIES.contains(&w[1].as_str()))) else {
        return Vec::new();
    };
    let frame = frame_positions(words);
    (at + 2..words.len())
        .rev()
        .find(|&i| !frame[i] && !is_peripheral(&words[i]) && !text::stopwords::is_stopword(&words[i]) && !AUXILIARIES.contains(&words[i].as_str()))
        .and_then(|i| text::terms(&words[i]).pop())
        .filter(|t| !text::is_numeric(t))
        .into_iter()
        .collect()
}

/// A causative verb's complement is the relation asked about: "how should
/// the package *arrange* for them to be *rotated*" asks how they are
/// rotated. After a predicate that is one of English's causative verbs and
/// a later "to", the predicate is the first content word after the "to".
fn complement_verb(words: &[String], predicate: Vec<String>) -> Vec<String> {
    let Some(at) = words.iter().position(|w| CAUSATIVE_VERBS.contains(&w.as_str()) && text::terms(w) == predicate) else { return predicate };
    let to = words[at..].iter().position(|w| w == "to").map(|p| at + p);
    let verb = to.and_then(|to| words[to + 1..].iter().find(|w| !AUXILIARIES.contains(&w.as_str()) && !text::stopwords::is_stopword(w)));
    verb.map_or(predicate, |v| text::terms(v))
}

/// The head of the asked relation (see [`Ask::head`]): the runs of content
/// words (not stopwords, auxiliaries or the question's frame) that hold a
/// predicate term, and, for a yes/no question, the first run after its
/// auxiliary. After "do" or a modal the relation is a verb: in "what time
/// does the cleaning crew *come*", "can my coworker *use* …" the run ends
/// with the verb after its subject, and the verb alone is the head; after
/// a pronoun subject it opens the run ("can I *bring* my dog").
pub(super) fn head_phrase(words: &[String], predicate: &[String], yes_no: bool) -> Vec<String> {
    let frame = frame_positions(words);
    let content = |i: usize| !text::stopwords::is_stopword(&words[i]) && !AUXILIARIES.contains(&words[i].as_str()) && !frame[i] && !is_peripheral(&words[i]);
    let bounds = |i: usize| {
        let start = (0..=i).rev().take_while(|&j| content(j)).last().unwrap_or(i);
        let end = (i..words.len()).take_while(|&j| content(j)).last().unwrap_or(i);
        (start, end)
    };
    let terms = |from: usize, to: usize| (from..=to).flat_map(|j| text::terms(&words[j])).collect::<Vec<_>>();
    let verbal = words.iter().find(|w| AUXILIARIES.contains(&w.as_str())).is_some_and(|aux| VERBAL_AUXILIARIES.contains(&aux.as_str()));
    let mut head: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if content(i) && text::terms(w).iter().any(|t| predicate.contains(t)) {
            let (start, end) = bounds(i);
            head.extend(if verbal && end == i { terms(i, i) } else { terms(start, end) });
        }
    }
    if yes_no {
        if let Some(first) = (1..words.len()).find(|&i| content(i)) {
            let (start, end) = bounds(first);
            let pronoun_subject = PERSONAL_PRONOUNS.contains(&words[start - 1].as_str());
            head.extend(match (verbal, pronoun_subject) {
                (true, true) => terms(start, start),
                (true, false) => terms(end, end),
                (false, _) => terms(start, end),
            });
        }
    }
    head
}

/// The clause that asks, when a statement sets the scene before it: "If the
/// variable is unset, *which program …*?", "Binaries are stripped by default;
/// *which option …*?". A question that opens with its wh-word, a preposition
/// and one, or an auxiliary is read whole (a later "which" there opens a
/// relative clause), and so is one whose clauses open with none.
pub(super) fn asking_clause(question: &str) -> &str {
    // "I deleted my account. Is it too late?": the last sentence that asks.
    let sentences = text::sentences(question);
    let question = match sentences.len() {
        0 | 1 => question,
        _ => sentences.iter().rev().find(|s| s.ends_with('?')).copied().unwrap_or(sentences[sentences.len() - 1]),
    };
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
    let asking: Vec<usize> = starts.filter(|&i| { let (wh, auxiliary) = opens(&question[i..]); wh || auxiliary }).collect();
    asking.last().map_or(question, |&i| question[i..].trim_start())
}

/// Where the question's own wh-word stands: first, or, in a statement-shaped
/// question, the last one ("… in what city?"). None for a yes/no question.
pub(super) fn wh_position(words: &[String]) -> Option<usize> {
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
pub(super) fn subject_names(question: &str, words: &[String], all_names: &[String]) -> Vec<String> {
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
pub(super) fn words_between(question: &str, start: usize, end: usize) -> &str {
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

pub(super) fn starts_yes_no(words: &[String]) -> bool {
    words.first().is_some_and(|w| AUXILIARIES.contains(&w.as_str()))
}

/// "a month", "per year", "each week": a rate per period.
fn at_a_rate(words: &[String]) -> bool {
    words.windows(2).any(|w| matches!(w[0].as_str(), "a" | "an" | "per" | "each" | "every") && !text::periods(&w[1]).is_empty())
}

/// "what is the …", "what are the …": the wh-word, a copula and an article.
fn asks_what_it_is(words: &[String]) -> bool {
    let Some(at) = wh_position(words) else { return false };
    let word = |k: usize| words.get(at + k).map_or("", String::as_str);
    word(0) == "what" && matches!(word(1), "is" | "are" | "was" | "were") && matches!(word(2), "the" | "a" | "an")
}

pub(super) fn asks_what_happens(words: &[String]) -> bool {
    words.windows(2).any(|w| w[0] == "what" && matches!(w[1].as_str(), "happens" | "happened" | "happen" | "if"))
}

/// The kind a question's wh-phrase asks for, and the words of the wh-phrase
/// that are not topic words ("long" in "how long", "year" in "what year").
pub(super) fn read_wh(words: &[String]) -> (Kind, Vec<String>) {
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
            "much" if !next(2).is_empty() && !AUXILIARIES.contains(&next(2)) && !text::stopwords::is_stopword(next(2)) && !PRICE_WORDS.contains(&next(2)) && !MONEY_NOUNS.contains(&next(2)) && next(2) != "extra" => one(Kind::Number, 1),
            // "How much extra a month …?": an amount at a rate per period, with no noun counted, is a price.
            "much" if at_a_rate(words) => one(Kind::Money, 1),
            "much" if PRICE_WORDS.iter().any(|p| words.iter().any(|w| w == p)) || AUXILIARIES.contains(&next(2)) => one(Kind::Money, 1),
            "many" => one(Kind::Count, 1),
            "much" | "old" => one(Kind::Number, 1),
            "long" if next(2) == "ago" => one(Kind::Time, 2),
            "long" => one(Kind::Duration, 1),
            "far" => one(Kind::Distance, 1),
            "often" | "frequently" => one(Kind::Frequency, 1),
            "soon" | "quickly" => one(Kind::Soon, 1),
            "early" | "late" => one(Kind::Time, 1),
            w if w.is_empty() || AUXILIARIES.contains(&w) || text::stopwords::is_stopword(w) => (Kind::Open, Vec::new()),
            // "how tightly", "how strictly", "how closely": an adverb of manner asks how, not how much.
            w if w.len() > 4 && w.ends_with("ly") => (Kind::Open, Vec::new()),
            // "how big", "how tall", "how heavy": a measure.
            _ => one(Kind::Number, 1),
        },
        _ => read_type_noun(words, at),
    }
}

/// "what year", "which city", "what is the population of", "which booking system".
pub(super) fn read_type_noun(words: &[String], at: usize) -> (Kind, Vec<String>) {
    let mut k = at + 1;
    // "what is the length of …": the noun after the copula and article.
    if words.get(k).is_some_and(|w| matches!(w.as_str(), "is" | "are" | "was" | "were")) && words.get(k + 1).is_some_and(|w| w == "the") {
        k += 2;
        // "What is the (maximum) number of …": the kind noun, past one modifier.
        if let Some(at) = (k..k + 2).find(|&i| words.get(i).and_then(|w| noun_kind(w)).is_some()) {
            let kind = noun_kind(&words[at]).unwrap_or(Kind::Open);
            return (kind, words[k..=at].to_vec());
        }
        return (Kind::Open, Vec::new());
    }
    if object_of_verb(&words[k..]) {
        return (Kind::Entity, Vec::new());
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

/// After "what", an auxiliary (not the copula), a personal pronoun and a
/// verb: "what" is the verb's object, so the question asks for the thing
/// ("what do I *put* there?", "what should we *write* in it?") whatever the
/// verb; but "do", "happen" and "mean" ask for an action, an event or a
/// sense ("what should I do", "what does it mean").
fn object_of_verb(after_wh: &[String]) -> bool {
    const COPULAS: &[&str] = &["is", "are", "was", "were", "am", "be", "been"];
    const NO_OBJECT: &[&str] = &["do", "happen", "mean"];
    match after_wh {
        [aux, subject, verb, ..] => {
            AUXILIARIES.contains(&aux.as_str())
                && !COPULAS.contains(&aux.as_str())
                && PERSONAL_PRONOUNS.contains(&subject.as_str())
                && !AUXILIARIES.contains(&verb.as_str())
                && !NO_OBJECT.contains(&verb.as_str())
                && !text::stopwords::is_stopword(verb)
        }
        _ => false,
    }
}

pub(super) fn noun_kind(noun: &str) -> Option<Kind> {
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
pub(super) fn conjuncts(question: &str, names: &[String]) -> Vec<String> {
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

/// The numbers a question states, but for "a second user", "a third
/// desk": after an indefinite article an ordinal means "another", not a rank.
pub(super) fn asked_quantities(question: &str) -> Vec<Quantity> {
    let lower = question.to_lowercase();
    // (Only in a statement before the clause that asks: "which step runs first?" asks the order.)
    let told = question.split(asking_clause(question)).next().unwrap_or("");
    let adverb = tells_order(told);
    text::quantities(question)
        .into_iter()
        .filter(|q| q.unit != text::Unit::Ordinal || !(lower.contains(&format!("a {}", q.written.to_lowercase())) || lower.contains(&format!("an {}", q.written.to_lowercase()))))
        .filter(|q| !(adverb && q.unit == text::Unit::Ordinal && q.written.eq_ignore_ascii_case("first")))
        .collect()
}

/// The asker tells the order they do things in: "first" ends a clause after
/// a verb's object, not after a determiner ("the target calls
/// `dpkg-gencontrol` *first*, then …", where "due on the first" names a day).
/// That is their account, not a number the answer must state.
fn tells_order(question: &str) -> bool {
    let words: Vec<&str> = question.split_whitespace().collect();
    words.windows(2).any(|pair| {
        let before = pair[0].trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let closes = pair[1].ends_with([',', '.', ';', ':', '?', '!']);
        pair[1].trim_end_matches([',', '.', ';', ':', '?', '!']).eq_ignore_ascii_case("first")
            && closes
            && !pair[0].ends_with([',', '.', ';', ':'])
            && !text::stopwords::is_stopword(&before)
            && !matches!(before.as_str(), "every" | "next" | "last")
    })
}

/// The words of an asking clause before its first subordinate clause.
pub(super) fn main_clause(words: &[String]) -> &[String] {
    &words[..words.iter().position(|w| SUBORDINATORS.contains(&w.as_str())).unwrap_or(words.len())]
}

/// The topic terms of the main clause (see [`Ask::main_terms`]), without
/// the wh-phrase and frame words (`consumed`).
pub(super) fn main_terms(words: &[String], consumed: &[String]) -> Vec<String> {
    let main = main_clause(words);
    if main.len() == words.len() {
        return Vec::new();
    }
    main.iter().flat_map(|w| text::terms(w)).filter(|t| !consumed.contains(t) && !text::is_numeric(t)).collect()
}

/// "Should the link be relative or absolute?": the content words directly
/// before and after an "or" that ends the question (lowercase alternatives;
/// named ones are [`options`]).
pub(super) fn alternatives(question: &str) -> Vec<String> {
    let words = lower_words(question);
    let Some(or) = words.iter().rposition(|w| w == "or") else { return Vec::new() };
    let content = |w: &String| !text::stopwords::is_stopword(w) && !AUXILIARIES.contains(&w.as_str()) && text::terms(w).first().is_some_and(|t| !text::is_numeric(t));
    match (or.checked_sub(1).and_then(|b| words.get(b)), words.get(or + 1)) {
        (Some(a), Some(b)) if or + 2 == words.len() && content(a) && content(b) && a != b => vec![a.clone(), b.clone()],
        _ => Vec::new(),
    }
}

/// A yes/no question's proposition: the first run of content words after
/// its auxiliary and subject (the head of the relation: "can I *bring* …"),
/// and the run after it, past its determiners (its object: "… my *dog*").
pub(super) fn proposition(words: &[String]) -> Vec<String> {
    let frame = frame_positions(words);
    let content = |i: usize| !text::stopwords::is_stopword(&words[i]) && !AUXILIARIES.contains(&words[i].as_str()) && !frame[i] && !is_peripheral(&words[i]);
    let runs: Vec<Vec<usize>> = (1..words.len()).fold(Vec::new(), |mut runs: Vec<Vec<usize>>, i| {
        if content(i) {
            match runs.last_mut() {
                Some(run) if run.last() == Some(&(i - 1)) => run.push(i),
                _ => runs.push(vec![i]),
            }
        }
        runs
    });
    runs.iter().take(2).flatten().flat_map(|&i| text::terms(&words[i])).filter(|t| !text::is_numeric(t)).collect()
}

/// "Can I do that?", "does it do so?": a form of "do" with "that", "so",
/// "it" or "this" after it stands for a verb phrase said before.
fn has_pro_verb(words: &[String]) -> bool {
    words.windows(2).any(|pair| matches!(pair[0].as_str(), "do" | "does" | "did") && matches!(pair[1].as_str(), "that" | "so" | "it" | "this"))
}

/// A yes/no question's condition (see [`Ask::condition`]): the proposition
/// of the clause a subordinator opens, read the way the question's own is.
pub(super) fn condition(words: &[String]) -> Vec<String> {
    let opens = |w: &String| SUBORDINATORS.contains(&w.as_str()) || TEMPORAL_SUBORDINATORS.contains(&w.as_str());
    words.iter().position(opens).map_or_else(Vec::new, |at| proposition(&words[at..]))
}

/// The names on either side of an "or" ("Arthur's Magazine or First for
/// Women", "the Growth plan or the Scale plan"): each the or's own conjunct,
/// at most a word (a noun, an article) between it and the "or"; names far
/// apart ("like Xvfb, with no display or input devices. … Provides")
/// are no alternatives, and nor are those a question of existence asks
/// about ("Is there an EPUB or PDF of Policy?" is answered yes or no: its
/// "or" joins what would do, it offers no choice).
pub(super) fn options(question: &str, all_names: &[String]) -> Vec<String> {
    let words_between = |text: &str| text.split_whitespace().count();
    question.to_lowercase().match_indices(" or ").find_map(|(or, marker)| {
        let (front, back) = (&question[..or], &question[or + marker.len()..]);
        if asks_existence(front) {
            return None;
        }
        let before = all_names.iter().find(|n| front.rfind(n.as_str()).is_some_and(|at| words_between(&front[at + n.len()..]) <= 1))?;
        let after = all_names.iter().find(|n| back.find(n.as_str()).is_some_and(|at| words_between(&back[..at]) <= 1))?;
        (before != after).then(|| vec![before.clone(), after.clone()])
    }).unwrap_or_default()
}

/// The sentence `front` ends in opens by asking whether something exists:
/// "Is there …", "Are there any …", "Was there …".
fn asks_existence(front: &str) -> bool {
    let sentence = text::sentences(front).pop().unwrap_or_default();
    let words = text::lower_words(sentence);
    matches!(words.as_slice(), [be, there, ..] if matches!(be.as_str(), "is" | "are" | "was" | "were") && there == "there")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::vocabulary::Vocabulary;

    fn ask(question: &str) -> Ask {
        Ask::parse(question, &Vocabulary::default())
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
            // An amount at a rate per period, with no noun counted, is a price; with one, a number of it.
            ("How much extra a month for two more seats?", Kind::Money),
            ("How much storage do I get each month?", Kind::Number),
            ("Is there a fee for paying late?", Kind::YesNo),
            ("How many guests can I bring?", Kind::Count),
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
            ("What is the maximum number of characters a package name may have?", Kind::Number),
            ("Why are dogs banned on Fridays?", Kind::Reason),
            ("What happens if I pay late?", Kind::Open),
            // "what" as the object of a verb after a pronoun subject asks for the thing; "do" asks for an action.
            ("The field wants a name and an address; what do I put there?", Kind::Entity),
            ("What should I do if I lose my key card?", Kind::Open),
            ("What did they mean by quiet hours?", Kind::Open),
            ("How do I cancel?", Kind::Open),
            ("How can I pause my plan?", Kind::Open),
            ("How tightly should the dependency be versioned?", Kind::Open),
            ("How big is the locker?", Kind::Number),
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
            ("How many bank accounts can I connect?", Some("accounts")),
            ("How many people fit in the Quay Room?", Some("people")),
            ("How many printed pages come with a plan?", Some("pages")),
            // A causative verb's complement is the relation.
            ("How should the package arrange for its logs to be rotated?", Some("rotated")),
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

    #[test]
    fn names_and_alternatives() {
        let a = ask("Which magazine was started first, Arthur's Magazine or First for Women?");
        assert_eq!(a.options, ["Arthur's Magazine", "First for Women"]);
        assert!(a.names.is_empty());
        assert_eq!(ask("Is the Growth plan or the Scale plan cheaper?").options, ["Growth", "Scale"]);
        assert!(ask("I read on paper. Is there an EPUB or PDF of the Handbook?").options.is_empty(), "a question of existence");
        assert!(ask("It is a bit like Xvfb, with no display or input devices. Should it declare Provides: xserver?").options.is_empty());
        assert_eq!(ask("What does the Flex Desk plan include?").names, ["Flex Desk"]);
    }

    /// An abbreviation the corpus never writes is read as a word, alone or
    /// at the edge of a longer name; one the corpus writes stays a name.
    #[test]
    fn an_unwritten_abbreviation_is_no_name() {
        let question = "My editor can be built with an X11 GUI that the GPL covers. Can I build it without the GUI?";
        let unused = crate::text::terms("gui");
        let read = ask(question).unnamed_abbreviations(&unused);
        assert_eq!(read.names, ["X11", "GPL"]);
        assert_eq!(ask(question).unnamed_abbreviations(&[]).names, ["X11 GUI", "GPL", "GUI"]);
    }

    /// The core: names and the head of the asked relation; after "do" or a
    /// modal, the verb; never a pronoun, a general noun or an adverb.
    #[test]
    fn the_core_of_a_question() {
        let core = |q: &str| ask(q).core_terms();
        assert!(core("How much is the gym add-on?").contains(&text::stem("gym")));
        assert!(core("Is there a late fee if I pay after the due date?").contains(&text::stem("fee")));
        assert!(!core("Can I bring my dog to the coworking space?").contains(&text::stem("coworking")));
        assert_eq!(core("What happens to lost items nobody claims?"), text::terms("claims"));
        assert!(core("What happens to my stuff?").is_empty());
        assert_eq!(core("What time does the cleaning crew come through?"), text::terms("come"));
        assert_eq!(core("Can my coworker use my membership?"), text::terms("use"));
        assert_eq!(core("How many bank accounts can I hook up on the Growth plan?"), text::terms("Growth accounts"));
        assert_eq!(core("Can I use Billwren just to keep track of my budget?"), text::terms("Billwren use"));
        assert_eq!(core("What is charged if I return the projector overdue?"), Vec::<String>::new());
        // A name of the asker's scene is no core, unless the clause that asks points back to it.
        assert!(!core("We're a small company in Dublin. Will you add VAT to our bill?").contains(&text::terms("Dublin")[0]));
        assert!(core("Will a small company in Dublin pay VAT?").contains(&text::terms("Dublin")[0]));
        assert!(core("I'm on the Zephyr plan. How much does it cost?").contains(&text::terms("Zephyr")[0]));
        assert_eq!(ask("I deleted my account and now I regret it. Is it too late to undo that?").kind, Kind::YesNo);
        let unwritten = |a: Ask| Ask { text: String::new(), asking: String::new(), ..a };
        assert_eq!(unwritten(ask("My friend is visiting, what's the wifi password for them?")), unwritten(ask("My friend is visiting, what is the wifi password for them?")));
        assert_eq!(ask("How much notice do members get before a price increase?").kind, Kind::Number);
        assert_eq!(ask("When a package lists keywords, through which variable does it get the command?").kind, Kind::Entity);
    }
}
