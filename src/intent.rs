//! What kind of answer a question asks for. A question that asks "how much" is
//! not answered by a sentence without an amount, however well supported that
//! sentence is: this check is what refuses "How much does a private office
//! cost?" answered with "A private office requires a minimum term of 6 months."

use crate::text;

/// The kind of fact an answer must state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A price: the answer must state an amount of money or that it is free.
    Amount,
    /// A count or duration ("how many", "how long"): the answer must state a number.
    Quantity,
    /// A time ("when", "what time", or a clock time in the question): the answer
    /// must state a clock time, a day or a date.
    Time,
}

impl Expected {
    pub fn describe(self) -> &'static str {
        match self {
            Expected::Amount => "an amount of money",
            Expected::Quantity => "a number",
            Expected::Time => "a time or day",
        }
    }
}

/// Words that ask for a price in a wh-question.
const PRICE_WORDS: &[&str] = &[
    "cost", "costs", "price", "prices", "priced", "fee", "fees", "charge", "charged", "charges", "pay",
    "paid", "rate", "rates", "dollars",
];

/// Words that place an answer in time.
const TIME_WORDS: &[&str] = &[
    "am", "pm", "noon", "midnight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
    "weekday", "weekdays", "weekend", "weekends", "daily", "day", "days", "month", "monthly", "week",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "immediately",
];

/// Wording that means something costs nothing.
const FREE_WORDS: &[&str] = &["free", "no charge", "no cost", "not charged", "included"];

/// The answer kind a question expects, if it asks for one. Yes/no questions
/// ("Is there a fee…?") expect none: their answer is a statement.
pub fn expected(question: &str) -> Option<Expected> {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let asks_when = matches!(words.first(), Some(&"when")) || words.windows(2).any(|w| w == ["what", "time"]);
    if asks_when || has_clock_time(question) {
        return Some(Expected::Time);
    }
    let wh_question = matches!(words.first(), Some(&("how" | "what" | "which")));
    if !wh_question {
        return None;
    }
    let how_much_is = words.windows(3).any(|w| w[0] == "how" && w[1] == "much" && matches!(w[2], "is" | "are" | "would" | "will" | "does" | "do"));
    if how_much_is || words.iter().any(|w| PRICE_WORDS.contains(w)) {
        return Some(Expected::Amount);
    }
    let how_quantity = words.windows(2).any(|w| w[0] == "how" && matches!(w[1], "many" | "long" | "often"));
    how_quantity.then_some(Expected::Quantity)
}

/// True when `answer` states the kind of fact expected.
pub fn satisfied(expected: Expected, answer: &str) -> bool {
    match expected {
        Expected::Amount => {
            let lower = answer.to_lowercase();
            answer.contains('$') || FREE_WORDS.iter().any(|w| lower.contains(w))
        }
        Expected::Quantity => !text::quantities(answer).is_empty(),
        Expected::Time => {
            let lower = answer.to_lowercase();
            has_clock_time(answer)
                || lower.split(|c: char| !c.is_alphanumeric()).any(|w| TIME_WORDS.contains(&w) || is_ordinal(w))
        }
    }
}

/// "7:00", "9:30": digits, a colon, two digits.
fn has_clock_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(4).any(|w| w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit() && w[3].is_ascii_digit())
}

/// "1st", "5th", "22nd": a date within a month.
fn is_ordinal(word: &str) -> bool {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && matches!(suffix, "st" | "nd" | "rd" | "th")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_map_to_the_kind_they_ask_for() {
        let cases: &[(&str, Option<Expected>)] = &[
            ("How much does a private office cost per month?", Some(Expected::Amount)),
            ("How much is a day pass?", Some(Expected::Amount)),
            ("What would a Flex Desk member pay per month?", Some(Expected::Amount)),
            ("How much notice do I need to give?", None),
            ("Is there a fee for paying late?", None),
            ("Are taxes included in the prices?", None),
            ("How many guests can I bring?", Some(Expected::Quantity)),
            ("How long is footage kept?", Some(Expected::Quantity)),
            ("Where can I keep my bike?", None),
            ("When is the member breakfast?", Some(Expected::Time)),
            ("Can a Flex Desk member come in at 6:00 am?", Some(Expected::Time)),
        ];
        for &(question, kind) in cases {
            assert_eq!(expected(question), kind, "{question}");
        }
    }

    #[test]
    fn answers_satisfy_or_not() {
        assert!(satisfied(Expected::Amount, "A Day Pass costs $35."));
        assert!(satisfied(Expected::Amount, "Phone booths are free to use."));
        assert!(!satisfied(Expected::Amount, "A private office requires a minimum term of 6 months."));
        assert!(satisfied(Expected::Quantity, "Footage is kept for 30 days."));
        assert!(!satisfied(Expected::Quantity, "Footage is kept for a while."));
        assert!(satisfied(Expected::Time, "Members can enter from 7:00 am."));
        assert!(satisfied(Expected::Time, "Payment is due by the 5th."));
        assert!(satisfied(Expected::Time, "The breakfast is on the first Wednesday."));
        assert!(!satisfied(Expected::Time, "Flex Desk members can use the 6 shared monitors."));
    }
}
