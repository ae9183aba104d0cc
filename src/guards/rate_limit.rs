//! The per-client rate limit, the parts that are not IO: the client key, the
//! fixed window, the decision and its headers. The count itself is one atomic
//! D1 statement in the glue (`INSERT … ON CONFLICT … DO UPDATE … RETURNING`), so
//! concurrent requests can never read the same count and all be admitted.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::corpus::chunk::hex;

/// HMAC-SHA256(key, client network) in hex: the only form in which a client
/// is stored. The network is the IPv4 address, or the IPv6 address's /64: a
/// single IPv6 client holds a whole /64 and could otherwise rotate through it.
pub fn client_key(hash_key: &[u8], ip: &str) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(hash_key).expect("HMAC takes any key length");
    mac.update(network(ip).as_bytes());
    hex(&mac.finalize().into_bytes())
}

/// The network a client is counted by: an IPv6 address's first four groups.
fn network(ip: &str) -> String {
    match ip.trim().parse::<std::net::Ipv6Addr>() {
        Ok(v6) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Ok(mapped) => mapped.to_ipv4_mapped().map_or_else(|| ip.to_string(), |v4| v4.to_string()),
        Err(_) => ip.trim().to_string(),
    }
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

    /// An IPv6 client is one client across its /64; another /64 is another.
    #[test]
    fn ipv6_clients_are_keyed_by_their_64() {
        let key = |ip: &str| client_key(b"k", ip);
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:203.0.113.9"), key("203.0.113.9"), "a mapped IPv4 is that IPv4");
        assert_ne!(key("203.0.113.9"), key("203.0.113.10"));
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
