//! Regressions found by schemathesis (`scripts/schemathesis`): the server and its OpenAPI
//! document agree.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, SqliteDb, assert_error, body, header};

fn api() -> (SqliteDb, Api) {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    (db, api)
}

#[tokio::test]
async fn another_method_on_the_import_path_is_405_not_an_unknown_entry() {
    let (_db, api) = api();
    let user = api.user("importer").await;
    for method in [
        reqwest::Method::GET,
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
    ] {
        let response = api
            .send(
                method.clone(),
                "/api/journal-entries/import",
                Some(&user.token),
                Some(json!({ "title": "x" })),
            )
            .await;
        assert_eq!(header(&response, "allow"), "POST", "{method}");
        assert_error(response, 405, "Method Not Allowed").await;
    }
}

#[tokio::test]
async fn a_null_optional_field_is_the_same_as_leaving_it_out() {
    let (_db, api) = api();
    let user = api.user("nulls").await;
    let response = api
        .post(
            "/api/journal-entries",
            Some(&user.token),
            json!({ "title": "t", "content": null, "isPublic": null }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let entry = body(response).await;
    assert_eq!(entry["content"], "");
    assert_eq!(entry["isPublic"], false);
    // Only nulls: nothing to update, as the document's anyOf says.
    let path = format!("/api/journal-entries/{}", entry["_id"].as_str().unwrap());
    let response = api
        .put(&path, Some(&user.token), json!({ "title": null }))
        .await;
    assert_error(response, 400, "Bad Request").await;
}

#[tokio::test]
async fn a_page_beyond_u32_is_400_and_the_document_says_so() {
    let (_db, api) = api();
    let response = api
        .get("/api/public/journal-entries?page=4294967296", None)
        .await;
    assert_error(response, 400, "Bad Request").await;
    let doc = body(api.get("/api/openapi.json", None).await).await;
    assert_eq!(
        doc["components"]["parameters"]["page"]["schema"]["maximum"],
        4_294_967_295_u64
    );
}

#[tokio::test]
async fn every_operation_on_the_database_documents_503() {
    let (_db, api) = api();
    let doc: Value = body(api.get("/api/openapi.json", None).await).await;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            if !["get", "put", "post", "delete"].contains(&method.as_str())
                || path == "/api/openapi.json"
            {
                continue;
            }
            assert!(
                operation["responses"].get("503").is_some(),
                "{method} {path} does not document 503"
            );
        }
    }
}

#[tokio::test]
async fn names_and_titles_are_documented_as_trimmed_text() {
    // The document's pattern for a name is the server's rule: 1 to 100 characters after
    // trimming. A blank name matches neither.
    let (_db, api) = api();
    let doc: Value = body(api.get("/api/openapi.json", None).await).await;
    let pattern =
        doc["components"]["schemas"]["RegisterRequest"]["properties"]["fullName"]["pattern"]
            .as_str()
            .expect("fullName has a pattern")
            .to_owned();
    assert!(
        pattern.starts_with('^') && pattern.contains("{0,98}"),
        "{pattern}"
    );
    let response = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": " \u{3000} ", "nickname": "n", "email": "blank@example.com",
                    "password": "a long enough passphrase" }),
        )
        .await;
    assert_error(response, 400, "Bad Request").await;
}
