//! Quantities read as values with units, so that equal amounts compare equal
//! however they are written: "$1 million" and "$1,000,000", "$35.5" and
//! "$35.50", "forty-five minutes" and "45 minutes", "10 percent" and "10%",
//! "6:00 pm" and "18:00"; and so that a changed unit does not: "30 days" is not
//! "30 months", "$10" is not "10%".
//!
//! The words read here are the closed classes of English number words (units,
//! tens, scales, ordinals), weekday and month names, and the common units of
//! money, time, length, mass and data size.

use super::stopwords::is_stopword;

/// What a number counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A bare number ("6 monitors", "1991").
    Plain,
    /// An amount of money in a currency (ISO code).
    Money(&'static str),
    Percent,
    /// A time of day, as hours since midnight (18.5 for 6:30 pm).
    Clock,
    /// A measure: a unit of time, length, mass or data size (canonical name).
    Measure(&'static str),
    /// A day of the week (1 = Monday) or a month (1 = January).
    Weekday,
    Month,
    /// "1st", "fifth".
    Ordinal,
}

impl Unit {
    /// Units of a measure of time ("30 days", "45 minutes").
    pub fn is_duration(self) -> bool {
        matches!(self, Unit::Measure(m) if TIME_UNITS.iter().any(|(_, u)| *u == m))
    }

    /// Units of length ("6.2 km").
    pub fn is_length(self) -> bool {
        matches!(self, Unit::Measure(m) if LENGTH_UNITS.iter().any(|(_, u)| *u == m))
    }
}

/// A number a text states, with its unit and the words it was written as.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub unit: Unit,
    pub written: String,
}

impl Quantity {
    /// True when `other` states the same value in a unit this one allows: a
    /// bare number matches any unit ("450" in "$450"); a unit must match, except
    /// that clock times, ordinals and bare numbers meet ("at 9", "9:00"; "June
    /// 12", "June 12th").
    pub fn agrees_with(&self, other: &Quantity) -> bool {
        let same_value = (self.value - other.value).abs() <= 1e-9 * self.value.abs().max(1.0);
        let loose = |u: Unit| matches!(u, Unit::Plain | Unit::Clock | Unit::Ordinal);
        same_value && (self.unit == Unit::Plain || self.unit == other.unit || (loose(self.unit) && loose(other.unit)))
    }

    /// A year: a bare whole number from 1000 to 2999.
    pub fn is_year(&self) -> bool {
        self.unit == Unit::Plain && self.value.fract() == 0.0 && (1000.0..3000.0).contains(&self.value) && self.written.len() == 4
    }
}

const UNITS: &[(&str, u64)] = &[
    ("zero", 0), ("one", 1), ("two", 2), ("three", 3), ("four", 4), ("five", 5), ("six", 6), ("seven", 7),
    ("eight", 8), ("nine", 9), ("ten", 10), ("eleven", 11), ("twelve", 12), ("thirteen", 13), ("fourteen", 14),
    ("fifteen", 15), ("sixteen", 16), ("seventeen", 17), ("eighteen", 18), ("nineteen", 19), ("twenty", 20),
    ("thirty", 30), ("forty", 40), ("fifty", 50), ("sixty", 60), ("seventy", 70), ("eighty", 80), ("ninety", 90),
];
const SCALES: &[(&str, u64)] =
    &[("hundred", 100), ("thousand", 1_000), ("million", 1_000_000), ("billion", 1_000_000_000), ("trillion", 1_000_000_000_000)];
/// English's object pronouns ("tell *me* first").
const OBJECT_PRONOUNS: &[&str] = &["me", "us", "you", "him", "her", "it", "them"];

