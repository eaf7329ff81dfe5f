//! Sync between replicas over HTTP (`journal sync`, docs/design/sync.md): the caller's
//! change feed. Every rule is in the core.

use std::collections::HashMap;

use journal_core::domain::SyncCursor;
use journal_core::{CHANGES_PAGE_DEFAULT, CHANGES_PAGE_MAX, Caller, Journal};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, query_map, with_journal};
use crate::openapi::{add_paths, add_schemas, error, error_when, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new(
        "/api/sync/changes",
        "GET",
        changes_route(state),
    )]
}

/// This module's operations and schemas in the OpenAPI document, once the `Entry`
/// schemas are in it.
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let entry = doc["components"]["schemas"]["ImportedEntry"].clone();
    add_schemas(
        doc,
        serde_json::json!({
            "ChangeEntry": entry,
            "EntryChange": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "state", "revisions"],
                "properties": {
                    "id": { "type": "string", "format": "uuid", "description": "The entry's _id." },
                    "state": { "type": "string", "enum": ["live", "trashed", "purged"],
                        "description": "live: in the lists; trashed: in the trash; purged: gone for good with its history." },
                    "entry": { "allOf": [schema("ChangeEntry")], "description": "The entry as it is (live) or was when deleted (trashed); absent when purged." },
                    "deletedAt": { "type": "string", "format": "date-time", "description": "When it was deleted (trashed only)." },
                    "purgedAt": { "type": "string", "format": "date-time", "description": "When it was purged (purged only)." },
                    "revisions": { "type": "array", "items": schema("Revision"),
                        "description": "Its revisions made since the sync began, oldest first; [] when purged." }
                }
            },
            "ChangePage": {
                "type": "object", "additionalProperties": false,
                "required": ["changes", "cursor", "more"],
                "properties": {
                    "changes": { "type": "array", "items": schema("EntryChange") },
                    "cursor": { "type": "string", "description": "Send it back as `since` once these changes are applied." },
                    "more": { "type": "boolean", "description": "True when more changes wait: ask again at once with the new cursor." }
                }
            }
        }),
    );
    add_paths(
        doc,
        serde_json::json!({
            "/api/sync/changes": { "get": {
                "operationId": "syncChanges", "tags": ["sync"], "security": bearer,
                "summary": "The caller's entries changed after a cursor, in the order they changed",
                "description": "Each changed entry once, in its state now (live, in the trash, or purged), with its revisions made since the sync began. Page until `more` is false, keeping each `cursor` with what it brought; the last cursor is where the next sync starts.",
                "parameters": [
                    { "name": "since", "in": "query", "required": false,
                      "description": "The cursor of the last answer; from the beginning when left out.",
                      "schema": { "type": "string" } },
                    { "name": "limit", "in": "query", "required": false,
                      "description": format!("Changes per page, 1 to {CHANGES_PAGE_MAX}; {CHANGES_PAGE_DEFAULT} when left out."),
                      "schema": { "type": "integer", "minimum": 1, "maximum": CHANGES_PAGE_MAX, "default": CHANGES_PAGE_DEFAULT } }
                ],
                "responses": {
                    "200": ok("One page of changes", schema("ChangePage")),
                    "400": error_when("A cursor this server did not give, or a bad limit"),
                    "401": error("Unauthorized"),
                    "409": error_when("The cursor is from another database, or ahead of this one (restored from a backup): sync again from the beginning")
                }
            }}
        }),
    );
}

fn changes_route(state: &AppState) -> Route {
    warp::path!("api" / "sync" / "changes")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(query_map())
                .and_then(changes)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

/// `GET /api/sync/changes?since=CURSOR&limit=N`
async fn changes(journal: Journal, caller: Caller, query: HashMap<String, String>) -> Reply_ {
    let since = query
        .get("since")
        .map(|c| c.parse::<SyncCursor>())
        .transpose()
        .map_err(|e| reject(journal_core::Error::Validation(e)))?;
    let limit = match query.get("limit") {
        None => CHANGES_PAGE_DEFAULT,
        Some(raw) => raw
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=CHANGES_PAGE_MAX).contains(n))
            .ok_or_else(|| {
                reject(ApiError::bad_request(format!(
                    "limit must be a whole number from 1 to {CHANGES_PAGE_MAX}, not {:?}",
                    raw.chars().take(40).collect::<String>()
                )))
            })?,
    };
    let page = journal
        .changes(&caller, since.as_ref(), limit)
        .await
        .map_err(reject)?;
    Ok(json(StatusCode::OK, &page))
}
