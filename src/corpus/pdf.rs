//! Text from a PDF upload.

use crate::api::error::DocumentError;

/// The text of every page, in order.
pub fn extract(_bytes: &[u8]) -> Result<String, DocumentError> {
    Err(DocumentError::UnreadablePdf("PDF support is being built".into()))
}
