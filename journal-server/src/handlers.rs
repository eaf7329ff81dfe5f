//! Handlers: each calls one core operation and shapes its reply.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, DeleteAccountRequest, ImportEntriesRequest,
    ImportEntriesResponse, LoginRequest, LoginResponse, MessageResponse, ProfileResponse,
    RegisterRequest, RegisterResponse, StatusResponse, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{
    Caller, Entry, EntryFilter, EntryId, FilterParams, Journal, Page, PageRequest, UserId,
};
use serde::Serialize;
use warp::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, HeaderValue, LINK, LOCATION};
use warp::http::{HeaderName, StatusCode};
use warp::reply::Response;
use warp::{Rejection, Reply};

use crate::entries_json::entries_json;
use crate::error::{ApiError, reject};
use crate::rate_limit::{Account, LoginThrottle};
use crate::render_cache::{Rendered, RenderedPages};
use crate::security_log::Checked;

pub(crate) type Reply_ = Result<Response, Rejection>;

pub(crate) fn json<T: Serialize>(status: StatusCode, body: &T) -> Response {
    warp::reply::with_status(warp::reply::json(body), status).into_response()
}

pub(crate) fn message(text: &str) -> Response {
    json(
        StatusCode::OK,
        &MessageResponse {
            message: text.to_owned(),
        },
    )
}

/// `POST /api/user/register`
pub async fn register(journal: Journal, body: RegisterRequest) -> Reply_ {
    let user_id = journal.register(&body).await.map_err(reject)?;
    Ok(json(StatusCode::CREATED, &RegisterResponse { user_id }))
}

/// `POST /api/user/login`, counting failures per account when `throttle` is on.
pub async fn login(
    journal: Journal,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: LoginRequest,
) -> Reply_ {
    let account = body
        .email
        .as_deref()
        .map(|email| Account::new(email, body.totp.is_some()));
    let from = crate::security_log::client_info(client);
    let token = throttled(throttle, account, client, journal.login_from(&body, &from))
        .await
        .inspect_err(|r| {
            let checked = Checked::Login(body.email.clone());
            crate::security_log::note_if_throttled(&journal, r, checked, client);
        })?;
    Ok(json(StatusCode::OK, &LoginResponse { token }))
}

/// Runs a password check (`check`) under the per-account throttle: 429 when the
/// account is throttled for this client; the outcome counted as the throttle needs: a
/// wrong password or code stays counted, a success clears the count, anything else is
/// refunded.
pub(crate) async fn throttled<T>(
    throttle: Option<Arc<LoginThrottle>>,
    account: Option<Account<'_>>,
    client: Option<SocketAddr>,
    check: impl std::future::Future<Output = journal_core::Result<T>>,
) -> Result<T, Rejection> {
    let attempt = match (&throttle, account) {
        (Some(throttle), Some(account)) => Some(
            throttle
                .begin(account, client.map(|a| a.ip()))
                .map_err(|seconds| reject(ApiError::account_throttled(seconds)))?,
        ),
        _ => None,
    };
    let result = check.await;
    if let (Some(throttle), Some(attempt)) = (&throttle, attempt) {
        match &result {
            Ok(_) => throttle.succeeded(attempt),
            Err(journal_core::Error::InvalidCredentials | journal_core::Error::WrongPassword) => {
                throttle.failed(attempt)
            }
            Err(journal_core::Error::InvalidSecondFactor) => throttle.failed_code(attempt),
            Err(_) => throttle.refund(attempt),
        }
    }
    result.map_err(reject)
}

/// Runs `step` of a signed-in caller that checks a password or code from the body
/// (`sent`: whether the body has a password, and a code) under the per-account
/// throttle, by the caller's own address: a stolen token guesses from the same count as
/// a stranger at the login form. A step sent neither checks nothing a guess could find,
/// and is not counted.
pub(crate) async fn confirmed<T>(
    journal: &Journal,
    throttle: Option<Arc<LoginThrottle>>,
    caller: &Caller,
    client: Option<SocketAddr>,
    (password, code): (bool, bool),
    step: impl std::future::Future<Output = journal_core::Result<T>>,
) -> Result<T, Rejection> {
    if throttle.is_none() || !(password || code) {
        return step.await.map_err(reject);
    }
    let email = journal.profile(caller).await.map_err(reject)?.email;
    throttled(throttle, Some(Account::new(&email, code)), client, step)
        .await
        .inspect_err(|r| {
            let checked = Checked::Password(*caller.user_id());
            crate::security_log::note_if_throttled(journal, r, checked, client);
        })
}

