//! About the server itself: its health and its OpenAPI document.

use journal_core::Journal;
use journal_core::api::StatusResponse;
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{not_allowed, with_journal};
use crate::openapi::{add_paths, error, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/status", "GET", status_route(state)),
        Served::new("/api/openapi.json", "GET", openapi_route()),
    ]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    add_paths(
        doc,
        serde_json::json!({
            "/api/status": { "get": {
                "operationId": "status", "tags": ["meta"], "security": [],
                "summary": "Health: 200 when the database answers",
                "responses": {
                    "200": ok("Up", schema("Status")),
                    "503": error("ServiceUnavailable")
                }
            }},
            "/api/openapi.json": { "get": {
                "operationId": "openapi", "tags": ["meta"], "security": [],
                "summary": "This document",
                "responses": { "200": ok("The OpenAPI document", serde_json::json!({ "type": "object" })) }
            }}
        }),
    );
}

fn status_route(state: &AppState) -> Route {
    warp::path!("api" / "status")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and_then(status)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn openapi_route() -> Route {
    warp::path!("api" / "openapi.json")
        .and(warp::get().and_then(openapi).or(not_allowed("GET")).unify())
        .boxed()
}

/// `GET /api/status`: 200 when the database answers, 503 otherwise.
pub async fn status(journal: Journal) -> Reply_ {
    if let Err(e) = journal.ping().await {
        tracing::error!(error = %e, "status: the database does not answer");
        return Err(reject(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer; try again later",
        )));
    }
    Ok(json(
        StatusCode::OK,
        &StatusResponse {
            status: "ok".into(),
            database: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    ))
}

/// `GET /api/openapi.json`
pub async fn openapi() -> Reply_ {
    Ok(json(StatusCode::OK, crate::openapi::document()))
}
