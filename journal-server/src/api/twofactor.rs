//! The second factor (`/api/user/2fa/…`): whether it is on, set up a TOTP secret, turn
//! it on with a current code, make new recovery codes, turn it off with the password
//! and a code.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::{DisableTotpRequest, EnableTotpRequest, RenewRecoveryCodesRequest};
use journal_core::{Caller, Journal};
use serde_json::Value;
use warp::http::StatusCode;
use warp::{Filter, Rejection};

use super::confirm::confirmed;
use super::{Reply_, Route, Served, json, message};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, json_body, not_allowed, with_journal, with_login_throttle};
use crate::openapi::{add_paths, body, error, error_when, ok, schema};
use crate::rate_limit::LoginThrottle;

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/user/2fa", "GET", state_of(state)),
        Served::new("/api/user/2fa/setup", "POST", setup(state)),
        Served::new("/api/user/2fa/enable", "POST", enable(state)),
        Served::new("/api/user/2fa/disable", "POST", disable(state)),
        Served::new(
            "/api/user/2fa/recovery-codes",
            "POST",
            recovery_codes(state),
        ),
    ]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    let login_only = "A personal access token cannot do this: log in with the password (403)";
    add_paths(
        doc,
        serde_json::json!({
        "/api/user/2fa": { "get": {
            "operationId": "secondFactorState", "tags": ["second factor"], "security": bearer,
            "summary": "Whether the second factor is on, and how many recovery codes are left",
            "responses": {
                "200": ok("The state", schema("SecondFactorState")),
                "401": error("Unauthorized")
            }
        }},
        "/api/user/2fa/setup": { "post": {
            "operationId": "setupTotp", "tags": ["second factor"], "security": bearer,
            "summary": "Start setting up a TOTP second factor: a new secret, not active yet",
            "description": login_only,
            "responses": {
                "200": ok("The secret, its otpauth URL and that URL as a QR code", schema("TotpSetup")),
                "401": error("Unauthorized"), "403": error("Forbidden"),
                "409": error_when("The second factor is already on")
            }
        }},
        "/api/user/2fa/enable": { "post": {
            "operationId": "enableTotp", "tags": ["second factor"], "security": bearer,
            "summary": "Turn the second factor on with a current code; returns ten recovery codes, once",
            "description": login_only,
            "requestBody": body("EnableTotpRequest"),
            "responses": {
                "200": ok("Recovery codes", schema("RecoveryCodes")),
                "400": error_when("No code, a wrong code, or nothing set up"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                "401": error_when("No usable token, or a wrong password"),
                "403": error_when("An access token, or the password is needed"),
                "409": error_when("The second factor is already on"),
                "429": error_when("Too many wrong passwords for this account")
            }
        }},
        "/api/user/2fa/recovery-codes": { "post": {
            "operationId": "renewRecoveryCodes", "tags": ["second factor"], "security": bearer,
            "summary": "Make ten new recovery codes, returned once; the ones before stop working",
            "description": format!("{login_only}. Always with a current second-factor or recovery code (totp), and the password unless the sign-in is recent."),
            "requestBody": body("RenewRecoveryCodesRequest"),
            "responses": {
                "200": ok("The new recovery codes", schema("RecoveryCodes")),
                "400": error("BadRequest"),
                "401": error_when("No usable token, or a wrong password or code (counted like failed logins)"),
                "403": error_when("An access token, no code, or the password is needed"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                "409": error_when("The second factor is not on"),
                "429": error_when("Too many wrong passwords for this account")
            }
        }},
        "/api/user/2fa/disable": { "post": {
            "operationId": "disableTotp", "tags": ["second factor"], "security": bearer,
            "summary": "Turn the second factor off, with the password and a current or recovery code",
            "description": login_only,
            "requestBody": body("DisableTotpRequest"),
            "responses": {
                "200": ok("Turned off", schema("Message")),
                "400": error("BadRequest"),
                "401": error_when("The token, or a wrong password or code (counted like failed logins)"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                "403": error("Forbidden"),
                "409": error_when("The second factor is not on"),
                "429": error("TooManyRequests")
            }
        }}
        }),
    );
}

/// `GET /api/user/2fa`
fn state_of(state: &AppState) -> Route {
    warp::path!("api" / "user" / "2fa")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(|journal: Journal, caller: Caller| async move {
                    let state = journal.second_factor(&caller).await.map_err(reject)?;
                    Ok::<_, Rejection>(json(StatusCode::OK, &state))
                })
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
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

/// `POST /api/user/2fa/recovery-codes`
fn recovery_codes(state: &AppState) -> Route {
    warp::path!("api" / "user" / "2fa" / "recovery-codes")
        .and(
            warp::post()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(renew_recovery_codes)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed()
}

/// Wrong passwords and codes count against the account, as failed logins do.
async fn renew_recovery_codes(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: RenewRecoveryCodesRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let renew = journal.renew_recovery_codes(&caller, &body);
    let codes = confirmed(&journal, throttle, &caller, client, sent, renew).await?;
    Ok(json(StatusCode::OK, &codes))
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