/// `GET /api/user/profile/`
pub async fn profile(journal: Journal, caller: Caller) -> Reply_ {
    let user = journal.profile(&caller).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &ProfileResponse { user }))
}

/// `PUT /api/user/profile/`
pub async fn update_profile(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: UpdateProfileRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let update = journal.update_profile(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, update).await?;
    Ok(message("profile updated"))
}

/// `PUT /api/user/profile/password`
pub async fn change_password(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: ChangePasswordRequest,
) -> Reply_ {
    let sent = (true, body.totp.is_some());
    let change = journal.change_password(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, change).await?;
    Ok(message(if body.keep_access_tokens.unwrap_or(false) {
        "password changed; every login session has ended, log in again; access tokens still work"
    } else {
        "password changed; every login session and access token has ended, log in again"
    }))
}

/// `DELETE /api/user/profile/`, with the password (and code) in an optional body.
pub async fn delete_account(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: DeleteAccountRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let delete = journal.delete_account(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, delete).await?;
    Ok(message("account and entries deleted"))
}

/// `POST /api/user/logout`
pub async fn logout(journal: Journal, caller: Caller) -> Reply_ {
    journal.logout(&caller).await.map_err(reject)?;
    Ok(message("logged out; this token no longer works"))
}

/// `POST /api/journal-entries`
pub async fn create_entry(journal: Journal, caller: Caller, body: CreateEntryRequest) -> Reply_ {
    let entry = journal.create_entry(&caller, &body).await.map_err(reject)?;
    let mut response = json(StatusCode::CREATED, &entry);
    if let Ok(location) = HeaderValue::from_str(&format!("/api/journal-entries/{}", entry.id)) {
        response.headers_mut().insert(LOCATION, location);
    }
    Ok(response)
}

/// `POST /api/journal-entries/import`
pub async fn import_entries(
    journal: Journal,
    caller: Caller,
    body: ImportEntriesRequest,
) -> Reply_ {
    let entries = journal.import(&caller, &body).await.map_err(reject)?;
    Ok(json(
        StatusCode::CREATED,
        &ImportEntriesResponse { entries },
    ))
}

fn entry_id(raw: &str) -> Result<EntryId, Rejection> {
    raw.parse::<EntryId>()
        .map_err(|e| reject(journal_core::Error::from(e)))
}

/// `GET /api/journal-entries/:id`
pub async fn entry(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal.entry(&caller, &id).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &entry))
}

/// `PUT /api/journal-entries/:id`
pub async fn update_entry(
    id: String,
    journal: Journal,
    caller: Caller,
    body: UpdateEntryRequest,
) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal
        .update_entry(&caller, &id, &body)
        .await
        .map_err(reject)?;
    Ok(json(StatusCode::OK, &entry))
}

/// `DELETE /api/journal-entries/:id`
pub async fn delete_entry(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let id = entry_id(&id)?;
    journal.delete_entry(&caller, &id).await.map_err(reject)?;
    Ok(message("entry deleted"))
}

/// `GET /api/user/:id/journal-entries`
pub async fn user_entries(
    user: String,
    journal: Journal,
    rendered: Arc<RenderedPages>,
    caller: Caller,
    page: PageRequest,
    filter: EntryFilter,
    params: FilterParams,
) -> Reply_ {
    let user_id = user
        .parse::<UserId>()
        .map_err(|e| reject(journal_core::Error::from(e)))?;
    let entries = journal
        .user_entries_matching(&caller, &user_id, &filter, page)
        .await
        .map_err(reject)?;
    let body = list_body(&rendered, Some(user_id), &page, &filter, &entries).body;
    Ok(paged_body(
        &entries,
        body,
        &format!("/api/user/{user_id}/journal-entries"),
        &params.query_pairs(),
        Next::ByCursor,
    ))
}

