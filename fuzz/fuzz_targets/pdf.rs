//! PDF text extraction never panics on any upload: it returns text, or
//! refuses the file as unreadable or without text.
#![no_main]
use groundgate::api::error::DocumentError;
use groundgate::corpus::pdf::extract;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match extract(data) {
        Ok(pages) => assert!(!pages.is_empty() && pages.iter().all(|p| !p.text.trim().is_empty() && p.number >= 1)),
        Err(DocumentError::UnreadablePdf(_) | DocumentError::NoText) => {}
        Err(other) => panic!("unexpected refusal {other:?}"),
    }
});
