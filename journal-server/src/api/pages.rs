//! The pages of entries as a plain JSON array with `X-Total-Count`,
//! `X-Total-Count-Exact` and a `Link` header to the pages around it: how the lists and
//! search shape their answers.

use bytes::Bytes;
use journal_core::{Entry, Page};
use warp::http::HeaderName;
use warp::http::header::{CONTENT_TYPE, HeaderValue, LINK};
use warp::reply::Response;

use crate::entries_json::entries_json;
use crate::entry_attachments::EntryAttachment;

/// How the `next` link of a list continues.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// `?page=N+1` (ranked lists: search).
    ByNumber,
    /// `?page=N+1&after=<cursor>`: newest-first lists continue after their last entry,
    /// through the index, so deep pages cost what the first does.
    ByCursor,
}

/// A page as a plain JSON array (each entry with its `attachments`), with `X-Total-Count` (and `X-Total-Count-Exact`) and a
/// `Link` header to the pages
/// before and after it (same `limit` and other query parameters).
pub(crate) fn paged(
    page: &Page<Entry>,
    attachments: &[Vec<EntryAttachment>],
    path: &str,
    params: &[(&str, &str)],
    next: Next,
) -> Response {
    let body = entries_json(&page.items, attachments).into();
    paged_body(page, body, path, params, next)
}

/// [`paged`] with the JSON array of `page.items` already rendered as `body`.
pub(crate) fn paged_body(
    page: &Page<Entry>,
    body: Bytes,
    path: &str,
    params: &[(&str, &str)],
    next: Next,
) -> Response {
    let cursor = match (next, page.items.last()) {
        (Next::ByCursor, Some(last)) => Some(journal_core::Cursor::new(last.date, last.id)),
        _ => None,
    };
    with_page_headers(page, body, path, params, cursor)
}

/// A page of anything else (revisions, the trash) as a plain JSON array with the same
/// headers, its `next` link by number.
pub(crate) fn paged_items<T: serde::Serialize>(page: &Page<T>, path: &str) -> Response {
    match serde_json::to_vec(&page.items) {
        Ok(body) => with_page_headers(page, body.into(), path, &[], None),
        Err(e) => {
            crate::error::ApiError::from(journal_core::Error::Internal(Box::new(e))).into_response()
        }
    }
}

/// The response of `body`, one page of `page`'s list, with its headers; the `next`
/// link continues after `cursor` when there is one.
fn with_page_headers<T>(
    page: &Page<T>,
    body: Bytes,
    path: &str,
    params: &[(&str, &str)],
    cursor: Option<journal_core::Cursor>,
) -> Response {
    let mut response = Response::new(body.into());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        HeaderName::from_static("x-total-count"),
        HeaderValue::from(page.total),
    );
    // Beside the number rather than in it, so clients that read `X-Total-Count` as a
    // number keep working: a lower bound still names every page reachable by number.
    headers.insert(
        HeaderName::from_static("x-total-count-exact"),
        HeaderValue::from_static(if page.total_is_lower_bound {
            "false"
        } else {
            "true"
        }),
    );
    let link_to = |number: u32, rel: &str| {
        let mut query = String::new();
        for (key, value) in params {
            query.push_str(&format!("{key}={}&", percent_encode(value)));
        }
        format!(
            "<{path}?{query}page={number}&limit={}>; rel=\"{rel}\"",
            page.limit
        )
    };
    let mut links = Vec::new();
    if page.has_prev() {
        // A page past the end points back to the last page that exists.
        let prev = (page.page - 1).min(u32::try_from(page.page_count()).unwrap_or(u32::MAX));
        links.push(link_to(prev, "prev"));
    }
    if page.has_next() {
        let mut link = link_to(page.page + 1, "next");
        if let Some(cursor) = cursor {
            link = link.replacen(">;", &format!("&after={cursor}>;"), 1);
        }
        links.push(link);
    }
    if let Some(value) = (!links.is_empty())
        .then(|| HeaderValue::from_str(&links.join(", ")).ok())
        .flatten()
    {
        headers.insert(LINK, value);
    }
    response
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(percent_encode("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }
}
