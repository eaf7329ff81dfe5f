//! Mass assignment: fields a client must never set (`role`, `_id`, `author_id`,
//! `createdAt`, `updatedAt`, `password`, …) sent in profile and entry bodies.

use serde_json::{Value, json};

use crate::hostile::{can_log_in, own_entries, profile};
use crate::support::{Api, assert_error, on_every_database};

on_every_database!(
    a_profile_update_never_changes_role_id_or_password,
    an_entry_create_never_takes_id_author_or_dates_from_the_body,
    an_entry_update_never_changes_id_author_or_dates,
);

/// Every field a client should not be able to set, with hostile values.
fn forbidden_fields(victim_id: &str, victim_entry: &str) -> Value {
    json!({
        "role": "admin",
        "_id": victim_id,
        "id": victim_id,
        "userId": victim_id,
        "author_id": victim_id,
        "authorId": victim_id,
        "author_name": "victim",
        "createdAt": "2000-01-01T00:00:00.000Z",
        "updatedAt": "2000-01-01T00:00:00.000Z",
        "password": "a brand new passphrase",
        "passwordHash": "$argon2id$v=19$m=19456,t=2,p=1$AAAA$AAAA",
        "password_hash": "$argon2id$v=19$m=19456,t=2,p=1$AAAA$AAAA",
        "entryId": victim_entry,
        "__proto__": { "role": "admin" },
        "constructor": { "prototype": { "role": "admin" } },
    })
}

fn with(mut base: Value, extra: Value) -> Value {
    let (Some(base_map), Value::Object(extra)) = (base.as_object_mut(), extra) else {
        panic!("objects expected");
    };
    base_map.extend(extra);
    base
}

async fn a_profile_update_never_changes_role_id_or_password(db: &str) {
    let api = Api::start(db);
    let mallory = api.user("mallory").await;
    let victim = api.user("victim").await;
    let victim_entry = api.entry(&victim, "victim entry", false).await;
    let before = profile(&api, &mallory).await;
    let victim_before = profile(&api, &victim).await;

    // With only fields that may not be set, nothing is updated: 400.
    let only = forbidden_fields(&victim.id, victim_entry["_id"].as_str().unwrap());
    let response = api
        .put("/api/user/profile", Some(&mallory.token), only.clone())
        .await;
    assert_error(response, 400, "Bad Request").await;
    assert_eq!(profile(&api, &mallory).await, before);

    // Beside a real change, they are ignored.
    let body = with(only, json!({ "fullName": "Mallory Renamed" }));
    let response = api
        .put("/api/user/profile", Some(&mallory.token), body)
        .await;
    assert_eq!(response.status().as_u16(), 200);
    let after = profile(&api, &mallory).await;
    assert_eq!(after["fullName"], "Mallory Renamed");
    assert_eq!(after["role"], "user");
    assert_eq!(after["_id"], before["_id"]);
    assert_eq!(after["email"], before["email"]);
    for key in ["password", "passwordHash", "password_hash", "createdAt"] {
        assert!(after.get(key).is_none(), "profile shows {key}: {after}");
    }
    // The password did not change: the old one logs in, the smuggled one does not.
    assert!(can_log_in(&api, &mallory.email, &mallory.password).await);
    assert!(!can_log_in(&api, &mallory.email, "a brand new passphrase").await);
    // And the victim is untouched.
    assert_eq!(profile(&api, &victim).await, victim_before);
    assert!(can_log_in(&api, &victim.email, &victim.password).await);
}

async fn an_entry_create_never_takes_id_author_or_dates_from_the_body(db: &str) {
    let api = Api::start(db);
    let mallory = api.user("mallory").await;
    let victim = api.user("victim").await;
    let victim_entry = api.entry(&victim, "victim entry", false).await;
    let victim_entry_id = victim_entry["_id"].as_str().unwrap();

    // `_id` set to the victim's entry id must not overwrite or claim it.
    let mut body = forbidden_fields(&victim.id, victim_entry_id);
    body["_id"] = json!(victim_entry_id);
    let body = with(
        body,
        json!({ "title": "mallory's entry", "isPublic": true }),
    );
    let response = api
        .post("/api/journal-entries", Some(&mallory.token), body)
        .await;
    assert_eq!(response.status().as_u16(), 201);
    let created: Value = response.json().await.unwrap();
    assert_ne!(created["_id"], victim_entry_id);
    assert_eq!(created["author_id"], mallory.id.as_str());
    assert_eq!(created["author_name"], "mallory");
    assert!(
        !created["createdAt"].as_str().unwrap().starts_with("2000"),
        "{created}"
    );
    assert!(!created["updatedAt"].as_str().unwrap().starts_with("2000"));
    assert_eq!(created["title"], "mallory's entry");

    // The victim's entry is exactly as it was and still theirs alone.
    assert_eq!(own_entries(&api, &victim).await, [victim_entry]);
    assert_eq!(own_entries(&api, &mallory).await, [created]);
}

async fn an_entry_update_never_changes_id_author_or_dates(db: &str) {
    let api = Api::start(db);
    let mallory = api.user("mallory").await;
    let victim = api.user("victim").await;
    let victim_entry = api.entry(&victim, "victim entry", false).await;
    let victim_entry_id = victim_entry["_id"].as_str().unwrap();
    let entry = api.entry(&mallory, "mallory's entry", false).await;
    let path = format!("/api/journal-entries/{}", entry["_id"].as_str().unwrap());

    // Only fields that may not be set: nothing to update, 400, nothing changed.
    let only = forbidden_fields(&victim.id, victim_entry_id);
    let response = api.put(&path, Some(&mallory.token), only.clone()).await;
    assert_error(response, 400, "Bad Request").await;
    assert_eq!(
        own_entries(&api, &mallory).await,
        std::slice::from_ref(&entry)
    );

    let body = with(only, json!({ "title": "renamed" }));
    let response = api.put(&path, Some(&mallory.token), body).await;
    assert_eq!(response.status().as_u16(), 200);
    let updated: Value = response.json().await.unwrap();
    assert_eq!(updated["title"], "renamed");
    assert_eq!(updated["_id"], entry["_id"]);
    assert_eq!(updated["author_id"], entry["author_id"]);
    assert_eq!(updated["author_name"], entry["author_name"]);
    assert_eq!(updated["createdAt"], entry["createdAt"]);
    assert!(!updated["updatedAt"].as_str().unwrap().starts_with("2000"));
    assert_eq!(own_entries(&api, &mallory).await, [updated]);
    assert_eq!(own_entries(&api, &victim).await, [victim_entry]);
}
