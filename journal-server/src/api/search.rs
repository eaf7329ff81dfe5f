//! Search: the caller's own entries matching every word of `q`, best match first.

use journal_core::api::schema::WHITESPACE;
use journal_core::{Caller, EntryFilter, FilterParams, Journal, PageRequest};
use serde_json::Value;
use warp::Filter;

use super::pages::{Next, paged};
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, list_filter, not_allowed, paging, search_text, with_journal};
use crate::openapi::{
    TOO_DEEP, add_paths, error, error_when, filter_params, paged as page_response,
};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new(
        "/api/search/journal-entries",
        "GET",
        search_route(state),
    )]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let search_filters = filter_params();
    add_paths(
        doc,
        serde_json::json!({
            "/api/search/journal-entries": { "get": {
                "operationId": "searchEntries", "tags": ["entries"], "security": bearer,
                "summary": "The caller's own entries matching every word of q (word prefixes, any case), best match first",
                "parameters": [
                    { "name": "q", "in": "query", "required": true, "description": "The words to find.",
                      "schema": {
                          "type": "string",
                          "pattern": format!("[^{WHITESPACE}]"),
                          "description": "Not blank."
                      } },
                    { "$ref": "#/components/parameters/page" },
                    { "$ref": "#/components/parameters/limit" },
                    search_filters[0], search_filters[1], search_filters[2],
                    search_filters[3], search_filters[4], search_filters[5]
                ],
                "responses": {
                    "200": page_response("One page of matches"),
                    "400": error_when(TOO_DEEP), "401": error("Unauthorized")
                }
            }}
        }),
    );
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
    let attachments =
        crate::entry_attachments::for_entries(&journal, Some(caller.user_id()), &entries.items)
            .await?;
    Ok(paged(
        &entries,
        &attachments,
        "/api/search/journal-entries",
        &link_params,
        Next::ByNumber,
    ))
}
