//! The per-client rate limit, the parts that are not IO: the client key, the
//! fixed window, the decision and its headers. The count itself is one atomic
//! D1 statement in the glue (`INSERT … ON CONFLICT … DO UPDATE … RETURNING`), so
//! concurrent requests can never read the same count and all be admitted.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::corpus::chunk::hex;

/// HMAC-SHA256(key, client IP) in hex: the only form in which a client is stored.
pub fn client_key(hash_key: &[u8], ip: &str) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(hash_key).expect("HMAC takes any key length");
    mac.update(ip.as_bytes());
    hex(&mac.finalize().into_bytes())
}

/// A fixed window: where it started and how long until it ends (seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
    pub reset_after: u64,
}

/// The window `now` (unix seconds) falls in.
pub fn window(now: u64, length: u64) -> Window {
    let length = length.max(1);
    let start = now - now % length;
    Window { start, reset_after: start + length - now }
}

/// The decision for a request, given the window's count after counting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    pub reset_after: u64,
}

pub fn decide(count: u32, limit: u32, window: Window) -> Decision {
    Decision {
        allowed: count <= limit,
        limit,
        remaining: limit.saturating_sub(count),
        reset_after: window.reset_after,
    }
}

impl Decision {
    /// `RateLimit-*` headers for every answer, plus `Retry-After` on a refusal.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("ratelimit-limit", self.limit.to_string()),
            ("ratelimit-remaining", self.remaining.to_string()),
            ("ratelimit-reset", self.reset_after.to_string()),
        ];
        if !self.allowed {
            headers.push(("retry-after", self.reset_after.to_string()));
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_key_is_keyed_and_stable() {
        let a = client_key(b"k1", "203.0.113.9");
        assert_eq!(a.len(), 64);
        assert_eq!(a, client_key(b"k1", "203.0.113.9"));
        assert_ne!(a, client_key(b"k2", "203.0.113.9"));
        assert!(!a.contains("203"));
    }

    #[test]
    fn windows_are_fixed() {
        assert_eq!(window(7200, 3600), Window { start: 7200, reset_after: 3600 });
        assert_eq!(window(7259, 3600), Window { start: 7200, reset_after: 3541 });
        assert_eq!(window(10, 0), Window { start: 10, reset_after: 1 });
    }

    /// The tenth request passes with nothing remaining; the eleventh is refused.
    #[test]
    fn decisions_and_headers() {
        let w = Window { start: 0, reset_after: 60 };
        assert_eq!(decide(10, 10, w), Decision { allowed: true, limit: 10, remaining: 0, reset_after: 60 });
        let refused = decide(11, 10, w);
        assert!(!refused.allowed);
        assert!(refused.headers().contains(&("retry-after", "60".to_string())));
        assert_eq!(decide(1, 10, w).headers().len(), 3);
    }
}