const ORDINALS: &[(&str, u64)] = &[
    ("first", 1), ("second", 2), ("third", 3), ("fourth", 4), ("fifth", 5), ("sixth", 6), ("seventh", 7),
    ("eighth", 8), ("ninth", 9), ("tenth", 10), ("eleventh", 11), ("twelfth", 12), ("thirteenth", 13),
    ("fourteenth", 14), ("fifteenth", 15), ("twentieth", 20), ("thirtieth", 30), ("hundredth", 100),
];
const WEEKDAYS: &[&str] = &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const MONTHS: &[&str] = &[
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
];
const CURRENCY_SIGNS: &[(char, &str)] = &[('$', "USD"), ('€', "EUR"), ('£', "GBP"), ('¥', "JPY"), ('₹', "INR")];
const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("dollar", "USD"), ("dollars", "USD"), ("usd", "USD"), ("euro", "EUR"), ("euros", "EUR"), ("eur", "EUR"),
    ("gbp", "GBP"), ("sterling", "GBP"), ("yen", "JPY"), ("rupees", "INR"), ("rupee", "INR"),
];
const TIME_UNITS: &[(&str, &str)] = &[
    ("second", "second"), ("seconds", "second"), ("sec", "second"), ("secs", "second"), ("minute", "minute"),
    ("minutes", "minute"), ("min", "minute"), ("mins", "minute"), ("hour", "hour"), ("hours", "hour"), ("hr", "hour"),
    ("hrs", "hour"), ("day", "day"), ("days", "day"), ("week", "week"), ("weeks", "week"), ("month", "month"),
    ("months", "month"), ("year", "year"), ("years", "year"), ("decade", "decade"), ("decades", "decade"),
    ("century", "century"), ("centuries", "century"),
];
const LENGTH_UNITS: &[(&str, &str)] = &[
    ("km", "km"), ("kilometre", "km"), ("kilometres", "km"), ("kilometer", "km"), ("kilometers", "km"), ("m", "m"),
    ("metre", "m"), ("metres", "m"), ("meter", "m"), ("meters", "m"), ("cm", "cm"), ("centimetres", "cm"),
    ("centimeters", "cm"), ("mm", "mm"), ("mile", "mile"), ("miles", "mile"), ("mi", "mile"), ("ft", "ft"),
    ("foot", "ft"), ("feet", "ft"), ("inch", "in"), ("inches", "in"), ("yard", "yard"), ("yards", "yard"),
];
const OTHER_UNITS: &[(&str, &str)] = &[
    ("kg", "kg"), ("kilogram", "kg"), ("kilograms", "kg"), ("kilo", "kg"), ("kilos", "kg"), ("g", "g"), ("gram", "g"),
    ("grams", "g"), ("tonne", "t"), ("tonnes", "t"), ("ton", "t"), ("tons", "t"), ("lb", "lb"), ("lbs", "lb"),
    ("kb", "kb"), ("mb", "mb"), ("gb", "gb"), ("tb", "tb"), ("l", "l"), ("litre", "l"), ("litres", "l"),
    ("liter", "l"), ("liters", "l"),
];

fn lookup<T: Copy>(table: &[(&str, T)], word: &str) -> Option<T> {
    table.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
}

fn measure(word: &str) -> Option<&'static str> {
    lookup(TIME_UNITS, word).or_else(|| lookup(LENGTH_UNITS, word)).or_else(|| lookup(OTHER_UNITS, word))
}

/// The value of a number word, if the word is one ("forty", "thousand").
pub fn word_value(word: &str) -> Option<u64> {
    lookup(UNITS, word).or_else(|| lookup(SCALES, word))
}

/// A weekday or month name, singular or plural ("friday", "fridays", "june").
pub fn is_calendar_word(lower: &str) -> bool {
    let singular = lower.strip_suffix('s').unwrap_or(lower);
    WEEKDAYS.iter().chain(MONTHS).any(|w| *w == lower || *w == singular)
}

/// One whitespace-separated piece of text: the word trimmed of surrounding
/// punctuation (kept as written) and its lowercase form.
struct Token<'a> {
    word: &'a str,
    lower: String,
    /// The piece ended a clause (a comma, a full stop, ...): a unit never follows.
    closes: bool,
    /// A hyphen joins the piece to the next one ("two-digit").
    hyphened: bool,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let separator = |c: char| c.is_whitespace() || matches!(c, '/' | '(' | ')' | '-' | '–' | '—');
    text.split_inclusive(separator)
        .map(|piece| (piece.strip_suffix(separator).unwrap_or(piece), piece.ends_with('-')))
        .filter(|(raw, _)| !raw.is_empty())
        .map(|(raw, hyphened)| {
            let word = raw.trim_matches(|c: char| !(c.is_alphanumeric() || CURRENCY_SIGNS.iter().any(|(s, _)| *s == c) || c == '%'));
            let word = word.trim_end_matches('.');
            Token { word, lower: word.to_lowercase(), closes: raw.ends_with([',', '.', ';', ':', '!', '?']), hyphened }
        })
        .collect()
}

