//! The caller's tags with how many of their entries have each.

use journal_core::{Caller, Journal};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, not_allowed, with_journal};
use crate::openapi::{add_paths, error, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new("/api/user/tags", "GET", tags_route(state))]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    add_paths(
        doc,
        serde_json::json!({
            "/api/user/tags": { "get": {
                "operationId": "tags", "tags": ["entries"], "security": bearer,
                "summary": "The caller's tags with how many of their entries have each, most used first, then by name",
                "responses": {
                    "200": ok("The tags", serde_json::json!({ "type": "array", "items": schema("TagCount") })),
                    "401": error("Unauthorized")
                }
            }}
        }),
    );
}

fn tags_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "tags")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(tags)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

/// `GET /api/user/tags`: the caller's tags with their counts, most used first.
pub async fn tags(journal: Journal, caller: Caller) -> Reply_ {
    let tags = journal.tags(&caller).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &tags))
}
