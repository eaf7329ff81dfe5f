//! Sync between replicas over HTTP (`journal sync`, docs/design/sync.md): the caller's
//! change feed, and the changes a replica pushes. Every rule is in the core.

use std::collections::HashMap;

use journal_core::api::{MissingFilesRequest, PushChangesRequest};
use journal_core::domain::{AttachmentId, SyncCursor};
use journal_core::{
    CHANGES_PAGE_DEFAULT, CHANGES_PAGE_MAX, Caller, Journal, PUSH_CHANGES_MAX, PUSH_REVISIONS_MAX,
    SYNC_FILES_MAX, UploadRequest,
};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, json_body, not_allowed, query_map, with_journal};
use crate::openapi::{add_paths, add_schemas, error, error_when, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/sync/changes", "GET, POST", changes_route(state)),
        // `missing` before `{id}`, which would take it for an id.
        Served::new("/api/sync/files/missing", "POST", missing_route(state)),
        Served::new("/api/sync/files/{id}", "PUT", file_route(state)),
    ]
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
                        "description": "Its revisions made since the sync began, oldest first; [] when purged." },
                    "attachments": { "type": "array", "items": schema("SyncAttachment"),
                        "description": "Its attachments, the deleted ones too; absent when it has none." }
                }
            },
            "SyncAttachment": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "name", "sha256", "size", "createdAt"],
                "properties": {
                    "id": { "type": "string", "format": "uuid", "description": "The attachment's id, the same on every replica." },
                    "name": { "type": "string" },
                    "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the file: it travels only when the other side has no file of these bytes." },
                    "size": { "type": "integer", "minimum": 0 },
                    "createdAt": { "type": "string", "format": "date-time" },
                    "deletedAt": { "type": "string", "format": "date-time", "description": "When it was deleted; absent while attached." }
                }
            },
            "SyncAttachmentRef": {
                "type": "object", "required": ["id", "sha256"],
                "properties": {
                    "id": { "type": "string", "format": "uuid", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" },
                    "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$" },
                    "name": { "type": ["string", "null"], "maxLength": 255 },
                    "createdAt": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "null" }] },
                    "deletedAt": { "anyOf": [{ "type": "string", "format": "date-time" }, { "type": "null" }],
                        "description": "When it was deleted on the replica: it is deleted here too." }
                }
            },
            "PushChangesRequest": {
                "type": "object", "required": ["changes"],
                "properties": {
                    "changes": { "type": "array", "maxItems": PUSH_CHANGES_MAX, "items": {
                        "type": "object", "required": ["id", "state"],
                        "properties": {
                            "id": { "type": "string", "format": "uuid", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" },
                            "base": { "type": ["string", "null"], "format": "uuid", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", "description": "The revision the changes were made from; null for an entry the server never had." },
                            "state": { "type": "string", "enum": ["live", "trashed", "purged"] },
                            "deletedAt": { "type": ["string", "null"], "format": "date-time", "description": "When it was deleted: required for trashed." },
                            "createdAt": { "type": ["string", "null"], "format": "date-time", "description": "When it was created, for an entry the server never had; the first revision's time when null." },
                            "revisions": { "type": ["array", "null"], "items": schema("ImportRevisionRequest"), "description": "The revisions made since base, oldest first; null: none." },
                            "attachments": { "type": ["array", "null"], "maxItems": SYNC_FILES_MAX, "items": schema("SyncAttachmentRef"),
                                "description": "The entry's attachments on the replica, the deleted ones too; their files first, with PUT /api/sync/files/{id}. Null: left as they are." }
                        }
                    }},
                    "since": { "type": ["string", "null"], "pattern": "^[0-9a-f]{32}\\.[0-9]{1,18}\\.[0-9]{1,18}$",
                        "description": "The replica's cursor in the feed, as last read: when nothing else changed the account since, the answer carries the cursor past this push." }
                }
            },
            "PushResult": {
                "type": "object", "additionalProperties": false, "required": ["id", "outcome", "revisionId"],
                "properties": {
                    "id": { "type": "string", "format": "uuid" },
                    "outcome": { "type": "string", "enum": ["applied", "merged", "conflict", "kept", "refused"] },
                    "revisionId": { "type": ["string", "null"], "format": "uuid", "description": "The entry's current revision now." },
                    "message": { "type": "string" }
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
                      "description": "The cursor of the last answer, as it was; from the beginning when left out.",
                      "schema": { "type": "string", "pattern": "^[0-9a-f]{32}\\.[0-9]{1,18}\\.[0-9]{1,18}$" } },
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
            },
            "post": {
                "operationId": "syncPush", "tags": ["sync"], "security": bearer,
                "summary": "Apply a replica's changes, each in turn: follow on, merge, or keep both texts",
                "description": format!("At most {PUSH_CHANGES_MAX} changes holding at most {PUSH_REVISIONS_MAX} revisions. Each change names the revision it was made from (`base`). Made from the entry's current revision, its revisions follow on; made from an older one, the two sides merge (a field changed on one side takes that side's value, texts merge line by line); where both changed the same lines the entry keeps the server's text, the replica's stays a revision and a conflict is listed. An edit outlives a delete on the other side. A replica's purge puts the entry in the trash. Sending a push twice changes nothing."),
                "requestBody": { "required": true, "content": { "application/json": { "schema": schema("PushChangesRequest") } } },
                "responses": {
                    "200": ok("What was done with each change, in the order sent; and the cursor past this push when nothing else changed the account since `since` and every change was applied as sent", serde_json::json!({
                        "type": "object", "additionalProperties": false, "required": ["results"],
                        "properties": {
                            "results": { "type": "array", "items": schema("PushResult") },
                            "cursor": { "type": "string", "pattern": "^[0-9a-f]{32}\\.[0-9]{1,18}\\.[0-9]{1,18}$",
                                "description": "Where the replica is in the feed now: its own changes need not be read back." }
                        }
                    })),
                    "400": error_when("A change that is not valid, named with its field (a date before 1900 or after tomorrow, more than 5,000 revisions in all): nothing was written"),
                    "401": error("Unauthorized"),
                    "409": error_when("An entry kept changing while the push applied it: push again"),
                    "413": error_when("A body over --import-max-body"),
                    "415": error_when("Not application/json")
                }
            }},
            "/api/sync/files/missing": { "post": {
                "operationId": "syncMissingFiles", "tags": ["sync"], "security": bearer,
                "summary": "Which of a replica's attachments' files the server lacks",
                "description": "An attachment's file is lacking when none of the caller's attachments has its id or its SHA-256: a file travels once, whatever the number of attachments that show it.",
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "type": "object",
                    "properties": { "attachments": { "type": ["array", "null"], "maxItems": SYNC_FILES_MAX, "items": schema("SyncAttachmentRef"),
                        "description": "The replica's attachments; none when null or left out." } }
                } } } },
                "responses": {
                    "200": ok("The ids of the attachments whose files to send", serde_json::json!({
                        "type": "object", "additionalProperties": false, "required": ["missing"],
                        "properties": { "missing": { "type": "array", "items": { "type": "string", "format": "uuid" } } }
                    })),
                    "400": error_when("An id or SHA-256 that is not valid, or more than 5,000"),
                    "401": error("Unauthorized"),
                    "413": error_when("A body over --import-max-body"),
                    "415": error_when("Not application/json")
                }
            }},
            "/api/sync/files/{id}": { "put": {
                "operationId": "syncSendFile", "tags": ["sync"], "security": bearer,
                "summary": "Send the file of one of the caller's attachments, under its id",
                "description": "The raw bytes, with every rule of an upload (the type by the bytes, photos' location removed, --max-attachment, --attachment-quota). It waits unattached until the push that lists the attachment; sending it again changes nothing.",
                "parameters": [
                    { "name": "id", "in": "path", "required": true, "schema": { "type": "string", "format": "uuid" } },
                    { "name": "name", "in": "query", "required": false, "schema": { "type": "string" } }
                ],
                "requestBody": { "required": true, "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } },
                "responses": {
                    "201": ok("Stored (or stored already)", schema("Attachment")),
                    "400": error_when("A bad id, or an empty file"),
                    "401": error("Unauthorized"),
                    "409": error_when("Another account has an attachment with this id"),
                    "413": error_when("Over --max-attachment"),
                    "415": error_when("A type not accepted"),
                    "503": error_when("The server keeps no attachments"),
                    "507": error_when("Over --attachment-quota")
                }
            }}
        }),
    );
}

