//! About the server itself: its health and its OpenAPI document.

use journal_core::Journal;
use journal_core::api::StatusResponse;
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{not_allowed, with_journal};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/status", "GET", status_route(state)),
        Served::new("/api/openapi.json", "GET", openapi_route()),
    ]
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
