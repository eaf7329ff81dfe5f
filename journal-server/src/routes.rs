//! The routes: every path with its methods, then the 405 fallback of that path.
//!
//! Each route matches its path first, then the method, then the rate limit, the caller
//! and the body, so that an unknown path is a 404 (never a 401) and a known path with
//! another method is a 405 with `Allow`.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::Method;
use warp::reply::Response;

use crate::AppState;
use crate::error::ApiError;
use crate::filters::{
    authenticated, if_none_match, json_body, list_filter, not_allowed, optional_json_body, paging,
    rate_limited, search_text, with_journal, with_login_throttle, with_rendered,
};
use crate::handlers;

/// Every route of the API, without the error handling around it (see [`crate::api`]).
pub fn routes(state: &AppState) -> BoxedFilter<(Response,)> {
    register(state)
        .or(login(state))
        .unify()
        .or(logout(state))
        .unify()
        .or(profile(state))
        .unify()
        .or(password(state))
        .unify()
        .boxed()
        .or(entries(state))
        .unify()
        .or(import(state))
        .unify()
        .or(entry(state))
        .unify()
        .or(user_entries(state))
        .unify()
        .or(public_entries(state))
        .unify()
        .or(search(state))
        .unify()
        .or(tags(state))
        .unify()
        .boxed()
        .or(crate::accounts::routes(state))
        .unify()
        .or(crate::security_log::routes(state))
        .unify()
        .or(status(state))
        .unify()
        .or(openapi())
        .unify()
        .boxed()
}

type Route = BoxedFilter<(Response,)>;

fn register(state: &AppState) -> Route {
    warp::path!("api" / "user" / "register")
        .and(
            warp::post()
                .and(rate_limited(state.limiter.clone()))
                .and(with_journal(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(handlers::register)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn login(state: &AppState) -> Route {
    warp::path!("api" / "user" / "login")
        .and(
            warp::post()
                .and(rate_limited(state.limiter.clone()))
                .and(with_journal(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(handlers::login)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn logout(state: &AppState) -> Route {
    warp::path!("api" / "user" / "logout")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(handlers::logout)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// `/api/user/profile` and `/api/user/profile/`.
fn profile(state: &AppState) -> Route {
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let get = warp::get()
        .and(journal())
        .and(caller())
        .and_then(handlers::profile);
    let throttle = || with_login_throttle(state.login_throttle.clone());
    let put = warp::put()
        .and(journal())
        .and(caller())
        .and(throttle())
        .and(crate::connections::client_addr())
        .and(json_body(state.body.clone()))
        .and_then(handlers::update_profile);
    let delete = warp::delete()
        .and(journal())
        .and(caller())
        .and(throttle())
        .and(crate::connections::client_addr())
        .and(optional_json_body(state.body.clone()))
        .and_then(handlers::delete_account);
    warp::path!("api" / "user" / "profile")
        .and(
            get.or(put)
                .unify()
                .or(delete)
                .unify()
                .or(not_allowed("GET, PUT, DELETE"))
                .unify(),
        )
        .boxed()
}

fn password(state: &AppState) -> Route {
    warp::path!("api" / "user" / "profile" / "password")
        .and(
            warp::put()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(handlers::change_password)
                .or(not_allowed("PUT"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/journal-entries`
fn entries(state: &AppState) -> Route {
    warp::path!("api" / "journal-entries")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(handlers::create_entry)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/journal-entries/import`: before `/:id`, which would take `import` for an id.
fn import(state: &AppState) -> Route {
    warp::path!("api" / "journal-entries" / "import")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(handlers::import_entries)
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
fn entry(state: &AppState) -> Route {
    let path = || warp::path!("api" / "journal-entries" / String);
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let get = path()
        .and(warp::get())
        .and(journal())
        .and(caller())
        .and_then(handlers::entry);
    let put = path()
        .and(warp::put())
        .and(journal())
        .and(caller())
        .and(json_body(state.body.clone()))
        .and_then(handlers::update_entry);
    let delete = path()
        .and(warp::delete())
        .and(journal())
        .and(caller())
        .and_then(handlers::delete_entry);
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

/// `GET /api/user/:id/journal-entries`
fn user_entries(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / String / "journal-entries");
    let get = path()
        .and(warp::get())
        .and(with_journal(state.journal.clone()))
        .and(with_rendered(state.rendered.clone()))
        .and(authenticated(state.journal.clone()))
        .and(paging())
        .and(list_filter())
        .and_then(handlers::user_entries);
    let other = path()
        .and(not_allowed("GET"))
        .map(|_id: String, reply: Response| reply);
    get.or(other).unify().boxed()
}

fn public_entries(state: &AppState) -> Route {
    warp::path!("api" / "public" / "journal-entries")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(with_rendered(state.rendered.clone()))
                .and(paging())
                .and(list_filter())
                .and(if_none_match())
                .and_then(handlers::public_entries)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn search(state: &AppState) -> Route {
    warp::path!("api" / "search" / "journal-entries")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(search_text())
                .and(paging())
                .and(list_filter())
                .and_then(handlers::search)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn tags(state: &AppState) -> Route {
    warp::path!("api" / "user" / "tags")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(handlers::tags)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn status(state: &AppState) -> Route {
    warp::path!("api" / "status")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and_then(handlers::status)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

fn openapi() -> Route {
    warp::path!("api" / "openapi.json")
        .and(
            warp::get()
                .and_then(handlers::openapi)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}