/// Every quantity a text states, in order.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match read_at(&tokens, i) {
            Some((quantity, used)) => {
                found.push(quantity);
                i += used.max(1);
            }
            None => i += 1,
        }
    }
    found
}

/// Reads a quantity starting at token `i`; returns it and how many tokens it used.
fn read_at(tokens: &[Token], i: usize) -> Option<(Quantity, usize)> {
    let token = &tokens[i];
    let lower = token.lower.as_str();
    if let Some(day) = WEEKDAYS.iter().position(|d| lower == *d || lower.strip_suffix('s') == Some(d)) {
        return Some((Quantity { value: (day + 1) as f64, unit: Unit::Weekday, written: token.word.into() }, 1));
    }
    if let Some(month) = MONTHS.iter().position(|m| lower == *m) {
        // "may" is a month only as a capitalized name beside a number ("May 2", "2 May").
        let beside_number = |j: Option<usize>| j.and_then(|j| tokens.get(j)).is_some_and(|t| t.word.starts_with(|c: char| c.is_ascii_digit()));
        if lower != "may" || (token.word == "May" && (beside_number(Some(i + 1)) || beside_number(i.checked_sub(1)))) {
            return Some((Quantity { value: (month + 1) as f64, unit: Unit::Month, written: token.word.into() }, 1));
        }
        return None;
    }
    if let Some(n) = lookup(ORDINALS, lower) {
        // After an object pronoun, an ordinal that ends its clause is an adverb of order ("warn me first").
        let last = token.closes || i + 1 == tokens.len();
        let after_object = i.checked_sub(1).is_some_and(|b| !tokens[b].closes && OBJECT_PRONOUNS.contains(&tokens[b].lower.as_str()));
        if last && after_object {
            return None;
        }
        // After "a", an ordinal word is "another", no rank: "without starting a second copy".
        if after_indefinite_article(tokens, i) {
            return None;
        }
        return Some((Quantity { value: n as f64, unit: Unit::Ordinal, written: token.word.into() }, 1));
    }
    let (mut value, mut unit, mut used) = match numeric(token) {
        Some((value, unit)) => (value, unit, 1),
        // "a single command" counts one, as "one command" does.
        None if lower == "single" && after_indefinite_article(tokens, i) => (1.0, Unit::Plain, 1),
        None => number_words(tokens, i)?,
    };
    if lower == "one" && used == 1 && (is_pronoun_one(tokens, i) || is_article_one(tokens, i)) {
        return None;
    }
    let open = |used: usize| !tokens[i + used - 1].closes;
    // "7:00 pm", "7 pm": a clock time, on a 24-hour clock.
    if let Some(hours) = tokens.get(i + used).filter(|_| open(used) && matches!(unit, Unit::Plain | Unit::Clock)).and_then(|t| meridiem(value, &t.lower)) {
        value = hours;
        unit = Unit::Clock;
        used += 1;
    }
    // A scale after a numeral: "1.5 million", "$3 billion".
    if let Some(scale) = tokens.get(i + used).filter(|_| open(used) && unit != Unit::Clock).and_then(|t| lookup(SCALES, &t.lower)) {
        value *= scale as f64;
        used += 1;
    }
    if unit == Unit::Plain {
        if let Some((after, extra)) = unit_after(tokens, i + used) {
            unit = after;
            used += extra;
        }
    }
    let written = tokens[i..i + used].iter().map(|t| t.word).collect::<Vec<_>>().join(" ");
    Some((Quantity { value, unit, written }, used))
}

