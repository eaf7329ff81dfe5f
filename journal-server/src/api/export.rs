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
use crate::openapi::{add_paths, add_schemas, error, error_when, json_content, schema};

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

/// `GET /api/user/export`
async fn export(journal: Journal, caller: Caller, query: HashMap<String, String>) -> Reply_ {
    let history = with_history(&query).map_err(reject)?;
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
                        "schema": { "type": "string", "enum": ["true", "false"] } }],
                    "responses": {
                        "200": { "description": "The export",
                            "headers": { "Content-Disposition": { "description": "attachment; filename=\"journal-YYYY-MM-DD.json\"", "schema": { "type": "string" } } },
                            "content": json_content(schema("JournalExport")) },
                        "400": error_when("history is neither true nor false"),
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
    exported["properties"]["revisions"] = serde_json::json!({
        "type": "array", "items": schema("Revision"),
        "description": "Its revisions, oldest first, the last one the entry as it is; left out without history."
    });
    add_schemas(
        doc,
        serde_json::json!({
            "ExportedEntry": exported,
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
