//! The change feed over HTTP (`GET /api/sync/changes`): a replica pages through its
//! own account's changes with the cursor it is given; nobody reads another's; a cursor
//! it was not given is 400; a cursor of another database is 409.

use serde_json::{Value, json};

use crate::support::{Api, assert_error, body, on_every_database};

on_every_database!(
    a_replica_pages_through_its_changes_and_resumes,
    the_feed_is_only_the_callers_and_refuses_what_it_did_not_give,
);

fn change_ids(page: &Value) -> Vec<String> {
    page["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| {
            format!(
                "{}:{}",
                c["id"].as_str().unwrap(),
                c["state"].as_str().unwrap()
            )
        })
        .collect()
}

async fn a_replica_pages_through_its_changes_and_resumes(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let mut made = Vec::new();
    for n in 0..3 {
        let e = api.entry(&ada, &format!("entry {n}"), n == 0).await;
        made.push(e["_id"].as_str().unwrap().to_owned());
    }
    // Two pages of two, then nothing more.
    let first = body(api.get("/api/sync/changes?limit=2", Some(&ada.token)).await).await;
    assert_eq!(first["more"], true);
    assert_eq!(
        change_ids(&first),
        vec![format!("{}:live", made[0]), format!("{}:live", made[1])]
    );
    assert_eq!(first["changes"][0]["entry"]["title"], "entry 0");
    assert_eq!(first["changes"][0]["revisions"][0]["revision"], 1);
    let cursor = first["cursor"].as_str().unwrap().to_owned();
    let second = body(
        api.get(
            &format!("/api/sync/changes?limit=2&since={cursor}"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(second["more"], false);
    assert_eq!(change_ids(&second), vec![format!("{}:live", made[2])]);
    let end = second["cursor"].as_str().unwrap().to_owned();

    // A delete after the sync: the next one brings the entry in the trash.
    let gone = api
        .delete(
            &format!("/api/journal-entries/{}", made[1]),
            Some(&ada.token),
        )
        .await;
    assert_eq!(gone.status(), 200);
    let next = body(
        api.get(&format!("/api/sync/changes?since={end}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(change_ids(&next), vec![format!("{}:trashed", made[1])]);
    assert!(next["changes"][0]["deletedAt"].is_string(), "{next}");
}

async fn the_feed_is_only_the_callers_and_refuses_what_it_did_not_give(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    api.entry(&ada, "ada's", true).await;

    // No token, no feed.
    assert_error(
        api.get("/api/sync/changes", None).await,
        401,
        "Unauthorized",
    )
    .await;
    // Bob's feed has none of Ada's entries, public or not; with Ada's cursor too.
    let adas = body(api.get("/api/sync/changes", Some(&ada.token)).await).await;
    let cursor = adas["cursor"].as_str().unwrap().to_owned();
    let bobs = body(api.get("/api/sync/changes", Some(&bob.token)).await).await;
    assert_eq!(bobs["changes"], json!([]));
    let start = cursor.split('.').next().unwrap();
    let from_zero = format!("{start}.0.0");
    let with_adas = api
        .get(
            &format!("/api/sync/changes?since={from_zero}"),
            Some(&bob.token),
        )
        .await;
    assert_eq!(with_adas.status(), 200);
    assert_eq!(body(with_adas).await["changes"], json!([]));

    // Cursors it did not give, under every spelling: 400, never 500.
    for since in [
        "x",
        "",
        "..",
        "0123456789abcdef0123456789abcdef.1",
        "0123456789abcdef0123456789abcdef.2.1",
        "0123456789ABCDEF0123456789ABCDEF.0.1",
        "0123456789abcdef0123456789abcdef.0.-1",
        "0123456789abcdef0123456789abcdef.0.+1",
        "0123456789abcdef0123456789abcdef.0.99999999999999999999",
        "0123456789abcdef0123456789abcdef.0.1.2",
    ] {
        let response = api
            .get(
                &format!("/api/sync/changes?since={}", urlencode(since)),
                Some(&ada.token),
            )
            .await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(message.contains("since"), "{since:?}: {message}");
    }
    for limit in ["0", "101", "-1", "ten", "1.5"] {
        let response = api
            .get(
                &format!("/api/sync/changes?limit={limit}"),
                Some(&ada.token),
            )
            .await;
        assert_error(response, 400, "Bad Request").await;
    }
    // Another database's cursor, and one ahead of this one: start over.
    let other = api
        .get(
            "/api/sync/changes?since=0123456789abcdef0123456789abcdef.0.1",
            Some(&ada.token),
        )
        .await;
    assert_error(other, 409, "Conflict").await;
    let ahead = format!("{start}.0.1000");
    let ahead = api
        .get(
            &format!("/api/sync/changes?since={ahead}"),
            Some(&ada.token),
        )
        .await;
    assert_error(ahead, 409, "Conflict").await;
    // The feed is read only.
    let put = api
        .put("/api/sync/changes", Some(&ada.token), json!({}))
        .await;
    assert_eq!(put.status(), 405);
}

fn urlencode(text: &str) -> String {
    text.replace('+', "%2B")
}
