//! One entry at a time: create, import a batch with its dates, read, change, delete.

use journal_core::api::{CreateEntryRequest, UpdateEntryRequest};
use journal_core::{Caller, EntryId, Journal, RevisionId};
use serde_json::Value;
use warp::http::header::{HeaderValue, LOCATION};
use warp::http::{Method, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::preconditions::{if_match, set_etag};
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, json_body, not_allowed, with_journal};
use crate::openapi::{add_paths, body, error, error_when, json_content, ok, schema};

/// The paths of this module, `import` before `{id}`, which would take it for an id.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/journal-entries", "POST", entries_route(state)),
        Served::new(
            "/api/journal-entries/import",
            "POST",
            super::import::route(state),
        ),
        Served::new(
            "/api/journal-entries/{id}",
            "GET, PUT, DELETE",
            entry_route(state),
        ),
    ]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let message = ok("Done", schema("Message"));
    let entry_id = serde_json::json!({
        "name": "id", "in": "path", "required": true,
        "description": "The entry's _id.", "schema": { "type": "string", "format": "uuid" }
    });
    add_paths(
        doc,
        serde_json::json!({
            "/api/journal-entries": { "post": {
                "operationId": "createEntry", "tags": ["entries"], "security": bearer,
                "summary": "Create an entry",
                "requestBody": body("CreateEntryRequest"),
                "responses": {
                    "201": {
                        "description": "The new entry",
                        "headers": { "Location": {
                            "description": "/api/journal-entries/{id} of the new entry",
                            "schema": { "type": "string" }
                        }},
                        "content": json_content(schema("Entry"))
                    },
                    "400": error("BadRequest"), "401": error("Unauthorized"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType")
                }
            }},
            "/api/journal-entries/import": { "post": {
                "operationId": "importEntries", "tags": ["entries"], "security": bearer,
                "summary": "Import the caller's entries with their dates and ids (all or nothing)",
                "description": "A batch of the API's JSON (`application/json`, 1 to 1000 entries; what `journal import` sends), or a whole export file: `text/markdown` (Journal's Markdown, or any note), `text/plain` (jrnl's text), `application/zip` (Day One), or any of them named by `?format=json|markdown|jrnl|dayone` (`json` reads Journal's JSON export, jrnl's and Day One's). An entry keeps its `_id` when that is a UUIDv7 no other user has; an entry the caller has already (same id, or same title, text and date to the minute) is skipped and counted. One transaction: one invalid entry stores none. The author name is the caller's nickname. Limits: `--import-max-body` (128 MiB) and `--import-timeout` (300 s).",
                "parameters": [
                    { "name": "format", "in": "query", "required": false,
                      "description": "The body's format when its Content-Type does not say: json, markdown, jrnl, dayone, or batch (the API's JSON).",
                      "schema": { "type": "string", "enum": ["json", "markdown", "jrnl", "dayone", "batch"] } },
                    { "name": "tz", "in": "query", "required": false,
                      "description": "The zone of dates a file writes without one (jrnl's); UTC when left out.",
                      "schema": { "type": "string" } }
                ],
                "requestBody": { "required": true, "content": {
                    "application/json": { "schema": schema("ImportEntriesRequest") },
                    "text/markdown": { "schema": {}, "description": "Any text: a note that is not Journal's Markdown imports as one entry." },
                    "text/plain": { "schema": {}, "description": "Any text, read as jrnl's." },
                    "application/zip": { "schema": { "type": "string", "format": "binary" } }
                }},
                "responses": {
                    "201": ok("The new entries, in the order sent, and how many were skipped", schema("ImportEntriesResponse")),
                    "400": error_when("An invalid entry (then none is stored), such as a createdAt \
                        or updatedAt before 1900 or more than one day from now; or more than 1000 \
                        entries in a batch (413 instead when the body is also over --import-max-body)"), "401": error("Unauthorized"),
                    "413": error_when("The body is larger than the server's --import-max-body \
                        (128 MiB by default)"), "415": error("UnsupportedMediaType")
                }
            }},
            "/api/journal-entries/{id}": {
                "parameters": [entry_id],
                "get": {
                    "operationId": "getEntry", "tags": ["entries"], "security": bearer,
                    "summary": "One entry the caller may see",
                    "responses": {
                        "200": ok("The entry", schema("Entry")),
                        "401": error("Unauthorized"), "404": error("NotFound")
                    }
                },
                "put": {
                    "operationId": "updateEntry", "tags": ["entries"], "security": bearer,
                    "summary": "Change any of title, content, isPublic, tags, starred, date of the caller's own entry",
                    "requestBody": body("UpdateEntryRequest"),
                    "responses": {
                        "200": ok("The updated entry", schema("Entry")),
                        "400": error("BadRequest"), "401": error("Unauthorized"),
                        "403": error("Forbidden"), "404": error("NotFound"),
                        "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType")
                    }
                },
                "delete": {
                    "operationId": "deleteEntry", "tags": ["entries"], "security": bearer,
                    "summary": "Delete the caller's own entry",
                    "responses": {
                        "200": message, "401": error("Unauthorized"),
                        "403": error("Forbidden"), "404": error("NotFound")
                    }
                }
            }
        }),
    );
}

