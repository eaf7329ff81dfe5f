//! Broken object-level authorisation: a second user goes after the first user's entries
//! by id, by guessing ids, through lists and through search.

use serde_json::{Value, json};

use crate::hostile::{own_entries, profile};
use crate::support::{Api, assert_error, ids, on_every_database};

on_every_database!(
    another_user_can_neither_read_nor_change_nor_delete_a_private_entry,
    another_user_can_read_but_not_change_a_public_entry,
    guessed_and_malformed_entry_ids_are_404,
    lists_and_search_show_another_user_nothing_private,
    a_private_profile_hides_everything_from_another_user,
);

/// Alice with one private and one public entry, and Bob.
async fn alice_and_bob(api: &Api) -> (crate::support::User, crate::support::User, Value, Value) {
    let alice = api.user("alice").await;
    let bob = api.user("bob").await;
    let private = api.entry(&alice, "alice private diary", false).await;
    let public = api.entry(&alice, "alice public notes", true).await;
    (alice, bob, private, public)
}

/// Alice still has exactly `expected`, unchanged in every field.
async fn assert_unchanged(api: &Api, alice: &crate::support::User, expected: &[&Value]) {
    let mut now = own_entries(api, alice).await;
    now.sort_by_key(|e| e["_id"].as_str().unwrap_or("").to_owned());
    let mut before: Vec<Value> = expected.iter().map(|v| (*v).clone()).collect();
    before.sort_by_key(|e| e["_id"].as_str().unwrap_or("").to_owned());
    assert_eq!(now, before, "alice's entries changed");
}

async fn another_user_can_neither_read_nor_change_nor_delete_a_private_entry(db: &str) {
    let api = Api::start(db);
    let (alice, bob, private, public) = alice_and_bob(&api).await;
    let path = format!("/api/journal-entries/{}", private["_id"].as_str().unwrap());

    assert_error(api.get(&path, Some(&bob.token)).await, 404, "Not Found").await;
    let update = json!({ "title": "pwned", "content": "pwned", "isPublic": true });
    assert_error(
        api.put(&path, Some(&bob.token), update).await,
        404,
        "Not Found",
    )
    .await;
    assert_error(api.delete(&path, Some(&bob.token)).await, 404, "Not Found").await;
    // Without a token at all it is 401, and the same for a token of nobody.
    assert_error(api.get(&path, None).await, 401, "Unauthorized").await;
    assert_error(api.delete(&path, None).await, 401, "Unauthorized").await;

    assert_unchanged(&api, &alice, &[&private, &public]).await;
}

async fn another_user_can_read_but_not_change_a_public_entry(db: &str) {
    let api = Api::start(db);
    let (alice, bob, private, public) = alice_and_bob(&api).await;
    let path = format!("/api/journal-entries/{}", public["_id"].as_str().unwrap());

    let read = api.get(&path, Some(&bob.token)).await;
    assert_eq!(read.status().as_u16(), 200);
    assert_eq!(read.json::<Value>().await.unwrap(), public);
    for update in [
        json!({ "title": "pwned" }),
        json!({ "isPublic": false }),
        json!({ "content": "" }),
    ] {
        assert_error(
            api.put(&path, Some(&bob.token), update).await,
            403,
            "Forbidden",
        )
        .await;
    }
    assert_error(api.delete(&path, Some(&bob.token)).await, 403, "Forbidden").await;

    assert_unchanged(&api, &alice, &[&private, &public]).await;
}

async fn guessed_and_malformed_entry_ids_are_404(db: &str) {
    let api = Api::start(db);
    let (alice, bob, private, public) = alice_and_bob(&api).await;
    let id = private["_id"].as_str().unwrap().to_owned();
    // Neighbours of a real id (UUIDv7 ids made in the same millisecond differ at the end),
    // the same id in upper case, and ids that are not ids at all.
    let mut guesses: Vec<String> = Vec::new();
    for digit in "0123456789abcdef".chars() {
        let mut guess = id.clone();
        guess.pop();
        guess.push(digit);
        guesses.push(guess);
    }
    guesses.extend([
        id.to_uppercase(),
        "00000000-0000-0000-0000-000000000000".into(),
        "ffffffff-ffff-ffff-ffff-ffffffffffff".into(),
        "1".into(),
        "0".into(),
        "-1".into(),
        "null".into(),
        "undefined".into(),
        "%2e%2e".into(),
        "..%2f..%2fuser%2fprofile".into(),
        format!("{id}%00"),
        format!("{id}'%20OR%20'1'%3D'1"),
        "*".into(),
        "%27%3B%20DROP%20TABLE%20entries%3B--".into(),
        "a".repeat(5000),
    ]);
    for guess in &guesses {
        let path = format!("/api/journal-entries/{guess}");
        let read = api.get(&path, Some(&bob.token)).await;
        assert_error(read, 404, "Not Found").await;
        let update = api
            .put(&path, Some(&bob.token), json!({ "title": "x" }))
            .await;
        assert_error(update, 404, "Not Found").await;
        let delete = api.delete(&path, Some(&bob.token)).await;
        assert_error(delete, 404, "Not Found").await;
    }
    assert_unchanged(&api, &alice, &[&private, &public]).await;
}

