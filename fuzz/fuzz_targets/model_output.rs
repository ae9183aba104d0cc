//! Parsing model output never panics, and what it accepts only cites retrieved ids.
#![no_main]
use groundgate::stages::prompts::{parse_answer, parse_judgement};
use groundgate::stages::retrieve::Hit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let hits = [Hit {
        id: "pricing-02".into(),
        doc: "pricing".into(),
        section: "Dedicated Desk".into(),
        text: "A Dedicated Desk costs $450 per month.".into(),
        score: 1.0,
        lexical_rank: Some(1),
        ..Hit::default()
    }];
    if let Some(answer) = parse_answer(text, &hits) {
        assert!(answer.citations.iter().all(|id| id == "pricing-02"));
    }
    if let Some(claims) = parse_judgement(text, &hits) {
        assert!(claims.iter().all(|c| (0.0..=1.0).contains(&c.score) && !c.claim.is_empty()));
        assert!(claims.iter().flat_map(|c| &c.passages).all(|id| id == "pricing-02"));
    }
    for claim in text.lines().take(4) {
        let _ = groundgate::stages::support::check(claim, &[], &hits);
        let _ = groundgate::text::quantities(claim);
    }
});
