//! Issue 35: the import route reads every format the exports write, by Content-Type or
//! `?format=`, under its own limits; a file imported twice adds nothing the second time.

use std::io::Write;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, on_every_database};

on_every_database!(
    markdown_jrnl_text_and_day_one_files_import_and_import_again_as_skipped,
    the_json_export_file_imports_as_it_is_with_format_json,
    a_file_the_import_cannot_read_is_a_clear_error_and_stores_nothing,
    the_import_route_has_its_own_body_limit,
    inline_tags_of_a_file_that_lists_none_are_read_by_the_one_rule,
);

async fn send(
    api: &Api,
    who: &User,
    query: &str,
    content_type: &str,
    bytes: Vec<u8>,
) -> reqwest::Response {
    reqwest::Client::new()
        .post(api.url(&format!("/api/journal-entries/import{query}")))
        .bearer_auth(&who.token)
        .header("content-type", content_type)
        .body(bytes)
        .send()
        .await
        .expect("request reaches the server")
}

async fn total(api: &Api, who: &User) -> String {
    let listed = api
        .get(
            &format!("/api/user/{}/journal-entries", who.id),
            Some(&who.token),
        )
        .await;
    listed.headers()["x-total-count"]
        .to_str()
        .unwrap()
        .to_owned()
}

fn day_one_zip() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("Journal.json", options).unwrap();
    zip.write_all(
        json!({ "entries": [
            { "creationDate": "2023-07-01T08:00:00Z", "text": "Beach day\n\nSun.", "starred": true },
            { "creationDate": "2023-07-02T08:00:00Z", "text": "Second" }
        ]})
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    zip.finish().unwrap().into_inner()
}

