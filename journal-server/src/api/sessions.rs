//! Web sessions that last (see `journal_core`'s sessions): the web app's refresh token
//! travels only in a cookie, `HttpOnly` (no script reads it), `Secure`, `SameSite=Strict`
//! and scoped to `/api/user/session`, so no other route ever receives it.
//!
//! - `POST /api/user/session` (a recent sign-in's token): starts a session, sets the
//!   cookie.
//! - `POST /api/user/session/refresh` (the cookie): a new login token, and the next
//!   cookie; a refused cookie is cleared.
//! - `POST /api/user/session/end` (the cookie): a sign-out of the session.
//! - `DELETE /api/user/sessions` (a token): signs out everywhere.
//!
//! The two cookie routes take no other input and answer only requests whose `Origin`
//! is this server's own, so another site can neither use nor end a session
//! (docs/SECURITY.md).

use journal_core::{Caller, Journal, SessionRefresh, Timestamp};
use serde_json::{Value, json as json_value};
use warp::Filter;
use warp::http::header::{HeaderValue, SET_COOKIE};
use warp::http::{HeaderMap, StatusCode};
use warp::reply::Response;

use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, with_journal};
use crate::openapi::{add_paths, error};
use crate::public_address::is_own_origin;

/// The cookie's name.
const COOKIE: &str = "journal_session";
/// The only path the browser sends it to (and below).
const COOKIE_PATH: &str = "/api/user/session";

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/user/session", "POST", start_route(state)),
        Served::new("/api/user/session/refresh", "POST", refresh_route(state)),
        Served::new("/api/user/session/end", "POST", end_route(state)),
        Served::new("/api/user/sessions", "DELETE", everywhere_route(state)),
    ]
}

fn start_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "session")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(start)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// The journal, the cookie's value, and whether the request comes from this server's
/// own pages.
fn with_cookie(
    state: &AppState,
) -> impl Filter<Extract = (Journal, Option<String>, bool), Error = std::convert::Infallible>
+ Clone
+ use<> {
    let public_url = state.public_url.clone();
    with_journal(state.journal.clone())
        .and(warp::cookie::optional(COOKIE))
        .and(
            warp::header::headers_cloned()
                .map(move |headers: HeaderMap| is_own_origin(public_url.as_deref(), &headers)),
        )
}

