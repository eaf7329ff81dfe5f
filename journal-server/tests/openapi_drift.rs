//! The OpenAPI document against the router and the wire types: every path the router
//! serves is documented with exactly the methods it serves, every documented operation
//! is served, and the bodies the server sends and takes have the properties their
//! schemas name, no more and no fewer.

use std::collections::BTreeSet;

use clap::Parser as _;
use journal_core::Journal;
use journal_core::api::{
    AdminUpdateUserRequest, ChangePasswordRequest, CreateAccessTokenRequest, CreateEntryRequest,
    CreateInviteRequest, DeleteAccountRequest, DisableTotpRequest, EnableTotpRequest,
    ImportEntriesRequest, ImportEntryRequest, ImportRevisionRequest, LoginRequest, RegisterRequest,
    UpdateEntryRequest, UpdateProfileRequest,
};
use journal_server::{AppState, Config};
use serde::Serialize;
use serde_json::{Value, json};
use warp::http::StatusCode;

const METHODS: [&str; 7] = ["get", "put", "post", "delete", "patch", "head", "options"];

async fn state(dir: &tempfile::TempDir) -> AppState {
    let url = format!("sqlite:{}", dir.path().join("journal.db").display());
    let config = Config::try_parse_from(["journal-server", "--database", &url]).unwrap();
    let options = journal_server::journal_options(&config).unwrap();
    let journal = Journal::open(&url, options).await.unwrap();
    AppState::new(journal, &config)
}

fn doc() -> &'static Value {
    journal_server::openapi::document()
}

/// `(path, method)` of every documented operation.
fn documented() -> BTreeSet<(String, String)> {
    let paths = doc()["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            METHODS
                .iter()
                .filter(|m| item.get(**m).is_some())
                .map(move |m| (path.clone(), m.to_string()))
        })
        .collect()
}

/// A concrete path for a template: every `{param}` an id.
fn concrete(template: &str) -> String {
    template.replace("{id}", "0190c0de-0000-7000-8000-000000000001")
}

#[tokio::test]
async fn every_served_path_and_method_is_documented_and_every_documented_one_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let state = state(&dir).await;
    let served: BTreeSet<(String, String)> = journal_server::api::served(&state)
        .iter()
        .flat_map(|served| {
            served
                .allow
                .split(", ")
                .map(|m| (served.path.to_owned(), m.to_ascii_lowercase()))
        })
        .collect();
    let documented = documented();
    let undocumented: Vec<_> = served.difference(&documented).collect();
    let unserved: Vec<_> = documented.difference(&served).collect();
    assert!(
        undocumented.is_empty() && unserved.is_empty(),
        "served but not documented: {undocumented:?}; documented but not served: {unserved:?}"
    );
}

#[tokio::test]
async fn each_served_path_answers_its_own_methods_and_405_with_its_allow_to_others() {
    let dir = tempfile::tempdir().unwrap();
    let state = state(&dir).await;
    let api = journal_server::api(&state);
    for served in journal_server::api::served(&state) {
        let path = concrete(served.path);
        // The path as written reaches the filter that names these methods.
        let other = warp::test::request()
            .method("PATCH")
            .path(&path)
            .reply(&api)
            .await;
        assert_eq!(
            other.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "PATCH {path}"
        );
        assert_eq!(
            other.headers()["allow"],
            served.allow,
            "Allow of {} is not what its module says it serves",
            served.path
        );
        for method in served.allow.split(", ") {
            let answer = warp::test::request()
                .method(method)
                .path(&path)
                .reply(&api)
                .await;
            // An unknown attachment, and an unknown public profile or entry, are 404 to
            // anyone who may not read them, anonymous included: their route is reached
            // when the answer names what was not found rather than the path.
            let named = answer.status() == StatusCode::NOT_FOUND
                && ["attachment", "user", "entry"].iter().any(|kind| {
                    String::from_utf8_lossy(answer.body()).contains(&format!("{kind} not found"))
                });
            assert!(
                named
                    || ![StatusCode::NOT_FOUND, StatusCode::METHOD_NOT_ALLOWED]
                        .contains(&answer.status()),
                "{method} {path}: {}",
                answer.status()
            );
        }
    }
}

/// The schema `name` of the document's components.
fn schema(name: &str) -> &'static Value {
    doc()
        .pointer(&format!("/components/schemas/{name}"))
        .unwrap_or_else(|| panic!("no schema {name}"))
}

