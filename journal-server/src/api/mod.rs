//! The routes, one module per resource, each with its handlers: every path with its
//! methods, then the 405 fallback of that path.
//!
//! Each route matches its path first, then the method, then the rate limit, the caller
//! and the body, so that an unknown path is a 404 (never a 401) and a known path with
//! another method is a 405 with `Allow`.
//!
//! Every module hands back its paths as [`Served`] (the path as the OpenAPI document
//! writes it, the methods it serves, and its filter); [`routes`] tries them in order.
//! The drift test reads the same list, so a path served is a path documented.

pub mod admin;
pub mod attachments;
mod confirm;
pub mod conflicts;
pub mod entries;
pub(crate) mod export;
pub(crate) mod feeds;
pub mod history;
mod import;
pub mod lists;
pub mod meta;
mod pages;
pub(crate) mod preconditions;
pub(crate) mod public;
mod revalidation;
pub mod search;
pub mod security_log;
pub(crate) mod sessions;
pub mod sync;
pub mod tags;
pub mod tokens;
pub mod twofactor;
pub mod users;

use serde::Serialize;
use warp::Filter;
use warp::Rejection;
use warp::Reply;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use journal_core::api::MessageResponse;

use crate::AppState;

/// The filter of one path, every method of it.
pub type Route = BoxedFilter<(Response,)>;

/// What a handler answers.
pub(crate) type Reply_ = Result<Response, Rejection>;

/// One path of the API.
pub struct Served {
    /// The path as the OpenAPI document writes it (`/api/journal-entries/{id}`).
    pub path: &'static str,
    /// The methods it serves, as its 405 names them in `Allow` (`GET, PUT, DELETE`).
    pub allow: &'static str,
    /// The filter answering every method of the path (405 for the others).
    pub filter: Route,
}

impl Served {
    fn new(path: &'static str, allow: &'static str, filter: Route) -> Served {
        Served {
            path,
            allow,
            filter,
        }
    }
}

/// Every path of the API, in the order they are tried: a fixed path before a path
/// with a parameter that would also match it (`/api/journal-entries/import` before
/// `/api/journal-entries/{id}`).
pub fn served(state: &AppState) -> Vec<Served> {
    let mut all = Vec::new();
    all.extend(users::routes(state));
    all.extend(entries::routes(state));
    all.extend(history::routes(state));
    all.extend(attachments::routes(state));
    all.extend(export::routes(state));
    all.extend(lists::routes(state));
    all.extend(public::routes(state));
    all.extend(feeds::routes(state));
    all.extend(search::routes(state));
    all.extend(tags::routes(state));
    all.extend(sync::routes(state));
    all.extend(conflicts::routes(state));
    all.extend(tokens::routes(state));
    all.extend(sessions::routes(state));
    all.extend(twofactor::routes(state));
    all.extend(admin::routes(state));
    all.extend(security_log::routes(state));
    all.extend(meta::routes(state));
    all
}

/// Every route of the API, without the error handling around it (see [`crate::api()`]).
pub fn routes(state: &AppState) -> Route {
    let mut paths = served(state).into_iter().map(|served| served.filter);
    let first = paths.next().expect("the API has paths");
    paths.fold(first, |all, next| all.or(next).unify().boxed())
}

pub(crate) fn json<T: Serialize>(status: StatusCode, body: &T) -> Response {
    warp::reply::with_status(warp::reply::json(body), status).into_response()
}

pub(crate) fn message(text: &str) -> Response {
    json(
        StatusCode::OK,
        &MessageResponse {
            message: text.to_owned(),
        },
    )
}
