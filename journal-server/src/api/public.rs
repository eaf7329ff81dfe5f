//! What anyone may read without a token, of an author whose profile is public: the
//! profile, the author's public entries, and one public entry. Anything else answers
//! the 404 of an unknown id. Every answer is [`revalidated`] on each use.

use journal_core::{EntryFilter, FilterParams, Journal, PageRequest, UserId};
use serde_json::Value;
use warp::Filter;
use warp::http::header::HeaderValue;

use super::entries::entry_id;
use super::pages::{Next, paged_body};
use super::revalidation::{etag_of, revalidated, revalidated_body};
use super::{Reply_, Route, Served};
use crate::AppState;
use crate::entry_attachments::{self, EntryJson};
use crate::error::reject;
use crate::filters::{if_none_match, list_filter, not_allowed, paging, with_journal};
use crate::openapi::{add_paths, error, error_when, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/public/users/{id}", "GET", profile_route(state)),
        Served::new(
            "/api/public/users/{id}/journal-entries",
            "GET",
            author_entries_route(state),
        ),
        Served::new(
            "/api/public/journal-entries/{id}",
            "GET",
            entry_route(state),
        ),
    ]
}

fn profile_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "public" / "users" / String);
    path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(if_none_match())
        .and_then(profile)
        .or(path().and(not_allowed("GET")).map(|_: String, reply| reply))
        .unify()
        .boxed()
}

fn author_entries_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "public" / "users" / String / "journal-entries");
    path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(paging())
        .and(list_filter())
        .and(if_none_match())
        .and_then(author_entries)
        .or(path().and(not_allowed("GET")).map(|_: String, reply| reply))
        .unify()
        .boxed()
}

fn entry_route(state: &AppState) -> Route {
    let path = || warp::path!("api" / "public" / "journal-entries" / String);
    path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(if_none_match())
        .and_then(entry)
        .or(path().and(not_allowed("GET")).map(|_: String, reply| reply))
        .unify()
        .boxed()
}

pub(super) fn user_id(raw: &str) -> Result<UserId, warp::Rejection> {
    raw.parse::<UserId>()
        .map_err(|e| reject(journal_core::Error::from(e)))
}

/// `GET /api/public/users/:id`
async fn profile(id: String, journal: Journal, if_none_match: Option<HeaderValue>) -> Reply_ {
    let profile = journal
        .public_profile(&user_id(&id)?)
        .await
        .map_err(reject)?;
    let body = serde_json::to_vec(&profile).map_err(internal)?;
    Ok(revalidated_body(body.into(), JSON, if_none_match.as_ref()))
}

/// `GET /api/public/users/:id/journal-entries`
async fn author_entries(
    id: String,
    journal: Journal,
    page: PageRequest,
    filter: EntryFilter,
    params: FilterParams,
    if_none_match: Option<HeaderValue>,
) -> Reply_ {
    let author = user_id(&id)?;
    let entries = journal
        .public_author_entries(&author, &filter, page)
        .await
        .map_err(reject)?;
    let attachments = entry_attachments::for_entries(&journal, None, &entries.items).await?;
    let body = bytes::Bytes::from(crate::entries_json::entries_json(
        &entries.items,
        &attachments,
    ));
    let response = paged_body(
        &entries,
        body.clone(),
        &format!("/api/public/users/{author}/journal-entries"),
        &params.query_pairs(),
        Next::ByCursor,
    );
    let etag = etag_of(&body, &response);
    Ok(revalidated(response, etag, if_none_match.as_ref()))
}

/// `GET /api/public/journal-entries/:id`
async fn entry(id: String, journal: Journal, if_none_match: Option<HeaderValue>) -> Reply_ {
    let entry = journal
        .public_entry(&entry_id(&id)?)
        .await
        .map_err(reject)?;
    let attachments = entry_attachments::for_entries(&journal, None, std::slice::from_ref(&entry))
        .await?
        .pop()
        .unwrap_or_default();
    let answer = EntryJson {
        entry: &entry,
        attachments: &attachments,
    };
    let body = serde_json::to_vec(&answer).map_err(internal)?;
    Ok(revalidated_body(body.into(), JSON, if_none_match.as_ref()))
}

const JSON: &str = "application/json";

fn internal(e: serde_json::Error) -> warp::Rejection {
    reject(journal_core::Error::Internal(Box::new(e)))
}

/// This module's operations in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    let id = |what: &str| {
        serde_json::json!({
            "name": "id", "in": "path", "required": true,
            "description": format!("The {what}'s _id."),
            "schema": { "type": "string", "format": "uuid" }
        })
    };
    let if_none_match = serde_json::json!({
        "name": "If-None-Match", "in": "header", "required": false,
        "description": "ETags of copies the client holds (RFC 9110), or *: 304 when one is this answer's.",
        "schema": { "type": "string" }
    });
    let mut list_params = vec![id("user")];
    list_params.extend(
        crate::openapi::list_params()
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    list_params.push(if_none_match.clone());
    add_paths(
        doc,
        serde_json::json!({
            "/api/public/users/{id}": { "get": {
                "operationId": "publicProfile", "tags": ["public"], "security": [],
                "summary": "An author's public profile: nickname, full name and picture (never the e-mail); 404 for a private profile, as for an unknown id",
                "parameters": [id("user"), if_none_match],
                "responses": {
                    "200": revalidated_ok("The public profile", schema("PublicProfile")),
                    "304": not_modified(), "404": error("NotFound")
                }
            }},
            "/api/public/users/{id}/journal-entries": { "get": {
                "operationId": "publicAuthorEntries", "tags": ["public"], "security": [],
                "summary": "An author's public entries, newest date first, paged and filtered like the public feed; 404 for a private profile",
                "parameters": list_params,
                "responses": {
                    "200": revalidated_paged(),
                    "304": not_modified(), "400": error_when(crate::openapi::TOO_DEEP),
                    "404": error("NotFound")
                }
            }},
            "/api/public/journal-entries/{id}": { "get": {
                "operationId": "publicEntry", "tags": ["public"], "security": [],
                "summary": "One public entry of a public profile, with its attachments; 404 otherwise, as for an unknown id",
                "parameters": [id("entry"), if_none_match],
                "responses": {
                    "200": revalidated_ok("The entry", schema("Entry")),
                    "304": not_modified(), "404": error("NotFound")
                }
            }}
        }),
    );
}

fn revalidated_ok(description: &str, body: Value) -> Value {
    let mut ok = ok(description, body);
    ok["headers"] = crate::openapi::caching::revalidation_headers();
    ok
}

fn revalidated_paged() -> Value {
    let mut ok = crate::openapi::paged("One page of entries");
    if let (Some(headers), Value::Object(more)) = (
        ok["headers"].as_object_mut(),
        crate::openapi::caching::revalidation_headers(),
    ) {
        headers.extend(more);
    }
    ok
}

fn not_modified() -> Value {
    serde_json::json!({
        "description": "Not Modified: If-None-Match names this answer's ETag (or is *); no body",
        "headers": crate::openapi::caching::revalidation_headers()
    })
}
