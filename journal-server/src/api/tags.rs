//! The caller's tags with how many of their entries have each.

use journal_core::{Caller, Journal};
use warp::Filter;
use warp::http::StatusCode;

use super::{Reply_, Route, Served, json};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, not_allowed, with_journal};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new("/api/user/tags", "GET", tags_route(state))]
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