/// The months a date reaches after each duration: "March 10" and "30 days"
/// reach April (a calendar without leap days; weeks and months count as
/// such). `dates` are the texts' quantities in order, a date being a month
/// beside a day of it ("March 10th", "10 March"); `durations` the measures
/// of time to add. What a reader works out from the asker's date and a
/// notice period the passage states is the passage's month, not one it
/// never wrote.
pub fn months_after(dates: &[Quantity], durations: &[Quantity]) -> Vec<f64> {
    const DAYS: [f64; 12] = [31.0, 28.0, 31.0, 30.0, 31.0, 30.0, 31.0, 31.0, 30.0, 31.0, 30.0, 31.0];
    let is_day = |q: &Quantity| matches!(q.unit, Unit::Plain | Unit::Ordinal) && q.value.fract() == 0.0 && (1.0..=31.0).contains(&q.value);
    let starts = dates.windows(2).filter_map(|pair| match pair {
        [m, d] | [d, m] if m.unit == Unit::Month && is_day(d) => Some((m.value as usize - 1, d.value)),
        _ => None,
    });
    let mut months = Vec::new();
    for (month, day) in starts {
        for q in durations {
            let (mut month, mut day) = (month, day);
            match q.unit {
                Unit::Measure("month") => month += q.value as usize,
                Unit::Measure("week") => day += 7.0 * q.value,
                Unit::Measure("day") => day += q.value,
                _ => continue,
            }
            while day > DAYS[month % 12] {
                day -= DAYS[month % 12];
                month += 1;
            }
            months.push((month % 12 + 1) as f64);
        }
    }
    months
}

/// The calendar and billing periods English names by a word: the hour, the
/// day, the week, the month, the quarter and the year, each with its
/// adverb and adjective ("monthly", "annually", "annual", "yearly").
const PERIODS: &[(&str, &[&str])] = &[
    ("hour", &["hour", "hours", "hourly"]),
    ("day", &["day", "days", "daily"]),
    ("week", &["week", "weeks", "weekly"]),
    ("month", &["month", "months", "monthly"]),
    ("quarter", &["quarter", "quarters", "quarterly"]),
    ("year", &["year", "years", "yearly", "annual", "annually", "annum"]),
];

/// The periods a text names (see [`PERIODS`]), each once, in order.
pub fn periods(text: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    for word in text.split(|c: char| !c.is_alphabetic()).map(str::to_lowercase) {
        if let Some((period, _)) = PERIODS.iter().find(|(_, words)| words.contains(&word.as_str())) {
            if !found.contains(period) {
                found.push(*period);
            }
        }
    }
    found
}

/// "One" as an indefinite article, not a count: after a preposition of
/// place or purpose and before a word that is no unit ("declared *in one*
/// command", "*for one* operating system"), where "a" would say the same.
/// A count there takes a unit ("for one month") or a limit ("up to one").
/// The token before `i`, in the same clause, is "a" or "an".
fn after_indefinite_article(tokens: &[Token], i: usize) -> bool {
    i.checked_sub(1).is_some_and(|b| !tokens[b].closes && matches!(tokens[b].lower.as_str(), "a" | "an"))
}

fn is_article_one(tokens: &[Token], i: usize) -> bool {
    const PREPOSITIONS: &[&str] = &["in", "for", "on", "under", "across"];
    let before = i.checked_sub(1).filter(|&b| !tokens[b].closes).map(|b| tokens[b].lower.as_str());
    let noun = tokens.get(i + 1).is_some_and(|t| t.lower.chars().all(char::is_alphabetic) && !is_stopword(&t.lower) && measure(&t.lower).is_none() && lookup(CURRENCY_WORDS, &t.lower).is_none());
    before.is_some_and(|b| PREPOSITIONS.contains(&b)) && noun && !tokens[i].closes
}

/// "One" as a pronoun, not a count: after a determiner ("like one", "no
/// one", "the one", "each one") or before a preposition, a relative
/// pronoun or nothing ("one in /etc", "one of them").
fn is_pronoun_one(tokens: &[Token], i: usize) -> bool {
    const BEFORE: &[&str] = &["like", "the", "each", "any", "no", "which", "that", "this", "every", "another", "a", "only", "same"];
    const AFTER: &[&str] = &[
        "of", "in", "on", "at", "for", "with", "from", "to", "by", "through", "via", "into", "about", "as", "than", "per", "over", "under",
        "after", "before", "within", "without", "during", "between", "among", "that", "which", "who", "whose", "where", "or", "and",
    ];
    let before = i.checked_sub(1).map(|b| tokens[b].lower.as_str());
    let after = tokens.get(i + 1).map(|t| t.lower.as_str());
    before.is_some_and(|b| BEFORE.contains(&b) && !tokens[i - 1].closes) || after.is_none_or(|a| AFTER.contains(&a))
}

