//! The lists of entries: an author's (`/api/user/{id}/journal-entries`) and the public
//! feed, with the rendered first pages and the feed's validator.

use std::sync::Arc;

use journal_core::store::kept_page;
use journal_core::{Caller, Entry, EntryFilter, FilterParams, Journal, Page, PageRequest, UserId};
use warp::Filter;
use warp::http::header::HeaderValue;
use warp::reply::Response;

use super::pages::{Next, paged_body};
use super::revalidation::revalidated;
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::entry_attachments::{self, EntryAttachment};
use crate::error::reject;
use crate::filters::{
    authenticated, if_none_match, list_filter, not_allowed, paging, with_journal, with_rendered,
};
use crate::render_cache::{Rendered, RenderedPages};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new(
            "/api/user/{id}/journal-entries",
            "GET",
            user_entries_route(state),
        ),
        Served::new(
            "/api/public/journal-entries",
            "GET",
            public_entries_route(state),
        ),
    ]
}

/// `GET /api/user/:id/journal-entries`
fn user_entries_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / String / "journal-entries");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(with_rendered(state.rendered.clone()))
        .and(authenticated(state.journal.clone()))
        .and(paging())
        .and(list_filter())
        .and_then(user_entries);
    let other = path()
        .and(not_allowed("GET"))
        .map(|_id: String, reply: Response| reply);
    get.or(other).unify().boxed()
}

fn public_entries_route(state: &AppState) -> Route {
    warp::path!("api" / "public" / "journal-entries")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(with_rendered(state.rendered.clone()))
                .and(paging())
                .and(list_filter())
                .and(if_none_match())
                .and_then(public_entries)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
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
    let attachments =
        entry_attachments::for_entries(&journal, Some(caller.user_id()), &entries.items).await?;
    let body = list_body(
        &rendered,
        Some(user_id),
        &page,
        &filter,
        &entries,
        &attachments,
    )
    .body;
    Ok(paged_body(
        &entries,
        body,
        &format!("/api/user/{user_id}/journal-entries"),
        &params.query_pairs(),
        Next::ByCursor,
    ))
}

/// `GET /api/public/journal-entries`, [`revalidated`] on every use; its `ETag` comes
/// from the rendered page's fingerprint, which the first pages keep.
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
    let attachments = entry_attachments::for_entries(&journal, None, &entries.items).await?;
    let list = list_body(&rendered, None, &page, &filter, &entries, &attachments);
    let fingerprint = list
        .fingerprint
        .unwrap_or_else(|| rendered.fingerprint(&entries.items, &attachments));
    let response = paged_body(
        &entries,
        list.body,
        "/api/public/journal-entries",
        &params.query_pairs(),
        Next::ByCursor,
    );
    let etag = rendered.etag(fingerprint, response.headers());
    Ok(revalidated(response, etag, if_none_match.as_ref()))
}

/// The JSON array of a list page: through the memo for the pages the caches keep
/// ([`kept_page`]), rendered afresh for the others.
fn list_body(
    rendered: &RenderedPages,
    list: Option<UserId>,
    request: &PageRequest,
    filter: &EntryFilter,
    entries: &Page<Entry>,
    attachments: &[Vec<EntryAttachment>],
) -> Rendered {
    rendered.body(
        list,
        kept_page(filter, *request),
        &entries.items,
        attachments,
    )
}
