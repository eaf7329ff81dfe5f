//! The OpenAPI document states the server's rules for `from`, `to` and tags exactly:
//! every value made from the documented pattern is accepted, and what the server
//! refuses (schemathesis's `from=0000-00-00`, a `§` or `©` in a tag) the pattern
//! refuses too. And a batch of more than 1,000 entries is the documented 400, or 413
//! once its body is over `--max-body`.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, SqliteDb, assert_error, body};

fn api() -> (SqliteDb, Api) {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    (db, api)
}

async fn document(api: &Api) -> Value {
    body(api.get("/api/openapi.json", None).await).await
}

fn pattern(doc: &Value, pointer: &str) -> String {
    doc.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no pattern at {pointer}"))
        .to_owned()
}

/// `count` strings made from `pattern`, the same on every run.
fn made_from(pattern: &str, count: usize) -> Vec<String> {
    // The document anchors its patterns; the generator wants the language alone.
    let inner = pattern.trim_start_matches('^').trim_end_matches('$');
    let strategy = proptest::string::string_regex(inner).expect("a pattern proptest reads");
    let mut runner = TestRunner::deterministic();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

fn query(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        out.push_str(&format!("%{byte:02X}"));
    }
    out
}

async fn feed_status(api: &Api, params: &str) -> StatusCode {
    api.get(&format!("/api/public/journal-entries?{params}"), None)
        .await
        .status()
}

#[tokio::test]
async fn from_and_to_accept_what_the_document_allows_and_nothing_it_does_not() {
    let (_db, api) = api();
    let doc = document(&api).await;
    let from = pattern(&doc, "/components/parameters/from/schema/pattern");
    assert_eq!(
        from,
        pattern(&doc, "/components/parameters/to/schema/pattern")
    );
    let documented = regex::Regex::new(&from).expect("a pattern Rust reads");

    for value in made_from(&from, 150) {
        assert!(documented.is_match(&value), "{value:?}");
        for name in ["from", "to"] {
            let status = feed_status(&api, &format!("{name}={}", query(&value))).await;
            assert_eq!(status, StatusCode::OK, "{name}={value:?}");
        }
    }
    // In any zone: the year is the one written.
    for tz in ["%2B14:00", "-14:00", "Asia/Tokyo"] {
        for value in ["1900-01-01", "9999-12-31", "1900-01-01T00:00"] {
            let status = feed_status(&api, &format!("from={value}&tz={tz}")).await;
            assert_eq!(status, StatusCode::OK, "{value} in {tz}");
        }
    }
    for value in [
        "0000-00-00",
        "1899-12-31",
        "2023-02-29",
        "1900-02-29",
        "2024-04-31",
        "2024-13-01",
        "2024-01-01x",
        "2024-01-01T10:00Z",
        "2024-01-01T24:00",
        "10000-01-01",
        "yesterday",
    ] {
        assert!(!documented.is_match(value), "{value:?} is documented");
        let response = api
            .get(
                &format!("/api/public/journal-entries?from={}", query(value)),
                None,
            )
            .await;
        assert_error(response, 400, "Bad Request").await;
    }
}

#[tokio::test]
async fn tags_accept_what_the_document_allows_and_nothing_it_does_not() {
    let (_db, api) = api();
    let doc = document(&api).await;
    let tag = pattern(&doc, "/components/parameters/tag/schema/items/pattern");
    assert_eq!(
        tag,
        pattern(
            &doc,
            "/components/schemas/CreateEntryRequest/properties/tags/anyOf/0/items/pattern"
        )
    );
    let documented = regex::Regex::new(&tag).expect("a pattern Rust reads");

    for value in made_from(&tag, 150) {
        // Within the documented 1 to 50 characters.
        let value: String = value.chars().take(50).collect();
        let status = feed_status(&api, &format!("tag={}", query(&value))).await;
        assert_eq!(status, StatusCode::OK, "tag={value:?}");
    }
    for value in ["é", "Été", "日本", "𝐀", "b-2_x", "Ω", "½"] {
        assert!(documented.is_match(value), "{value:?} is not documented");
        assert_eq!(
            feed_status(&api, &format!("tag={}", query(value))).await,
            StatusCode::OK,
            "{value}"
        );
    }
    for value in [
        "a§", "©", "°", "a×b", "a+b", "😀", "İ", "a b", "a#b", "\u{301}",
    ] {
        assert!(!documented.is_match(value), "{value:?} is documented");
        let response = api
            .get(
                &format!("/api/public/journal-entries?tag={}", query(value)),
                None,
            )
            .await;
        assert_error(response, 400, "Bad Request").await;
    }
}

#[tokio::test]
async fn more_than_a_thousand_entries_is_the_documented_400_within_the_import_body_limit() {
    let (_db, api) = api();
    let user = api.user("importer").await;
    let doc = document(&api).await;
    let operation = &doc["paths"]["/api/journal-entries/import"]["post"];
    let max_items =
        &doc["components"]["schemas"]["ImportEntriesRequest"]["properties"]["entries"]["maxItems"];
    assert_eq!(max_items, 1000);
    assert!(
        operation["responses"]["400"]["description"]
            .as_str()
            .unwrap()
            .contains("1000"),
        "{}",
        operation["responses"]["400"]
    );

    let entries = |n: usize, content: &str| -> Value {
        let one = json!({ "title": "t", "content": content, "createdAt": "2024-01-01T00:00:00Z" });
        json!({ "entries": vec![one; n] })
    };
    let small = api
        .post(
            "/api/journal-entries/import",
            Some(&user.token),
            entries(1001, ""),
        )
        .await;
    let message = assert_error(small, 400, "Bad Request").await;
    assert!(message.contains("1000"), "{message}");
    // Over --max-body (1 MiB) but within the import route's own --import-max-body
    // (128 MiB): read, and refused for its count (import_formats.rs holds the 413).
    let large = api
        .post(
            "/api/journal-entries/import",
            Some(&user.token),
            entries(1001, &"x".repeat(1100)),
        )
        .await;
    let message = assert_error(large, 400, "Bad Request").await;
    assert!(message.contains("1000"), "{message}");
}
