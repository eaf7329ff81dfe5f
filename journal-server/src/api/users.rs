//! Accounts of their owners: register, log in and out, the profile, the password, and
//! deleting the account.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::{
    ChangePasswordRequest, DeleteAccountRequest, LoginRequest, LoginResponse, ProfileResponse,
    RegisterRequest, RegisterResponse, UpdateProfileRequest,
};
use journal_core::{Caller, Journal};
use serde_json::Value;
use warp::Filter;
use warp::http::StatusCode;

use super::confirm::{confirmed, throttled};
use super::security_log::{Checked, client_info, note_if_throttled};
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::reject;
use crate::filters::{
    authenticated, json_body, not_allowed, optional_json_body, rate_limited, with_journal,
    with_login_throttle,
};
use crate::openapi::{add_paths, body, error, error_when, json_content, ok, schema};
use crate::rate_limit::{Account, LoginThrottle};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/user/register", "POST", register_route(state)),
        Served::new("/api/user/login", "POST", login_route(state)),
        Served::new("/api/user/logout", "POST", logout_route(state)),
        Served::new(
            "/api/user/profile",
            "GET, PUT, DELETE",
            profile_route(state),
        ),
        Served::new("/api/user/profile/password", "PUT", password_route(state)),
    ]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let message = ok("Done", schema("Message"));
    add_paths(
        doc,
        serde_json::json!({
            "/api/user/register": { "post": {
                "operationId": "register", "tags": ["users"],
                "summary": "Register an account (rate-limited per client address)",
                "requestBody": body("RegisterRequest"),
                "responses": {
                    "201": ok("Registered", schema("RegisterResponse")),
                    "400": error_when("A field is missing or invalid, or the password is one \
                        of the 10,000 most common passwords (refused at any length)"),
                    "409": error("Conflict"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                    "429": error("TooManyRequests")
                }
            }},
            "/api/user/login": { "post": {
                "operationId": "login", "tags": ["users"],
                "summary": "Log in and get a token (rate-limited per client address and per account)",
                "requestBody": body("LoginRequest"),
                "responses": {
                    "200": ok("A token for Authorization: Bearer", schema("LoginResponse")),
                    "400": error("BadRequest"),
                    "401": {
                        "description": "Unknown e-mail or wrong password, answered alike",
                        "content": json_content(schema("Error")),
                        "x-example": { "statusCode": 401, "error": "Unauthorized", "message": "Invalid credentials." }
                    },
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                    "429": error("TooManyRequests")
                }
            }},
            "/api/user/logout": { "post": {
                "operationId": "logout", "tags": ["users"], "security": bearer,
                "summary": "Revoke the token of this request; other tokens keep working",
                "responses": { "200": message, "401": error("Unauthorized") }
            }},
            "/api/user/profile": {
                "description": "Also served at /api/user/profile/ (trailing slash).",
                "get": {
                    "operationId": "getProfile", "tags": ["users"], "security": bearer,
                    "summary": "The caller's profile",
                    "responses": {
                        "200": ok("The profile", schema("ProfileResponse")),
                        "401": error("Unauthorized")
                    }
                },
                "put": {
                    "operationId": "updateProfile", "tags": ["users"], "security": bearer,
                    "summary": "Change any of fullName, nickname, email, profilePic, isPrivate",
                    "description": "Other fields (role, password, _id) are ignored; a body with none of the known fields is 400.",
                    "requestBody": body("UpdateProfileRequest"),
                    "responses": {
                        "200": message, "400": error("BadRequest"),
                        "401": error_when("No usable token, or a wrong password or code"),
                        "403": error_when("A changed email needs the password"),
                        "409": error("Conflict"), "413": error("PayloadTooLarge"),
                        "415": error("UnsupportedMediaType"),
                        "429": error_when("Too many wrong passwords or codes for this account")
                    }
                },
                "delete": {
                    "operationId": "deleteAccount", "tags": ["users"], "security": bearer,
                    "summary": "Delete the account and all its entries; its tokens stop working",
                    "description": "The body may be left out after a recent login (--recent-login).",
                    "requestBody": { "required": false, "content": { "application/json": { "schema": schema("DeleteAccountRequest") } } },
                    "responses": {
                        "200": message, "400": error("BadRequest"),
                        "401": error_when("No usable token, or a wrong password or code"),
                        "403": error_when("An access token, or the password is needed"),
                        "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                        "429": error_when("Too many wrong passwords or codes for this account")
                    }
                }
            },
            "/api/user/profile/password": { "put": {
                "operationId": "changePassword", "tags": ["users"], "security": bearer,
                "summary": "Change the password; every login session ends, and every access token unless keepAccessTokens",
                "requestBody": body("ChangePasswordRequest"),
                "responses": {
                    "200": message,
                    "400": error_when("A field is missing or invalid, or the new password is \
                        one of the 10,000 most common passwords (refused at any length)"),
                    "401": error_when("No usable token, or a wrong password or code"),
                    "403": error_when("An access token, or a second-factor code is needed"),
                    "413": error("PayloadTooLarge"),
                    "415": error("UnsupportedMediaType"),
                    "429": error_when("Too many wrong current passwords for this account")
                }
            }}
        }),
    );
}

