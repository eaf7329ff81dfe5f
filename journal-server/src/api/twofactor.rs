//! The second factor (`/api/user/2fa/…`): set up a TOTP secret, turn it on with a
//! current code, turn it off with the password and a code.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::{DisableTotpRequest, EnableTotpRequest};
use journal_core::{Caller, Journal};
use warp::http::StatusCode;
use warp::{Filter, Rejection};

use super::confirm::confirmed;
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, json_body, not_allowed, with_journal, with_login_throttle};
use crate::rate_limit::LoginThrottle;

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/user/2fa/setup", "POST", setup(state)),
        Served::new("/api/user/2fa/enable", "POST", enable(state)),
        Served::new("/api/user/2fa/disable", "POST", disable(state)),
    ]
}

/// `POST /api/user/2fa/setup`
fn setup(state: &AppState) -> Route {
    warp::path!("api" / "user" / "2fa" / "setup")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(|journal: Journal, caller: Caller| async move {
                    let setup = journal.setup_totp(&caller).await.map_err(reject)?;
                    Ok::<_, Rejection>(json(StatusCode::OK, &setup))
                })
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/user/2fa/enable`
fn enable(state: &AppState) -> Route {
    warp::path!("api" / "user" / "2fa" / "enable")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(enable_totp)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// `POST /api/user/2fa/disable`
fn disable(state: &AppState) -> Route {
    warp::path!("api" / "user" / "2fa" / "disable")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(disable_totp)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// A password sent to confirm the owner counts against the account when wrong.
async fn enable_totp(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: EnableTotpRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), false);
    let enable = journal.enable_totp(&caller, &body);
    let codes = confirmed(&journal, throttle, &caller, client, sent, enable).await?;
    Ok(json(StatusCode::OK, &codes))
}

/// Wrong passwords and codes count against the account, as failed logins do.
async fn disable_totp(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: DisableTotpRequest,
) -> Reply_ {
    let sent = (true, body.code.is_some());
    let disable = journal.disable_totp(&caller, &body);
    confirmed(&journal, throttle, &caller, client, sent, disable).await?;
    Ok(message("second factor turned off"))
}