/// A numeral with its attached signs: "$4.50", "1,200", "7:30", "7pm", "10%", "5th", "6km".
fn numeric(token: &Token) -> Option<(f64, Unit)> {
    let lower = token.lower.as_str();
    let (currency, rest) = match CURRENCY_SIGNS.iter().find(|(sign, _)| lower.starts_with(*sign)) {
        Some((sign, code)) => (Some(*code), &lower[sign.len_utf8()..]),
        None => (None, lower),
    };
    let digits_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',' || c == ':')).unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(digits_end);
    let number = number.trim_end_matches(['.', ',', ':']);
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Some((hours, minutes)) = number.split_once(':') {
        let (h, m) = (hours.parse::<f64>().ok()?, minutes.parse::<f64>().ok()?);
        let hours = h + m / 60.0;
        return Some((meridiem(hours, suffix).unwrap_or(hours), Unit::Clock));
    }
    let value = parse_number(number)?;
    let unit = match (currency, suffix) {
        (Some(code), "" | "k" | "m" | "bn") => Unit::Money(code),
        (Some(_), _) => return None,
        (None, "%") => Unit::Percent,
        (None, "st" | "nd" | "rd" | "th") => Unit::Ordinal,
        (None, "am" | "pm" | "a.m" | "p.m") => return Some((meridiem(value, suffix)?, Unit::Clock)),
        (None, "") => Unit::Plain,
        (None, other) => Unit::Measure(measure(other)?),
    };
    let scaled = match (currency, suffix) {
        (Some(_), "k") => value * 1e3,
        (Some(_), "m") => value * 1e6,
        (Some(_), "bn") => value * 1e9,
        _ => value,
    };
    Some((scaled, unit))
}

/// "1,200" -> 1200, "35.50" -> 35.5. Commas must group thousands.
fn parse_number(number: &str) -> Option<f64> {
    if number.contains(',') {
        let (whole, fraction) = number.split_once('.').map_or((number, None), |(w, f)| (w, Some(f)));
        let mut groups = whole.split(',');
        let first = groups.next()?;
        if first.is_empty() || first.len() > 3 || !groups.all(|g| g.len() == 3) {
            return None;
        }
        let joined = whole.replace(',', "") + &fraction.map(|f| format!(".{f}")).unwrap_or_default();
        return joined.parse().ok();
    }
    number.parse().ok()
}

/// A clock hour read with "am"/"pm": 12-hour to 24-hour.
fn meridiem(hours: f64, suffix: &str) -> Option<f64> {
    match suffix.trim_end_matches('.') {
        "am" | "a.m" => Some(if hours >= 12.0 { hours - 12.0 } else { hours }),
        "pm" | "p.m" => Some(if hours >= 12.0 { hours } else { hours + 12.0 }),
        _ => None,
    }
}

/// Number words from token `i`: "forty-five", "one hundred and twenty",
/// "a thousand", "two million" (hyphens split tokens, so "forty-five" is two).
fn number_words(tokens: &[Token], i: usize) -> Option<(f64, Unit, usize)> {
    let mut total: u64 = 0;
    let mut current: u64 = 0;
    let mut used = 0;
    let mut any = false;
    let mut j = i;
    while let Some(token) = tokens.get(j) {
        let article_before_scale = matches!(token.lower.as_str(), "a" | "an")
            && !any
            && tokens.get(j + 1).is_some_and(|t| lookup(SCALES, &t.lower).is_some());
        let joining_and = token.lower == "and" && any && tokens.get(j + 1).is_some_and(|t| word_value(&t.lower).is_some());
        if article_before_scale {
            current = 1;
        } else if joining_and {
        } else if let Some(v) = word_value(&token.lower) {
            match v {
                100 => current = current.max(1) * 100,
                v if v >= 1000 => {
                    total += current.max(1) * v;
                    current = 0;
                }
                v => current += v,
            }
            any = true;
        } else {
            break;
        }
        used += 1;
        j += 1;
        if token.closes {
            break;
        }
    }
    if !any {
        return None;
    }
    Some(((total + current) as f64, Unit::Plain, used))
}