fn register_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "register")
        .and(
            warp::post()
                .and(rate_limited(state.limiter.clone()))
                .and(with_journal(state.journal.clone()))
                .and(json_body(state.body.clone()))
                .and_then(register)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn login_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "login")
        .and(
            warp::post()
                .and(rate_limited(state.limiter.clone()))
                .and(with_journal(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(login)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

fn logout_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "logout")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(logout)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// `/api/user/profile` and `/api/user/profile/`.
fn profile_route(state: &AppState) -> Route {
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let get = warp::get().and(journal()).and(caller()).and_then(profile);
    let throttle = || with_login_throttle(state.login_throttle.clone());
    let put = warp::put()
        .and(journal())
        .and(caller())
        .and(throttle())
        .and(crate::connections::client_addr())
        .and(json_body(state.body.clone()))
        .and_then(update_profile);
    let delete = warp::delete()
        .and(journal())
        .and(caller())
        .and(throttle())
        .and(crate::connections::client_addr())
        .and(optional_json_body(state.body.clone()))
        .and_then(delete_account);
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

fn password_route(state: &AppState) -> Route {
    warp::path!("api" / "user" / "profile" / "password")
        .and(
            warp::put()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(change_password)
                .or(not_allowed("PUT"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/user/register`
pub async fn register(journal: Journal, body: RegisterRequest) -> Reply_ {
    let user_id = journal.register(&body).await.map_err(reject)?;
    Ok(json(StatusCode::CREATED, &RegisterResponse { user_id }))
}

/// `POST /api/user/login`, counting failures per account when `throttle` is on.
pub async fn login(
    journal: Journal,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: LoginRequest,
) -> Reply_ {
    let account = body
        .email
        .as_deref()
        .map(|email| Account::new(email, body.totp.is_some()));
    let from = client_info(client);
    let token = throttled(throttle, account, client, journal.login_from(&body, &from))
        .await
        .inspect_err(|r| {
            let checked = Checked::Login(body.email.clone());
            note_if_throttled(&journal, r, checked, client);
        })?;
    Ok(json(StatusCode::OK, &LoginResponse { token }))
}

/// `GET /api/user/profile/`
pub async fn profile(journal: Journal, caller: Caller) -> Reply_ {
    let user = journal.profile(&caller).await.map_err(reject)?;
    Ok(json(StatusCode::OK, &ProfileResponse { user }))
}

/// `PUT /api/user/profile/`
pub async fn update_profile(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: UpdateProfileRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let update = journal.update_profile(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, update).await?;
    Ok(message("profile updated"))
}

/// `PUT /api/user/profile/password`
pub async fn change_password(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: ChangePasswordRequest,
) -> Reply_ {
    let sent = (true, body.totp.is_some());
    let change = journal.change_password(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, change).await?;
    Ok(message(if body.keep_access_tokens.unwrap_or(false) {
        "password changed; every login session has ended, log in again; access tokens still work"
    } else {
        "password changed; every login session and access token has ended, log in again"
    }))
}

/// `DELETE /api/user/profile/`, with the password (and code) in an optional body.
pub async fn delete_account(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: DeleteAccountRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let delete = journal.delete_account(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, delete).await?;
    Ok(message("account and entries deleted"))
}

/// `POST /api/user/logout`
pub async fn logout(journal: Journal, caller: Caller) -> Reply_ {
    journal.logout(&caller).await.map_err(reject)?;
    Ok(message("logged out; this token no longer works"))
}
