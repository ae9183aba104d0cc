//! Request parsing never panics, and whatever it accepts holds its invariants.
#![no_main]
use groundgate::api::request::{AskRequest, MAX_QUESTION_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = AskRequest::parse(data) {
        let chars = request.question.chars().count();
        assert!((1..=MAX_QUESTION_CHARS).contains(&chars));
        assert_eq!(request.question.trim(), request.question);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = groundgate::stages::screen::check(text);
        let ask = groundgate::stages::question::Ask::parse(text, &groundgate::corpus::vocabulary::Vocabulary::default());
        let focus = groundgate::stages::evidence::Focus::new(&ask.focus, &vec![1; ask.focus.len()], 10);
        let _ = ask.answers(&focus, text);
    }
});
