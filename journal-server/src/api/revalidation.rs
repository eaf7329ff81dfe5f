//! Public answers that every cache must revalidate: `Cache-Control: no-cache` with an
//! `ETag`, so a copy is asked about on every use (an entry or profile made private
//! leaves every cache at once) and an unchanged one costs a 304 without its body. An
//! answer to a signed-in request is `no-store` all the same (`connections.rs`).

use bytes::Bytes;
use sha2::{Digest, Sha256};
use warp::http::StatusCode;
use warp::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderValue};
use warp::reply::Response;

/// A strong validator of `body` with the headers that describe it (`X-Total-Count`,
/// `Link`): equal answers have equal tags, on any server process.
pub(crate) fn etag_of(body: &[u8], response: &Response) -> HeaderValue {
    let mut hash = Sha256::new();
    hash.update(body);
    for name in ["x-total-count", "link"] {
        hash.update([0]);
        if let Some(value) = response.headers().get(name) {
            hash.update(value.as_bytes());
        }
    }
    let digest = hash.finalize();
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    HeaderValue::from_str(&format!("\"{hex}\"")).expect("hex is a header value")
}

/// `body` as `content_type`, [`revalidated`] by a tag of its bytes.
pub(crate) fn revalidated_body(
    body: Bytes,
    content_type: &'static str,
    if_none_match: Option<&HeaderValue>,
) -> Response {
    let mut response = Response::new(body.clone().into());
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    let etag = etag_of(&body, &response);
    revalidated(response, etag, if_none_match)
}

/// `response` with `etag` and `no-cache`; a 304 with the same headers and no body when
/// `if_none_match` names the tag.
pub(crate) fn revalidated(
    mut response: Response,
    etag: HeaderValue,
    if_none_match: Option<&HeaderValue>,
) -> Response {
    let tags = if_none_match.and_then(|v| v.to_str().ok());
    if tags.is_some_and(|tags| matches_etag(tags, &etag)) {
        let mut not_modified = Response::new(Bytes::new().into());
        *not_modified.status_mut() = StatusCode::NOT_MODIFIED;
        for name in ["x-total-count", "x-total-count-exact", "link"] {
            if let Some(value) = response.headers().get(name) {
                not_modified.headers_mut().insert(name, value.clone());
            }
        }
        response = not_modified;
    }
    let headers = response.headers_mut();
    headers.insert(ETAG, etag);
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Whether an `If-None-Match` value names `etag`: `*`, or a list in which it is, by
/// the weak comparison RFC 9110 asks for here (a `W/` before a tag is ignored).
fn matches_etag(if_none_match: &str, etag: &HeaderValue) -> bool {
    let etag = etag.as_bytes();
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag).as_bytes() == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_names_the_tag_in_a_list_weakly_or_by_star() {
        let etag = HeaderValue::from_static("\"abc\"");
        for yes in ["\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", "*"] {
            assert!(matches_etag(yes, &etag), "{yes}");
        }
        for no in ["\"abcd\"", "abc", "\"x\"", ""] {
            assert!(!matches_etag(no, &etag), "{no}");
        }
    }
}
