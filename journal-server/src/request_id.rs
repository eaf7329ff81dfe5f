//! Each request's id: taken from `X-Request-Id` when a proxy in front sent a sane one,
//! made otherwise; carried by the request's `tracing` span, so that every log line the
//! request writes names it, and returned on the answer, so that a user's report can be
//! matched with the log.

use warp::http::{HeaderMap, HeaderValue};

/// The header, both ways.
pub const HEADER: &str = "x-request-id";

/// The longest id taken from a proxy.
const MAX_LEN: usize = 64;

/// A request's id: 1 to 64 characters of `A–Z a–z 0–9 . _ : -`, so that it can go in a
/// log line and a header as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// The id a proxy sent, when it is one; else a new one (a UUIDv7: ordered by time,
    /// unique across servers).
    pub fn of(headers: &HeaderMap) -> RequestId {
        headers
            .get(HEADER)
            .and_then(|value| value.to_str().ok())
            .and_then(RequestId::parse)
            .unwrap_or_else(|| RequestId(uuid::Uuid::now_v7().to_string()))
    }

    /// `given` when it is a sane id. Anything else (too long, spaces, quotes, control
    /// characters that could forge a log line) is not taken.
    pub fn parse(given: &str) -> Option<RequestId> {
        let sane = (1..=MAX_LEN).contains(&given.len())
            && given
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
        sane.then(|| RequestId(given.to_owned()))
    }

    /// The id, as logged and returned.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// As a header value.
    pub fn header_value(&self) -> HeaderValue {
        HeaderValue::from_str(&self.0).expect("a request id is made of header-safe characters")
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sane_id_is_taken_and_anything_else_replaced() {
        for sane in ["abc", "7f3a-01:req.9_x", &"a".repeat(64)] {
            assert_eq!(RequestId::parse(sane).unwrap().as_str(), sane);
        }
        for insane in [
            "",
            &"a".repeat(65),
            "a b",
            "a\nlevel=error",
            "\"quoted\"",
            "é",
        ] {
            assert!(RequestId::parse(insane).is_none(), "{insane:?}");
        }
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_static("bad id"));
        let made = RequestId::of(&headers);
        assert_eq!(made.as_str().len(), 36, "a UUID was made: {made}");
    }
}
