//! The Markdown chunker never panics, and its passages keep their contract:
//! ids `{stem}-{NN}` in order, text within the size limit, never empty.
#![no_main]
use groundgate::corpus::chunk::{chunk_document, MAX_PASSAGE_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(markdown) = std::str::from_utf8(data) else { return };
    let passages = chunk_document("fuzz.md", markdown);
    for (i, p) in passages.iter().enumerate() {
        assert_eq!(p.id, format!("fuzz-{:02}", i + 1));
        assert!(!p.text.trim().is_empty());
        // A hard bound, over-long sentences included: the spend cap rests on it.
        assert!(p.text.len() <= MAX_PASSAGE_CHARS);
    }
});