async fn markdown_jrnl_text_and_day_one_files_import_and_import_again_as_skipped(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let markdown = "---\ntitle: \"First\"\ndate: \"2024-01-02T03:04:05.678Z\"\ntags: [\"a\"]\nstarred: true\npublic: true\n---\n\n\\---\nnot front matter\n\n---\ntitle: \"東京の朝\"\ndate: \"2024-01-01T00:00:00.000Z\"\ntags: []\nstarred: false\npublic: false\n---\n\n今日は静かな朝でした。\n";
    let jrnl = "[2021-06-05 09:30] Walked to the lake. *\nCold water.\n@lake\n\n[2021-06-06 18:05] Rainy day.\nStayed in.\n";
    for (content_type, query, bytes, count) in [
        (
            "text/markdown; charset=utf-8",
            "",
            markdown.as_bytes().to_vec(),
            2,
        ),
        (
            "text/plain",
            "?tz=Europe/Paris",
            jrnl.as_bytes().to_vec(),
            2,
        ),
        ("application/zip", "", day_one_zip(), 2),
        (
            "application/octet-stream",
            "?format=dayone",
            day_one_zip(),
            2,
        ),
    ] {
        let response = send(&api, &ada, query, content_type, bytes.clone()).await;
        assert_eq!(response.status(), StatusCode::CREATED, "{content_type}");
        let reply = body(response).await;
        let expected = if query == "?format=dayone" {
            (0, 2)
        } else {
            (count, 0)
        };
        assert_eq!(
            (
                reply["imported"].as_u64().unwrap(),
                reply["skipped"].as_u64().unwrap()
            ),
            expected,
            "{content_type}: {reply}"
        );
        let again = body(send(&api, &ada, query, content_type, bytes).await).await;
        assert_eq!(again["imported"], 0, "{content_type}: {again}");
        assert_eq!(again["skipped"], count, "{content_type}: {again}");
    }
    // Without a telling type, the format is told by the first bytes.
    for bytes in [markdown.as_bytes().to_vec(), day_one_zip()] {
        let reply = body(send(&api, &ada, "", "application/octet-stream", bytes).await).await;
        assert_eq!(
            (reply["imported"].clone(), reply["skipped"].clone()),
            (json!(0), json!(2)),
            "{reply}"
        );
    }
    assert_eq!(total(&api, &ada).await, "6");
    let listed = body(
        api.get(
            &format!("/api/user/{}/journal-entries?limit=100", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    let first = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "First")
        .unwrap();
    assert_eq!(first["content"], "---\nnot front matter");
    assert_eq!(first["date"], "2024-01-02T03:04:05.678Z");
    assert_eq!(first["isPublic"], true);
    assert_eq!(first["starred"], true);
    let lake = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Walked to the lake.")
        .unwrap();
    // 09:30 in Paris in June is 07:30 UTC; the star and the tag line are read.
    assert_eq!(lake["date"], "2021-06-05T07:30:00.000Z");
    assert_eq!(lake["tags"], json!(["lake"]));
    assert_eq!(lake["starred"], true);
    assert_eq!(lake["content"], "Cold water.");
}

/// The web app's "Download JSON" (a list of entries) and the CLI's export (an object
/// with `format` and `entries`) are sent as they are with `?format=json`.
async fn the_json_export_file_imports_as_it_is_with_format_json(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for i in 0..3 {
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": format!("entry {i}"), "content": "text" }),
        )
        .await;
    }
    let exported: Value = body(
        api.get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    let bytes = exported.to_string().into_bytes();
    let reply = body(
        send(
            &api,
            &ada,
            "?format=json",
            "application/json",
            bytes.clone(),
        )
        .await,
    )
    .await;
    assert_eq!(
        (reply["imported"].clone(), reply["skipped"].clone()),
        (json!(0), json!(3))
    );
    let bea = api.user("bea").await;
    let reply = body(send(&api, &bea, "?format=json", "application/json", bytes).await).await;
    assert_eq!(reply["imported"], 3, "{reply}");
    assert_eq!(total(&api, &bea).await, "3");
}

async fn a_file_the_import_cannot_read_is_a_clear_error_and_stores_nothing(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    // Billion laughs in front matter: refused before it is loaded.
    let mut bomb =
        String::from("---\ntitle: t\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    bomb.push_str("---\nbody\n");
    for (content_type, query, bytes, status, needle) in [
        ("text/markdown", "", bomb.into_bytes(), 400, "aliases"),
        ("application/zip", "", b"not a zip".to_vec(), 400, "zip"),
        ("text/markdown", "", vec![0xff, 0xfe, 0x00], 400, "UTF-8"),
        ("text/plain", "", b"no entries here".to_vec(), 400, "jrnl"),
        (
            "text/plain",
            "?tz=Mars/Olympus",
            b"[2021-01-01 00:00] x".to_vec(),
            400,
            "time zone",
        ),
        ("image/png", "", b"x".to_vec(), 415, "Content-Type"),
        ("text/plain", "?format=docx", b"x".to_vec(), 400, "docx"),
        // A JSON body is read as JSON: not as a note whose text is the JSON (found by
        // schemathesis: a batch with invalid fields imported as one Markdown note).
        (
            "application/json",
            "?format=markdown",
            br#"{"entries":[{"title":"t","starred":[1]}]}"#.to_vec(),
            400,
            "not JSON",
        ),
        (
            "application/json; charset=utf-8",
            "?format=jrnl",
            b"[2021-01-01 00:00] x".to_vec(),
            400,
            "not JSON",
        ),
        (
            "application/json",
            "",
            b"[1,2]".to_vec(),
            400,
            "format=json",
        ),
    ] {
        let response = send(&api, &ada, query, content_type, bytes).await;
        let reason = if status == 400 {
            "Bad Request"
        } else {
            "Unsupported Media Type"
        };
        let message = assert_error(response, status, reason).await;
        assert!(message.contains(needle), "{content_type}{query}: {message}");
    }
    assert_eq!(total(&api, &ada).await, "0");
}

async fn the_import_route_has_its_own_body_limit(db: &str) {
    let api = Api::start_with(db, &["--max-body", "1KiB", "--import-max-body", "64KiB"]);
    let ada = api.user("ada").await;
    // Larger than --max-body, within --import-max-body: imported.
    let text = format!("[2021-01-01 00:00] Long\n{}\n", "words ".repeat(1000));
    let response = send(&api, &ada, "", "text/plain", text.into_bytes()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    // Over --import-max-body: 413, nothing read.
    let huge = format!("[2021-01-01 00:00] Huge\n{}\n", "words ".repeat(20_000));
    let response = send(&api, &ada, "", "text/plain", huge.into_bytes()).await;
    assert_error(response, 413, "Payload Too Large").await;
    // The other routes keep --max-body.
    let response = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "x", "content": "words ".repeat(300) }),
        )
        .await;
    assert_error(response, 413, "Payload Too Large").await;
}

/// A Markdown file without a `tags` list gets the tags its text shows, by the rule the
/// CLI and the web editor follow (tests/fixtures/inline_tags.json): after any
/// punctuation, CJK included, and never from a link target.
async fn inline_tags_of_a_file_that_lists_none_are_read_by_the_one_rule(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let markdown = "---\ntitle: \"東京の朝\"\ndate: \"2024-01-01T00:00:00.000Z\"\n---\n\n今日は静かな朝でした。#東京 and @lake, see [notes](#notes)\n";
    let response = send(
        &api,
        &ada,
        "",
        "text/markdown",
        markdown.as_bytes().to_vec(),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let reply = body(response).await;
    assert_eq!(
        reply["entries"][0]["tags"],
        json!(["lake", "東京"]),
        "{reply}"
    );
}
