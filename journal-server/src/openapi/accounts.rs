//! The OpenAPI description of the account routes of a public server (see
//! `crate::accounts`): personal access tokens, the second factor, invitations and user
//! management. Added to the document apart from the rest: one `json!` for the whole
//! document is deeper than the macro may go.

use serde_json::{Value, json};

use super::{body, error, error_when, json_content, ok, schema};

/// Adds the routes, their schemas, and the new fields of register and login.
pub(super) fn add(doc: &mut Value) {
    let bearer = json!([{ "bearer": [] }]);
    let login_only = "A personal access token cannot do this: log in with the password (403)";
    let paths = json!({
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
                    "200": ok("The tokens, oldest first", json!({ "type": "array", "items": schema("AccessToken") })),
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
        }},
        "/api/user/2fa/setup": { "post": {
            "operationId": "setupTotp", "tags": ["second factor"], "security": bearer,
            "summary": "Start setting up a TOTP second factor: a new secret, not active yet",
            "description": login_only,
            "responses": {
                "200": ok("The secret and its otpauth URL", schema("TotpSetup")),
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
        }},
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
                        json!({ "type": "array", "items": schema("InviteSummary") })),
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
                    "content": json_content(json!({ "type": "array", "items": schema("AdminUser") }))
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
    });
    let timestamp = json!({ "type": "string", "format": "date-time" });
    let schemas = json!({
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
    if let Some(all) = doc["paths"].as_object_mut() {
        all.extend(paths.as_object().cloned().unwrap_or_default());
    }
    if let Some(all) = doc["components"]["schemas"].as_object_mut() {
        all.extend(schemas.as_object().cloned().unwrap_or_default());
    }
    doc["paths"]["/api/user/register"]["post"]["responses"]["403"] = error_when(
        "Registration is closed, or needs an invitation that is missing, used, expired or withdrawn (whatever the e-mail)",
    );
    doc["paths"]["/api/user/profile"]["delete"]["responses"]["409"] =
        error_when("The caller is the last administrator who can sign in");
    doc["paths"]["/api/user/login"]["post"]["responses"]["403"] =
        error_when("The password was right but the account is disabled");
    doc["paths"]["/api/user/login"]["post"]["responses"]["401"]["description"] = json!(
        "Unknown e-mail or wrong password, answered alike (whatever the code); or a second-factor code is missing or wrong"
    );
}