/// `POST /api/journal-entries`
fn entries_route(state: &AppState) -> Route {
    warp::path!("api" / "journal-entries")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(create_entry)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// The last branch of a fixed path that a route with a parameter also matches
/// (`/api/journal-entries/import` and `/api/journal-entries/:id`): any method but `method`
/// is answered 405 with `Allow: allow` here, so the other route never takes the path for
/// an id.
pub(super) fn only_method(
    method: Method,
    allow: &'static str,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    warp::method().and_then(move |used: Method| {
        let method = method.clone();
        async move {
            if used == method {
                Err(warp::reject::not_found())
            } else {
                Ok(ApiError::method_not_allowed(allow).into_response())
            }
        }
    })
}

/// `/api/journal-entries/:id`
fn entry_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String);
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let get = path()
        .and(warp::get())
        .and(journal())
        .and(caller())
        .and_then(entry);
    let put = path()
        .and(warp::put())
        .and(journal())
        .and(caller())
        .and(if_match())
        .and(json_body(state.body.clone()))
        .and_then(update_entry);
    let delete = path()
        .and(warp::delete())
        .and(journal())
        .and(caller())
        .and(if_match())
        .and_then(delete_entry);
    let other = path()
        .and(not_allowed("GET, PUT, DELETE"))
        .map(|_id: String, reply: Response| reply);
    get.or(put)
        .unify()
        .or(delete)
        .unify()
        .or(other)
        .unify()
        .boxed()
}

/// `POST /api/journal-entries`
pub async fn create_entry(journal: Journal, caller: Caller, body: CreateEntryRequest) -> Reply_ {
    let entry = journal.create_entry(&caller, &body).await.map_err(reject)?;
    let mut response = entry_response(&journal, &caller, StatusCode::CREATED, &entry).await?;
    if let Ok(location) = HeaderValue::from_str(&format!("/api/journal-entries/{}", entry.id)) {
        response.headers_mut().insert(LOCATION, location);
    }
    Ok(response)
}

/// One entry as JSON, with its attachments (as the caller reads them) and its current
/// revision as its `ETag`.
pub(super) async fn entry_response(
    journal: &Journal,
    caller: &Caller,
    status: StatusCode,
    entry: &journal_core::Entry,
) -> Result<Response, Rejection> {
    let attachments = crate::entry_attachments::for_entry(journal, caller, entry).await?;
    let answer = crate::entry_attachments::EntryJson {
        entry,
        attachments: &attachments,
    };
    let mut response = json(status, &answer);
    set_etag(&mut response, &entry.revision_id);
    Ok(response)
}

pub(super) fn entry_id(raw: &str) -> Result<EntryId, Rejection> {
    raw.parse::<EntryId>()
        .map_err(|e| reject(journal_core::Error::from(e)))
}

/// `GET /api/journal-entries/:id`
pub async fn entry(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal.entry(&caller, &id).await.map_err(reject)?;
    entry_response(&journal, &caller, StatusCode::OK, &entry).await
}

/// `PUT /api/journal-entries/:id`, with `If-Match` honoured when sent.
pub async fn update_entry(
    id: String,
    journal: Journal,
    caller: Caller,
    if_match: Option<RevisionId>,
    body: UpdateEntryRequest,
) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal
        .update_entry_if(&caller, &id, &body, if_match)
        .await
        .map_err(reject)?;
    entry_response(&journal, &caller, StatusCode::OK, &entry).await
}

/// `DELETE /api/journal-entries/:id`: to the trash, with `If-Match` honoured when sent.
pub async fn delete_entry(
    id: String,
    journal: Journal,
    caller: Caller,
    if_match: Option<RevisionId>,
) -> Reply_ {
    let id = entry_id(&id)?;
    journal
        .delete_entry_if(&caller, &id, if_match)
        .await
        .map_err(reject)?;
    Ok(message("entry deleted"))
}
