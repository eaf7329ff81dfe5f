//! Atom feeds of public entries, read without a token: the public feed's
//! (`/api/public/feed.atom`) and one author's (`/api/user/{id}/feed.atom`; 404 for a
//! private profile, as for an unknown id). The newest [`FEED_ENTRIES`] entries, each
//! answer [`revalidated`] on every use.

use journal_core::{EntryFilter, Journal, PageRequest};
use serde_json::Value;
use warp::Filter;
use warp::http::header::HeaderValue;
use warp::reply::Response;

use super::public::user_id;
use super::revalidation::revalidated_body;
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::atom::{FEED_ENTRIES, FeedOf, feed};
use crate::error::reject;
use crate::filters::{if_none_match, not_allowed, with_journal};
use crate::openapi::{add_paths, error};
use crate::public_address::with_origin;

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/public/feed.atom", "GET", public_feed_route(state)),
        Served::new("/api/user/{id}/feed.atom", "GET", author_feed_route(state)),
    ]
}

fn public_feed_route(state: &AppState) -> Route {
    warp::path!("api" / "public" / "feed.atom")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(with_origin(state.public_url.clone()))
                .and(if_none_match())
                .and_then(public_feed)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn author_feed_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / String / "feed.atom");
    path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(with_origin(state.public_url.clone()))
        .and(if_none_match())
        .and_then(author_feed)
        .or(path().and(not_allowed("GET")).map(|_: String, reply| reply))
        .unify()
        .boxed()
}

fn newest() -> PageRequest {
    PageRequest::new(Some(1), Some(i64::from(FEED_ENTRIES))).expect("a valid page")
}

/// `GET /api/public/feed.atom`
async fn public_feed(
    journal: Journal,
    origin: String,
    if_none_match: Option<HeaderValue>,
) -> Reply_ {
    let entries = journal
        .public_entries_matching(&EntryFilter::default(), newest())
        .await
        .map_err(reject)?;
    Ok(atom_answer(
        feed(&FeedOf::Everyone, &entries.items, &origin),
        if_none_match,
    ))
}

/// `GET /api/user/:id/feed.atom`
async fn author_feed(
    id: String,
    journal: Journal,
    origin: String,
    if_none_match: Option<HeaderValue>,
) -> Reply_ {
    let author = user_id(&id)?;
    let profile = journal.public_profile(&author).await.map_err(reject)?;
    let entries = journal
        .public_author_entries(&author, &EntryFilter::default(), newest())
        .await
        .map_err(reject)?;
    Ok(atom_answer(
        feed(&FeedOf::Author(&profile), &entries.items, &origin),
        if_none_match,
    ))
}

fn atom_answer(document: String, if_none_match: Option<HeaderValue>) -> Response {
    revalidated_body(
        document.into(),
        "application/atom+xml; charset=utf-8",
        if_none_match.as_ref(),
    )
}

/// This module's operations in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    let atom = serde_json::json!({
        "description": "An Atom feed (RFC 4287) of the newest 20 public entries, each as text (its Markdown as written)",
        "headers": crate::openapi::caching::revalidation_headers(),
        "content": { "application/atom+xml": { "schema": { "type": "string" } } }
    });
    let not_modified = serde_json::json!({
        "description": "Not Modified: If-None-Match names this feed's ETag (or is *); no body",
        "headers": crate::openapi::caching::revalidation_headers()
    });
    let if_none_match = serde_json::json!({
        "name": "If-None-Match", "in": "header", "required": false,
        "description": "ETags of copies the client holds (RFC 9110), or *: 304 when one is this feed's.",
        "schema": { "type": "string" }
    });
    add_paths(
        doc,
        serde_json::json!({
            "/api/public/feed.atom": { "get": {
                "operationId": "publicFeedAtom", "tags": ["public"], "security": [],
                "summary": "The public feed as Atom",
                "parameters": [if_none_match],
                "responses": { "200": atom, "304": not_modified }
            }},
            "/api/user/{id}/feed.atom": { "get": {
                "operationId": "authorFeedAtom", "tags": ["public"], "security": [],
                "summary": "An author's public entries as Atom; 404 for a private profile, as for an unknown id",
                "parameters": [
                    { "name": "id", "in": "path", "required": true, "description": "The user's _id.",
                      "schema": { "type": "string", "format": "uuid" } },
                    if_none_match
                ],
                "responses": {
                    "200": atom, "304": not_modified, "404": error("NotFound")
                }
            }}
        }),
    );
}
