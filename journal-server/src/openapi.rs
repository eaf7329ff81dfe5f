//! The OpenAPI 3.1 document of the API: the schemas of the request and response types
//! derived from the types ([`derived`]; the request fields' rules are stated in
//! `journal_core::api::schema`), the operations written by each route module of
//! `crate::api` next to its routes (its `document`), and here what is common to them
//! (parameters, headers, responses) and the operations of the lists (the drift test,
//! `tests/openapi_drift.rs`, holds the document and the routes together).

use std::sync::OnceLock;

use serde_json::{Value, json};

use rules::{date_bound, tag};

mod accounts;
pub(crate) mod caching;
mod derived;
mod rules;

/// The document served at `GET /api/openapi.json`.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = build();
        crate::api::users::document(&mut doc);
        crate::api::entries::document(&mut doc);
        crate::api::history::document(&mut doc);
        crate::api::attachments::document(&mut doc);
        crate::api::export::document(&mut doc);
        crate::api::search::document(&mut doc);
        crate::api::tags::document(&mut doc);
        crate::api::meta::document(&mut doc);
        derived::add(&mut doc);
        crate::api::history::add_schemas(&mut doc);
        crate::api::export::add_export_schemas(&mut doc);
        // After the trash's and the export's copies of `Entry`: theirs carry none.
        crate::api::attachments::add_entry_attachments(&mut doc);
        crate::api::sync::document(&mut doc);
        crate::api::conflicts::document(&mut doc);
        crate::api::tokens::document(&mut doc);
        crate::api::twofactor::document(&mut doc);
        crate::api::admin::document(&mut doc);
        accounts::add(&mut doc);
        crate::api::security_log::document(&mut doc);
        crate::api::public::document(&mut doc);
        crate::api::feeds::document(&mut doc);
        crate::api::sessions::document(&mut doc);
        caching::add(&mut doc);
        add_unavailable(&mut doc);
        add_links(&mut doc);
        doc
    })
}

/// Adds `paths` (path → path item) to the document's.
pub(crate) fn add_paths(doc: &mut Value, paths: Value) {
    if let (Some(all), Value::Object(paths)) = (doc["paths"].as_object_mut(), paths) {
        all.extend(paths);
    }
}

/// Adds `schemas` (name → schema) to the document's components.
pub(crate) fn add_schemas(doc: &mut Value, schemas: Value) {
    if let (Some(all), Value::Object(schemas)) =
        (doc["components"]["schemas"].as_object_mut(), schemas)
    {
        all.extend(schemas);
    }
}

/// Every operation that reaches the database answers 503 when it does not answer.
fn add_unavailable(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            if !matches!(method.as_str(), "get" | "put" | "post" | "delete")
                || operation["operationId"] == "openapi"
            {
                continue;
            }
            if let Some(responses) = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
            {
                responses
                    .entry("503")
                    .or_insert_with(|| error("ServiceUnavailable"));
            }
        }
    }
}

/// OpenAPI links from the responses that create things to the operations that use their
/// ids, so that clients (and stateful testers) can follow them.
fn add_links(doc: &mut Value) {
    let link = |operation: &str, expression: &str| json!({ "operationId": operation, "parameters": { "id": expression } });
    let entry = "$response.body#/_id";
    let links = [
        (
            "/api/user/register",
            "post",
            "201",
            json!({ "UserEntries": link("userEntries", "$response.body#/userId") }),
        ),
        (
            "/api/journal-entries",
            "post",
            "201",
            json!({
                "GetEntry": link("getEntry", entry),
                "UpdateEntry": link("updateEntry", entry),
                "DeleteEntry": link("deleteEntry", entry),
                "AuthorEntries": link("userEntries", "$response.body#/author_id")
            }),
        ),
    ];
    for (path, method, status, value) in links {
        if let Some(response) = doc
            .pointer_mut(&format!(
                "/paths/{}/{method}/responses/{status}",
                path.replace('/', "~1")
            ))
            .and_then(Value::as_object_mut)
        {
            response.insert("links".into(), value);
        }
    }
}

