//! Personal access tokens (`/api/user/tokens`): make one, list them, revoke one. Every
//! rule is in the core; these only carry requests to it and answers back.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::CreateAccessTokenRequest;
use journal_core::{Caller, Journal};
use warp::http::StatusCode;
use warp::reply::Response;
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
        Served::new("/api/user/tokens", "GET, POST", tokens(state)),
        Served::new("/api/user/tokens/{id}", "DELETE", token(state)),
    ]
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
