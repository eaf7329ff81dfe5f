//! Edits that cannot overwrite each other: an entry's `ETag` is its current revision's
//! id, and `If-Match` on a change names the revision it was made from. The core checks
//! the condition in the same transaction as the write (412 when stale).

use journal_core::RevisionId;
use warp::Filter;
use warp::http::header::{ETAG, HeaderValue};
use warp::reply::Response;

use crate::error::{ApiError, reject};

/// Sets `ETag: "<revision id>"`.
pub(crate) fn set_etag(response: &mut Response, revision: &impl std::fmt::Display) {
    if let Ok(value) = HeaderValue::from_str(&format!("\"{revision}\"")) {
        response.headers_mut().insert(ETAG, value);
    }
}

/// The revision `If-Match` names, `None` without the header (or empty, or `*`, which
/// any existing entry matches). 400 for anything but one strong tag, quoted or not: a weak
/// tag never matches for a change (RFC 9110), and one condition is all a revision can
/// meet.
pub(crate) fn if_match()
-> impl Filter<Extract = (Option<RevisionId>,), Error = warp::Rejection> + Clone {
    warp::header::headers_cloned().and_then(|headers: warp::http::HeaderMap| async move {
        let mut fields = headers.get_all("if-match").iter();
        let value = match (fields.next(), fields.next()) {
            (None, _) => return Ok(None),
            (Some(field), None) => field.to_str().map_err(|_| {
                reject(ApiError::bad_request(
                    "If-Match: an ETag is visible ASCII; send the entry's ETag as it came",
                ))
            })?,
            // Several fields are one list (RFC 9110), and one condition is all a
            // revision can meet.
            (Some(_), Some(_)) => {
                return Err(reject(ApiError::bad_request(
                    "If-Match: send one ETag of the entry, in one header field",
                )));
            }
        };
        parse_if_match(value).map_err(|message| reject(ApiError::bad_request(message)))
    })
}

fn parse_if_match(value: &str) -> Result<Option<RevisionId>, String> {
    let value = value.trim();
    // An empty field names no tag: no condition, as without the header.
    if value == "*" || value.is_empty() {
        return Ok(None);
    }
    if value.starts_with("W/") {
        return Err(
            "If-Match: a weak ETag never matches a change; send the entry's ETag as it came".into(),
        );
    }
    let bare = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    bare.parse::<RevisionId>().map(Some).map_err(|_| {
        format!(
            "If-Match: expected one ETag of the entry (\"<revisionId>\" as GET answers it), \
             not {:?}",
            value.chars().take(80).collect::<String>()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_match_takes_one_strong_tag_quoted_or_not() {
        let id = "0192f0c4-5a4e-7cde-8f00-0123456789ab";
        let want = Some(id.parse::<RevisionId>().unwrap());
        assert_eq!(parse_if_match(&format!("\"{id}\"")), Ok(want));
        assert_eq!(parse_if_match(id), Ok(want));
        assert_eq!(parse_if_match("*"), Ok(None));
        assert_eq!(parse_if_match(" "), Ok(None));
        assert!(parse_if_match(&format!("W/\"{id}\"")).is_err());
        assert!(parse_if_match(&format!("\"{id}\", \"{id}\"")).is_err());
        assert!(parse_if_match("\"nope\"").is_err());
    }
}
