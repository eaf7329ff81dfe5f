//! Import: entries with their original dates, all or nothing.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, assert_error, body, on_every_database};

on_every_database!(
    importing_entries_keeps_their_dates_and_makes_the_caller_the_author,
    an_import_with_one_invalid_entry_stores_nothing,
    importing_without_a_token_is_401_and_other_methods_are_405,
    imported_dates_outside_1900_to_tomorrow_are_400,
    an_entry_from_before_1970_is_reached_by_the_link_cursor_the_server_writes,
    importing_the_json_export_again_skips_every_entry,
    another_users_ids_are_neither_overwritten_nor_taken,
    an_import_longer_than_the_idle_timeout_is_answered,
    an_import_past_its_deadline_leaves_nothing_and_stops,
    a_file_cannot_publish_entries_under_another_name,
);

/// The caller's entries as the web app's "Download JSON" writes them: the list API's
/// entries, every field.
async fn export(api: &Api, who: &crate::support::User) -> Vec<serde_json::Value> {
    let listed = body(
        api.get(
            &format!("/api/user/{}/journal-entries?limit=100", who.id),
            Some(&who.token),
        )
        .await,
    )
    .await;
    listed.as_array().unwrap().clone()
}

/// Issue 35: Settings → Download JSON, then Import the same file: it said "Imported 20
/// entries" and the journal doubled. Now every entry is found by its id and skipped.
async fn importing_the_json_export_again_skips_every_entry(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for i in 0..20 {
        let response = api
            .post(
                "/api/journal-entries",
                Some(&ada.token),
                json!({ "title": format!("day {i}"), "content": "same words", "isPublic": i % 2 == 0 }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let exported = export(&api, &ada).await;
    assert_eq!(exported.len(), 20);
    let response = api
        .post(
            "/api/journal-entries/import",
            Some(&ada.token),
            json!({ "entries": exported }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let reply = body(response).await;
    assert_eq!(reply["imported"], 0, "{reply}");
    assert_eq!(reply["skipped"], 20, "{reply}");
    assert_eq!(reply["entries"], json!([]));
    assert_eq!(export(&api, &ada).await, exported, "nothing changed");
    let feed = api.get("/api/public/journal-entries", None).await;
    assert_eq!(
        feed.headers()["x-total-count"],
        "10",
        "no public duplicates"
    );

    // Into an empty account on the same server the entries come back whole; a
    // second import of the same file there adds nothing either.
    let bea = api.user("bea").await;
    let mut previous = None;
    for _ in 0..2 {
        let reply = body(
            api.post(
                "/api/journal-entries/import",
                Some(&bea.token),
                json!({ "entries": exported }),
            )
            .await,
        )
        .await;
        previous.get_or_insert(reply["imported"].clone());
        assert_eq!(export(&api, &bea).await.len(), 20, "{reply}");
    }
    assert_eq!(previous, Some(json!(20)));
}

/// A stolen list of ids (public entries show theirs) cannot overwrite, hide or read
/// another user's entries through an import: the importer's entries get new ids, and
/// the owner's are untouched.
async fn another_users_ids_are_neither_overwritten_nor_taken(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let mallory = api.user("mallory").await;
    let created = body(
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Ada's", "content": "hers", "isPublic": true }),
        )
        .await,
    )
    .await;
    let id = created["_id"].as_str().unwrap().to_owned();
    let reply = body(
        api.post(
            "/api/journal-entries/import",
            Some(&mallory.token),
            json!({ "entries": [{ "_id": id, "title": "Mallory's", "content": "overwritten?",
                                  "createdAt": "2020-01-01T00:00:00Z" }] }),
        )
        .await,
    )
    .await;
    assert_eq!(reply["imported"], 1, "{reply}");
    assert_eq!(reply["skipped"], 0, "{reply}");
    let new_id = reply["entries"][0]["_id"].as_str().unwrap();
    assert_ne!(new_id, id);
    assert_eq!(reply["entries"][0]["title"], "Mallory's");
    assert!(!reply.to_string().contains("hers"), "{reply}");
    let hers = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(hers["title"], "Ada's");
    assert_eq!(hers["content"], "hers");
    assert_eq!(hers["author_id"], ada.id.as_str());
}

async fn importing_entries_keeps_their_dates_and_makes_the_caller_the_author(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .post(
            "/api/journal-entries/import",
            Some(&ada.token),
            json!({ "entries": [
                { "title": "Old day", "content": "long ago", "createdAt": "2019-03-04T05:06:07.089Z" },
                { "title": "Edited", "isPublic": true, "createdAt": "2020-01-01T00:00:00Z",
                  "updatedAt": "2021-02-03T04:05:06.007+01:00",
                  "author_id": "someone-else", "author_name": "mallory", "_id": "x" }
            ]}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let entries = body(response).await["entries"].clone();
    assert_eq!(entries[0]["createdAt"], "2019-03-04T05:06:07.089Z");
    assert_eq!(entries[0]["updatedAt"], "2019-03-04T05:06:07.089Z");
    assert_eq!(entries[1]["createdAt"], "2020-01-01T00:00:00.000Z");
    assert_eq!(entries[1]["updatedAt"], "2021-02-03T03:05:06.007Z");
    assert_eq!(entries[1]["isPublic"], true);
    for e in entries.as_array().unwrap() {
        assert_eq!(e["author_id"], ada.id.as_str());
        assert_eq!(e["author_name"], "ada");
    }
    let listed = body(
        api.get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    // Newest first by the original dates.
    assert_eq!(listed[0]["title"], "Edited");
    assert_eq!(listed[1]["title"], "Old day");
}

async fn an_import_with_one_invalid_entry_stores_nothing(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for bad in [
        json!({ "entries": [{ "title": "fine", "createdAt": "2020-01-01T00:00:00Z" },
                            { "title": "no date" }] }),
        json!({ "entries": [{ "title": "fine", "createdAt": "2020-01-01T00:00:00Z" },
                            { "title": "bad date", "createdAt": "yesterday" }] }),
        json!({ "entries": [{ "title": "", "createdAt": "2020-01-01T00:00:00Z" }] }),
        json!({ "entries": [] }),
    ] {
        let response = api
            .post("/api/journal-entries/import", Some(&ada.token), bad)
            .await;
        assert_error(response, 400, "Bad Request").await;
    }
    let listed = api
        .get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await;
    assert_eq!(listed.headers()["x-total-count"], "0");
}

async fn importing_without_a_token_is_401_and_other_methods_are_405(db: &str) {
    let api = Api::start(db);
    let response = api
        .post(
            "/api/journal-entries/import",
            None,
            json!({ "entries": [{ "title": "x", "createdAt": "2020-01-01T00:00:00Z" }] }),
        )
        .await;
    assert_error(response, 401, "Unauthorized").await;
    // Other methods on the import path are 405, never taken for an entry id.
    let ada = api.user("ada").await;
    let response = api
        .get("/api/journal-entries/import", Some(&ada.token))
        .await;
    assert_eq!(response.headers()["allow"], "POST");
    assert_error(response, 405, "Method Not Allowed").await;
}

async fn imported_dates_outside_1900_to_tomorrow_are_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for date in [
        "9999-12-31T00:00:00Z",
        "1899-12-31T23:59:59Z",
        "+10000-01-01T00:00:00Z",
        "9999-12-31T23:59:59-12:00",
    ] {
        let response = api
            .post(
                "/api/journal-entries/import",
                Some(&ada.token),
                json!({ "entries": [{ "title": "when?", "createdAt": date }] }),
            )
            .await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(message.contains("createdAt"), "{date}: {message}");
    }
    let feed = body(api.get("/api/public/journal-entries", None).await).await;
    assert_eq!(feed.as_array().map(Vec::len), Some(0), "nothing was stored");
}

async fn an_entry_from_before_1970_is_reached_by_the_link_cursor_the_server_writes(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .post(
            "/api/journal-entries/import",
            Some(&ada.token),
            json!({ "entries": [
                { "title": "moon landing", "createdAt": "1969-07-20T20:17:40Z" },
                { "title": "war ends", "createdAt": "1945-05-08T12:00:00Z" },
                { "title": "last century", "createdAt": "1900-01-01T00:00:00Z" }
            ]}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let mut path = format!("/api/user/{}/journal-entries?limit=1", ada.id);
    let mut titles = Vec::new();
    loop {
        let response = api.get(&path, Some(&ada.token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let link = crate::support::header(&response, "link");
        let page = body(response).await;
        titles.push(page[0]["title"].as_str().unwrap().to_owned());
        let Some(next) = link
            .split(',')
            .find(|l| l.contains("rel=\"next\""))
            .and_then(|l| l.split('<').nth(1))
            .and_then(|l| l.split('>').next())
        else {
            break;
        };
        path = next.trim_start_matches(&api.server.base_url).to_owned();
    }
    assert_eq!(titles, ["moon landing", "war ends", "last century"]);
}

/// The server working on a request is not an idle connection: an import that takes
/// longer than `--idle-timeout` gets its answer (it was cut off, though stored, when
/// the idle clock ran during the work).
async fn an_import_longer_than_the_idle_timeout_is_answered(db: &str) {
    let api = Api::start_with(db, &["--idle-timeout", "1s"]);
    let ada = api.user("ada").await;
    let response = import_file(&api, &ada, &one_minute(8_000, 40)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(body(response).await["imported"], 8_000);
}

/// An import the server gives up on at `--import-timeout` (503) stops there and leaves
/// nothing: it used to go on holding SQLite's one writer for as long as it took, and
/// then store every entry of an import its client had been told failed.
async fn an_import_past_its_deadline_leaves_nothing_and_stops(db: &str) {
    let api = Api::start_with(db, &["--import-timeout", "2s"]);
    let ada = api.user("ada").await;
    let response = import_file(&api, &ada, &one_minute(60_000, 10)).await;
    assert_error(response, 503, "Service Unavailable").await;
    // Written after the import's job: when it is stored, the import has stopped or
    // finished.
    api.entry(&ada, "after", false).await;
    let listed = api
        .get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await;
    assert_eq!(listed.status(), StatusCode::OK);
    assert_eq!(crate::support::header(&listed, "x-total-count"), "1");
}

/// An export file names each entry's author (`author_name`); imported, the entry is
/// the caller's and shows under the caller's nickname, in the feed too: a file could
/// otherwise publish entries under anyone's name.
async fn a_file_cannot_publish_entries_under_another_name(db: &str) {
    let api = Api::start(db);
    let mallory = api.user("mallory").await;
    let file = json!({"format": "journal-export", "entries": [
        {"title": "Announcement", "content": "from the admins", "isPublic": true,
         "author_name": "admin", "createdAt": "2024-01-02T09:30:00.000Z"}]});
    let response = import_file(&api, &mallory, &file.to_string()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    let nickname = answer["entries"][0]["author_name"].clone();
    assert_ne!(nickname, "admin", "{answer}");
    let feed = body(api.get("/api/public/journal-entries", None).await).await;
    let shown: Vec<_> = feed
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["title"] == "Announcement")
        .map(|e| e["author_name"].clone())
        .collect();
    assert_eq!(shown, [nickname]);
}

/// `n` entries without ids, all dated in one minute, each of `words` words: our JSON.
fn one_minute(n: usize, words: usize) -> String {
    let entries: Vec<_> = (0..n)
        .map(|i| {
            json!({"title": format!("Day {i}"), "content": "words ".repeat(words),
                   "createdAt": "2024-01-02T09:30:00.000Z"})
        })
        .collect();
    json!({ "entries": entries }).to_string()
}

/// Sends `text` to the import route as a file, its format told by its bytes.
async fn import_file(api: &Api, who: &crate::support::User, text: &str) -> reqwest::Response {
    api.http
        .post(api.url("/api/journal-entries/import?format=json"))
        .bearer_auth(&who.token)
        .header("content-type", "application/octet-stream")
        .body(text.to_owned())
        .send()
        .await
        .expect("an answer, not a closed connection")
}