/// The unit named after a number: "percent", "per cent", "dollars", "days",
/// "km", allowing one describing word between
/// ("10 business days"). `None` when the next words name no unit.
fn unit_after(tokens: &[Token], at: usize) -> Option<(Unit, usize)> {
    if tokens.get(at.wrapping_sub(1)).is_some_and(|t| t.closes) {
        return None;
    }
    let word = |k: usize| tokens.get(at + k).map(|t| t.lower.as_str());
    match (word(0)?, word(1)) {
        ("percent" | "pct", _) => return Some((Unit::Percent, 1)),
        ("per", Some("cent")) => return Some((Unit::Percent, 2)),
        _ => {}
    }
    let named = |w: &str| lookup(CURRENCY_WORDS, w).map(Unit::Money).or_else(|| measure(w).map(Unit::Measure));
    if let Some(unit) = named(word(0)?) {
        return Some((unit, 1));
    }
    // "30 business days" describes its unit; "5 per month" is a rate, a count of 5, not a duration;
    // and in "a two-digit month" the hyphened noun is what is counted, the month only described by it.
    let compound = tokens.get(at.wrapping_sub(1)).is_some_and(|t| t.hyphened);
    let describing = !compound && tokens.get(at).is_some_and(|t| {
        !t.closes && t.lower.chars().all(char::is_alphabetic) && !is_stopword(&t.lower) && word_value(&t.lower).is_none() && !matches!(t.lower.as_str(), "per" | "every")
    });
    match word(1).and_then(named) {
        Some(unit @ Unit::Measure(_)) if describing => Some((unit, 2)),
        _ => None,
    }
}

