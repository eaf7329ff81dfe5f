//! Personal access tokens (`/api/user/tokens`): make one, list them, revoke one. Every
//! rule is in the core; these only carry requests to it and answers back.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::CreateAccessTokenRequest;
use journal_core::{Caller, Journal};
use serde_json::Value;
use warp::http::StatusCode;
use warp::reply::Response;
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
        Served::new("/api/user/tokens", "GET, POST", tokens(state)),
        Served::new("/api/user/tokens/{id}", "DELETE", token(state)),
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
        "/api/user/tokens": {
            "post": {
                "operationId": "createAccessToken", "tags": ["tokens"], "security": bearer,
                "summary": "Make a personal access token (its secret is shown this once)",
                "description": login_only,
                "requestBody": body("CreateAccessTokenRequest"),
                "responses": {
                    "201": ok("The token, with its secret", schema("NewAccessToken")),
                    "400": error_when("A bad name or expiresInDays, or 100 tokens already"),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                    "401": error_when("No usable token, or a wrong password or code"),
                    "403": error_when("An access token, or the password is needed"),
                    "429": error_when("Too many wrong passwords or codes for this account")
                }
            },
            "get": {
                "operationId": "accessTokens", "tags": ["tokens"], "security": bearer,
                "summary": "The caller's personal access tokens, without their secrets",
                "description": login_only,
                "responses": {
                    "200": ok("The tokens, oldest first", serde_json::json!({ "type": "array", "items": schema("AccessToken") })),
                    "401": error("Unauthorized"), "403": error("Forbidden")
                }
            }
        },
        "/api/user/tokens/{id}": { "delete": {
            "operationId": "revokeAccessToken", "tags": ["tokens"], "security": bearer,
            "summary": "Revoke one of the caller's tokens, at once, on every server",
            "description": login_only,
            "parameters": [{ "name": "id", "in": "path", "required": true,
                "description": "The token's id.", "schema": { "type": "string" } }],
            "responses": {
                "200": ok("Revoked", schema("Message")),
                "401": error("Unauthorized"), "403": error("Forbidden"),
                "404": error_when("No such token of the caller's (another user's is 404 too)")
            }
        }}
        }),
    );
}

/// `/api/user/tokens`: make one (`POST`), list them (`GET`).
fn tokens(state: &AppState) -> Route {
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let create = warp::post()
        .and(journal())
        .and(caller())
        .and(with_login_throttle(state.login_throttle.clone()))
        .and(crate::connections::client_addr())
        .and(json_body(state.body.clone()))
        .and_then(create_token);
    let list = warp::get().and(journal()).and(caller()).and_then(
        |journal: Journal, caller: Caller| async move {
            let tokens = journal.access_tokens(&caller).await.map_err(reject)?;
            Ok::<_, Rejection>(json(StatusCode::OK, &tokens))
        },
    );
    warp::path!("api" / "user" / "tokens")
        .and(create.or(list).unify().or(not_allowed("GET, POST")).unify())
        .boxed()
}

/// Making a token checks the password when the body sends one, under the throttle.
async fn create_token(
    journal: Journal,
    caller: Caller,
    throttle: Option<Arc<LoginThrottle>>,
    client: Option<SocketAddr>,
    body: CreateAccessTokenRequest,
) -> Reply_ {
    let sent = (body.password.is_some(), body.totp.is_some());
    let create = journal.create_access_token(&caller, &body);
    let made = confirmed(&journal, throttle, &caller, client, sent, create).await?;
    Ok(json(StatusCode::CREATED, &made))
}

/// `DELETE /api/user/tokens/{id}`: revoke one.
fn token(state: &AppState) -> Route {
    let path = || warp::path!("api" / "user" / "tokens" / String);
    let revoke = path()
        .and(warp::delete())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            journal
                .revoke_access_token(&caller, &id)
                .await
                .map_err(reject)?;
            Ok::<_, Rejection>(message("token revoked"))
        });
    let other = path()
        .and(not_allowed("DELETE"))
        .map(|_id: String, reply: Response| reply);
    revoke.or(other).unify().boxed()
}
