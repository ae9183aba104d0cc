//! Request parsing never panics, and whatever it accepts holds its invariants.
#![no_main]
use groundgate::request::{AskRequest, MAX_QUESTION_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = AskRequest::parse(data) {
        let chars = request.question.chars().count();
        assert!((1..=MAX_QUESTION_CHARS).contains(&chars));
        assert_eq!(request.question.trim(), request.question);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = groundgate::screen::check(text);
        let ask = groundgate::question::Ask::parse(text, &groundgate::vocabulary::Vocabulary::default());
        let focus = groundgate::evidence::Focus::new(&ask.focus, &vec![1; ask.focus.len()], 10);
        let _ = ask.answers(&focus, text);
    }
});
