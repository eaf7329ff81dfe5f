//! The OpenAPI description of the security log (see `crate::security_log`).

use serde_json::{Value, json};

use super::{error, error_when, json_content, schema};

/// Adds `GET /api/user/security-events` and the `SecurityEvent` schema.
pub(super) fn add(doc: &mut Value) {
    doc["paths"]["/api/user/security-events"] = json!({ "get": {
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
                "content": json_content(json!({ "type": "array", "items": schema("SecurityEvent") }))
            },
            "400": error_when("A bad page or limit"),
            "401": error("Unauthorized"),
            "403": error_when("A personal access token: log in with the password")
        }
    }});
    let timestamp = json!({ "type": "string", "format": "date-time" });
    doc["components"]["schemas"]["SecurityEvent"] = json!({
        "type": "object", "additionalProperties": false,
        "required": ["kind", "at", "firstAt", "count", "address", "secondFactor", "detail"],
        "properties": {
            "kind": { "type": "string", "enum": [
                "login", "throttled", "second_factor_enabled", "second_factor_disabled",
                "access_token_created", "access_token_revoked", "password_changed", "email_changed"
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
