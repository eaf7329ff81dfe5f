//! Search: the caller's own entries matching every word of `q`, best match first.

use journal_core::{Caller, EntryFilter, FilterParams, Journal, PageRequest};
use warp::Filter;

use super::pages::{Next, paged};
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, list_filter, not_allowed, paging, search_text, with_journal};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new(
        "/api/search/journal-entries",
        "GET",
        search_route(state),
    )]
}

fn search_route(state: &AppState) -> Route {
    warp::path!("api" / "search" / "journal-entries")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(search_text())
                .and(paging())
                .and(list_filter())
                .and_then(search)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
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
