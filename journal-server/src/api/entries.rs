//! One entry at a time: create, import a batch with its dates, read, change, delete.

use journal_core::api::{
    CreateEntryRequest, ImportEntriesRequest, ImportEntriesResponse, UpdateEntryRequest,
};
use journal_core::{Caller, EntryId, Journal};
use warp::http::header::{HeaderValue, LOCATION};
use warp::http::{Method, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, json_body, not_allowed, with_journal};

/// The paths of this module, `import` before `{id}`, which would take it for an id.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/journal-entries", "POST", entries_route(state)),
        Served::new("/api/journal-entries/import", "POST", import_route(state)),
        Served::new(
            "/api/journal-entries/{id}",
            "GET, PUT, DELETE",
            entry_route(state),
        ),
    ]
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

/// `POST /api/journal-entries/import`: before `/:id`, which would take `import` for an id.
fn import_route(state: &AppState) -> Route {
    warp::path!("api" / "journal-entries" / "import")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(import_entries)
                .or(only_method(Method::POST, "POST"))
                .unify(),
        )
        .boxed()
}

/// The last branch of a fixed path that a route with a parameter also matches
/// (`/api/journal-entries/import` and `/api/journal-entries/:id`): any method but `method`
/// is answered 405 with `Allow: allow` here, so the other route never takes the path for
/// an id.
fn only_method(
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
        .and(json_body(state.body.clone()))
        .and_then(update_entry);
    let delete = path()
        .and(warp::delete())
        .and(journal())
        .and(caller())
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
    let mut response = json(StatusCode::CREATED, &entry);
    if let Ok(location) = HeaderValue::from_str(&format!("/api/journal-entries/{}", entry.id)) {
        response.headers_mut().insert(LOCATION, location);
    }
    Ok(response)
}

/// `POST /api/journal-entries/import`
pub async fn import_entries(
    journal: Journal,
    caller: Caller,
    body: ImportEntriesRequest,
) -> Reply_ {
    let entries = journal.import(&caller, &body).await.map_err(reject)?;
    Ok(json(
        StatusCode::CREATED,
        &ImportEntriesResponse { entries },
    ))
}

fn entry_id(raw: &str) -> Result<EntryId, Rejection> {
    raw.parse::<EntryId>()
        .map_err(|e| reject(journal_core::Error::from(e)))
}

/// `GET /api/journal-entries/:id`
pub async fn entry(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal.entry(&caller, &id).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &entry))
}

/// `PUT /api/journal-entries/:id`
pub async fn update_entry(
    id: String,
    journal: Journal,
    caller: Caller,
    body: UpdateEntryRequest,
) -> Reply_ {
    let id = entry_id(&id)?;
    let entry = journal
        .update_entry(&caller, &id, &body)
        .await
        .map_err(reject)?;
    Ok(json(StatusCode::OK, &entry))
}

/// `DELETE /api/journal-entries/:id`
pub async fn delete_entry(id: String, journal: Journal, caller: Caller) -> Reply_ {
    let id = entry_id(&id)?;
    journal.delete_entry(&caller, &id).await.map_err(reject)?;
    Ok(message("entry deleted"))
}
