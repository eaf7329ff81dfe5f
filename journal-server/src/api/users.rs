//! Accounts of their owners: register, log in and out, the profile, the password, and
//! deleting the account.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::{
    ChangePasswordRequest, DeleteAccountRequest, LoginRequest, LoginResponse, ProfileResponse,
    RegisterRequest, RegisterResponse, UpdateProfileRequest,
};
use journal_core::{Caller, Journal};
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
