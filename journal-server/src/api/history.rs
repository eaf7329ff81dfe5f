//! An entry's history and the trash over HTTP: revisions, one revision, the words one
//! changed, restoring one; the caller's trash, restoring from it and purging. Every
//! rule (only the author, what a restore writes) is in the core.

use journal_core::diff::{Change, words};
use journal_core::{Caller, Journal, PageRequest, Revision, RevisionId};
use serde::Serialize;
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;
use warp::reply::Response;

use super::entries::{entry_id, entry_response};
use super::pages::paged_items;
use super::preconditions::if_match;
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, paging, query_map, with_journal};
use crate::openapi::{add_paths, error, error_when, json_content, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new(
            "/api/journal-entries/{id}/revisions",
            "GET",
            revisions_route(state),
        ),
        Served::new(
            "/api/journal-entries/{id}/revisions/{n}",
            "GET",
            revision_route(state),
        ),
        Served::new(
            "/api/journal-entries/{id}/revisions/{n}/diff",
            "GET",
            diff_route(state),
        ),
        Served::new(
            "/api/journal-entries/{id}/revisions/{n}/restore",
            "POST",
            restore_route(state),
        ),
        Served::new("/api/user/trash", "GET", trash_route(state)),
        Served::new("/api/user/trash/{id}/restore", "POST", untrash_route(state)),
        Served::new("/api/user/trash/{id}", "DELETE", purge_route(state)),
    ]
}

/// This module's operations in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let id = serde_json::json!({
        "name": "id", "in": "path", "required": true,
        "description": "The entry's _id.", "schema": { "type": "string", "format": "uuid" }
    });
    let n = serde_json::json!({
        "name": "n", "in": "path", "required": true,
        "description": "The revision's number: 1 for the entry as created.",
        "schema": { "type": "integer", "minimum": 1, "maximum": 2147483647 }
    });
    let page_headers = serde_json::json!({
        "X-Total-Count": { "$ref": "#/components/headers/X-Total-Count" },
        "Link": { "$ref": "#/components/headers/Link" }
    });
    let entry_with_etag = serde_json::json!({
        "description": "The entry, its new revision holding revision n's state",
        "headers": { "ETag": { "description": "The new revision's id, quoted", "schema": { "type": "string" } } },
        "content": json_content(schema("Entry"))
    });
    add_paths(
        doc,
        serde_json::json!({
            "/api/journal-entries/{id}/revisions": {
                "parameters": [id],
                "get": {
                    "operationId": "entryRevisions", "tags": ["history"], "security": bearer,
                    "summary": "The caller's own entry's revisions, newest first",
                    "description": "Only the author sees an entry's history, even of a public entry (403 for another who may see the entry, 404 for one who may not).",
                    "parameters": [
                        { "$ref": "#/components/parameters/page" },
                        { "name": "limit", "in": "query", "required": false,
                          "description": "Revisions per page, 1 to 20 (each may hold a whole text); 10 when left out.",
                          "schema": { "type": "integer", "minimum": 1, "maximum": 20, "default": 10 } }
                    ],
                    "responses": {
                        "200": { "description": "One page of revisions", "headers": page_headers,
                            "content": json_content(serde_json::json!({ "type": "array", "items": schema("Revision") })) },
                        "400": error_when("A bad page or limit"), "401": error("Unauthorized"),
                        "403": error("Forbidden"), "404": error("NotFound")
                    }
                }
            },
            "/api/journal-entries/{id}/revisions/{n}": {
                "parameters": [id, n],
                "get": {
                    "operationId": "entryRevision", "tags": ["history"], "security": bearer,
                    "summary": "Revision n of the caller's own entry",
                    "responses": {
                        "200": ok("The revision", schema("Revision")),
                        "400": error_when("n is not a revision number"),
                        "401": error("Unauthorized"), "403": error("Forbidden"),
                        "404": error_when("No such entry or revision")
                    }
                }
            },
            "/api/journal-entries/{id}/revisions/{n}/diff": {
                "parameters": [id, n],
                "get": {
                    "operationId": "entryRevisionDiff", "tags": ["history"], "security": bearer,
                    "summary": "The words revision n changed against another (the current one unless `against` says)",
                    "parameters": [{ "name": "against", "in": "query", "required": false,
                        "description": "The newer revision's number; the current revision when left out.",
                        "schema": { "type": "integer", "minimum": 1, "maximum": 2147483647 } }],
                    "responses": {
                        "200": ok("Title and content as runs of same, added and removed text, from revision n to the other", schema("RevisionDiff")),
                        "400": error_when("n or against is not a revision number"),
                        "401": error("Unauthorized"), "403": error("Forbidden"),
                        "404": error_when("No such entry or revision")
                    }
                }
            },
            "/api/journal-entries/{id}/revisions/{n}/restore": {
                "parameters": [id, n],
                "post": {
                    "operationId": "restoreRevision", "tags": ["history"], "security": bearer,
                    "summary": "Make revision n's state the current one, as a new revision",
                    "description": "Honours If-Match (the entry's ETag as last read): when it names a revision that is no longer current, 412 and nothing changes.",
                    "responses": {
                        "200": entry_with_etag,
                        "400": error_when("n is not a revision number, or a bad If-Match"),
                        "401": error("Unauthorized"), "403": error("Forbidden"),
                        "404": error_when("No such entry or revision"),
                        "412": error_when("If-Match names a revision that is no longer current: nothing changed")
                    }
                }
            },
            "/api/user/trash": {
                "get": {
                    "operationId": "trash", "tags": ["history"], "security": bearer,
                    "summary": "The caller's deleted entries, newest deletion first",
                    "description": "A deleted entry stays here for the server's --trash-days (30 by default), then is purged with its history.",
                    "parameters": [
                        { "$ref": "#/components/parameters/page" },
                        { "$ref": "#/components/parameters/limit" }
                    ],
                    "responses": {
                        "200": { "description": "One page of the trash", "headers": page_headers,
                            "content": json_content(serde_json::json!({ "type": "array", "items": schema("TrashedEntry") })) },
                        "400": error_when("A bad page or limit"), "401": error("Unauthorized")
                    }
                }
            },
            "/api/user/trash/{id}/restore": {
                "parameters": [id],
                "post": {
                    "operationId": "untrash", "tags": ["history"], "security": bearer,
                    "summary": "Put an entry of the caller's trash back, with its tags, star, date, visibility and history",
                    "responses": {
                        "200": ok("The entry", schema("Entry")),
                        "401": error("Unauthorized"), "404": error_when("The caller's trash has no such entry")
                    }
                }
            },
            "/api/user/trash/{id}": {
                "parameters": [id],
                "delete": {
                    "operationId": "purge", "tags": ["history"], "security": bearer,
                    "summary": "Delete an entry of the caller's trash for good, with its history",
                    "description": "Needs a login: a personal access token cannot delete for good (403).",
                    "responses": {
                        "200": ok("Done", schema("Message")),
                        "401": error("Unauthorized"), "403": error_when("A personal access token: log in with the password"),
                        "404": error_when("The caller's trash has no such entry")
                    }
                }
            }
        }),
    );
}

