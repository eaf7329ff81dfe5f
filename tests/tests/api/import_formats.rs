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
    the_export_with_history_imports_back_as_it_was,
    a_history_that_does_not_hold_together_is_a_clear_error_and_stores_nothing,
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

/// The export of `who`, as the web app's "Download JSON" gets it.
async fn export(api: &Api, who: &User, query: &str) -> Value {
    let response = api
        .get(&format!("/api/user/export{query}"), Some(&who.token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"journal-"),
    );
    body(response).await
}

/// An export, its own time and the account's id aside.
fn comparable(mut doc: Value) -> Value {
    doc.as_object_mut().unwrap().remove("exportedAt");
    for list in ["entries", "trash"] {
        for e in doc[list].as_array_mut().unwrap() {
            e.as_object_mut().unwrap().remove("author_id");
        }
    }
    doc
}

async fn the_export_with_history_imports_back_as_it_was(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let kept = api.entry(&ada, "kept", true).await;
    let path = format!("/api/journal-entries/{}", kept["_id"].as_str().unwrap());
    for i in 1..=3 {
        let saved = api
            .put(
                &path,
                Some(&ada.token),
                json!({ "content": format!("version {i}") }),
            )
            .await;
        assert_eq!(saved.status(), StatusCode::OK);
    }
    let gone = api.entry(&ada, "gone", false).await;
    let deleted = api
        .delete(
            &format!("/api/journal-entries/{}", gone["_id"].as_str().unwrap()),
            Some(&ada.token),
        )
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    let exported = export(&api, &ada, "").await;
    assert_eq!(exported["version"], 3);
    let revisions = exported["entries"][0]["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 4);
    assert_eq!(revisions[0]["content"], "content of kept");
    assert_eq!(exported["trash"][0]["title"], "gone");
    let plain = export(&api, &ada, "?history=false").await;
    assert!(plain.get("trash").is_none() && plain["entries"][0].get("revisions").is_none());
    assert_error(
        api.get("/api/user/export?history=maybe", Some(&ada.token))
            .await,
        400,
        "Bad Request",
    )
    .await;
    let bytes = exported.to_string().into_bytes();

    // Into another account of the same server: the ids are ada's, so the entry and its
    // revisions get new ones, and the history reads the same under them.
    let bea = api.user("bea").await;
    let reply = body(
        send(
            &api,
            &bea,
            "?format=json",
            "application/json",
            bytes.clone(),
        )
        .await,
    )
    .await;
    assert_eq!(
        (reply["imported"].clone(), reply["trashed"].clone()),
        (json!(1), json!(1)),
        "{reply}"
    );
    let beas = export(&api, &bea, "").await;
    let theirs = beas["entries"][0]["revisions"].as_array().unwrap();
    assert_eq!(beas["entries"][0]["revisionId"], theirs[3]["revisionId"]);
    assert_eq!(reply["entries"][0]["revisionId"], theirs[3]["revisionId"]);
    for (k, (a, b)) in revisions.iter().zip(theirs).enumerate() {
        assert_ne!(a["revisionId"], b["revisionId"]);
        assert_eq!(
            (&a["content"], &a["editedAt"]),
            (&b["content"], &b["editedAt"])
        );
        if k > 0 {
            assert_eq!(b["parentId"], theirs[k - 1]["revisionId"]);
        }
    }

    // Into an empty journal (ada's account deleted, and with it every id of hers): the
    // same entries, revisions and trash.
    let left = api.delete("/api/user/profile", Some(&ada.token)).await;
    assert_eq!(left.status(), StatusCode::OK);
    // Ada again, under the nickname imported entries take (never the file's).
    let cy = api.user("ada").await;
    let reply = body(send(&api, &cy, "?format=json", "application/json", bytes).await).await;
    assert_eq!(
        (reply["imported"].clone(), reply["trashed"].clone()),
        (json!(1), json!(1)),
        "{reply}"
    );
    assert_eq!(
        comparable(export(&api, &cy, "").await),
        comparable(exported)
    );
}

async fn a_history_that_does_not_hold_together_is_a_clear_error_and_stores_nothing(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let revision = |n: i64, id: &str, content: &str| {
        json!({ "revisionId": id, "revision": n, "title": "T", "content": content,
                "editedAt": "2024-01-01T00:00:00.000Z" })
    };
    let first = "01900000-0000-7000-8000-000000000001";
    let second = "01900000-0000-7000-8000-000000000002";
    for (revisions, says) in [
        (
            json!([revision(1, first, "a"), { "revisionId": second, "revision": 2, "title": "T" }]),
            "revision 2: editedAt: is required",
        ),
        (
            json!([revision(2, first, "a"), revision(1, second, "c")]),
            "revision 2: revision: must be more than",
        ),
        (
            json!([revision(1, first, "a"), revision(2, first, "c")]),
            "revision 2: revisionId: is given twice in this entry's history",
        ),
        (
            json!([revision(1, "not-a-uuid", "c")]),
            "revision 1: revisionId: must be a UUID",
        ),
        (
            json!([{ "revisionId": first, "revision": 1, "content": "c", "editedAt": "2024-01-01T00:00:00Z" }]),
            "revision 1: title",
        ),
    ] {
        let batch = json!({ "entries": [
            { "title": "fine", "createdAt": "2024-01-01T00:00:00.000Z" },
            { "title": "T", "content": "c", "createdAt": "2024-01-01T00:00:00.000Z", "revisions": revisions }
        ]});
        let message = assert_error(
            api.post("/api/journal-entries/import", Some(&ada.token), batch)
                .await,
            400,
            "Bad Request",
        )
        .await;
        assert!(
            message.contains("entry 2: ") && message.contains(says),
            "{says}: {message}"
        );
    }
    assert_eq!(total(&api, &ada).await, "0");
}
