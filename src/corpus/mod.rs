//! The corpus as documents: Markdown chunked into passages with stable ids,
//! re-ingest as a diff with a corpus version, and the corpus's own vocabulary.

pub mod chunk;
pub mod ingest;
pub mod pdf;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
pub mod paging;
pub mod references;
pub mod vocabulary;
pub mod workspace;
