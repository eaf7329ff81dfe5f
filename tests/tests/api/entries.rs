//! Entries: create, read, update, delete; ownership and visibility between two users.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, assert_error, body, header, keys, on_every_database};

on_every_database!(
    creating_an_entry_returns_201_with_the_entry_and_its_location,
    creating_an_entry_without_a_title_or_with_a_wrong_type_is_400,
    creating_an_entry_without_a_token_is_401,
    the_author_reads_their_own_entry,
    an_unknown_or_malformed_entry_id_is_404,
    reading_an_entry_without_a_token_is_401,
    another_users_private_entry_is_404_to_read_update_and_delete,
    another_users_public_entry_is_visible_but_403_to_update_and_delete,
    a_public_entry_of_a_private_profile_is_404_to_others,
    updating_an_entry_changes_only_the_fields_sent,
    updating_an_entry_with_no_known_field_or_a_wrong_type_is_400,
    updating_or_deleting_an_entry_without_a_token_is_401,
    deleting_an_entry_answers_a_message_and_the_entry_is_gone,
    an_over_limit_title_or_content_is_400_saying_how_long_it_is,
);

fn path_of(entry: &Value) -> String {
    format!(
        "/api/journal-entries/{}",
        entry["_id"].as_str().expect("_id")
    )
}

async fn creating_an_entry_returns_201_with_the_entry_and_its_location(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "First", "content": "Hello", "isPublic": true }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let location = header(&response, "location");
    let entry = body(response).await;
    assert_eq!(
        keys(&entry),
        [
            "_id",
            "attachments",
            "author_id",
            "author_name",
            "content",
            "createdAt",
            "date",
            "isPublic",
            "revision",
            "revisionId",
            "starred",
            "tags",
            "title",
            "updatedAt"
        ]
    );
    assert_eq!(location, path_of(&entry));
    assert_eq!(entry["title"], "First");
    assert_eq!(entry["content"], "Hello");
    assert_eq!(entry["isPublic"], true);
    assert_eq!(entry["author_id"], ada.id.as_str());
    assert_eq!(entry["author_name"], "ada");
    assert_eq!(entry["createdAt"], entry["updatedAt"]);
    assert!(entry["createdAt"].as_str().unwrap().ends_with('Z'));
}

async fn creating_an_entry_without_a_title_or_with_a_wrong_type_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let no_title = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "content": "x" }),
        )
        .await;
    let message = assert_error(no_title, 400, "Bad Request").await;
    assert!(message.contains("title"), "{message}");
    let wrong_type = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "x", "isPublic": "yes" }),
        )
        .await;
    assert_error(wrong_type, 400, "Bad Request").await;
    let not_an_object = api
        .post("/api/journal-entries", Some(&ada.token), json!(["title"]))
        .await;
    assert_error(not_an_object, 400, "Bad Request").await;
}

async fn creating_an_entry_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let response = api
        .post("/api/journal-entries", None, json!({ "title": "x" }))
        .await;
    assert_error(response, 401, "Unauthorized").await;
}

async fn the_author_reads_their_own_entry(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "private thoughts", false).await;
    let response = api.get(&path_of(&entry), Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, entry);
}

async fn an_unknown_or_malformed_entry_id_is_404(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for id in ["0198a1b2-0000-7000-8000-000000000000", "not-an-id", "42"] {
        let path = format!("/api/journal-entries/{id}");
        assert_error(api.get(&path, Some(&ada.token)).await, 404, "Not Found").await;
        assert_error(
            api.put(&path, Some(&ada.token), json!({ "title": "x" }))
                .await,
            404,
            "Not Found",
        )
        .await;
        assert_error(api.delete(&path, Some(&ada.token)).await, 404, "Not Found").await;
    }
}

async fn reading_an_entry_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "public", true).await;
    assert_error(api.get(&path_of(&entry), None).await, 401, "Unauthorized").await;
}

async fn another_users_private_entry_is_404_to_read_update_and_delete(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "ada's secret", false).await;
    let path = path_of(&entry);
    assert_error(api.get(&path, Some(&bob.token)).await, 404, "Not Found").await;
    assert_error(
        api.put(&path, Some(&bob.token), json!({ "title": "mine now" }))
            .await,
        404,
        "Not Found",
    )
    .await;
    assert_error(api.delete(&path, Some(&bob.token)).await, 404, "Not Found").await;
    // Untouched.
    let response = api.get(&path, Some(&ada.token)).await;
    assert_eq!(body(response).await, entry);
}