fn changes_route(state: &AppState) -> Route {
    let get = warp::get()
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(query_map())
        .and_then(changes);
    let post = warp::post()
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(json_body(state.import_body.clone()))
        .and_then(push);
    warp::path!("api" / "sync" / "changes")
        .and(get.or(post).unify().or(not_allowed("GET, POST")).unify())
        .boxed()
}

/// `POST /api/sync/changes`: a replica's changes, each applied in turn.
async fn push(journal: Journal, caller: Caller, request: PushChangesRequest) -> Reply_ {
    let reply = journal
        .push_changes(&caller, &request)
        .await
        .map_err(reject)?;
    Ok(json(StatusCode::OK, &reply))
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

fn missing_route(state: &AppState) -> Route {
    let post = warp::post()
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(json_body(state.import_body.clone()))
        .and_then(missing);
    // Answered here for every method, so `{id}` below never takes it for an id.
    warp::path!("api" / "sync" / "files" / "missing")
        .and(
            post.or(super::entries::only_method(
                warp::http::Method::POST,
                "POST",
            ))
            .unify(),
        )
        .boxed()
}

/// `POST /api/sync/files/missing`: which of a replica's attachments' files to send.
async fn missing(journal: Journal, caller: Caller, request: MissingFilesRequest) -> Reply_ {
    let wanted = request.attachments.unwrap_or_default();
    let missing = journal
        .missing_files(&caller, &wanted)
        .await
        .map_err(reject)?;
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({ "missing": missing }),
    ))
}

