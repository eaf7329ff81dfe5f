//! `GET /api/user/export`: the caller's whole journal as our JSON export, each entry
//! with its revisions and the trash with theirs (`?history=false` leaves both out).
//! What the web app's "Download JSON" and `journal export` on a server save; the import
//! route reads it back.

use std::collections::HashMap;

use journal_core::{Caller, Journal};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;
use warp::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use warp::reply::Response;

use super::{Reply_, Route, Served};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, query_map, with_journal};
use crate::openapi::{add_paths, add_schemas, error, error_when, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new("/api/user/export", "GET", route(state))]
}

fn route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "export")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(query_map())
                .and_then(export)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

/// `history` from the query: true unless `false`.
fn with_history(query: &HashMap<String, String>) -> Result<bool, ApiError> {
    match query.get("history").map(|h| h.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(h) if h == "true" => Ok(true),
        Some(h) if h == "false" => Ok(false),
        Some(_) => Err(ApiError::bad_request("history must be true or false")),
    }
}

/// `format` from the query: `json` (the default) or `zip`; whether it is the zip.
fn wants_zip(query: &HashMap<String, String>) -> Result<bool, ApiError> {
    match query.get("format").map(|f| f.trim().to_ascii_lowercase()) {
        None => Ok(false),
        Some(f) if f == "json" => Ok(false),
        Some(f) if f == "zip" => Ok(true),
        Some(_) => Err(ApiError::bad_request("format must be json or zip")),
    }
}

/// Bytes read from the archive per chunk sent.
const CHUNK: usize = 64 * 1024;

/// The zip export: written to an unnamed temporary file (gone with its last handle),
/// then sent from it chunk by chunk, so no file is ever whole in memory.
async fn export_zip(journal: Journal, caller: Caller, history: bool) -> Reply_ {
    let internal = |e: std::io::Error| reject(journal_core::Error::Internal(Box::new(e)));
    let file = tokio::task::spawn_blocking(tempfile::tempfile)
        .await
        .map_err(|e| reject(journal_core::Error::Internal(Box::new(e))))?
        .map_err(internal)?;
    let mut reading = file.try_clone().map_err(internal)?;
    let document = journal
        .export_archive(&caller, history, file)
        .await
        .map_err(reject)?;
    use std::io::Seek;
    reading.rewind().map_err(internal)?;
    let chunks = futures_util::stream::try_unfold(reading, |mut file| async move {
        let (file, chunk) = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            let mut chunk = vec![0; CHUNK];
            let read = file.read(&mut chunk)?;
            chunk.truncate(read);
            Ok::<_, std::io::Error>((file, chunk))
        })
        .await
        .map_err(std::io::Error::other)??;
        Ok::<_, std::io::Error>((!chunk.is_empty()).then(|| (bytes::Bytes::from(chunk), file)))
    });
    let mut response = crate::streamed_body::response(Box::pin(chunks));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, "application/zip".parse().expect("a header"));
    let day = document.exported_at.to_string()[..10].to_owned();
    let name = format!("attachment; filename=\"journal-{day}.zip\"");
    if let Ok(value) = name.parse() {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `GET /api/user/export`
async fn export(journal: Journal, caller: Caller, query: HashMap<String, String>) -> Reply_ {
    let history = with_history(&query).map_err(reject)?;
    if wants_zip(&query).map_err(reject)? {
        return export_zip(journal, caller, history).await;
    }
    let document = journal.export(&caller, history).await.map_err(reject)?;
    // A whole journal's JSON is written on the blocking pool: it can be large.
    let (body, day) = tokio::task::spawn_blocking(move || {
        let day = document.exported_at.to_string()[..10].to_owned();
        (document.to_json(), day)
    })
    .await
    .map_err(|e| reject(journal_core::Error::Internal(Box::new(e))))?;
    let mut response = Response::new(format!("{body}\n").into());
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, "application/json".parse().expect("a header"));
    let name = format!("attachment; filename=\"journal-{day}.json\"");
    if let Ok(value) = name.parse() {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// This module's operation in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    add_paths(
        doc,
        serde_json::json!({
            "/api/user/export": {
                "get": {
                    "operationId": "exportJournal", "tags": ["entries"],
                    "security": [{ "bearer": [] }],
                    "summary": "The caller's whole journal as a JSON export, which the import reads back",
                    "description": "Every entry of the caller's, newest first; with history (the default) each entry's revisions, oldest first, and the trash with its entries' revisions. `POST /api/journal-entries/import?format=json` restores them as they were.",
                    "parameters": [{ "name": "history", "in": "query", "required": false,
                        "description": "false leaves out the revisions and the trash.",
                        "schema": { "type": "string", "enum": ["true", "false"] } },
                        { "name": "format", "in": "query", "required": false,
                        "description": "json (the default): the export document; zip: an archive holding it as `journal.json` and each attachment's file as `attachments/ID`, which the import reads back (`Content-Type: application/zip`).",
                        "schema": { "type": "string", "enum": ["json", "zip"] } }],
                    "responses": {
                        "200": { "description": "The export",
                            "headers": { "Content-Disposition": { "description": "attachment; filename=\"journal-YYYY-MM-DD.json\"", "schema": { "type": "string" } } },
                            "content": {
                                "application/json": { "schema": schema("JournalExport") },
                                "application/zip": { "schema": { "type": "string", "format": "binary" } }
                            } },
                        "400": error_when("history is neither true nor false, or format neither json nor zip"),
                        "401": error("Unauthorized")
                    }
                }
            }
        }),
    );
}

/// The export's schemas, once `Entry`'s and `Revision`'s are in the document.
pub(crate) fn add_export_schemas(doc: &mut Value) {
    let mut exported = doc["components"]["schemas"]["Entry"].clone();
    exported["properties"]["deletedAt"] = serde_json::json!({
        "type": "string", "format": "date-time",
        "description": "When it was deleted: entries of the trash only."
    });
    exported["properties"]["attachments"] = serde_json::json!({
        "type": "array", "items": schema("ExportedAttachment"),
        "description": "Its attachments, oldest first; the zip export holds each one's file as `attachments/ID`."
    });
    exported["properties"]["revisions"] = serde_json::json!({
        "type": "array", "items": schema("Revision"),
        "description": "Its revisions, oldest first, the last one the entry as it is; left out without history."
    });
    add_schemas(
        doc,
        serde_json::json!({
            "ExportedEntry": exported,
            "ExportedAttachment": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "name", "contentType", "size", "sha256", "createdAt"],
                "properties": {
                    "id": { "type": "string", "format": "uuid" },
                    "name": { "type": "string" },
                    "contentType": { "type": "string" },
                    "size": { "type": "integer", "minimum": 0 },
                    "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$" },
                    "createdAt": { "type": "string", "format": "date-time" }
                }
            },
            "JournalExport": {
                "type": "object", "additionalProperties": false,
                "required": ["format", "version", "exportedAt", "entries"],
                "properties": {
                    "format": { "type": "string", "enum": ["journal-export"] },
                    "version": { "type": "integer", "minimum": 1 },
                    "exportedAt": { "type": "string", "format": "date-time" },
                    "entries": { "type": "array", "items": schema("ExportedEntry") },
                    "trash": { "type": "array", "items": schema("ExportedEntry"),
                        "description": "The trash, newest deletion first; left out without history." }
                }
            }
        }),
    );
}
