//! The origin that Atom feeds and link previews write absolute links under:
//! `--public-url` when the operator set it, else `http://` and the request's `Host`
//! when that is a plain `host[:port]`, else nothing (links stay relative).

use warp::Filter;
use warp::http::HeaderMap;
use warp::http::header::{HOST, ORIGIN};

/// The origin for a request with these headers.
pub fn origin(configured: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(configured) = configured {
        return configured.to_owned();
    }
    headers
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| is_plain_authority(host))
        .map(|host| format!("http://{host}"))
        .unwrap_or_default()
}

/// The filter extracting [`origin`].
pub fn with_origin(
    configured: Option<String>,
) -> impl Filter<Extract = (String,), Error = std::convert::Infallible> + Clone {
    warp::header::headers_cloned()
        .map(move |headers: HeaderMap| origin(configured.as_deref(), &headers))
}

/// Whether the request's `Origin` is this server's own: `--public-url` when set, else
/// `http://` or `https://` and the request's `Host`. A request without `Origin` is not.
pub fn is_own_origin(configured: Option<&str>, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    if let Some(configured) = configured {
        return origin == configured;
    }
    let host = headers.get(HOST).and_then(|v| v.to_str().ok());
    let named = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    host.is_some_and(|host| is_plain_authority(host) && named == Some(host))
}

/// A host name or address with an optional port, and nothing a link or markup could
/// be bent by (no `/`, `@`, quotes or spaces).
fn is_plain_authority(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    #[test]
    fn the_host_is_taken_only_when_plain_and_the_configured_url_wins() {
        let with_host = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
            headers
        };
        assert_eq!(
            origin(None, &with_host("127.0.0.1:5000")),
            "http://127.0.0.1:5000"
        );
        assert_eq!(origin(None, &with_host("[::1]:80")), "http://[::1]:80");
        for bent in ["evil.com/x", "a@b", "a\"b", "a b", ""] {
            assert_eq!(origin(None, &with_host(bent)), "", "{bent}");
        }
        assert_eq!(origin(None, &HeaderMap::new()), "");
        let configured = Some("https://journal.example");
        assert_eq!(
            origin(configured, &with_host("x")),
            "https://journal.example"
        );
    }

    #[test]
    fn only_the_servers_own_origin_is_its_own() {
        let headers = |host: &str, origin: Option<&str>| {
            let mut headers = HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
            if let Some(origin) = origin {
                headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
            }
            headers
        };
        let own = headers("127.0.0.1:5000", Some("http://127.0.0.1:5000"));
        assert!(is_own_origin(None, &own));
        assert!(!is_own_origin(None, &headers("127.0.0.1:5000", None)));
        let evil = headers("127.0.0.1:5000", Some("http://evil.example"));
        assert!(!is_own_origin(None, &evil));
        assert!(!is_own_origin(
            None,
            &headers("127.0.0.1:5000", Some("null"))
        ));
        assert!(!is_own_origin(Some("https://journal.example"), &own));
        let proxied = headers("internal:5000", Some("https://journal.example"));
        assert!(is_own_origin(Some("https://journal.example"), &proxied));
    }
}