#[cfg(test)]
fn values(text: &str) -> Vec<(f64, Unit)> {
    quantities(text).into_iter().map(|q| (q.value, q.unit)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number hyphened to a noun counts that noun: the word after the compound is what it describes.
    #[test]
    fn a_hyphened_count_describes_the_noun_after_it() {
        assert_eq!(values("a two-digit month"), [(2.0, Unit::Plain)]);
        assert_eq!(values("a four-digit year"), values("a four-digit numeric year"));
        assert_eq!(values("a 30-day trial"), values("a trial of 30 days"));
        assert_eq!(values("within 30 business days"), values("within 30 days"));
    }

    /// "One" before any preposition is a pronoun: "claim one through a ticket" counts nothing.
    #[test]
    fn one_before_a_preposition_is_a_pronoun() {
        for text in ["You claim one through a support ticket.", "Pick one by its name.", "Use one as a template."] {
            assert!(quantities(text).is_empty(), "{text}");
        }
        assert_eq!(quantities("Bring one guest through the lobby.").len(), 1);
    }

    /// "A second copy" is another copy, no rank; "the second copy" is one.
    #[test]
    fn an_ordinal_after_a_is_another() {
        assert!(quantities("It must not start a second copy of the daemon.").is_empty());
        assert_eq!(values("It must not start the second copy."), [(2.0, Unit::Ordinal)]);
        assert_eq!(values("after a 2nd warning"), [(2.0, Unit::Ordinal)]);
    }

    /// An ordinal counts, but after an object pronoun at the end of its
    /// clause it is an adverb of order.
    #[test]
    fn an_ordinal_after_an_object_is_an_adverb() {
        assert_eq!(values("on the first Monday of August"), [(1.0, Unit::Ordinal), (1.0, Unit::Weekday), (8.0, Unit::Month)]);
        assert_eq!(values("She finished third."), [(3.0, Unit::Ordinal)]);
        assert_eq!(values("Can you close it without warning me first?"), []);
    }

    #[test]
    fn one_after_a_preposition_is_an_article() {
        assert!(values("Declare several variables in one command, for one operating system.").is_empty());
        // A count: with a unit, or after a limit; "in one." is a pronoun.
        assert_eq!(values("It lasts for one month, up to one guest, in one."), [(1.0, Unit::Measure("month")), (1.0, Unit::Plain)]);
    }

    #[test]
    fn a_date_and_a_duration_reach_a_month() {
        let dates = quantities("I give notice on March 10th, or on 28 December.");
        assert_eq!(months_after(&dates, &quantities("30 days' notice")), [4.0, 1.0]);
        assert_eq!(months_after(&dates, &quantities("2 weeks or 3 months")), [3.0, 6.0, 1.0, 3.0]);
        assert!(months_after(&quantities("in March"), &quantities("30 days")).is_empty(), "a month without a day is no date");
    }

    /// "5 per month" counts five a month; it lasts no five months.
    #[test]
    fn a_rate_is_not_a_duration() {
        assert_eq!(values("limited to 5 per month"), [(5.0, Unit::Plain)]);
        assert_eq!(values("within 30 business days"), [(30.0, Unit::Measure("day"))]);
    }

    /// Table: text -> the values and units read.
    #[test]
    fn quantities_table() {
        let usd = Unit::Money("USD");
        let cases: &[(&str, &[(f64, Unit)])] = &[
            ("A desk costs $450.00 per month.", &[(450.0, usd)]),
            ("It costs $35.5, or $35.50.", &[(35.5, usd), (35.5, usd)]),
            ("Cover of at least $1,000,000.", &[(1e6, usd)]),
            ("Cover of at least $1 million.", &[(1e6, usd)]),
            ("one million dollars", &[(1e6, usd)]),
            ("forty-five minutes", &[(45.0, Unit::Measure("minute"))]),
            ("sixty days", &[(60.0, Unit::Measure("day"))]),
            ("a thousand pages", &[(1000.0, Unit::Plain)]),
            ("one hundred and twenty guests", &[(120.0, Unit::Plain)]),
            ("10 percent off, 10 per cent, 10%", &[(10.0, Unit::Percent), (10.0, Unit::Percent), (10.0, Unit::Percent)]),
            ("Open 7:00 am to 9:30 pm.", &[(7.0, Unit::Clock), (21.5, Unit::Clock)]),
            ("from 18:00 until 6pm", &[(18.0, Unit::Clock), (18.0, Unit::Clock)]),
            ("1,200 pages in 10 business days", &[(1200.0, Unit::Plain), (10.0, Unit::Measure("day"))]),
            ("The track is 6.213 km long.", &[(6.213, Unit::Measure("km"))]),
            ("due by the 5th, on the first Monday of August", &[(5.0, Unit::Ordinal), (1.0, Unit::Ordinal), (1.0, Unit::Weekday), (8.0, Unit::Month)]),
            ("Dogs may come on Fridays.", &[(5.0, Unit::Weekday)]),
            ("born May 2, 1991", &[(5.0, Unit::Month), (2.0, Unit::Plain), (1991.0, Unit::Plain)]),
            ("Access 24/7 (30 days).", &[(24.0, Unit::Plain), (7.0, Unit::Plain), (30.0, Unit::Measure("day"))]),
            ("in a single command, a single day, one single-page form", &[(1.0, Unit::Plain), (1.0, Unit::Measure("day")), (1.0, Unit::Plain)]),
            ("No numbers here.", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(values(text), *expected, "{text}");
        }
    }

    #[test]
    fn agreement_needs_the_value_and_a_compatible_unit() {
        let q = |t: &str| quantities(t).remove(0);
        assert!(q("450").agrees_with(&q("$450")), "a bare number matches any unit");
        assert!(q("$1 million").agrees_with(&q("$1,000,000")));
        assert!(!q("$10").agrees_with(&q("10%")), "money is not a percentage");
        assert!(!q("30 months").agrees_with(&q("30 days")));
        assert!(q("6:00 pm").agrees_with(&q("18:00")));
        assert!(q("9:00").agrees_with(&q("9")), "a clock time and a bare hour meet");
        assert!(!q("$451").agrees_with(&q("$450")));
        assert!(q("1991").is_year() && !q("$1991").is_year() && !q("450").is_year());
    }
}
