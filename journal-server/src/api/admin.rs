//! Administrators: invitations (`/api/admin/invites`), user management
//! (`/api/admin/users`) and the caches' counts (`/api/admin/stats`). Every rule is in
//! the core; these only carry requests to it and answers back.

use journal_core::api::{AdminUpdateUserRequest, CreateInviteRequest};
use journal_core::{Caller, Journal, PageRequest};
use serde_json::Value;
use warp::http::StatusCode;
use warp::http::header::{HeaderName, HeaderValue, LINK};
use warp::reply::Response;
use warp::{Filter, Rejection};

use super::{Route, Served, json, message};
use crate::AppState;
use crate::error::reject;
use crate::filters::{authenticated, json_body, not_allowed, paging, with_journal};
use crate::openapi::{add_paths, add_schemas, body, error, error_when, json_content, ok, schema};

/// The paths of this module.
pub fn routes(state: &AppState) -> Vec<Served> {
    vec![
        Served::new("/api/admin/invites", "GET, POST", invites(state)),
        Served::new("/api/admin/invites/{id}", "DELETE", invite(state)),
        Served::new("/api/admin/users", "GET", users(state)),
        Served::new("/api/admin/users/{id}", "PUT, DELETE", user(state)),
        Served::new("/api/admin/users/{id}/2fa", "DELETE", user_totp(state)),
        Served::new("/api/admin/stats", "GET", stats(state)),
    ]
}