/// The schema `value` stands for, following a `$ref` and taking the non-null branch of
/// an `anyOf`/`oneOf` with `null`.
fn resolve(value: &'static Value) -> &'static Value {
    if let Some(reference) = value.get("$ref").and_then(Value::as_str) {
        return resolve(
            doc()
                .pointer(reference.trim_start_matches('#'))
                .unwrap_or_else(|| panic!("dangling {reference}")),
        );
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = value.get(key).and_then(Value::as_array) {
            let not_null: Vec<_> = branches
                .iter()
                .filter(|b| b.get("type") != Some(&json!("null")))
                .collect();
            if let [one] = not_null[..] {
                return resolve(one);
            }
        }
    }
    value
}

/// Whether `value` has a JSON type the schema allows (when the schema names types).
fn type_fits(schema: &Value, value: &Value) -> bool {
    let names: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    names.iter().any(|name| match *name {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    })
}

/// Checks that `value` has exactly the properties of `schema` (every one of them, or
/// with `all_required` false, every required one and no unknown one), recursively.
fn assert_fits(at: &str, schema: &'static Value, value: &Value, all_required: bool) {
    let schema = resolve(schema);
    assert!(
        type_fits(schema, value),
        "{at}: {value} is not of the type of {schema}"
    );
    match value {
        Value::Object(fields) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return; // a map (additionalProperties) or a free object
            };
            for (key, field) in fields {
                let Some(property) = properties.get(key) else {
                    panic!("{at}: the body has {key}, which the schema does not name");
                };
                assert_fits(&format!("{at}.{key}"), property, field, all_required);
            }
            let required: Vec<&str> = if all_required {
                properties.keys().map(String::as_str).collect()
            } else {
                schema["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect()
            };
            for key in required {
                assert!(
                    fields.contains_key(key),
                    "{at}: the schema names {key}, which the body lacks"
                );
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (i, value) in items.iter().enumerate() {
                    assert_fits(&format!("{at}[{i}]"), item, value, all_required);
                }
            }
        }
        _ => {}
    }
}

/// A request type with every field set: its JSON has every property of its schema.
fn assert_request<T: Serialize>(name: &str, value: T) {
    let value = serde_json::to_value(value).unwrap();
    assert_fits(name, schema(name), &value, true);
}

#[test]
fn every_field_of_the_request_types_is_in_their_schemas_and_back() {
    let s = || Some("x".to_owned());
    assert_request(
        "RegisterRequest",
        RegisterRequest {
            full_name: s(),
            nickname: s(),
            email: s(),
            password: s(),
            invite_code: s(),
        },
    );
    assert_request(
        "LoginRequest",
        LoginRequest {
            email: s(),
            password: s(),
            totp: s(),
        },
    );
    assert_request(
        "UpdateProfileRequest",
        UpdateProfileRequest {
            full_name: s(),
            nickname: s(),
            email: s(),
            profile_pic: s(),
            is_private: Some(true),
            password: s(),
            totp: s(),
        },
    );
    assert_request(
        "ChangePasswordRequest",
        ChangePasswordRequest {
            password: s(),
            new_password: s(),
            totp: s(),
            keep_access_tokens: Some(true),
        },
    );
    assert_request(
        "DeleteAccountRequest",
        DeleteAccountRequest {
            password: s(),
            totp: s(),
        },
    );
    assert_request(
        "CreateAccessTokenRequest",
        CreateAccessTokenRequest {
            name: s(),
            expires_in_days: Some(1),
            password: s(),
            totp: s(),
        },
    );
    assert_request(
        "EnableTotpRequest",
        EnableTotpRequest {
            code: s(),
            password: s(),
        },
    );
    assert_request(
        "DisableTotpRequest",
        DisableTotpRequest {
            password: s(),
            code: s(),
        },
    );
    assert_request(
        "CreateInviteRequest",
        CreateInviteRequest {
            expires_in_days: Some(1),
        },
    );
    assert_request(
        "AdminUpdateUserRequest",
        AdminUpdateUserRequest {
            disabled: Some(true),
        },
    );
    let tags = || Some(vec!["x".to_owned()]);
    assert_request(
        "CreateEntryRequest",
        CreateEntryRequest {
            title: s(),
            content: s(),
            is_public: Some(true),
            tags: tags(),
            starred: Some(true),
            date: s(),
        },
    );
    assert_request(
        "UpdateEntryRequest",
        UpdateEntryRequest {
            title: s(),
            content: s(),
            is_public: Some(true),
            tags: tags(),
            starred: Some(true),
            date: s(),
        },
    );
    assert_request(
        "ImportEntriesRequest",
        ImportEntriesRequest {
            entries: vec![ImportEntryRequest {
                id: s(),
                title: s(),
                content: s(),
                is_public: Some(true),
                created_at: s(),
                updated_at: s(),
                tags: tags(),
                starred: Some(true),
                date: s(),
                revisions: Some(vec![ImportRevisionRequest {
                    revision_id: s(),
                    parent_id: s(),
                    revision: Some(1),
                    title: s(),
                    content: s(),
                    is_public: Some(true),
                    tags: tags(),
                    starred: Some(true),
                    date: s(),
                    edited_at: s(),
                    edited_via: s(),
                }]),
                deleted_at: s(),
            }],
        },
    );
}