async fn lists_and_search_show_another_user_nothing_private(db: &str) {
    let api = Api::start(db);
    let (alice, bob, private, public) = alice_and_bob(&api).await;
    let private_id = private["_id"].as_str().unwrap();
    let public_id = public["_id"].as_str().unwrap();

    let list = api
        .get(
            &format!("/api/user/{}/journal-entries?limit=100", alice.id),
            Some(&bob.token),
        )
        .await;
    assert_eq!(list.headers()["x-total-count"], "1");
    assert_eq!(ids(&list.json().await.unwrap()), [public_id]);

    let feed = api.get("/api/public/journal-entries?limit=100", None).await;
    let feed = ids(&feed.json().await.unwrap());
    assert!(feed.contains(&public_id.to_owned()));
    assert!(!feed.contains(&private_id.to_owned()));

    // Search covers the caller's own entries only: alice's words find nothing for bob.
    for q in [
        "alice",
        "diary",
        "private",
        "alice private diary",
        "notes",
        "*",
        "a",
    ] {
        let found = api
            .get(
                &format!("/api/search/journal-entries?q={q}&limit=100"),
                Some(&bob.token),
            )
            .await;
        assert_eq!(found.status().as_u16(), 200, "{q}");
        assert_eq!(found.headers()["x-total-count"], "0", "{q}");
        assert!(ids(&found.json().await.unwrap()).is_empty(), "{q}");
    }
    // The user id in a list path is the only selector: bob asking for his own list sees
    // only his own (none).
    let own = api
        .get(
            &format!("/api/user/{}/journal-entries", bob.id),
            Some(&bob.token),
        )
        .await;
    assert!(ids(&own.json().await.unwrap()).is_empty());
    // Unknown and malformed user ids are 404.
    for user in [
        "00000000-0000-0000-0000-000000000000",
        "1",
        "*",
        "%27%20OR%201%3D1--",
    ] {
        let response = api
            .get(
                &format!("/api/user/{user}/journal-entries"),
                Some(&bob.token),
            )
            .await;
        assert_error(response, 404, "Not Found").await;
    }
    assert_unchanged(&api, &alice, &[&private, &public]).await;
}

async fn a_private_profile_hides_everything_from_another_user(db: &str) {
    let api = Api::start(db);
    let (alice, bob, private, public) = alice_and_bob(&api).await;
    let made_private = api
        .put(
            "/api/user/profile",
            Some(&alice.token),
            json!({ "isPrivate": true }),
        )
        .await;
    assert_eq!(made_private.status().as_u16(), 200);

    let list = api
        .get(
            &format!("/api/user/{}/journal-entries", alice.id),
            Some(&bob.token),
        )
        .await;
    assert_error(list, 403, "Forbidden").await;
    // The public entry is now invisible: 404 for read, update and delete alike.
    let path = format!("/api/journal-entries/{}", public["_id"].as_str().unwrap());
    assert_error(api.get(&path, Some(&bob.token)).await, 404, "Not Found").await;
    let update = api
        .put(&path, Some(&bob.token), json!({ "title": "x" }))
        .await;
    assert_error(update, 404, "Not Found").await;
    assert_error(api.delete(&path, Some(&bob.token)).await, 404, "Not Found").await;
    let feed = api.get("/api/public/journal-entries?limit=100", None).await;
    assert!(ids(&feed.json().await.unwrap()).is_empty());

    assert_unchanged(&api, &alice, &[&private, &public]).await;
    assert_eq!(profile(&api, &alice).await["isPrivate"], true);
}