/// The schemas of the trash and of a diff, once `Entry`'s is in the document: a
/// trashed entry is an entry with `deletedAt`.
pub(crate) fn add_schemas(doc: &mut Value) {
    let mut trashed = doc["components"]["schemas"]["Entry"].clone();
    trashed["properties"]["deletedAt"] =
        serde_json::json!({ "type": "string", "format": "date-time" });
    if let Some(required) = trashed["required"].as_array_mut() {
        required.push("deletedAt".into());
    }
    let runs = serde_json::json!({ "type": "array", "items": {
        "type": "object", "additionalProperties": false, "required": ["op", "text"],
        "properties": {
            "op": { "type": "string", "enum": ["same", "added", "removed"] },
            "text": { "type": "string" }
        }
    }});
    crate::openapi::add_schemas(
        doc,
        serde_json::json!({
            "TrashedEntry": trashed,
            "RevisionDiff": {
                "type": "object", "additionalProperties": false,
                "required": ["from", "to", "title", "content"],
                "properties": {
                    "from": { "type": "integer", "minimum": 1 },
                    "to": { "type": "integer", "minimum": 1 },
                    "title": runs, "content": runs
                }
            }
        }),
    );
}

/// A revision number from the path: 400 when it is not one.
fn revision_number(raw: &str) -> Result<u32, warp::Rejection> {
    named_revision_number("the revision number", raw)
}

/// `raw` as a revision number, or 400 naming `what`.
fn named_revision_number(what: &str, raw: &str) -> Result<u32, warp::Rejection> {
    raw.parse::<u32>()
        .ok()
        .filter(|n| (1..=i32::MAX as u32).contains(n))
        .ok_or_else(|| {
            reject(ApiError::bad_request(format!(
                "{what} must be a whole number from 1 (the entry as created) to {}, not {:?}",
                i32::MAX,
                raw.chars().take(40).collect::<String>()
            )))
        })
}

fn revisions_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String / "revisions");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(paging())
        .and_then(revisions);
    let other = path()
        .and(not_allowed("GET"))
        .map(|_: String, reply: Response| reply);
    get.or(other).unify().boxed()
}

