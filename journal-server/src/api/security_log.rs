//! The security log over HTTP: `GET /api/user/security-events`, and the throttle's
//! refusals reported to the core. Every rule (what is recorded, for how long, who may
//! read it) is in the core; this carries requests and addresses to it.

use std::net::SocketAddr;
use tracing::Instrument as _;

use journal_core::{Caller, ClientInfo, Journal, PageRequest, ThrottledCheck, UserId};
use serde_json::Value;
use warp::http::StatusCode;
use warp::http::header::{HeaderName, HeaderValue, LINK};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{Route, Served, json};
use crate::AppState;
use crate::error::{ApiError, reject};
use crate::filters::{authenticated, not_allowed, paging, with_journal};
use crate::openapi::{error, error_when, json_content, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![Served::new(
        "/api/user/security-events",
        "GET",
        events(state),
    )]
}

/// This module's operation and its `SecurityEvent` schema in the OpenAPI document, next
/// to [`routes`] so that the path and its entry change together.
pub(crate) fn document(doc: &mut Value) {
    doc["paths"]["/api/user/security-events"] = serde_json::json!({ "get": {
        "operationId": "securityEvents", "tags": ["security log"],
        "security": [{ "bearer": [] }],
        "summary": "The caller's security log over the last 90 days, newest first",
        "description": "Logins, attempts refused by the failed-login throttle, the second factor turned on or off, access tokens made or revoked, password and e-mail changes. Never a secret. A personal access token cannot read it (403).",
        "parameters": [
            { "$ref": "#/components/parameters/page" },
            { "$ref": "#/components/parameters/limit" }
        ],
        "responses": {
            "200": {
                "description": "One page of events",
                "headers": {
                    "X-Total-Count": { "$ref": "#/components/headers/X-Total-Count" },
                    "Link": { "$ref": "#/components/headers/Link" }
                },
                "content": json_content(serde_json::json!({ "type": "array", "items": schema("SecurityEvent") }))
            },
            "400": error_when("A bad page or limit"),
            "401": error("Unauthorized"),
            "403": error_when("A personal access token: log in with the password")
        }
    }});
    let timestamp = serde_json::json!({ "type": "string", "format": "date-time" });
    doc["components"]["schemas"]["SecurityEvent"] = serde_json::json!({
        "type": "object", "additionalProperties": false,
        "required": ["kind", "at", "firstAt", "count", "address", "secondFactor", "detail"],
        "properties": {
            "kind": { "type": "string", "enum": [
                "login", "throttled", "second_factor_enabled", "second_factor_disabled",
                "access_token_created", "access_token_revoked", "password_changed", "email_changed",
                "recovery_codes_renewed", "signed_out_everywhere", "session_reused"
            ] },
            "at": timestamp,
            "firstAt": timestamp,
            "count": { "type": "integer", "minimum": 1,
                "description": "Times it happened from firstAt to at (throttled attempts are counted per day)." },
            "address": { "type": ["string", "null"],
                "description": "The client's IP address; null for the CLI on its own database." },
            "secondFactor": { "type": ["string", "null"], "enum": ["totp", "recovery_code", null],
                "description": "For a login: the second factor it passed; null for a password alone." },
            "detail": { "type": ["string", "null"],
                "description": "A token's name (access_token_*), \"old → new\" (email_changed), login or password (throttled), by an administrator or on the database (second_factor_disabled by an operator)." }
        }
    });
}

/// `GET /api/user/security-events?page&limit`: the caller's events, newest first, a
/// plain array with `X-Total-Count` and `Link`.
fn events(state: &AppState) -> Route {
    warp::path!("api" / "user" / "security-events")
        .and(
            warp::get()
                .and(with_journal(state.journal.clone()))
                .and(authenticated(state.journal.clone()))
                .and(paging())
                .and_then(list)
                .or(not_allowed("GET"))
                .unify(),
        )
        .boxed()
}

async fn list(journal: Journal, caller: Caller, page: PageRequest) -> Result<Response, Rejection> {
    let events = journal
        .security_events(&caller, page)
        .await
        .map_err(reject)?;
    let mut response = json(StatusCode::OK, &events.items);
    let headers = response.headers_mut();
    headers.insert(
        HeaderName::from_static("x-total-count"),
        HeaderValue::from(events.total),
    );
    let link = |n: u32, rel: &str| {
        format!(
            "</api/user/security-events?page={n}&limit={}>; rel=\"{rel}\"",
            events.limit
        )
    };
    let mut links = Vec::new();
    if events.has_prev() {
        links.push(link(events.page - 1, "prev"));
    }
    if events.has_next() {
        links.push(link(events.page + 1, "next"));
    }
    if !links.is_empty()
        && let Ok(value) = HeaderValue::from_str(&links.join(", "))
    {
        headers.insert(LINK, value);
    }
    Ok(response)
}

/// The client as the core's security log knows it.
pub(crate) fn client_info(client: Option<SocketAddr>) -> ClientInfo {
    client.map_or_else(ClientInfo::local, |a| ClientInfo::from_address(a.ip()))
}

/// A password check the account throttle may refuse, owned: it is reported after the
/// answer has gone.
pub(crate) enum Checked {
    /// A login, for the e-mail address as typed.
    Login(Option<String>),
    /// A password change by a signed-in user.
    Password(UserId),
}

/// When `rejection` is the account throttle's 429, reports it to the account's security
/// log. In the background: looking up the address and writing the event takes time
/// for an account that exists and none for an address that names nobody, and the
/// answer must not tell them apart.
pub(crate) fn note_if_throttled(
    journal: &Journal,
    rejection: &Rejection,
    checked: Checked,
    client: Option<SocketAddr>,
) {
    // The per-address limit answers before any handler runs: a 429 here is the
    // account's throttle.
    let throttled = rejection
        .find::<ApiError>()
        .is_some_and(|e| e.status() == StatusCode::TOO_MANY_REQUESTS);
    if !throttled {
        return;
    }
    let journal = journal.clone();
    let client = client_info(client);
    tokio::spawn(
        async move {
            let result = match &checked {
                Checked::Login(Some(email)) => {
                    journal
                        .note_throttled_login(ThrottledCheck::Login { email }, &client)
                        .await
                }
                Checked::Login(None) => Ok(()),
                Checked::Password(user) => {
                    journal
                        .note_throttled_login(ThrottledCheck::Password { user }, &client)
                        .await
                }
            };
            if let Err(e) = result {
                tracing::warn!(error = %e, "could not record a throttled login");
            }
        }
        .in_current_span(),
    );
}