/// This module's operations in the OpenAPI document, next to [`routes`] so that a
/// path and its entry change together (the drift test holds the two to each other).
pub(crate) fn document(doc: &mut Value) {
    let bearer = serde_json::json!([{ "bearer": [] }]);
    add_paths(
        doc,
        serde_json::json!({
        "/api/admin/invites": {
            "post": {
                "operationId": "createInvite", "tags": ["admin"], "security": bearer,
                "summary": "Make an invitation code that registers one account (administrators)",
                "description": "It works until it expires, is used or revoked, or its maker stops being a working administrator (demoted, disabled or deleted).",
                "requestBody": body("CreateInviteRequest"),
                "responses": {
                    "201": ok("The code, shown once, and the id to revoke it by", schema("Invite")),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                    "400": error("BadRequest"), "401": error("Unauthorized"),
                    "403": error_when("Not an administrator")
                }
            },
            "get": {
                "operationId": "adminInvites", "tags": ["admin"], "security": bearer,
                "summary": "The invitations that still work, oldest first, at most 1,000 (administrators)",
                "responses": {
                    "200": ok("The invitations, without their codes",
                        serde_json::json!({ "type": "array", "items": schema("InviteSummary") })),
                    "401": error("Unauthorized"),
                    "403": error_when("Not an administrator")
                }
            }
        },
        "/api/admin/invites/{id}": { "delete": {
            "operationId": "adminRevokeInvite", "tags": ["admin"], "security": bearer,
            "summary": "Revoke an unused invitation (administrators)",
            "parameters": [{ "name": "id", "in": "path", "required": true,
                "description": "The invitation's id (from the list or from making it), or its code.",
                "schema": { "type": "string" } }],
            "responses": {
                "200": ok("Revoked", schema("Message")),
                "401": error("Unauthorized"),
                "403": error_when("Not an administrator"),
                "404": error_when("No unused invitation with this id or code")
            }
        }},
        "/api/admin/users": { "get": {
            "operationId": "adminUsers", "tags": ["admin"], "security": bearer,
            "summary": "Every account, oldest first, with its state and entry count (administrators)",
            "parameters": [
                { "$ref": "#/components/parameters/page" },
                { "$ref": "#/components/parameters/limit" }
            ],
            "responses": {
                "200": {
                    "description": "One page of accounts",
                    "headers": {
                        "X-Total-Count": { "$ref": "#/components/headers/X-Total-Count" },
                        "Link": { "$ref": "#/components/headers/Link" }
                    },
                    "content": json_content(serde_json::json!({ "type": "array", "items": schema("AdminUser") }))
                },
                "400": error("BadRequest"), "401": error("Unauthorized"),
                "403": error_when("Not an administrator")
            }
        }},
        "/api/admin/stats": { "get": {
            "operationId": "adminStats", "tags": ["admin"], "security": bearer,
            "summary": "How often each cache answered from memory since the server started (administrators)",
            "responses": {
                "200": ok("The caches by name", schema("Stats")),
                "401": error("Unauthorized"),
                "403": error_when("Not an administrator")
            }
        }},
        "/api/admin/users/{id}/2fa": { "delete": {
            "operationId": "adminResetTotp", "tags": ["admin"], "security": bearer,
            "summary": "Turn off a user's second factor and end their login sessions (administrators; not their own)",
            "parameters": [{ "name": "id", "in": "path", "required": true,
                "description": "The user's _id.", "schema": { "type": "string" } }],
            "responses": {
                "200": ok("Done", schema("Message")),
                "400": error("BadRequest"), "401": error("Unauthorized"),
                "403": error_when("Not an administrator, or their own account"),
                "404": error("NotFound")
            }
        }},
        "/api/admin/users/{id}": {
            "put": {
                "operationId": "adminUpdateUser", "tags": ["admin"], "security": bearer,
                "summary": "Disable or re-enable an account (administrators; not their own)",
                "parameters": [{ "name": "id", "in": "path", "required": true,
                    "description": "The user's _id.", "schema": { "type": "string" } }],
                "requestBody": body("AdminUpdateUserRequest"),
                "responses": {
                    "200": ok("Done", schema("Message")),
                    "413": error("PayloadTooLarge"), "415": error("UnsupportedMediaType"),
                    "400": error("BadRequest"), "401": error("Unauthorized"),
                    "403": error_when("Not an administrator, or their own account"),
                    "404": error("NotFound"),
                    "409": error_when("It would leave no administrator who can sign in")
                }
            },
            "delete": {
                "operationId": "adminDeleteUser", "tags": ["admin"], "security": bearer,
                "summary": "Delete an account and its entries (administrators; not their own)",
                "parameters": [{ "name": "id", "in": "path", "required": true,
                    "description": "The user's _id.", "schema": { "type": "string" } }],
                "responses": {
                    "200": ok("Deleted", schema("Message")),
                    "401": error("Unauthorized"),
                    "403": error_when("Not an administrator, or their own account"),
                    "404": error("NotFound"),
                    "409": error_when("It would leave no administrator who can sign in")
                }
            }
        }
        }),
    );
    let timestamp = serde_json::json!({ "type": "string", "format": "date-time" });
    let schemas = serde_json::json!({
        "Stats": {
            "type": "object", "additionalProperties": false, "required": ["caches"],
            "properties": { "caches": {
                "type": "object",
                "description": "By cache: authStates and users (SQLite), feedPages, authorPages, renderedBodies; on PostgreSQL also sharedTokenChecks, sharedSnapshots, sharedLinkPages and sharedSearches (hits: requests answered by a statement sent for another request too; misses: statements sent).",
                "additionalProperties": {
                    "type": "object", "additionalProperties": false, "required": ["hits", "misses"],
                    "properties": {
                        "hits": { "type": "integer", "minimum": 0 },
                        "misses": { "type": "integer", "minimum": 0 }
                    }
                }
            } }
        },
        "AdminUser": {
            "type": "object", "additionalProperties": false,
            "required": ["_id", "fullName", "nickname", "email", "profilePic", "role", "isPrivate",
                         "disabled", "createdAt", "entryCount"],
            "properties": {
                "_id": { "type": "string", "format": "uuid" },
                "fullName": { "type": "string" }, "nickname": { "type": "string" },
                "email": { "type": "string" }, "profilePic": { "type": "string" },
                "role": { "type": "string", "enum": ["user", "admin"] },
                "isPrivate": { "type": "boolean" }, "disabled": { "type": "boolean" },
                "createdAt": timestamp, "entryCount": { "type": "integer", "minimum": 0 }
            }
        }
    });
    add_schemas(doc, schemas);
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
