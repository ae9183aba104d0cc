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
}

impl Expected {
    pub fn describe(self) -> &'static str {
        match self {
            Expected::Amount => "an amount of money",
            Expected::Quantity => "a number",
        }
    }
}

/// Words that ask for a price in a wh-question.
const PRICE_WORDS: &[&str] = &[
    "cost", "costs", "price", "prices", "priced", "fee", "fees", "charge", "charged", "charges", "pay",
    "paid", "rate", "rates", "dollars",
];

/// Wording that means something costs nothing.
const FREE_WORDS: &[&str] = &["free", "no charge", "no cost", "not charged", "included"];

/// The answer kind a question expects, if it asks for one. Yes/no questions
/// ("Is there a fee…?") expect none: their answer is a statement.
pub fn expected(question: &str) -> Option<Expected> {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
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
    }
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
    }
}
