//! What a question asks, read by the grammar of English questions: the kind
//! of fact its answer must state (a person, a place, a time, an amount, …),
//! the words that make it specific (its focus, without the wh-phrase), the
//! names it is about, and the alternatives it offers ("X or Y?").
//!
//! Then whether an answer answers it: a supported sentence is not an answer
//! when it names another subject, states no fact of the asked kind, or states
//! one in a clause about something else ("asked when the team was founded, it
//! quoted the driver's birth date").
//!
//! `read` reads a question; `answers` judges whether an answer answers it;
//! `words` holds the closed word lists of English grammar both use.

mod answers;
mod read;
mod words;

pub use answers::{is_pointer, opens_with_back_reference, Grounds, Miss, BACK_REFERENCES, CORE_COVERAGE};
pub use read::{Ask, Kind};