/// `GET /api/public/journal-entries`: `Cache-Control: no-cache` with an `ETag`, so a
/// cache may keep the page but asks on every use whether it still holds (an entry
/// made private must leave every copy at once), and a page that did not change costs
/// a 304 without its body. The answer to a signed-in request is `no-store` all the
/// same (`connections.rs`).
pub async fn public_entries(
    journal: Journal,
    rendered: Arc<RenderedPages>,
    page: PageRequest,
    filter: EntryFilter,
    params: FilterParams,
    if_none_match: Option<HeaderValue>,
) -> Reply_ {
    let entries = journal
        .public_entries_matching(&filter, page)
        .await
        .map_err(reject)?;
    let list = list_body(&rendered, None, &page, &filter, &entries);
    let fingerprint = list
        .fingerprint
        .unwrap_or_else(|| rendered.fingerprint(&entries.items));
    let mut response = paged_body(
        &entries,
        list.body,
        "/api/public/journal-entries",
        &params.query_pairs(),
        Next::ByCursor,
    );
    let etag = rendered.etag(fingerprint, response.headers());
    let tags = if_none_match.as_ref().and_then(|v| v.to_str().ok());
    if tags.is_some_and(|tags| matches_etag(tags, &etag)) {
        let mut not_modified = Response::new(Bytes::new().into());
        *not_modified.status_mut() = StatusCode::NOT_MODIFIED;
        for name in ["x-total-count", "link"] {
            if let Some(value) = response.headers().get(name) {
                not_modified.headers_mut().insert(name, value.clone());
            }
        }
        response = not_modified;
    }
    let headers = response.headers_mut();
    headers.insert(ETAG, etag);
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
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

/// The JSON array of a list page: through the memo for the first pages of unfiltered
/// lists (by number, which the store caches too), rendered afresh for the others.
fn list_body(
    rendered: &RenderedPages,
    list: Option<UserId>,
    request: &PageRequest,
    filter: &EntryFilter,
    entries: &Page<Entry>,
) -> Rendered {
    if request.after().is_none() && filter.is_empty() {
        rendered.body(list, entries.page, entries.limit, &entries.items)
    } else {
        Rendered {
            body: Bytes::from(entries_json(&entries.items)),
            fingerprint: None,
        }
    }
}

/// `GET /api/search/journal-entries`
pub async fn search(
    journal: Journal,
    caller: Caller,
    q: String,
    page: PageRequest,
    filter: EntryFilter,
    params: FilterParams,
) -> Reply_ {
    let entries = journal
        .search_matching(&caller, &q, &filter, page)
        .await
        .map_err(reject)?;
    let mut link_params = vec![("q", q.as_str())];
    link_params.extend(params.query_pairs());
    Ok(paged(
        &entries,
        "/api/search/journal-entries",
        &link_params,
        Next::ByNumber,
    ))
}

/// `GET /api/user/tags`: the caller's tags with their counts, most used first.
pub async fn tags(journal: Journal, caller: Caller) -> Reply_ {
    let tags = journal.tags(&caller).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &tags))
}

/// `GET /api/status`: 200 when the database answers, 503 otherwise.
pub async fn status(journal: Journal) -> Reply_ {
    if let Err(e) = journal.ping().await {
        tracing::error!(error = %e, "status: the database does not answer");
        return Err(reject(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer; try again later",
        )));
    }
    Ok(json(
        StatusCode::OK,
        &StatusResponse {
            status: "ok".into(),
            database: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    ))
}

/// `GET /api/openapi.json`
pub async fn openapi() -> Reply_ {
    Ok(json(StatusCode::OK, crate::openapi::document()))
}

/// How the `next` link of a list continues.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// `?page=N+1` (ranked lists: search).
    ByNumber,
    /// `?page=N+1&after=<cursor>`: newest-first lists continue after their last entry,
    /// through the index, so deep pages cost what the first does.
    ByCursor,
}

/// A page as a plain JSON array, with `X-Total-Count` and a `Link` header to the pages
/// before and after it (same `limit` and other query parameters).
fn paged(page: &Page<Entry>, path: &str, params: &[(&str, &str)], next: Next) -> Response {
    paged_body(page, entries_json(&page.items).into(), path, params, next)
}

/// [`paged`] with the JSON array of `page.items` already rendered as `body`.
fn paged_body(
    page: &Page<Entry>,
    body: Bytes,
    path: &str,
    params: &[(&str, &str)],
    next: Next,
) -> Response {
    let mut response = Response::new(body.into());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        HeaderName::from_static("x-total-count"),
        HeaderValue::from(page.total),
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
        if let (Next::ByCursor, Some(last)) = (next, page.items.last()) {
            let cursor = journal_core::Cursor::new(last.date, last.id);
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
    fn if_none_match_names_the_tag_in_a_list_weakly_or_by_star() {
        let etag = HeaderValue::from_static("\"abc\"");
        for yes in ["\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", "*"] {
            assert!(matches_etag(yes, &etag), "{yes}");
        }
        for no in ["\"abcd\"", "abc", "\"x\"", ""] {
            assert!(!matches_etag(no, &etag), "{no}");
        }
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(percent_encode("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }
}