fn file_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "sync" / "files" / String);
    let put = path()
        .and(warp::put())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and(query_map())
        .and(warp::header::headers_cloned())
        .and(warp::body::stream())
        .and_then(
            |id: String,
             journal: Journal,
             caller: Caller,
             query: HashMap<String, String>,
             headers: warp::http::HeaderMap,
             body| async move {
                let (declared_size, body) = super::attachments::upload_body(&headers, body);
                receive(id, journal, caller, query, declared_size, body).await
            },
        );
    let other = path()
        .and(not_allowed("PUT"))
        .map(|_: String, reply: warp::reply::Response| reply);
    put.or(other).unify().boxed()
}

/// `PUT /api/sync/files/{id}?name`: the file of one of the caller's
/// attachments, kept under its id until the push that lists it.
async fn receive<S>(
    id: String,
    journal: Journal,
    caller: Caller,
    query: HashMap<String, String>,
    declared_size: Option<u64>,
    body: S,
) -> Reply_
where
    S: futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send + Unpin,
{
    let id: AttachmentId = id.parse().map_err(|_| {
        reject(ApiError::bad_request(
            "the attachment id must be a UUID in canonical form",
        ))
    })?;
    let request = UploadRequest {
        name: query.get("name").cloned(),
        entry_id: None,
        declared_size,
    };
    let attachment = journal
        .receive_file(&caller, id, &request, body)
        .await
        .map_err(reject)?;
    // Its author reads it with a token, whatever the entry it joins.
    let answer = super::attachments::AttachmentJson {
        attachment: &attachment,
        url: format!("/api/attachments/{}", attachment.id),
    };
    Ok(json(StatusCode::CREATED, &answer))
}