/// One request through the whole API; the status and the JSON body.
async fn call(
    api: &(
         impl warp::Filter<Extract = (impl warp::Reply,), Error = warp::Rejection>
         + Clone
         + Send
         + Sync
         + 'static
     ),
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = warp::test::request().method(method).path(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.reply(api).await;
    let body = serde_json::from_slice(response.body()).unwrap_or(Value::Null);
    (response.status(), body)
}

/// The schema of the `status` answer of `method path` in the document.
fn response_schema(path: &str, method: &str, status: &str) -> &'static Value {
    let pointer = format!(
        "/paths/{}/{method}/responses/{status}",
        path.replace('/', "~1")
    );
    let response = resolve(
        doc()
            .pointer(&pointer)
            .unwrap_or_else(|| panic!("no {pointer}")),
    );
    &response["content"]["application/json"]["schema"]
}

#[tokio::test]
async fn the_bodies_the_server_sends_have_the_properties_of_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let state = state(&dir).await;
    let api = journal_server::api(&state);
    let check = async |method: &str, template: &str, path: &str, token, body, status: u16| {
        let (got, body) = call(&api, method, path, token, body).await;
        assert_eq!(got.as_u16(), status, "{method} {path}: {body}");
        let schema = response_schema(template, &method.to_ascii_lowercase(), &status.to_string());
        assert_fits(&format!("{method} {template}"), schema, &body, false);
        body
    };
    let register = json!({ "fullName": "Ada Drift", "nickname": "ada",
        "email": "ada@example.com", "password": "ada checks the document" });
    let user = check(
        "POST",
        "/api/user/register",
        "/api/user/register",
        None,
        Some(register),
        201,
    )
    .await;
    let login = json!({ "email": "ada@example.com", "password": "ada checks the document" });
    let token = check(
        "POST",
        "/api/user/login",
        "/api/user/login",
        None,
        Some(login),
        200,
    )
    .await;
    let token = token["token"].as_str().unwrap().to_owned();
    let t = Some(token.as_str());
    check(
        "GET",
        "/api/user/profile",
        "/api/user/profile",
        t,
        None,
        200,
    )
    .await;
    let entry = json!({ "title": "Drift", "content": "c", "tags": ["doc"], "isPublic": true });
    let entry = check(
        "POST",
        "/api/journal-entries",
        "/api/journal-entries",
        t,
        Some(entry),
        201,
    )
    .await;
    let id = entry["_id"].as_str().unwrap().to_owned();
    let one = format!("/api/journal-entries/{id}");
    check("GET", "/api/journal-entries/{id}", &one, t, None, 200).await;
    let update = json!({ "starred": true });
    check(
        "PUT",
        "/api/journal-entries/{id}",
        &one,
        t,
        Some(update),
        200,
    )
    .await;
    let import = json!({ "entries": [{ "title": "Old", "createdAt": "2001-02-03T04:05:06Z" }] });
    check(
        "POST",
        "/api/journal-entries/import",
        "/api/journal-entries/import",
        t,
        Some(import),
        201,
    )
    .await;
    let mine = format!(
        "/api/user/{}/journal-entries",
        user["userId"].as_str().unwrap()
    );
    check("GET", "/api/user/{id}/journal-entries", &mine, t, None, 200).await;
    check(
        "GET",
        "/api/public/journal-entries",
        "/api/public/journal-entries",
        None,
        None,
        200,
    )
    .await;
    let search = "/api/search/journal-entries?q=drift";
    check("GET", "/api/search/journal-entries", search, t, None, 200).await;
    check("GET", "/api/user/tags", "/api/user/tags", t, None, 200).await;
    let new_token = json!({ "name": "drift", "expiresInDays": 3 });
    check(
        "POST",
        "/api/user/tokens",
        "/api/user/tokens",
        t,
        Some(new_token),
        201,
    )
    .await;
    check("GET", "/api/user/tokens", "/api/user/tokens", t, None, 200).await;
    check(
        "POST",
        "/api/user/2fa/setup",
        "/api/user/2fa/setup",
        t,
        None,
        200,
    )
    .await;
    let events = "/api/user/security-events";
    check("GET", events, events, t, None, 200).await;
    check("GET", "/api/status", "/api/status", None, None, 200).await;
    check("DELETE", "/api/journal-entries/{id}", &one, t, None, 200).await;
    // The error body, on an answer every route can give.
    check("GET", "/api/user/tags", "/api/user/tags", None, None, 401).await;
}
