//! The routes of accounts on a public server, each with its handler: personal access
//! tokens (`/api/user/tokens`), the second factor (`/api/user/2fa/…`), invitations and
//! user management for administrators (`/api/admin/…`). Every rule is in the core;
//! these only carry requests to it and answers back.

use std::net::SocketAddr;
use std::sync::Arc;

use journal_core::api::{
    AdminUpdateUserRequest, CreateAccessTokenRequest, CreateInviteRequest, DisableTotpRequest,
    EnableTotpRequest,
};
use journal_core::{Caller, Journal, PageRequest};
use warp::Filter;
use warp::Rejection;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::http::header::{HeaderName, HeaderValue, LINK};
use warp::reply::Response;

use crate::AppState;
use crate::error::reject;
use crate::filters::{
    authenticated, json_body, not_allowed, paging, with_journal, with_login_throttle,
};
use crate::handlers::{Reply_, confirmed, json, message};
use crate::rate_limit::LoginThrottle;

type Route = BoxedFilter<(Response,)>;
/// Every route of this module.
pub fn routes(state: &AppState) -> Route {
    tokens(state)
        .or(token(state))
        .unify()
        .or(totp(state))
        .unify()
        .or(invites(state))
        .unify()
        .or(invite(state))
        .unify()
        .or(users(state))
        .unify()
        .or(user(state))
        .unify()
        .or(user_totp(state))
        .unify()
        .or(stats(state))
        .unify()
        .boxed()
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

/// `POST /api/user/2fa/setup`, `/enable` and `/disable`.
fn totp(state: &AppState) -> Route {
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let setup = warp::path!("api" / "user" / "2fa" / "setup")
        .and(
            warp::post()
                .and(journal())
                .and(caller())
                .and_then(|journal: Journal, caller: Caller| async move {
                    let setup = journal.setup_totp(&caller).await.map_err(reject)?;
                    Ok::<_, Rejection>(json(StatusCode::OK, &setup))
                })
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed();
    let enable = warp::path!("api" / "user" / "2fa" / "enable")
        .and(
            warp::post()
                .and(journal())
                .and(caller())
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(enable_totp)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed();
    let disable = warp::path!("api" / "user" / "2fa" / "disable")
        .and(
            warp::post()
                .and(journal())
                .and(caller())
                .and(with_login_throttle(state.login_throttle.clone()))
                .and(crate::connections::client_addr())
                .and(json_body(state.body.clone()))
                .and_then(disable_totp)
                .or(not_allowed("POST"))
                .unify(),
        )
        .boxed();
    setup.or(enable).unify().or(disable).unify().boxed()
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

/// `/api/admin/invites`: make one (`POST`), list those that still work (`GET`).
fn invites(state: &AppState) -> Route {
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let create = warp::post()
        .and(journal())
        .and(caller())
        .and(json_body(state.body.clone()))
        .and_then(
            |journal: Journal, caller: Caller, body: CreateInviteRequest| async move {
                let invite = journal
                    .create_invite(&caller, &body)
                    .await
                    .map_err(reject)?;
                Ok::<_, Rejection>(json(StatusCode::CREATED, &invite))
            },
        );
    let list = warp::get().and(journal()).and(caller()).and_then(
        |journal: Journal, caller: Caller| async move {
            let invites = journal.admin_invites(&caller).await.map_err(reject)?;
            Ok::<_, Rejection>(json(StatusCode::OK, &invites))
        },
    );
    warp::path!("api" / "admin" / "invites")
        .and(create.or(list).unify().or(not_allowed("GET, POST")).unify())
        .boxed()
}

/// `DELETE /api/admin/invites/{id}`: revokes an unused invitation by its id (or code).
fn invite(state: &AppState) -> Route {
    let path = || warp::path!("api" / "admin" / "invites" / String);
    let delete = path()
        .and(warp::delete())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            journal
                .admin_revoke_invite(&caller, &id)
                .await
                .map_err(reject)?;
            Ok::<_, Rejection>(message("invitation revoked"))
        });
    let other = path()
        .and(not_allowed("DELETE"))
        .map(|_id: String, reply: Response| reply);
    delete.or(other).unify().boxed()
}

/// `GET /api/admin/users?page&limit`: a plain array with `X-Total-Count` and `Link`.
fn users(state: &AppState) -> Route {
    warp::path!("api" / "admin" / "users")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(paging())
                .and_then(
                    |journal: Journal, caller: Caller, page: PageRequest| async move {
                        let users = journal.admin_users(&caller, page).await.map_err(reject)?;
                        let mut response = json(StatusCode::OK, &users.items);
                        let headers = response.headers_mut();
                        headers.insert(
                            HeaderName::from_static("x-total-count"),
                            HeaderValue::from(users.total),
                        );
                        let link = |n: u32, rel: &str| {
                            format!(
                                "</api/admin/users?page={n}&limit={}>; rel=\"{rel}\"",
                                users.limit
                            )
                        };
                        let mut links = Vec::new();
                        if users.has_prev() {
                            links.push(link(users.page - 1, "prev"));
                        }
                        if users.has_next() {
                            links.push(link(users.page + 1, "next"));
                        }
                        if let Ok(value) = HeaderValue::from_str(&links.join(", "))
                            && !links.is_empty()
                        {
                            headers.insert(LINK, value);
                        }
                        Ok::<_, Rejection>(response)
                    },
                )
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

/// `PUT /api/admin/users/{id}` (`{"disabled"}`) and `DELETE /api/admin/users/{id}`.
fn user(state: &AppState) -> Route {
    let path = || warp::path!("api" / "admin" / "users" / String);
    let journal = || with_journal(state.journal.clone());
    let caller = || authenticated(state.journal.clone());
    let update = path()
        .and(warp::put())
        .and(journal())
        .and(caller())
        .and(json_body(state.body.clone()))
        .and_then(
            |id: String, journal: Journal, caller: Caller, body: AdminUpdateUserRequest| async move {
                let disabled = journal
                    .admin_update_user(&caller, &id, &body)
                    .await
                    .map_err(reject)?;
                Ok::<_, Rejection>(message(if disabled {
                    "account disabled"
                } else {
                    "account enabled"
                }))
            },
        );
    let delete = path()
        .and(warp::delete())
        .and(journal())
        .and(caller())
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            journal
                .admin_delete_user(&caller, &id)
                .await
                .map_err(reject)?;
            Ok::<_, Rejection>(message("account and entries deleted"))
        });
    let other = path()
        .and(not_allowed("PUT, DELETE"))
        .map(|_id: String, reply: Response| reply);
    update.or(delete).unify().or(other).unify().boxed()
}

/// `DELETE /api/admin/users/{id}/2fa`: turns off the second factor of an owner who
/// lost it, and signs them out.
fn user_totp(state: &AppState) -> Route {
    let path = || warp::path!("api" / "admin" / "users" / String / "2fa");
    let reset = path()
        .and(warp::delete())
        .and(with_journal(state.journal.clone()))
        .and(authenticated(state.journal.clone()))
        .and_then(|id: String, journal: Journal, caller: Caller| async move {
            journal
                .admin_reset_totp(&caller, &id)
                .await
                .map_err(reject)?;
            Ok::<_, Rejection>(message(
                "second factor turned off; the account is signed out everywhere",
            ))
        });
    let other = path()
        .and(not_allowed("DELETE"))
        .map(|_id: String, reply: Response| reply);
    reset.or(other).unify().boxed()
}

/// `GET /api/admin/stats`: how often each cache answered from memory since the server
/// started (`{"caches": {name: {"hits", "misses"}}}`), the store's and the rendered
/// bodies'. For operators sizing a server, and for the benchmarks' hit rates.
fn stats(state: &AppState) -> Route {
    let rendered = state.rendered.clone();
    warp::path!("api" / "admin" / "stats")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and_then(move |journal: Journal, caller: Caller| {
                    let rendered = rendered.clone();
                    async move {
                        let mut caches: serde_json::Map<String, serde_json::Value> = journal
                            .cache_counts(&caller)
                            .map_err(reject)?
                            .into_iter()
                            .map(|(name, counts)| (name.to_owned(), serde_json::json!(counts)))
                            .collect();
                        caches.insert(
                            "renderedBodies".into(),
                            serde_json::json!(rendered.counts()),
                        );
                        Ok::<_, Rejection>(json(
                            StatusCode::OK,
                            &serde_json::json!({ "caches": caches }),
                        ))
                    }
                })
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}