/// `GET /api/journal-entries/:id/revisions`
async fn revisions(id: String, journal: Journal, caller: Caller, page: PageRequest) -> Reply_ {
    let entry = entry_id(&id)?;
    let revisions = journal
        .revisions(&caller, &entry, page)
        .await
        .map_err(reject)?;
    Ok(paged_items(
        &revisions,
        &format!("/api/journal-entries/{entry}/revisions"),
    ))
}

fn revision_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String / "revisions" / String);
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(revision);
    let other = path()
        .and(not_allowed("GET"))
        .map(|_: String, _: String, reply: Response| reply);
    get.or(other).unify().boxed()
}

/// `GET /api/journal-entries/:id/revisions/:n`
async fn revision(id: String, n: String, journal: Journal, caller: Caller) -> Reply_ {
    let (entry, n) = (entry_id(&id)?, revision_number(&n)?);
    let revision = journal.revision(&caller, &entry, n).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &revision))
}

/// What `GET …/revisions/:n/diff` answers.
#[derive(Serialize)]
struct RevisionDiff {
    from: u32,
    to: u32,
    title: Vec<Change>,
    content: Vec<Change>,
}

fn diff_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String / "revisions" / String / "diff");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(query_map())
        .and_then(diff);
    let other = path()
        .and(not_allowed("GET"))
        .map(|_: String, _: String, reply: Response| reply);
    get.or(other).unify().boxed()
}

/// `GET /api/journal-entries/:id/revisions/:n/diff?against=M`
async fn diff(
    id: String,
    n: String,
    journal: Journal,
    caller: Caller,
    query: std::collections::HashMap<String, String>,
) -> Reply_ {
    let (entry, n) = (entry_id(&id)?, revision_number(&n)?);
    let against = query
        .get("against")
        .map(|m| named_revision_number("against", m))
        .transpose()?;
    let old = journal.revision(&caller, &entry, n).await.map_err(reject)?;
    let new: Revision = match against {
        Some(m) => journal.revision(&caller, &entry, m).await.map_err(reject)?,
        None => {
            let current = journal.entry(&caller, &entry).await.map_err(reject)?;
            journal
                .revision(&caller, &entry, current.revision)
                .await
                .map_err(reject)?
        }
    };
    // The diff runs on the blocking pool: it is bounded, but not free.
    let body = tokio::task::spawn_blocking(move || RevisionDiff {
        from: old.revision,
        to: new.revision,
        title: words(&old.title, &new.title),
        content: words(&old.content, &new.content),
    })
    .await
    .map_err(|e| reject(journal_core::Error::Internal(Box::new(e))))?;
    Ok(json(StatusCode::OK, &body))
}

fn restore_route(state: &AppState) -> Route {
    let path =
        || warp::path!("api" / "journal-entries" / String / "revisions" / String / "restore");
    let post = path()
        .and(warp::post())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(if_match())
        .and_then(restore);
    let other = path()
        .and(not_allowed("POST"))
        .map(|_: String, _: String, reply: Response| reply);
    post.or(other).unify().boxed()
}

/// `POST /api/journal-entries/:id/revisions/:n/restore`
async fn restore(
    id: String,
    n: String,
    journal: Journal,
    caller: Caller,
    if_match: Option<RevisionId>,
) -> Reply_ {
    let (entry, n) = (entry_id(&id)?, revision_number(&n)?);
    let restored = journal
        .restore_revision(&caller, &entry, n, if_match)
        .await
        .map_err(reject)?;
    entry_response(&journal, &caller, StatusCode::OK, &restored).await
}

fn trash_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "trash")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(paging())
                .and_then(trash)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

/// `GET /api/user/trash`
async fn trash(journal: Journal, caller: Caller, page: PageRequest) -> Reply_ {
    let page = journal.trash(&caller, page).await.map_err(reject)?;
    Ok(paged_items(&page, "/api/user/trash"))
}

fn untrash_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / "trash" / String / "restore");
    let post = path()
        .and(warp::post())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(untrash);
    let other = path()
        .and(not_allowed("POST"))
        .map(|_: String, reply: Response| reply);
    post.or(other).unify().boxed()
}

/// `POST /api/user/trash/:id/restore`
async fn untrash(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let entry = entry_id(&id)?;
    let restored = journal.untrash(&caller, &entry).await.map_err(reject)?;
    entry_response(&journal, &caller, StatusCode::OK, &restored).await
}

fn purge_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / "trash" / String);
    let delete = path()
        .and(warp::delete())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(purge);
    let other = path()
        .and(not_allowed("DELETE"))
        .map(|_: String, reply: Response| reply);
    delete.or(other).unify().boxed()
}

/// `DELETE /api/user/trash/:id`
async fn purge(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let entry = entry_id(&id)?;
    journal.purge(&caller, &entry).await.map_err(reject)?;
    Ok(message("entry purged"))
}
