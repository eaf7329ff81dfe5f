//! A sync's conflicts over HTTP: the caller's open ones, and settling one by keeping
//! the entry as it is or taking the text set aside. Every rule is in the core.

use journal_core::api::ResolveConflictRequest;
use journal_core::{Caller, Journal, PageRequest};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::Response;

use super::entries::{entry_id, entry_response};
use super::pages::paged_items;
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, json_body, not_allowed, paging, with_journal};
use crate::openapi::{add_paths, add_schemas, error, error_when, json_content, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/sync/conflicts", "GET", list_route(state)),
        Served::new(
            "/api/sync/conflicts/{id}/resolve",
            "POST",
            resolve_route(state),
        ),
    ]
}

/// This module's operations and schemas in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let uuid = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";
    add_schemas(
        doc,
        serde_json::json!({
            "Conflict": {
                "type": "object", "additionalProperties": false,
                "required": ["entryId", "title", "revisionId", "revision", "detectedAt"],
                "properties": {
                    "entryId": { "type": "string", "format": "uuid", "description": "The entry's _id." },
                    "title": { "type": "string", "description": "The entry's title now." },
                    "revisionId": { "type": "string", "format": "uuid", "description": "The revision holding the text set aside." },
                    "revision": { "type": "integer", "minimum": 1, "description": "That revision's number in the entry's history." },
                    "detectedAt": { "type": "string", "format": "date-time", "description": "When the sync met it." }
                }
            },
            "ResolveConflictRequest": {
                "type": "object", "required": ["keep"],
                "properties": {
                    "keep": { "anyOf": [
                        { "type": "string", "enum": ["current"] },
                        { "type": "string", "format": "uuid", "pattern": uuid }
                    ], "description": "current: keep the entry as it is; a revisionId the conflict lists: make the text set aside the entry's, as a new revision." }
                }
            }
        }),
    );
    let page_headers = serde_json::json!({
        "X-Total-Count": { "$ref": "#/components/headers/X-Total-Count" },
        "Link": { "$ref": "#/components/headers/Link" }
    });
    add_paths(
        doc,
        serde_json::json!({
            "/api/sync/conflicts": { "get": {
                "operationId": "syncConflicts", "tags": ["sync"], "security": bearer,
                "summary": "The caller's entries whose text a sync could not merge, newest first",
                "description": "Where a replica and the server changed the same lines, the entry kept one side's text and the other's is a revision in its history, listed here until settled. An entry in the trash is listed again when restored.",
                "parameters": [
                    { "$ref": "#/components/parameters/page" },
                    { "$ref": "#/components/parameters/limit" }
                ],
                "responses": {
                    "200": { "description": "One page of conflicts", "headers": page_headers,
                        "content": json_content(serde_json::json!({ "type": "array", "items": schema("Conflict") })) },
                    "400": error_when("A bad page or limit"), "401": error("Unauthorized")
                }
            }},
            "/api/sync/conflicts/{id}/resolve": {
                "parameters": [{ "name": "id", "in": "path", "required": true,
                    "description": "The entry's _id.", "schema": { "type": "string", "format": "uuid" } }],
                "post": {
                    "operationId": "resolveConflict", "tags": ["sync"], "security": bearer,
                    "summary": "Settle an entry's conflict: keep the entry as it is, or take the text set aside",
                    "requestBody": { "required": true, "content": { "application/json": { "schema": schema("ResolveConflictRequest") } } },
                    "responses": {
                        "200": ok("The entry as it is now", schema("Entry")),
                        "400": error_when("keep is neither current nor a revision id"),
                        "401": error("Unauthorized"),
                        "403": error_when("Another's entry the caller may read"),
                        "404": error_when("No such entry, no open conflict on it, or keep names a revision no conflict set aside"),
                        "415": error_when("Not application/json")
                    }
                }
            }
        }),
    );
}

fn list_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "sync" / "conflicts");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(paging())
        .and_then(list);
    let other = path().and(not_allowed("GET"));
    get.or(other).unify().boxed()
}

/// `GET /api/sync/conflicts`
async fn list(journal: Journal, caller: Caller, page: PageRequest) -> Reply_ {
    let conflicts = journal.conflicts(&caller, page).await.map_err(reject)?;
    Ok(paged_items(&conflicts, "/api/sync/conflicts"))
}

fn resolve_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "sync" / "conflicts" / String / "resolve");
    let post = path()
        .and(warp::post())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(json_body(state.body.clone()))
        .and_then(resolve);
    let other = path()
        .and(not_allowed("POST"))
        .map(|_: String, reply: Response| reply);
    post.or(other).unify().boxed()
}

/// `POST /api/sync/conflicts/:id/resolve`
async fn resolve(
    id: String,
    journal: Journal,
    caller: Caller,
    request: ResolveConflictRequest,
) -> Reply_ {
    let entry = entry_id(&id)?;
    let resolution = request
        .resolution()
        .map_err(|e| reject(journal_core::Error::Validation(e)))?;
    let now = journal
        .resolve_conflict(&caller, &entry, resolution)
        .await
        .map_err(reject)?;
    entry_response(&journal, &caller, StatusCode::OK, &now).await
}