pub(crate) fn schema(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

pub(crate) fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

pub(crate) fn ok(description: &str, body: Value) -> Value {
    json!({ "description": description, "content": json_content(body) })
}

pub(crate) fn error(description: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{description}") })
}

/// When a list answers 400.
pub(crate) const TOO_DEEP: &str = "A bad page, limit or after, or a page reaching past entry 2,000 by \
    number (page × limit): follow the Link header's rel=\"next\" URL instead";

/// An error response with a description of its own: when this operation answers it.
pub(crate) fn error_when(when: &str) -> Value {
    json!({ "description": when, "content": json_content(schema("Error")) })
}

pub(crate) fn body(name: &str) -> Value {
    json!({ "required": true, "content": json_content(schema(name)) })
}

pub(crate) fn paged(description: &str) -> Value {
    json!({
        "description": description,
        "headers": {
            "X-Total-Count": { "$ref": "#/components/headers/X-Total-Count" },
            "X-Total-Count-Exact": { "$ref": "#/components/headers/X-Total-Count-Exact" },
            "Link": { "$ref": "#/components/headers/Link" }
        },
        "content": json_content(json!({ "type": "array", "items": schema("Entry") }))
    })
}

/// `page`, `limit` and the `after` cursor of the newest-first lists, and the filters.
pub(crate) fn list_params() -> Value {
    json!([
        { "$ref": "#/components/parameters/page" },
        { "$ref": "#/components/parameters/limit" },
        { "$ref": "#/components/parameters/after" },
        { "$ref": "#/components/parameters/from" },
        { "$ref": "#/components/parameters/to" },
        { "$ref": "#/components/parameters/tag" },
        { "$ref": "#/components/parameters/starred" },
        { "$ref": "#/components/parameters/day" },
        { "$ref": "#/components/parameters/tz" }
    ])
}

/// The filter parameters alone (search pages by number, without `after`).
pub(crate) fn filter_params() -> [Value; 6] {
    ["from", "to", "tag", "starred", "day", "tz"]
        .map(|name| json!({ "$ref": format!("#/components/parameters/{name}") }))
}

fn build() -> Value {
    let bearer = json!([{ "bearer": [] }]);
    let bound_schema = date_bound(
        "A day YYYY-MM-DD, a local time YYYY-MM-DDTHH:MM[:SS[.fff]] (both read in tz), or an \
         RFC 3339 instant with its offset; the year as written from 1900 to 9999. A from after \
         to is 400.",
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Journal",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A self-hosted journaling service: accounts and journal entries. \
                Every non-2xx response has the Error body. A known path with another method \
                is 405 with an Allow header; an unknown path is 404. Request bodies must be \
                JSON with Content-Type: application/json (415 otherwise) and at most \
                --max-body bytes (413)."
        },
        "paths": {
            "/api/user/{id}/journal-entries": { "get": {
                "operationId": "userEntries", "tags": ["entries"], "security": bearer,
                "summary": "A user's entries, newest date first: all of the caller's own, the visible public ones of others; filtered by date, tags, starred or day of the year",
                "parameters": [
                    { "name": "id", "in": "path", "required": true, "description": "The user's _id.",
                      "schema": { "type": "string", "format": "uuid" } },
                    { "$ref": "#/components/parameters/page" },
                    { "$ref": "#/components/parameters/limit" },
                    { "$ref": "#/components/parameters/after" },
                    { "$ref": "#/components/parameters/from" },
                    { "$ref": "#/components/parameters/to" },
                    { "$ref": "#/components/parameters/tag" },
                    { "$ref": "#/components/parameters/starred" },
                    { "$ref": "#/components/parameters/day" },
                    { "$ref": "#/components/parameters/tz" }
                ],
                "responses": {
                    "200": paged("One page of entries"),
                    "400": error_when(TOO_DEEP), "401": error("Unauthorized"),
                    "403": error("Forbidden"), "404": error("NotFound")
                }
            }},
            "/api/public/journal-entries": { "get": {
                "operationId": "publicEntries", "tags": ["entries"], "security": [],
                "summary": "Public entries of users whose profile is not private, newest date first; filtered by date, tags, starred or day of the year",
                "parameters": list_params(),
                "responses": { "200": paged("One page of entries"), "400": error_when(TOO_DEEP) }
            }}
        },
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                    "description": "The token from POST /api/user/login. A missing header, another scheme, or a bad, expired or revoked token is 401 with a message saying which."
                }
            },
            "parameters": {
                "page": { "name": "page", "in": "query", "required": false,
                    "description": "Page number, from 1 (default 1). By number a page may reach entry 2,000 (page × limit); deeper is 400, and the Link header's rel=\"next\" URL (with after=) reaches any depth.",
                    "schema": { "type": "integer", "minimum": 1, "maximum": 4_294_967_295_u64, "default": 1 } },
                "limit": { "name": "limit", "in": "query", "required": false,
                    "description": "Entries per page, 1 to 100 (default 10).",
                    "schema": { "type": "integer", "minimum": 1, "maximum": 100, "default": 10 } },
                "from": { "name": "from", "in": "query", "required": false,
                    "description": "Entries dated on or after this: a day YYYY-MM-DD (read in tz) or an ISO 8601 instant.",
                    "schema": bound_schema.clone() },
                "to": { "name": "to", "in": "query", "required": false,
                    "description": "Entries dated on or before this (inclusive): a day YYYY-MM-DD (read in tz) or an ISO 8601 instant.",
                    "schema": bound_schema },
                "tag": { "name": "tag", "in": "query", "required": false, "style": "form", "explode": true,
                    "description": "Repeatable: entries having every tag given (without regard to case).",
                    "schema": { "type": "array", "maxItems": 20, "items": tag() } },
                "starred": { "name": "starred", "in": "query", "required": false,
                    "description": "Only starred (true) or only unstarred (false) entries.",
                    "schema": { "type": "boolean" } },
                "day": { "name": "day", "in": "query", "required": false,
                    "description": "On this day: entries dated on this month and day (MM-DD, read in tz) in any year.",
                    "schema": { "type": "string", "pattern": "^[0-9]{2}-[0-9]{2}$" } },
                "tz": { "name": "tz", "in": "query", "required": false,
                    "description": "The time zone from, to and day are read in: an IANA name (Europe/Paris) or an offset ±HH:MM up to 14:00. Default UTC.",
                    "schema": { "type": "string", "minLength": 1 } },
                "after": { "name": "after", "in": "query", "required": false,
                    "description": "Continue right after this position (from a rel=\"next\" Link, `<milliseconds>_<entry id>`): deep pages then cost what the first does. `page` only numbers the page.",
                    "schema": { "type": "string", "pattern": "^[0-9]{1,14}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" } }
            },
            "headers": {
                "X-Total-Count": { "description": "Number of items across all pages (at least, when X-Total-Count-Exact is false).",
                    "schema": { "type": "integer", "minimum": 0 } },
                "X-Total-Count-Exact": { "description": "false when a filtered list was counted only up to 2,000 items and X-Total-Count is a lower bound.",
                    "schema": { "type": "string", "enum": ["true", "false"] } },
                "Link": { "description": "RFC 8288 links to the pages before and after this one, rel=\"prev\" and rel=\"next\", keeping limit, q and the filters; absent when there is neither.",
                    "schema": { "type": "string" } },
                "Retry-After": { "description": "Seconds until the client address may try again.",
                    "schema": { "type": "integer", "minimum": 1 } },
                "Allow": { "description": "The methods the path accepts.",
                    "schema": { "type": "string" } }
            },
            "responses": {
                "BadRequest": { "description": "Bad Request: invalid body, field, query or JSON", "content": json_content(schema("Error")) },
                "Unauthorized": { "description": "Unauthorized: missing, malformed, expired or revoked token, or wrong password", "content": json_content(schema("Error")) },
                "Forbidden": { "description": "Forbidden: visible but not the caller's, or a private profile", "content": json_content(schema("Error")) },
                "NotFound": { "description": "Not Found: unknown, or not visible to the caller", "content": json_content(schema("Error")) },
                "MethodNotAllowed": { "description": "Method Not Allowed",
                    "headers": { "Allow": { "$ref": "#/components/headers/Allow" } },
                    "content": json_content(schema("Error")) },
                "Conflict": { "description": "Conflict: the e-mail address is taken (any case)", "content": json_content(schema("Error")) },
                "PayloadTooLarge": { "description": "Payload Too Large: the body is over --max-body", "content": json_content(schema("Error")) },
                "UnsupportedMediaType": { "description": "Unsupported Media Type: the body is not declared as application/json", "content": json_content(schema("Error")) },
                "TooManyRequests": { "description": "Too Many Requests: over --auth-rate-limit attempts per --auth-rate-window from this address, or (login) over --login-failure-limit failed logins per --login-failure-window for this account",
                    "headers": { "Retry-After": { "$ref": "#/components/headers/Retry-After" } },
                    "content": json_content(schema("Error")) },
                "ServiceUnavailable": { "description": "Service Unavailable: the database does not answer", "content": json_content(schema("Error")) }
            },
            "schemas": {
                "Status": {
                    "type": "object", "required": ["status", "database", "version"],
                    "properties": {
                        "status": { "const": "ok" }, "database": { "const": "ok" },
                        "version": { "type": "string" }
                    }
                },
                "Profile": {
                    "type": "object", "additionalProperties": false,
                    "required": ["_id", "fullName", "nickname", "email", "profilePic", "role", "isPrivate"],
                    "properties": {
                        "_id": { "type": "string", "format": "uuid" },
                        "fullName": { "type": "string" },
                        "nickname": { "type": "string" },
                        "email": { "type": "string" },
                        "profilePic": { "type": "string", "description": "Empty, or a data:image/<type>;base64,<data> URI." },
                        "role": { "type": "string", "enum": ["user", "admin"] },
                        "isPrivate": { "type": "boolean", "description": "When true, the user's entries are hidden from everyone else." }
                    }
                },
                "ProfileResponse": {
                    "type": "object", "required": ["user"],
                    "properties": { "user": schema("Profile") }
                },
                "TagCount": {
                    "type": "object", "additionalProperties": false, "required": ["tag", "count"],
                    "properties": {
                        "tag": { "type": "string" },
                        "count": { "type": "integer", "minimum": 1 }
                    }
                }
            }
        }
    })
}
