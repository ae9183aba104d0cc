//! The admin bearer token check, in constant time.

use sha2::{Digest, Sha256};

/// True when `authorization` is `Bearer <expected>`. Both sides are hashed first,
/// so the comparison takes the same time whatever the length or the first
/// differing byte. An empty expected token never matches (fail closed).
pub fn bearer_matches(authorization: Option<&str>, expected: &str) -> bool {
    if expected.is_empty() {
        return false;
    }
    let presented = authorization
        .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
        .unwrap_or("")
        .trim();
    let a = Sha256::digest(presented.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    a.iter().zip(b.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::bearer_matches;

    #[test]
    fn only_the_exact_token_matches() {
        assert!(bearer_matches(Some("Bearer s3cret"), "s3cret"));
        assert!(!bearer_matches(Some("Bearer s3cre"), "s3cret"));
        assert!(!bearer_matches(Some("s3cret"), "s3cret"));
        assert!(!bearer_matches(None, "s3cret"));
        assert!(!bearer_matches(Some("Bearer "), ""));
    }
}