async fn another_users_public_entry_is_visible_but_403_to_update_and_delete(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "ada's open letter", true).await;
    let path = path_of(&entry);
    let response = api.get(&path, Some(&bob.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, entry);
    assert_error(
        api.put(&path, Some(&bob.token), json!({ "title": "mine now" }))
            .await,
        403,
        "Forbidden",
    )
    .await;
    assert_error(api.delete(&path, Some(&bob.token)).await, 403, "Forbidden").await;
    let response = api.get(&path, Some(&ada.token)).await;
    assert_eq!(body(response).await, entry);
}

async fn a_public_entry_of_a_private_profile_is_404_to_others(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "public but hidden", true).await;
    let response = api
        .put(
            "/api/user/profile/",
            Some(&ada.token),
            json!({ "isPrivate": true }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let path = path_of(&entry);
    assert_error(api.get(&path, Some(&bob.token)).await, 404, "Not Found").await;
    assert_eq!(
        api.get(&path, Some(&ada.token)).await.status(),
        StatusCode::OK
    );
}

async fn updating_an_entry_changes_only_the_fields_sent(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "draft", false).await;
    let response = api
        .put(
            &path_of(&entry),
            Some(&ada.token),
            json!({ "isPublic": true, "author_id": "00000000-0000-0000-0000-000000000000" }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let updated = body(response).await;
    assert_eq!(keys(&updated), keys(&entry));
    assert_eq!(updated["isPublic"], true);
    for unchanged in [
        "_id",
        "title",
        "content",
        "author_id",
        "author_name",
        "createdAt",
    ] {
        assert_eq!(updated[unchanged], entry[unchanged], "{unchanged}");
    }
    assert!(updated["updatedAt"].as_str() >= entry["updatedAt"].as_str());
    let read = body(api.get(&path_of(&entry), Some(&ada.token)).await).await;
    assert_eq!(read, updated);
}

async fn updating_an_entry_with_no_known_field_or_a_wrong_type_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "draft", false).await;
    let path = path_of(&entry);
    for bad in [
        json!({}),
        json!({ "colour": "red" }),
        json!({ "isPublic": "yes" }),
        json!({ "title": "" }),
    ] {
        let response = api.put(&path, Some(&ada.token), bad.clone()).await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(!message.is_empty(), "{bad}");
    }
}

async fn updating_or_deleting_an_entry_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "draft", true).await;
    let path = path_of(&entry);
    assert_error(
        api.put(&path, None, json!({ "title": "x" })).await,
        401,
        "Unauthorized",
    )
    .await;
    assert_error(api.delete(&path, None).await, 401, "Unauthorized").await;
}

async fn deleting_an_entry_answers_a_message_and_the_entry_is_gone(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "to delete", false).await;
    let path = path_of(&entry);
    let response = api.delete(&path, Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(keys(&body(response).await), ["message"]);
    assert_error(api.get(&path, Some(&ada.token)).await, 404, "Not Found").await;
    assert_error(api.delete(&path, Some(&ada.token)).await, 404, "Not Found").await;
}

/// Issue 35: the over-limit message says how long the text is, so the writer knows how
/// much to cut, on create, update and import alike.
async fn an_over_limit_title_or_content_is_400_saying_how_long_it_is(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let long_content = "é".repeat(100_412);
    let long_title = "t".repeat(205);

    let message = assert_error(
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Long", "content": long_content }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    assert!(
        message.contains("content: must be at most 100000 characters (this is 100412)"),
        "{message}"
    );
    let message = assert_error(
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": long_title, "content": "" }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    assert!(
        message.contains("title: must be at most 200 characters (this is 205)"),
        "{message}"
    );

    let entry = api.entry(&ada, "Short", false).await;
    let message = assert_error(
        api.put(
            &path_of(&entry),
            Some(&ada.token),
            json!({ "content": long_content }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    assert!(message.contains("(this is 100412)"), "{message}");

    let message = assert_error(
        api.post(
            "/api/journal-entries/import",
            Some(&ada.token),
            json!({ "entries": [{ "title": "Old", "content": long_content,
                                  "createdAt": "2020-01-02T03:04:05.000Z" }] }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    assert!(message.contains("(this is 100412)"), "{message}");
    // Nothing was stored on the way.
    let mine = format!("/api/user/{}/journal-entries", ada.id);
    let list = body(api.get(&mine, Some(&ada.token)).await).await;
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["content"], "content of Short", "{list}");
}