fn refresh_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "session" / "refresh")
        .and(
            warp::post()
                .and(with_cookie(state))
                .and(crate::connections::client_addr())
                .and_then(refresh)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn end_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "session" / "end")
        .and(
            warp::post()
                .and(with_cookie(state))
                .and_then(end)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn everywhere_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "sessions")
        .and(
            warp::delete()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(everywhere)
                .or(not_allowed("DELETE"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/user/session`
async fn start(journal: Journal, caller: Caller) -> Reply_ {
    let session = journal.start_session(&caller).await.map_err(reject)?;
    let mut response = json(
        StatusCode::CREATED,
        &json_value!({ "expiresAt": session.expires_at }),
    );
    set_cookie(&mut response, Some(&session));
    Ok(response)
}

/// `POST /api/user/session/refresh`
async fn refresh(
    journal: Journal,
    cookie: Option<String>,
    own_origin: bool,
    client: Option<std::net::SocketAddr>,
) -> Reply_ {
    if !own_origin {
        return Err(reject(cross_origin()));
    }
    let Some(cookie) = cookie else {
        return Ok(refused(journal_core::Error::Unauthenticated(
            journal_core::TokenRejection::SessionEnded,
        )));
    };
    let from = super::security_log::client_info(client);
    match journal.refresh_session(&cookie, &from).await {
        Ok((token, session)) => {
            let mut response = json(
                StatusCode::OK,
                &json_value!({ "token": token, "expiresAt": session.expires_at }),
            );
            set_cookie(&mut response, Some(&session));
            Ok(response)
        }
        Err(e @ journal_core::Error::Unauthenticated(_)) => Ok(refused(e)),
        Err(e) => Err(reject(e)),
    }
}

/// `POST /api/user/session/end`
async fn end(journal: Journal, cookie: Option<String>, own_origin: bool) -> Reply_ {
    if !own_origin {
        return Err(reject(cross_origin()));
    }
    if let Some(cookie) = cookie {
        journal.end_session(&cookie).await.map_err(reject)?;
    }
    let mut response = message("signed out of this session");
    set_cookie(&mut response, None);
    Ok(response)
}

/// `DELETE /api/user/sessions`
async fn everywhere(journal: Journal, caller: Caller) -> Reply_ {
    journal.sign_out_everywhere(&caller).await.map_err(reject)?;
    Ok(message("signed out everywhere"))
}

fn cross_origin() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "a web session is used only from this server's own pages (Origin)",
    )
}

/// The 401 of a refresh refused, clearing the cookie.
fn refused(e: journal_core::Error) -> Response {
    let mut response = ApiError::from(e).into_response();
    set_cookie(&mut response, None);
    response
}

/// Sets the session's cookie, or clears it with `None`.
fn set_cookie(response: &mut Response, session: Option<&SessionRefresh>) {
    let (value, max_age) = match session {
        Some(session) => {
            let left = session.expires_at.as_millis() - Timestamp::now().as_millis();
            (session.refresh_token.as_str(), (left / 1000).max(0))
        }
        None => ("", 0),
    };
    let cookie = format!(
        "{COOKIE}={value}; Path={COOKIE_PATH}; Max-Age={max_age}; HttpOnly; Secure; SameSite=Strict"
    );
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(SET_COOKIE, cookie);
    }
}

/// This module's operations in the OpenAPI document.
pub(crate) fn document(doc: &mut Value) {
    let bearer = json_value!([{ "bearer": [] }]);
    let cookie = json_value!([{ "session": [] }]);
    let set_cookie = json_value!({ "Set-Cookie": {
        "description": "journal_session=…; Path=/api/user/session; HttpOnly; Secure; SameSite=Strict: the refresh token (Max-Age=0 clears it)",
        "schema": { "type": "string" }
    }});
    let expires = json_value!({ "type": "string", "format": "date-time",
        "description": "When the session ends whatever happens (--session-max after the sign-in)." });
    let message = crate::openapi::ok("Done", crate::openapi::schema("Message"));
    add_paths(
        doc,
        json_value!({
            "/api/user/session": { "post": {
                "operationId": "startSession", "tags": ["users"], "security": bearer,
                "summary": "Start a web session for a recent sign-in: its refresh token in an HttpOnly cookie",
                "responses": {
                    "201": { "description": "The session", "headers": set_cookie,
                        "content": crate::openapi::json_content(json_value!({
                            "type": "object", "additionalProperties": false,
                            "required": ["expiresAt"], "properties": { "expiresAt": expires }
                        })) },
                    "401": error("Unauthorized"),
                    "403": error_when_forbidden()
                }
            }},
            "/api/user/session/refresh": { "post": {
                "operationId": "refreshSession", "tags": ["users"], "security": cookie,
                "summary": "A new login token for the session's cookie, which is rotated: a used one presented again ends the session",
                "responses": {
                    "200": { "description": "A new login token", "headers": set_cookie,
                        "content": crate::openapi::json_content(json_value!({
                            "type": "object", "additionalProperties": false,
                            "required": ["token", "expiresAt"],
                            "properties": { "token": { "type": "string" }, "expiresAt": expires }
                        })) },
                    "401": error("Unauthorized"),
                    "403": crate::openapi::error_when("Forbidden: the request's Origin is not this server's")
                }
            }},
            "/api/user/session/end": { "post": {
                "operationId": "endSession", "tags": ["users"], "security": cookie,
                "summary": "Sign out of the session of the cookie (which is cleared) and revoke its login tokens",
                "responses": {
                    "200": message,
                    "403": crate::openapi::error_when("Forbidden: the request's Origin is not this server's")
                }
            }},
            "/api/user/sessions": { "delete": {
                "operationId": "signOutEverywhere", "tags": ["users"], "security": bearer,
                "summary": "Sign out everywhere: every web session and every login token until now (access tokens stay)",
                "responses": {
                    "200": crate::openapi::ok("Done", crate::openapi::schema("Message")),
                    "401": error("Unauthorized"), "403": error("Forbidden")
                }
            }}
        }),
    );
    if let Some(schemes) = doc
        .pointer_mut("/components/securitySchemes")
        .and_then(Value::as_object_mut)
    {
        schemes.insert(
            "session".into(),
            json_value!({ "type": "apiKey", "in": "cookie", "name": COOKIE,
                "description": "The web app's refresh token, set by POST /api/user/session." }),
        );
    }
}

fn error_when_forbidden() -> Value {
    crate::openapi::error_when(
        "Forbidden: a personal access token, or a sign-in older than --recent-login",
    )
}
