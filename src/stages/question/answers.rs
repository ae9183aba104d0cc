//! Whether an answer answers the question: a supported sentence is not an
//! answer when it names another subject, states no fact of the asked kind,
//! or states one in a clause about something else ("asked when the team was
//! founded, it quoted the driver's birth date").

use super::words::*;
use super::{Ask, Kind};
use crate::stages::evidence::Focus;
use crate::stages::support;
use crate::text::{self, literal, names, Quantity, Unit};

/// The share of the question's weight that the core sentence of an answer
/// must cover by itself (see [`Ask::answers`]).
pub const CORE_COVERAGE: f64 = 0.5;

impl Ask {
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
    /// verified claims cite; it picks one alternative; it does not only point
    /// elsewhere; no sentence is about another subject (another name, or the
    /// question's noun with another modifier); it answers the numbers of the
    /// clause that asks with numbers of their kind; a yes/no answer speaks of the
    /// question's proposition, and of the statement an "Is that …?" points
    /// back to; and a sentence of it states the asked kind of
    /// fact (read generously: a role or pronoun answers "who", a value answers
    /// "which … value"). Whether its words cover the question is the judge's
    /// call, not a word count's.
    pub fn answers_in_own_words(&self, focus: &Focus, answer: &str, grounds: &Grounds<'_>) -> Result<(), Miss> {
        let terms = text::terms(&format!("{answer}\n{}", grounds.cited));
        // The names of the clause that asks; a statement before it sets the scene
        // ("Packages that are not Debian-native ship …; in that file, how …?").
        let asked = |n: &&String| names::phrase_in(&self.asking, n);
        let missing: Vec<String> = self.names.iter().filter(asked).filter(|n| !names::mentions(&terms, n)).cloned().collect();
        // (A name the restated sentences speak of in general needs no naming: "a plan" holds of the Growth plan.)
        let missing: Vec<String> = missing.into_iter().filter(|n| !said_of_every(n, grounds) && !self.is_host(n)).collect();
        if !missing.is_empty() {
            return Err(Miss::Names(missing));
        }
        let answer_terms = text::terms(answer);
        if !self.options.is_empty() && self.options.iter().filter(|o| names::mentions(&answer_terms, o)).count() != 1 {
            return Err(Miss::Options(self.options.clone()));
        }
        if !self.alternatives.is_empty() && !self.alternatives.iter().any(|a| text::terms(a).iter().all(|t| answer_terms.contains(t))) {
            return Err(Miss::Options(self.alternatives.clone()));
        }
        let sentences = text::sentences(answer);
        if !sentences.is_empty() && sentences.iter().all(|s| is_pointer(s)) {
            return Err(Miss::Pointer);
        }
        // Once a sentence has spoken of the question's subject, a later one may name another
        // ("No, Starter has no multi-currency invoicing. Growth adds it.").
        let names_subject = |s: &&str| self.core_names.iter().any(|n| names::mentions(&text::terms(s), n));
        let other = sentences.iter().enumerate().find_map(|(i, s)| {
            let after_subject = sentences[..i].iter().any(names_subject);
            (!after_subject).then(|| self.other_subject(s, grounds)).flatten().or_else(|| self.sibling(s, &answer_terms, grounds.pairs))
        });
        if let Some(other) = other {
            return Err(Miss::OtherSubject(other));
        }
        if let Some(other) = sentences.iter().find_map(|s| self.other_period(s).or_else(|| self.dropped_condition(s, answer, grounds))) {
            return Err(Miss::OtherCondition(other));
        }
        // Numbers of a statement before the asking clause are given ("Given that each version has exactly one
        // tarball, …"; "I slipped on a Sunday … How do I report it?"); those the clause asks with are the answer's to meet.
        let asked: Vec<&Quantity> = self.quantities.iter().filter(|q| self.asking.contains(q.written.as_str())).collect();
        // The question's numbers are the answer's, or its evidence's ("the parts of two version numbers").
        let unanswered: Vec<String> = self.unanswered(&text::quantities(&format!("{answer}\n{}", grounds.cited))).into_iter().filter(|w| asked.iter().any(|q| &q.written == w)).collect();
        if !unanswered.is_empty() && !matches!(self.kind, Kind::YesNo) {
            return Err(Miss::Quantities(unanswered));
        }
        // "Can I take a call at 10 on a Tuesday?" is answered by a yes, a no, or the hours that decide it
        // ("… relative or absolute?" by one of them).
        let answer_quantities = text::quantities(answer);
        let meets = |asked: &Quantity| answer_quantities.iter().any(|q| q.unit == asked.unit || (is_clock_like(asked) && is_clock_like(q)));
        let polar = self.kind == Kind::YesNo && self.alternatives.is_empty() && self.options.is_empty();
        if polar && !asked.is_empty() && support::polarity(answer).is_none() && !asked.iter().any(|q| meets(q)) {
            return Err(Miss::Quantities(asked.iter().map(|q| q.written.clone()).collect()));
        }
        // "Yes" or "no" to what? The answer, or the source sentences it rests on, speak of the proposition:
        // of half its words at least, as a statement of it does, not of one word it shares with another
        // ("leave my bag in a locker overnight" is not answered by what a desk member leaves overnight).
        let stated = text::terms(&format!("{answer}\n{}", grounds.windows));
        // (A "yes" or "no" speaks of it by itself; the polar check reads it against the source.)
        let particle = support::polarity(answer).is_some();
        // (The host speaks in every passage: naming it says nothing of what is proposed of it.)
        let hosts: Vec<String> = self.hosts.iter().flat_map(|h| text::terms(h)).collect();
        let proposed: Vec<&String> = self.proposition.iter().filter(|t| !hosts.contains(t)).collect();
        if !particle && 2 * proposed.iter().filter(|t| stated.contains(t)).count() < proposed.len() {
            return Err(Miss::Kind(Kind::YesNo));
        }
        // Without a yes or a no, an answer to "… when the building is closed?" speaks of that case.
        if !particle && !self.condition.is_empty() && !self.condition.iter().any(|t| stated.contains(t)) {
            return Err(Miss::Kind(Kind::YesNo));
        }
        // "I need to scan receipts. Is *that* going to eat into my print allowance?" asks of what the scene
        // tells: the answer speaks of it, by a word (one read by meaning is the model's to word) or, when
        // the scene tells a number ("My son is 17 …"), by a number.
        if let Some(told) = self.scene() {
            let terms: Vec<String> = support::content_terms(told).into_iter().filter(|t| !focus.terms.iter().any(|f| &f.term == t && f.by_meaning)).collect();
            let by_word = terms.iter().any(|t| stated.iter().any(|s| text::same_word(t, s)));
            let by_number = !text::quantities(told).is_empty() && !answer_quantities.is_empty();
            if !terms.is_empty() && !by_word && !by_number {
                return Err(Miss::Kind(Kind::YesNo));
            }
        }
        // "What happens to items nobody claims?" asks what the relation brings about: the answer speaks of it.
        // A head read by meaning ("is there a *deadline*") is the model's to word.
        let head: Vec<&String> = self.head.iter().filter(|t| !focus.terms.iter().any(|f| &f.term == *t && f.by_meaning)).collect();
        // "What are the steps?" is answered by the steps, not by the word.
        if self.kind == Kind::Open && !self.asks_what_it_is && !head.is_empty() && !head.iter().any(|t| stated.iter().any(|s| text::same_word(t, s))) {
            return Err(Miss::Kind(Kind::Open));
        }
        // A sentence is about the question when it shares a word or a name with
        // it, or is the answer's first and opens with a pronoun, which then
        // stands for the question's subject ("It is $450 a month.").
        // A question whose every word is read by meaning ("the address of *the space*") is about what they mean.
        let meant = !focus.is_empty() && focus.terms.iter().all(|t| t.by_meaning);
        let about = |unit: &str| {
            let unit_terms = text::terms(unit);
            meant
                || focus.terms.iter().any(|t| unit_terms.contains(&t.term))
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
        if let Some(moved) = self.moved_filler(grounds) {
            return Err(Miss::Unstated(moved));
        }
        Ok(())
    }

    /// Who, where, which: the answer's filler of the asked slot must be what
    /// the source says there. A clause stating the asked kind that brings in
    /// words of the corpus the stretch it restates does not hold ("follow the
    /// instructions of the *reception staff*", where the source says "of the
    /// fire wardens"; "handled by *reception*", where it says "by the
    /// community manager") moves a fact from elsewhere. Words the corpus
    /// never uses are the model's own wording, and so are the words around a
    /// filler written as literal values the stretch writes.
    fn moved_filler(&self, grounds: &Grounds<'_>) -> Option<Vec<String>> {
        if !matches!(self.kind, Kind::Person | Kind::Place | Kind::Entity) {
            return None;
        }
        // The asked kind's noun is the question's, not moved in ("what *mode* …?" answered "mode 2775").
        let asked: Vec<String> = self.focus.iter().map(|(t, _)| t.clone()).chain(self.type_noun.clone()).collect();
        // The first clause that states the asked kind is the answer's filler; later ones add to it.
        let (clause, source) = grounds.alignments.iter().find_map(|(sentence, source)| {
            let sentence_names = names(sentence);
            text::clauses_of(sentence)
                .into_iter()
                .find(|clause| self.clause_states(clause, &text::terms(clause), &sentence_names) || self.generously_states(clause))
                .map(|clause| (clause.to_string(), source))
        })?;
        // "username" is stated by "user name": a compound the source writes apart.
        let mut source_terms = text::terms(source);
        source_terms.extend(text::closed_pairs(source));
        let moved: Vec<String> = support::content_terms(&clause)
            .into_iter()
            .filter(|t| !asked.contains(t) && !source_terms.contains(t) && grounds.used.contains(t))
            .collect();
        if moved.is_empty() {
            return None;
        }
        // A filler written as literal values the question did not give, each one written in the stretch
        // restated, is that stretch's own ("the `debian-installer` section *holds* …" where the source says
        // "contains"): the corpus words around it are the model's wording, not a fact moved in.
        // The clause's own stretch counts too: a sentence that joins two facts restates two stretches.
        let own_stretch = support::aligned_neighbourhood(&clause, grounds.cited).unwrap_or_default();
        let written = literal::Written::new([source.as_str(), own_stretch.as_str()], &self.text);
        let values: Vec<&str> = support::literal_spans(&clause).into_iter().filter(|v| !self.text.contains(v)).collect();
        let own_values = !values.is_empty() && values.iter().all(|v| written.writes(v));
        (!own_values).then_some(moved)
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
    /// of another plan, room or person than the one asked about. `known`
    /// holds the names of the passages, so a name that opens the sentence
    /// ("Growth customers …") or is written in lowercase is read as one. A
    /// sentence that opens with a pronoun ("It must lock in an NFS-safe way")
    /// speaks of what was named before it: the question's subject, or the
    /// sentence before, itself so checked.
    fn other_subject(&self, sentence: &str, grounds: &Grounds<'_>) -> Option<String> {
        if self.core_names.is_empty() {
            return None;
        }
        // The question's names, and the passages' names it writes itself ("debian/control" for `DEBIAN/control`).
        let written = names::named_in(&self.text, grounds.known);
        let asked: Vec<String> = self.names.iter().chain(&self.options).chain(&written).flat_map(|n| text::terms(n)).collect();
        let terms = text::terms(sentence);
        if self.names.iter().any(|n| names::mentions(&terms, n)) || opens_with_back_reference(sentence) {
            return None;
        }
        // A name the restated source clause writes beside the question's subject is part of what it
        // says of that subject ("a dispute about Billwren goes to the Wrenfield Labs legal team").
        let restated = grounds.alignments.iter().filter(|(s, _)| s == sentence).flat_map(|(_, stretch)| text::clauses_of(stretch)).map(text::terms);
        let beside: Vec<Vec<String>> = restated.filter(|c| self.core_names.iter().any(|n| names::mentions(c, n))).collect();
        // A name the sentence compares with ("the same way as the Maintainer field"), adds in brackets
        // ("(RFC822 format)") or gives as an illustration ("e.g. Jane Doe") is no subject of it,
        // and nor is the corpus's own host ("Billwren gives no refund for …").
        names::named_in(&without_asides(sentence), grounds.known)
            .into_iter()
            .filter(|n| !beside.iter().any(|c| names::mentions(c, n)) && !self.is_host(n))
            .find(|n| text::terms(n).iter().all(|t| !asked.contains(t)))
    }

    /// Whether `name` is one the corpus's host goes by (its vocabulary's
    /// `hosts`): the party every passage speaks for, so an answer need not
    /// name it ("What does Billwren charge …?" is answered by the charge).
    fn is_host(&self, name: &str) -> bool {
        self.hosts.iter().any(|h| text::terms(name) == text::terms(h))
    }

    /// A sentence about a sibling of the question's subject: it writes a noun
    /// of the question after another modifier ("day lockers" for "a permanent
    /// locker", "black-and-white page" for "a colour page", "the Dedicated
    /// Desk" for "a Flex Desk"), and the answer never writes the question's
    /// own modifier (an answer that names the asked kind may set another
    /// beside it: "… goes in the run-time library package instead").
    /// Both phrases must be the corpus's own (`corpus`: the pairs the
    /// passages write), so the corpus tells these kinds of the noun apart.
    /// The question may write its modifier apart from the noun ("what's the
    /// wifi password for my *guest*?", where the passages write "guest Wi-Fi").
    fn sibling(&self, sentence: &str, answer_terms: &[String], corpus: &[[(String, String); 2]]) -> Option<String> {
        let written = |modifier: &str, noun: &str| corpus.iter().any(|[m, n]| m.0 == modifier && n.0 == noun);
        let terms = answer_terms;
        let said = text::modifier_pairs(&without_asides(sentence));
        // A noun the question writes alone takes the modifier the passages write
        // before it when the question says that word too ("a *guest*'s … *Wi-Fi*").
        // (A hyphenated compound is one word: "system-wide" writes no "system"; nor does an identifier
        // write its pieces: "orig.tar.gz" writes no "tar".)
        let asked: Vec<String> = text::without_identifiers(&self.text).split_whitespace().flat_map(|w| text::terms(&w.replace('-', ""))).collect();
        // (Not the two words the other way round: "my billing month" is not "monthly billing".)
        let reversed = |m: &str, n: &str| self.pairs.iter().any(|[qm, qn]| qm.0 == n && qn.0 == m);
        let modified = |noun: &str| self.pairs.iter().any(|[_, n]| n.0 == noun);
        let spread = corpus.iter().filter(|[m, n]| !modified(&n.0) && !reversed(&m.0, &n.0) && asked.contains(&m.0) && asked.contains(&n.0));
        self.pairs.iter().chain(spread).filter(|[modifier, noun]| !terms.contains(&modifier.0) && written(&modifier.0, &noun.0)).find_map(|[modifier, noun]| {
            said.iter()
                .find(|[other, head]| {
                    head.0 == noun.0 && other.0 != modifier.0 && written(&other.0, &head.0) && !self.focus.iter().any(|(f, _)| *f == other.0) && !is_generic_adjective(&other.1)
                })
                .map(|[other, head]| format!("{} {}", other.1, head.1))
        })
    }

    /// A sentence that states its fact under another period than the
    /// question's: its condition ("If you pay annually, …", "On a monthly
    /// plan, …") names a billing or calendar period the question does not,
    /// where the question names another ("… if I pay month to month?").
    fn other_period(&self, sentence: &str) -> Option<String> {
        let asked = text::periods(&self.text);
        let condition = condition(sentence)?;
        let stated = text::periods(condition);
        let other = stated.iter().find(|p| !asked.contains(p))?;
        (!asked.is_empty() && !asked.iter().any(|p| stated.contains(p))).then(|| format!("{condition:?} ({other})"))
    }

    /// A clause of the answer that restates a source sentence stating its
    /// fact under a condition ("If the program is architecture independent,
    /// … `/usr/share` …") which neither the answer nor the question names
    /// any of, and the answer's sentence states no condition of its own:
    /// the answer gives a conditioned fact as the answer to a question that
    /// did not ask under that condition.
    fn dropped_condition(&self, sentence: &str, answer: &str, grounds: &Grounds<'_>) -> Option<String> {
        // A sentence that states a condition of its own, in whatever words, drops none.
        if open_condition(sentence).is_some() {
            return None;
        }
        let said = text::terms(&format!("{answer}\n{}", self.text));
        text::clauses_of(sentence).into_iter().find_map(|clause| {
            let source = support::aligned_sentence(clause, grounds.cited)?;
            let condition = open_condition(source)?;
            let terms = support::content_terms(condition);
            (!terms.is_empty() && !terms.iter().any(|t| said.contains(t))).then(|| format!("{condition:?} (a condition the question does not state)"))
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
        // (Not its price words: any priced sentence sharing a word would then be a price question's core.)
        let mut terms = text::terms(unit);
        terms.extend(self.excluded_terms(unit));
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
        // "What happens to my things if my account is downgraded?" asks about
        // the things: a sentence that only restates the condition answers nothing.
        if !self.main_terms.is_empty() && !self.main_terms.iter().any(|t| terms.contains(t)) {
            return Some(Miss::Scattered);
        }
        // "What happens to items nobody claims?": a quote about claiming them is about the other case.
        if self.negated && text::negations(unit) == 0 {
            return Some(Miss::Polarity);
        }
        // "Are X and Y both Z?" asks Z of each: a conjunct's sentence that
        // names it without saying Z affirms nothing about it.
        if conjunct.is_some() && self.kind == Kind::YesNo && !self.relation_terms().iter().all(|r| terms.iter().any(|t| t == r)) {
            return Some(Miss::Kind(self.kind));
        }
        let unanswered = self.unanswered(&text::quantities(unit));
        if !unanswered.is_empty() {
            return Some(Miss::Quantities(unanswered));
        }
        (!self.states_kind(unit)).then_some(Miss::Kind(self.kind))
    }

    /// The terms of `text` with the question's terms it answers without
    /// writing them: its price words, by an amount of money or "free" ("do
    /// I have to *pay* for coffee?"), and its numbers that "only" with
    /// another of their kind excludes (see [`Ask::excluded_terms`]).
    pub fn covered_terms(&self, text: &str) -> Vec<String> {
        let mut terms = text::terms(text);
        let lower = format!(" {} ", lower_words(text).join(" "));
        if states_price(&text::quantities(text), |list| has_phrase(&lower, list)) {
            terms.extend(self.focus.iter().map(|(t, _)| t).filter(|t| PRICE_TERMS.contains(t)).cloned());
        }
        terms.extend(self.excluded_terms(text));
        terms
    }

    /// The terms of the question's numbers that `text` excludes with "only"
    /// and another of their kind: "only on Fridays" answers "on a Tuesday".
    fn excluded_terms(&self, text: &str) -> Vec<String> {
        let only = only_values(text);
        self.quantities.iter().filter(|q| only.iter().any(|o| o.unit == q.unit && !o.agrees_with(q))).flat_map(|q| text::terms(&q.written)).collect()
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
            with_antecedents(text::clauses(sentence)).into_iter().filter(|c| !opens_pointer(c)).any(|clause| {
                let clause = clause.as_str();
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
        let has_phrase = |list: &[&str]| has_phrase(&lower, list);
        let new_name = || sentence_names.iter().any(|n| clause.contains(n.as_str()) && self.is_new(n));
        let new_term = |t: &String| !text::is_numeric(t) && !self.focus.iter().any(|(f, _)| f == t);
        // "after the package is unpacked": a time told by another event.
        let by_event = || self.after(&lower_words(clause), TEMPORAL_MARKERS, new_term);
        match self.kind {
            Kind::Person => new_name() || self.after(&lower_words(clause), &["by"], new_term),
            Kind::Place => self.after(&lower_words(clause), LOCATIVES, new_term) || (new_name() && has_phrase(LOCATIVES)),
            Kind::Time => new_quantities.iter().any(is_point_in_time) || has_phrase(TIME_WORDS) || by_event(),
            Kind::Soon => new_quantities.iter().any(|q| is_point_in_time(q) || q.unit.is_duration()) || has_phrase(TIME_WORDS) || by_event(),
            Kind::Year => new_quantities.iter().any(Quantity::is_year),
            Kind::Money => states_price(&new_quantities, has_phrase),
            Kind::Number => new_quantities.iter().any(|q| !matches!(q.unit, Unit::Weekday | Unit::Month | Unit::Clock | Unit::Ordinal)),
            Kind::Count => new_quantities.iter().any(|q| matches!(q.unit, Unit::Plain | Unit::Measure(_))),
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

    /// The numbers the question states that `stated` answers with none of their kind.
    fn unanswered(&self, stated: &[Quantity]) -> Vec<String> {
        self.quantities
            .iter()
            // A day of the month is written either way: "March 10th", "10 March".
            .filter(|asked| !stated.iter().any(|s| s.unit == asked.unit || (day_like(asked) && day_like(s))))
            .map(|q| q.written.clone())
            .collect()
    }

    /// The statement before a clause that asks of it with a demonstrative
    /// ("My son is 17 … *Is that* allowed?"): what the clause's "that" or
    /// "this" stands for. None for any other question.
    fn scene(&self) -> Option<&str> {
        let told = self.text.strip_suffix(self.asking.as_str())?;
        let words = text::lower_words(&self.asking);
        let demonstrative = words.len() > 1 && AUXILIARIES.contains(&words[0].as_str()) && matches!(words[1].as_str(), "that" | "this");
        (!told.trim().is_empty() && demonstrative).then_some(told)
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

/// What a model's answer is read with (see [`Ask::answers_in_own_words`]).
pub struct Grounds<'a> {
    /// The passages its verified claims cite, with their headings.
    pub cited: &'a str,
    /// The source sentences those claims align with, with their headings.
    pub windows: &'a str,
    /// Every name the retrieved passages use.
    pub known: &'a [String],
    /// The modifier pairs the retrieved passages write ([`text::modifier_pairs`]).
    pub pairs: &'a [[(String, String); 2]],
    /// Each sentence of the answer with the stretch of its cited passages it
    /// restates (see [`support::aligned_neighbourhood`]).
    pub alignments: &'a [(String, String)],
    /// The terms the retrieved passages use.
    pub used: &'a [String],
}

/// Determiners that make a noun phrase speak of any one of its kind.
const GENERIC_DETERMINERS: &[&str] = &["a", "an", "any", "every", "each", "all"];

/// The sentences an answer restates speak of `name`'s kind in general: the
/// passages write the name before a noun ("the *Growth plan*"), and those
/// sentences write that noun after a generic determiner with no other name
/// of it between ("an upgrade to *a higher Billwren plan*"), so
/// what they say holds for the named one too.
fn said_of_every(name: &str, grounds: &Grounds<'_>) -> bool {
    let own = text::terms(name);
    let Some(last) = own.last() else { return false };
    let nouns: Vec<&String> = grounds.pairs.iter().filter(|[m, _]| &m.0 == last).map(|[_, n]| &n.0).collect();
    // A sibling is another name written before the noun ("the *Basic* plan").
    let sibling = |word: &str, noun: &str| {
        text::terms(word).iter().any(|w| w != last && grounds.pairs.iter().any(|[m, n]| &m.0 == w && n.0 == noun && m.1.starts_with(char::is_uppercase)))
    };
    let words = lower_words(grounds.windows);
    words.iter().enumerate().any(|(at, w)| {
        GENERIC_DETERMINERS.contains(&w.as_str())
            && (at + 1..(at + 4).min(words.len())).any(|end| {
                let noun = text::terms(&words[end]);
                noun.first().is_some_and(|n| nouns.contains(&n)) && words[at + 1..end].iter().all(|between| !sibling(between, &noun[0]))
            })
    })
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
    /// The question negates what it asks about ("items nobody claims"); the answer does not.
    Polarity,
    /// It states its fact under another condition than the question's.
    OtherCondition(String),
    /// What it gives for the asked slot is not what the passage it restates says there.
    Unstated(Vec<String>),
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
            Miss::Polarity => "the question asks about what is not done, and the answer speaks of what is".into(),
            Miss::OtherCondition(condition) => format!("the answer states its fact under another condition than the question's: {condition}"),
            Miss::Unstated(words) => format!("the answer brings in {} from elsewhere in the documents; the passage it restates says otherwise", words.join(", ")),
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

/// The condition a sentence states its fact under: a fronted adverbial or
/// clause before its first comma ("If you pay annually, …", "On a monthly
/// plan, …"), or a clause an "if", "when" or "unless" opens later on.
fn condition(sentence: &str) -> Option<&str> {
    const OPENERS: &[&str] = &["if", "when", "whenever", "unless", "once", "on", "for", "with", "during", "after", "before", "in"];
    let first = sentence.split_whitespace().next()?.to_lowercase();
    if OPENERS.contains(&first.as_str()) {
        return sentence.split_once(',').map(|(condition, _)| condition);
    }
    let lower = sentence.to_lowercase();
    let at = [" if ", " when ", " unless "].iter().filter_map(|w| lower.find(w)).min()?;
    let rest = &sentence[at..];
    Some(rest.split([',', ';']).next().unwrap_or(rest))
}

/// The phrases of English that open a comparison: what follows is the
/// standard a thing is compared with, not the thing.
const COMPARISONS: &[&str] = &["the same way as", "the same as", "in the same way as", "similar to", "as with", "just like", "like"];

/// `sentence` without its asides: its illustrations (see
/// [`text::without_illustrations`]), what it writes in brackets, and its
/// comparison (see [`COMPARISONS`]), from the opener to the next mark that
/// closes a clause.
fn without_asides(sentence: &str) -> String {
    let sentence = text::without_illustrations(sentence);
    let mut bare = String::with_capacity(sentence.len());
    let mut depth = 0usize;
    for c in sentence.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    // (ASCII lowering keeps every byte where it was, so a match indexes `bare`.)
    let lower = format!(" {}", bare.to_ascii_lowercase());
    let Some(at) = COMPARISONS.iter().filter_map(|c| lower.find(&format!(" {c} "))).min() else { return bare };
    let end = bare[at..].find([',', ';', ':', '.']).map_or(bare.len(), |e| at + e);
    format!("{}{}", &bare[..at], &bare[end..])
}

/// The "if" or "unless" clause a sentence states its fact under, fronted or
/// later on, up to the comma, semicolon or bracket that closes it. A
/// condition inside an aside in brackets that does not open with it
/// ("… create the accounts (using `adduser` if it has this facility)")
/// qualifies the aside, not the sentence's fact; and a reduced one of a
/// single word ("if necessary", "if possible") names no condition.
fn open_condition(sentence: &str) -> Option<&str> {
    // (ASCII lowering keeps every byte where it was, so a match's end indexes the sentence.)
    let lower = sentence.to_ascii_lowercase();
    let in_aside = |at: usize| lower[..at].matches('(').count() > lower[..at].matches(')').count();
    let clause_at = |at: usize| sentence[at..].split([',', ';', ')']).next().unwrap_or(&sentence[at..]);
    let names_one = |at: usize| text::lower_words(clause_at(at)).len() > 2;
    let openers = [" if ", " unless ", "(if ", "(unless "].iter().flat_map(|w| lower.match_indices(*w).map(|(at, _)| (at + 1, w.starts_with('('))));
    let fronted = ["if ", "unless "].iter().filter(|w| lower.starts_with(**w)).map(|_| (0, true));
    let at = openers.chain(fronted).filter(|&(at, opens_aside)| (opens_aside || !in_aside(at)) && names_one(at)).map(|(at, _)| at).min()?;
    Some(clause_at(at))
}

/// `lower` (lowercase words, space-padded) holds one of the phrases of `list`, as whole words.
fn has_phrase(lower: &str, list: &[&str]) -> bool {
    list.iter().any(|p| lower.contains(&format!(" {p} ")))
}

/// A price is stated: an amount of money among `quantities`, or that it costs nothing.
fn states_price(quantities: &[Quantity], has_phrase: impl Fn(&[&str]) -> bool) -> bool {
    quantities.iter().any(|q| matches!(q.unit, Unit::Money(_))) || has_phrase(FREE_PHRASES)
}

/// Relative pronouns that open a clause about the noun before them.
const RELATIVE_PRONOUNS: &[&str] = &["which", "who", "whom", "whose"];

/// Each clause, a relative clause read with the clause it hangs on ("needs
/// a Day Pass, *which costs $35*": the cost is the Day Pass's).
fn with_antecedents(clauses: Vec<&str>) -> Vec<String> {
    (0..clauses.len())
        .map(|i| {
            let relative = lower_words(clauses[i]).first().is_some_and(|w| RELATIVE_PRONOUNS.contains(&w.as_str()));
            match i.checked_sub(1).filter(|_| relative) {
                Some(before) => format!("{} {}", clauses[before], clauses[i]),
                None => clauses[i].to_string(),
            }
        })
        .collect()
}

/// The values a text restricts a fact to with "only" ("allowed *only on
/// Fridays*"), up to the end of their clause.
fn only_values(text: &str) -> Vec<Quantity> {
    let lower = text.to_lowercase();
    lower
        .match_indices("only ")
        .filter(|(at, _)| !lower[..*at].ends_with(|c: char| c.is_alphanumeric()))
        .flat_map(|(at, word)| {
            let rest = &lower[at + word.len()..];
            text::quantities(&rest[..rest.find([',', ';', '.']).unwrap_or(rest.len())])
        })
        .collect()
}

/// A bare number or an ordinal: either may write a count or a day of the month.
fn day_like(q: &Quantity) -> bool {
    matches!(q.unit, Unit::Plain | Unit::Ordinal)
}

/// A time of day, or a bare number that may be one ("at 10").
fn is_clock_like(q: &Quantity) -> bool {
    matches!(q.unit, Unit::Clock | Unit::Plain)
}

/// A clock time, a day, a month, a year, or a date ("the 5th").
pub(super) fn is_point_in_time(q: &Quantity) -> bool {
    matches!(q.unit, Unit::Clock | Unit::Weekday | Unit::Month)
        || q.is_year()
        || (q.unit == Unit::Ordinal && q.written.starts_with(|c: char| c.is_ascii_digit()))
}

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

/// A clause that sends the reader elsewhere by name: "See Maintainer
/// scripts", "refer to “Hours & Access”", "cf. Chapter 6". The names in it
/// are places to look, not facts stated (lowercase after "see" is a verb's
/// object: "see you at the desk").
pub(super) fn opens_pointer(clause: &str) -> bool {
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

/// A sentence that points elsewhere ("see Section 4.9.1", "as described in
/// Annex III") instead of stating the fact: the ingest's own reading of
/// references ([`crate::corpus::references::points_elsewhere`]).
pub fn is_pointer(sentence: &str) -> bool {
    crate::corpus::references::points_elsewhere(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::vocabulary::Vocabulary;

    fn ask(question: &str) -> Ask {
        Ask::parse(question, &Vocabulary::default())
    }

    /// Whether `answer` answers `question`, every focus term equally rare.
    fn check(question: &str, answer: &str) -> Result<(), Miss> {
        let ask = ask(question);
        let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40);
        ask.answers(&focus, answer)
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
            // The counted noun, not the verb after it, is what the count is of.
            ("How many people fit in the Quay Room?", "The Quay Room seats 12 people and the Pier Room seats 6.", true),
            ("How many people fit in the Quay Room?", "The Quay Room can be booked for 3 hours.", false),
            // A relative clause speaks of the noun it hangs on: the cost is the locker's.
            ("What does a locker cost?", "Members can rent a locker, which costs $15 a month.", true),
            ("What does a locker cost?", "Members can rent a locker, which sits by the kitchen.", false),
        ];
        for &(question, answer, answers) in cases {
            let got = check(question, answer);
            assert_eq!(got.is_ok(), answers, "{question} / {answer}: {got:?}");
        }
    }

    /// `answer` to `question` read in its own words, with `cited` as the
    /// passage its claims cite (each sentence set against the stretch of it
    /// it restates).
    fn own_words(question: &str, answer: &str, cited: &str) -> Result<(), Miss> {
        own_words_beside(question, answer, cited, "")
    }

    /// [`own_words`], with `elsewhere`: passages of the corpus not retrieved.
    fn own_words_beside(question: &str, answer: &str, cited: &str, elsewhere: &str) -> Result<(), Miss> {
        read_own_words(&ask(question), answer, cited, elsewhere)
    }

    /// [`own_words_beside`] for a question read with a vocabulary.
    fn read_own_words(ask: &Ask, answer: &str, cited: &str, elsewhere: &str) -> Result<(), Miss> {
        let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40);
        let known = crate::text::names(cited);
        let pairs = crate::text::modifier_pairs(cited);
        let sentences = crate::text::sentences(answer);
        let alignments: Vec<(String, String)> = sentences.iter().map(|s| (s.to_string(), support::aligned_neighbourhood(s, cited).unwrap_or_default())).collect();
        let windows: String = sentences.iter().filter_map(|s| support::aligned_sentence(s, cited)).collect::<Vec<_>>().join("\n");
        let used: Vec<String> = crate::text::terms(cited).into_iter().chain(crate::text::terms(elsewhere)).collect();
        ask.answers_in_own_words(&focus, answer, &Grounds { cited, windows: &windows, known: &known, pairs: &pairs, alignments: &alignments, used: &used })
    }

    /// A model's answer in its own words: the names may sit in the cited
    /// passages, a role or pronoun answers "who", a value answers "which …",
    /// and a sentence about another plan is another subject.
    #[test]
    fn answers_in_own_words() {
        let cited = "The member pays for any damage a guest causes at Harbor Commons.";
        assert!(own_words("Who pays if a guest breaks something?", "You do: the member pays for damage their guest causes.", cited).is_ok());
        assert!(own_words("Which priority value should most packages use?", "Most packages should use `optional`.", "Packages should use priority optional.").is_ok());
        assert!(own_words("How much does the Dedicated Desk cost?", "It is $450 a month.", "A Dedicated Desk costs $450 per month.").is_ok(), "the name sits in the cited passage");
        let other = own_words("How much does the Dedicated Desk cost?", "A Flex Desk costs $220 per month.", "A Flex Desk costs $220 per month.");
        assert!(matches!(other, Err(Miss::Names(_)) | Err(Miss::OtherSubject(_))), "{other:?}");
        assert_eq!(own_words("How long is security footage kept?", "Lost property is held for 30 days.", "Lost property is held for 30 days."), Err(Miss::Kind(Kind::Duration)));
        assert!(own_words("Can I bring my dog?", "Yes, on Fridays.", "Dogs are allowed on Fridays.").is_ok());
    }

    /// An open question's relation may be spoken of by its noun: "register" by "registration".
    #[test]
    fn a_relation_is_spoken_of_by_its_noun() {
        let cited = "Registration of a printer driver: put a file named after the package in the drivers directory.";
        let question = "How do I register my printer driver?";
        assert!(own_words(question, "Put a file named after the package in the drivers directory.", cited).is_ok());
        let unrelated = own_words(question, "Drivers are kept in the drivers directory.", "Drivers are kept in the drivers directory.");
        assert_eq!(unrelated, Err(Miss::Kind(Kind::Open)));
    }

    /// "What are the steps …?" asks what they are: the steps answer it without
    /// the word. A question whose relation is a verb is still answered by
    /// speaking of that relation.
    #[test]
    fn what_a_thing_is_is_answered_without_its_kind_word() {
        let cited = "To repot a fern, water it the day before, lift it out with the root ball whole, and set it in a pot one size larger.";
        let answer = "Water the fern the day before, lift it out with its root ball whole, and set it in a pot one size larger.";
        assert!(own_words("What are the steps for repotting a fern?", answer, cited).is_ok());
        let unrelated = "Ferns are kept out of direct sun.";
        assert_eq!(own_words("How do I repot a fern?", unrelated, unrelated), Err(Miss::Kind(Kind::Open)));
    }

    /// A name the answer only compares with, adds in brackets or illustrates with is not what it speaks of.
    #[test]
    fn a_name_in_an_aside_is_no_other_subject() {
        let cited = "In the Changed-By field the name is written first, then an email address in angle brackets, in the same format as the Maintainer field.";
        let question = "How is the name written in the Changed-By field?";
        for answer in [
            "The same way as the Maintainer field: the name is written first, then the email address in angle brackets.",
            "The name is written first, then the email address in angle brackets (as in the Maintainer field).",
            "The name is written first, then the email address in angle brackets, e.g. Jane Doe <jane@example.org>.",
        ] {
            let shown = own_words(question, answer, cited);
            assert!(shown.is_ok(), "{answer}: {shown:?}");
        }
        // Said of the other name itself, it is another subject.
        let other = own_words(question, "In the Maintainer field the name is written first, then the email address in angle brackets.", cited);
        assert!(matches!(other, Err(Miss::OtherSubject(_))), "{other:?}");
    }

    /// A sentence that opens with a pronoun speaks of what was named before
    /// it, the question's subject for the answer's first sentence: a name it
    /// brings in says something of that subject.
    #[test]
    fn a_sentence_that_refers_back_speaks_of_the_subject() {
        let cited = "Mail servers must lock mailboxes in an NFS-safe way, using fcntl() locking and dot locking together.";
        let question = "I'm packaging Quillmail, an IMAP server that rewrites mailboxes. How must it lock a mailbox?";
        let back = own_words(question, "It must lock them in an NFS-safe way, with fcntl() locking and dot locking together.", cited);
        assert!(back.is_ok(), "{back:?}");
        // With the name as its subject, the sentence speaks of it.
        let other = own_words(question, "NFS mailboxes are locked with fcntl() locking and dot locking together.", cited);
        assert!(matches!(other, Err(Miss::OtherSubject(_))), "{other:?}");
    }

    /// An answer that has spoken of the question's subject may go on to
    /// another ("… Growth adds it"); one that never does speaks of another.
    #[test]
    fn a_later_sentence_may_name_another_subject() {
        let cited = "The Starter plan does not include multi-currency invoicing. The Growth plan adds multi-currency invoicing.";
        let question = "I'm on the Starter plan. Can I invoice a client in another currency?";
        let on = own_words(question, "No, the Starter plan doesn't include multi-currency invoicing. You'd need to move up to Growth, which adds it.", cited);
        assert!(on.is_ok(), "{on:?}");
        let other = own_words(question, "The Growth plan adds multi-currency invoicing.", cited);
        assert!(matches!(other, Err(Miss::OtherSubject(_))), "{other:?}");
    }

    /// "Is that …?" asks of the statement before it: an answer speaks of
    /// what it tells, by a word or, for a number it tells, by a number.
    #[test]
    fn a_demonstrative_question_is_answered_about_its_scene() {
        let cited = "Scanning on the printers is free and unlimited for members. Each colour page printed counts as 5 black-and-white pages against the monthly print quota.";
        let question = "I need to scan a pile of receipts. Is that going to count against my print quota?";
        let right = own_words(question, "No, scanning on the printers is free and unlimited for members.", cited);
        assert!(right.is_ok(), "{right:?}");
        let other = own_words(question, "Each colour page you print counts as 5 black-and-white pages against your monthly print quota.", cited);
        assert_eq!(other, Err(Miss::Kind(Kind::YesNo)));
        let age = own_words("My son is 17 and wants his own membership. Is that allowed?", "No, members have to be at least 18 years old.", "Members must be at least 18 years old.");
        assert!(age.is_ok(), "{age:?}");
    }

    /// A number the asker tells before the clause that asks sets the scene;
    /// one the asking clause states is the answer's to meet.
    #[test]
    fn a_number_of_the_scene_is_given() {
        let cited = "Outside staffed hours, members report injuries through the incident form in the member app.";
        let answer = "Outside staffed hours, you report injuries through the incident form in the member app.";
        let told = own_words("I slipped in the corridor on a Sunday and hurt my wrist. How do I report the injury?", answer, cited);
        assert!(told.is_ok(), "{told:?}");
        let asked = own_words("How do I report an injury on a Sunday?", answer, cited);
        assert_eq!(asked, Err(Miss::Quantities(vec!["Sunday".into()])));
    }

    /// The corpus's own host, named in its vocabulary, speaks for every
    /// passage: a sentence naming it is about the question's subject. A name
    /// the vocabulary does not list stays another subject.
    #[test]
    fn the_corpus_host_is_no_other_subject() {
        let cited = "A downgrade from Growth to Starter takes effect at the end of the billing period, and Billwren gives no refund for the rest of that period. Extra Users are billed by the month.";
        let question = "If I switch from Growth to Starter mid-month, do I get anything back?";
        let read = |hosts: &[&str], answer: &str| {
            let vocabulary = Vocabulary { hosts: hosts.iter().map(|h| h.to_string()).collect(), ..Vocabulary::default() };
            read_own_words(&Ask::parse(question, &vocabulary), answer, cited, "")
        };
        let answer = "No. Billwren gives no refund for the rest of that period.";
        assert!(read(&["Billwren"], answer).is_ok(), "{:?}", read(&["Billwren"], answer));
        assert!(matches!(read(&[], answer), Err(Miss::OtherSubject(_))), "{:?}", read(&[], answer));
        // Listing the host lets no other name through.
        let other = read(&["Billwren"], "No. Extra Users are billed by the month.");
        assert!(matches!(other, Err(Miss::OtherSubject(_))), "{other:?}");
    }

    /// The host a question names as the one who says or requires ("What does
    /// Policy require …?") need not be named again by the answer; any other
    /// name of the question must be, in the answer or its cited passages.
    #[test]
    fn the_corpus_host_needs_no_naming() {
        let cited = "Scripts in other shells must be installed with a dependency on the shell that runs them.";
        let read = |hosts: &[&str], question: &str| {
            let vocabulary = Vocabulary { hosts: hosts.iter().map(|h| h.to_string()).collect(), ..Vocabulary::default() };
            read_own_words(&Ask::parse(question, &vocabulary), "Yes, with a dependency on the shell that runs them.", cited, "")
        };
        let question = "My helper scripts are written in csh. Does Policy let me install them?";
        assert!(read(&["Policy"], question).is_ok(), "{:?}", read(&["Policy"], question));
        assert!(matches!(read(&[], question), Err(Miss::Names(_))), "{:?}", read(&[], question));
        // Naming the host is not speaking of what the question proposes of it.
        let billing = "Billwren bills in US dollars. Conversion fees charged by your bank are paid by you, and Billwren does not refund them.";
        let polar = |answer: &str| {
            let vocabulary = Vocabulary { hosts: vec!["Billwren".into()], ..Vocabulary::default() };
            read_own_words(&Ask::parse("My bank charges a conversion fee. Will Billwren refund it?", &vocabulary), answer, billing, "")
        };
        assert!(polar("Conversion fees charged by your bank are paid by you; they are not refunded.").is_ok());
        assert!(matches!(polar("Billwren bills in US dollars."), Err(Miss::Kind(Kind::YesNo))), "{:?}", polar("Billwren bills in US dollars."));
        // Another name of the question is still the answer's to name.
        let other = read(&["Policy"], "My helper scripts are written in csh. Does Lintian let me install them?");
        assert!(matches!(&other, Err(Miss::Names(n)) if n == &["Lintian"]), "{other:?}");
    }

    /// A modifier the question writes apart from its noun, which the passages
    /// write before it, still tells the noun's kinds apart; an answer that
    /// names the asked kind may set another beside it.
    #[test]
    fn a_modifier_written_apart_still_names_the_kind() {
        let cited = "The staff parking permit is issued at the facilities desk. The visitor parking permit is issued at the gate.";
        let question = "My visitor is coming by car; where do they get a parking permit?";
        assert!(matches!(own_words(question, "The staff parking permit is issued at the facilities desk.", cited), Err(Miss::OtherSubject(_))));
        assert!(own_words(question, "The visitor parking permit is issued at the gate.", cited).is_ok());
        assert!(own_words("Where do I get a parking permit?", "The staff parking permit is issued at the facilities desk.", cited).is_ok(), "the question names no kind");
        // A generic adjective ("any *particular* attendant") names no kind, and a hyphenated compound
        // ("*system-wide*") no noun of its own.
        let mail = "The user mail lives in /var/mail. It is not owned by any particular mail agent.";
        assert_eq!(ask("Which directory holds the user mail?").sibling("It is not owned by any particular mail agent.", &crate::text::terms("It is not owned by any particular mail agent."), &crate::text::modifier_pairs(mail)), None);
        let cited_overrides = "The shlibs system reads overrides first. The global override file is maintained by the local system administrator.";
        let shown = own_words("Is there a system-wide override file for shlibs?", "Yes, a global override file, maintained by the local system administrator.", cited_overrides);
        assert!(shown.is_ok(), "{shown:?}");
        // An answer that speaks of the asked kind may set another kind beside it, in another sentence.
        let both = "The visitor parking permit is issued at the gate. A staff parking permit is issued at the facilities desk.";
        assert!(own_words(question, both, cited).is_ok(), "it names the visitor permit too");
        let cited = "A monthly membership renews on the 1st. The current membership card is valid until it is renewed.";
        assert!(own_words("When does my membership month start?", "The current membership card is valid until it is renewed on the 1st.", cited).is_ok(), "'membership month' is not 'monthly membership'");
    }

    /// An identifier names one thing: its pieces ("tar" in "orig.tar.gz")
    /// are no modifier that names the question's kind of a noun.
    #[test]
    fn an_identifier_names_no_kind() {
        let cited = "A tar file holds the upstream source. The diff may not change the mode of special files.";
        let answer = "No, the diff may not change the mode of special files.";
        let shown = own_words("My package uses an orig.tar.gz and a diff. Can the diff change a file's mode?", answer, cited);
        assert!(shown.is_ok(), "{shown:?}");
        // Written as a word, the modifier still names the kind.
        let sibling = own_words("My package ships a tar file and a diff. Can the diff change a file's mode?", answer, cited);
        assert!(matches!(sibling, Err(Miss::OtherSubject(_))), "{sibling:?}");
    }

    /// A name the question asks about need not be named where the sentences
    /// the answer restates speak of its kind in general ("a plan"); a
    /// sibling's modifier ("a Basic plan") is no such phrase.
    #[test]
    fn a_name_said_of_in_general_needs_no_naming() {
        // The retrieved passages write the plans' names before "plan"; the answer cites only the last sentence.
        let retrieved = crate::text::modifier_pairs("The Basic plan costs $5. The Plus plan costs $9.");
        let read = |question: &str, answer: &str, cited: &str| {
            let ask = ask(question);
            let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40);
            let pairs: Vec<_> = retrieved.iter().cloned().chain(crate::text::modifier_pairs(cited)).collect();
            let alignments = vec![(answer.to_string(), cited.to_string())];
            let used = crate::text::terms(cited);
            ask.answers_in_own_words(&focus, answer, &Grounds { cited, windows: cited, known: &[], pairs: &pairs, alignments: &alignments, used: &used })
        };
        let general = "A change to a higher plan takes effect at once.";
        assert!(read("When does a change to the Plus plan take effect?", "It takes effect at once.", general).is_ok());
        let sibling = "A change to a Basic plan takes effect at the month's end.";
        assert!(matches!(read("When does a change to the Plus plan take effect?", "It takes effect at the month's end.", sibling), Err(Miss::Names(_))));
    }

    /// Without a yes or a no, an answer to a yes/no question asked under a
    /// condition speaks of that condition: a true sentence about the
    /// proposition alone answers another question.
    #[test]
    fn a_polar_answer_without_a_particle_speaks_of_the_condition() {
        let question = "Do members get a discount when the pool shuts early?";
        let cited = "Members get a 10% discount on next month's fee when the pool shuts early. Discounts are applied to the next invoice.";
        assert_eq!(own_words(question, "Discounts are applied to the next invoice.", cited), Err(Miss::Kind(Kind::YesNo)));
        assert!(own_words(question, "Members get 10% off next month's fee when the pool shuts early.", cited).is_ok());
        assert!(own_words(question, "Yes, 10% off next month's fee.", cited).is_ok());
    }

    /// A yes/no question's numbers are asked in its asking clause: those of a
    /// statement before it are given, and an answer need not meet them.
    #[test]
    fn a_given_number_is_not_asked() {
        let cited = "After a renewal the old key keeps working until the new key is issued.";
        let answer = "After a renewal the old key keeps working until the new key is issued.";
        let given = "Given that each member holds exactly 1 key, does the old key keep working after a renewal?";
        let got = own_words(given, answer, cited);
        assert!(got.is_ok(), "{got:?}");
        let asked = "Does the old key keep working for 2 days after a renewal?";
        assert_eq!(own_words(asked, answer, cited), Err(Miss::Quantities(vec!["2 days".into()])));
    }

    /// The order the asker tells ("… calls it first, then …") is theirs, not a number to state.
    #[test]
    fn the_askers_order_is_not_asked() {
        let cited = "The indexer must run after the files are copied, because it reads them.";
        let answer = "The indexer must run after the files are copied, because it reads them.";
        let told = "My script runs the indexer first, then copies the files. Why is that order wrong?";
        assert!(own_words(told, answer, cited).is_ok(), "{:?}", own_words(told, answer, cited));
        let asked = "Which step runs first?";
        assert!(ask(asked).quantities.iter().any(|q| q.written == "first"), "a question asking the order asks it");
    }

    /// "Can I do that …?" asks the proposition of the statement before it:
    /// without a yes or a no, the answer speaks of it, not only of the plan.
    #[test]
    fn do_that_stands_for_the_statement_before_it() {
        let question = "I want to rent a locker every week. Can I do that with a Day Pass?";
        let cited = "A Day Pass includes a hot desk and coffee. Day Pass holders can rent a locker by the week.";
        assert_eq!(own_words(question, "A Day Pass includes a hot desk and coffee.", cited), Err(Miss::Kind(Kind::YesNo)));
        assert!(own_words(question, "Day Pass holders can rent a locker by the week.", cited).is_ok());
    }

    /// Without a yes or a no, an answer speaks of half the proposition at
    /// least: one word it shares with another fact is another question's answer.
    #[test]
    fn a_polar_answer_without_a_particle_speaks_of_the_proposition() {
        let question = "Can I leave my gym bag in a free locker overnight?";
        assert_eq!(ask(question).proposition, ["leav", "gym", "bag"]);
        let desk = "Dedicated Desk members may leave equipment on their desk overnight.";
        assert_eq!(own_words(question, desk, desk), Err(Miss::Kind(Kind::YesNo)));
        let lockers = "Free lockers are emptied every night; gym bags left in them go to lost property.";
        assert!(own_words(question, "Free lockers are emptied every night, and a gym bag left there goes to lost property.", lockers).is_ok());
    }

    /// "When …?" is answered by another event as well as by a date: "after
    /// the package is unpacked" states a time; "once a year" does not.
    #[test]
    fn an_event_answers_when() {
        let cited = "The script runs after the package is unpacked. It runs once a year on the first of March.";
        let question = "When does the script run?";
        assert!(own_words(question, "It runs after the package is unpacked.", cited).is_ok());
        assert!(own_words(question, "It runs on the first of March.", cited).is_ok());
        assert_eq!(own_words(question, "The script runs once a year.", cited), Err(Miss::Kind(Kind::Time)));
        assert_eq!(own_words(question, "The script is run by the package.", cited), Err(Miss::Kind(Kind::Time)));
    }

    /// A question whose every word is read by meaning is about what they
    /// mean: the answer need not repeat a word the corpus never uses.
    #[test]
    fn a_question_read_by_meaning_is_answered_in_the_corpus_words() {
        let question = "What's the address of the space?";
        let (answer, cited) = ("Harbor Commons is at 14 Pier Street.", "Harbor Commons operates one location at 14 Pier Street.");
        let ask = ask(question);
        let read = |meant: &[String]| {
            let focus = Focus::new(&ask.focus, &vec![0; ask.focus.len()], 40).meant(meant, &[]);
            let alignments = vec![(answer.to_string(), cited.to_string())];
            let used = crate::text::terms(cited);
            let known = crate::text::names(cited);
            ask.answers_in_own_words(&focus, answer, &Grounds { cited, windows: cited, known: &known, pairs: &[], alignments: &alignments, used: &used })
        };
        assert!(read(&crate::text::terms("space")).is_ok());
        assert_eq!(read(&[]), Err(Miss::Kind(Kind::Place)));
    }

    /// The head of an open question read by meaning is the model's to word:
    /// "ask for a credit" is answered by "claim a credit".
    #[test]
    fn a_head_read_by_meaning_may_be_reworded() {
        let ask = ask("How do I ask for a service credit, and is there a deadline?");
        let (answer, cited) = ("You claim a service credit through a support ticket within 30 days.", "A customer claims a service credit through a support ticket within 30 days.");
        let read = |meant: &[String]| {
            let focus = Focus::new(&ask.focus, &vec![1; ask.focus.len()], 40).meant(meant, &[]);
            let alignments = vec![(answer.to_string(), cited.to_string())];
            let used = crate::text::terms(cited);
            ask.answers_in_own_words(&focus, answer, &Grounds { cited, windows: cited, known: &[], pairs: &[], alignments: &alignments, used: &used })
        };
        assert!(read(&crate::text::terms("ask deadline")).is_ok());
        assert_eq!(read(&[]), Err(Miss::Kind(ask.kind)));
    }

    /// The filler of "who" moved in from a passage not retrieved is caught as
    /// one moved from a retrieved one: the corpus uses the word, the stretch
    /// the answer restates does not.
    #[test]
    fn a_filler_from_anywhere_in_the_corpus_is_moved() {
        let cited = "Private office requests are handled by the community manager.";
        let elsewhere = "Mail is held at reception for 30 days.";
        let question = "Who do I talk to about renting a private office?";
        assert!(own_words_beside(question, "Private office requests are handled by the community manager.", cited, elsewhere).is_ok());
        let moved = own_words_beside(question, "Private office requests are handled by reception.", cited, elsewhere);
        assert!(matches!(&moved, Err(Miss::Unstated(words)) if words == &["recept"]), "{moved:?}");
        // A filler written as the stretch's own literal value is the source's, whatever verb carries it;
        // a value the stretch does not write leaves the moved words moved.
        let cited = "The `night-queue` queue contains requests for a private office.";
        let elsewhere = "Reception holds parcels for 30 days.";
        let question = "Which queue takes private office requests?";
        assert!(own_words_beside(question, "The `night-queue` queue holds private office requests.", cited, elsewhere).is_ok());
        let moved = own_words_beside(question, "The `late-queue` queue holds private office requests.", cited, elsewhere);
        assert!(matches!(&moved, Err(Miss::Unstated(words)) if words == &["hold"]), "{moved:?}");
        // A relative pronoun is no filler, though the stretch restated does not write it.
        let cited = "Guests use the guest network. The guest password is shown at reception.";
        let whose = own_words_beside("Where do guests find the guest password?", "Guests use the guest network, whose password is shown at reception.", cited, "A locker whose key is lost is opened by staff.");
        assert!(whose.is_ok(), "{whose:?}");
        // The asked kind's noun is the question's own ("what *mode* …?"), wherever else the corpus uses it.
        let cited = "The site directory should have permissions 2775 and be owned by root:staff.";
        let shown = own_words_beside("What mode should the site directory get?", "The site directory gets mode 2775.", cited, "The mode of a file is changed with chmod.");
        assert!(shown.is_ok(), "{shown:?}");
    }

    #[test]
    fn a_fact_the_source_conditions_is_no_answer_without_its_condition() {
        let cited = "Helper programs should be placed (if they are binary) in a subdirectory of `/usr/lib`. If the program is architecture independent, it should be placed in a subdirectory of `/usr/share` instead.";
        let question = "Where should the helper binary of my library be installed?";
        let shown = own_words(question, "It should be placed in a subdirectory of `/usr/lib`.", cited);
        assert!(shown.is_ok(), "{shown:?}");
        let dropped = own_words(question, "It should be placed in a subdirectory of `/usr/share`.", cited);
        assert!(matches!(&dropped, Err(Miss::OtherCondition(c)) if c.contains("architecture independent")), "{dropped:?}");
        // Stated by the answer or by the question, the condition is the one asked about.
        let stated = own_words(question, "If the helper is architecture independent, it should be placed in a subdirectory of `/usr/share`.", cited);
        assert!(stated.is_ok(), "{stated:?}");
        // In the answer's own words too: a sentence stating its fact under a condition of its own drops none.
        let own = own_words(question, "If the helper runs the same on every kind of machine, it should be placed in a subdirectory of `/usr/share`.", cited);
        assert!(own.is_ok(), "{own:?}");
        assert!(own_words("Where should an architecture independent helper program be installed?", "It should be placed in a subdirectory of `/usr/share`.", cited).is_ok());
    }

    /// A condition inside a bracketed aside qualifies the aside, and a
    /// one-word "if necessary" names none; the same condition set on the
    /// sentence's fact is one an answer drops.
    #[test]
    fn a_condition_inside_an_aside_qualifies_the_aside() {
        let question = "Which uid range should my obscure package use, and who creates the accounts?";
        let aside = "These packages should check for and create the accounts (using `adduser` if it has this facility) if necessary.";
        assert!(own_words(question, "Your package should check for the accounts and create them itself.", aside).is_ok());
        // The same condition on the sentence's fact is one the answer drops.
        let fronted = "If the ids are dynamic, these packages should check for and create the accounts.";
        let dropped = own_words(question, "Your package should check for the accounts and create them itself.", fronted);
        assert!(matches!(&dropped, Err(Miss::OtherCondition(c)) if c.contains("dynamic")), "{dropped:?}");
    }

    #[test]
    fn a_filler_that_fills_the_sources_template_with_the_askers_value_is_its_own() {
        let cited = "Log files must be rotated. Install a configuration file in `/etc/logrotate.d` that rotates them, such as: /var/log/foo/*.log { weekly }";
        let question = "My daemon logs to /var/log/mydaemon/; which files does the logrotate configuration name?";
        assert!(own_words(question, "It names `/var/log/mydaemon/*.log` in `/etc/logrotate.d`.", cited).is_ok());
        // A path the template does not give is moved in from elsewhere.
        let moved = own_words_beside(question, "It names `/var/cache/mydaemon/*.log` in `/etc/logrotate.d`.", cited, "Caches go under /var/cache.");
        assert!(moved.is_err(), "{moved:?}");
    }

    #[test]
    fn an_amount_or_free_covers_the_price_words() {
        let ask = ask("Do I have to pay for coffee?");
        let pay = crate::text::stem("pay");
        assert!(ask.covered_terms("Coffee and tea are free for members.").contains(&pay));
        assert!(ask.covered_terms("A coffee costs $2.").contains(&pay));
        // Without an amount, the price word stays uncovered, and the rest is the text's own terms.
        let plain = ask.covered_terms("Coffee and tea are in the kitchen.");
        assert!(!plain.contains(&pay) && plain.contains(&crate::text::stem("kitchen")));
    }

    #[test]
    fn only_with_another_value_answers_the_asked_one() {
        let ask = ask("Can I use the roof terrace on a Monday?");
        let monday = crate::text::stem("monday");
        // "Only on Saturdays" says no to a Monday; the asked day is answered.
        assert!(ask.covered_terms("The roof terrace is open only on Saturdays.").contains(&monday));
        // Without "only", another day says nothing of Monday; and "only" with the asked day itself adds nothing.
        assert!(!ask.covered_terms("The roof terrace is open on Saturdays.").contains(&monday));
        assert!(ask.excluded_terms("The roof terrace is open only on Mondays.").is_empty());
    }

    /// Paired: for each rule, an answer in a model's own words that states
    /// the asked fact is shown, and a fluent one about something else is not.
    #[test]
    fn paired_answers_in_own_words() {
        type Refused = fn(&Result<(), Miss>) -> bool;
        let cases: &[(&str, &str, &str, &str, Refused)] = &[
            // Another kind of the question's noun, as the corpus tells its kinds apart.
            (
                "How much does a permanent locker cost?",
                "A permanent locker costs $25 per month. Day lockers are free for all members.",
                "A permanent locker is $25 a month.",
                "Day lockers are free for all members.",
                |r| matches!(r, Err(Miss::OtherSubject(_))),
            ),
            // Another billing period than the question's.
            (
                "How much is Starter if I pay month to month?",
                "Starter costs $12.50 per month on monthly billing, or $120 per year on annual billing.",
                "Starter costs $12.50 a month when you pay month to month.",
                "If you pay for Starter annually, it costs $120 a year.",
                |r| matches!(r, Err(Miss::OtherCondition(_))),
            ),
            // One of the question's alternatives.
            (
                "Should a link between two top-level directories be relative or absolute?",
                "Links between top-level directories should be absolute. Links to compressed files keep their extension.",
                "It should be absolute.",
                "Links to compressed files keep their extension.",
                |r| matches!(r, Err(Miss::Options(_))),
            ),
            // How many asks for a count, not a price.
            (
                "How many lockers are there?",
                "There are 40 lockers on the ground floor. A permanent locker costs $25 per month.",
                "There are 40 lockers, on the ground floor.",
                "A permanent locker costs $25 per month.",
                |r| matches!(r, Err(Miss::Kind(Kind::Count))),
            ),
            // Who: the filler is what the restated sentence says there, not a role from elsewhere.
            (
                "Who handles private office requests?",
                "Private office requests are handled by the community manager. Private offices fit 2 to 6 people. Members get a key card. Reception is staffed from 8:00 am.",
                "The community manager handles them.",
                "Private office requests are handled by reception.",
                |r| matches!(r, Err(Miss::Unstated(_))),
            ),
            // A yes/no answer speaks of the proposition.
            (
                "My friend has a day pass; can they book a meeting room?",
                "Day Pass holders cannot book meeting rooms. A visitor who stays more than 3 hours needs a Day Pass.",
                "No, Day Pass holders can't book meeting rooms.",
                "A visitor who stays more than 3 hours needs a Day Pass.",
                |r| matches!(r, Err(Miss::Kind(Kind::YesNo))),
            ),
            // A yes/no question's numbers are met by a yes, a no or a number of their kind.
            (
                "Can I take a call at my desk at 10 on a Tuesday?",
                "Quiet hours run from 9:00 am to 11:00 am on weekdays. Calls are never allowed in the Quiet Zone.",
                "Quiet hours run from 9:00 am to 11:00 am on weekdays, so not at your desk.",
                "Calls are never allowed in the Quiet Zone.",
                |r| matches!(r, Err(Miss::Quantities(_))),
            ),
            // What happens: the answer speaks of the relation asked about.
            (
                "What happens to lost items nobody claims?",
                "Lost property that nobody claims within 30 days is donated to charity. Members must clear their desks daily. Items left in a day locker overnight are taken to lost property.",
                "It goes to charity after 30 days.",
                "Items left in a day locker overnight are taken to lost property.",
                |r| matches!(r, Err(Miss::Kind(Kind::Open))),
            ),
        ];
        for &(question, cited, right, wrong, refused) in cases {
            assert_eq!(own_words(question, right, cited), Ok(()), "{question} / {right}");
            let got = own_words(question, wrong, cited);
            assert!(refused(&got), "{question} / {wrong}: {got:?}");
        }
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
