//! The origin that Atom feeds and link previews write absolute links under:
//! `--public-url` when the operator set it, else `http://` and the request's `Host`
//! when that is a plain `host[:port]`, else nothing (links stay relative).

use warp::Filter;
use warp::http::HeaderMap;
use warp::http::header::HOST;

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
}
