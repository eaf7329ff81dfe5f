//! What a push costs when every change must merge. A push of changes made from an
//! older revision merges each with the server's text, line by line; a line diff's cost
//! grows with lines times changes, so a signed-in user (or a stolen token) could send
//! 100 changes of 5,000 lines, every line changed on both sides: 10 such changes took
//! 90 s of CPU (250× a push that follows on). A merge now looks line by line only at
//! up to 100 edited lines a side (`diff::MERGE_MAX_CHANGES`); past it, both texts are
//! kept as a conflict. The costliest push left merges texts of 5,000 lines with 100
//! lines edited on each side, all over the text. Measured in the server's CPU, as a
//! ratio to a push of the same texts that only follows on, and for every line changed.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::cost::{clock_ticks_per_second, cpu_ticks};
use crate::support::{Api, SqliteDb, User, body};

/// Changes in each push: enough for a clear ratio within a debug build's request
/// timeout (the most a push holds is 1,000).
const CHANGES: usize = 10;
/// Lines of each text: the most a merge looks at line by line.
const LINES: usize = 5_000;
/// How many times dearer the merging push may be than the one that follows on.
const MOST: f64 = 4.0;

/// The base text with the lines `edited` picks changed by `side`.
fn text(side: &str, edited: impl Fn(usize) -> bool) -> String {
    (0..LINES)
        .map(|i| {
            let who = if edited(i) { side } else { "base" };
            format!("{who} line {i:05}\n")
        })
        .collect()
}

/// Each side edits 100 lines, spread over the text, none the other's.
fn ours() -> String {
    text("ours", |i| i % 50 == 0)
}
fn theirs() -> String {
    text("theirs", |i| i % 50 == 25)
}

/// A new revision of `entry`, made from `parent`, holding `content`.
fn revision(entry: &Value, parent: &str, content: &str) -> Value {
    json!({
        "revisionId": uuid_v7(), "parentId": parent, "revision": 2,
        "title": entry["title"], "content": content, "isPublic": false, "tags": [],
        "starred": false, "date": entry["date"], "editedAt": entry["updatedAt"],
        "editedVia": "local"
    })
}

fn uuid_v7() -> String {
    journal_core::RevisionId::generate().to_string()
}

/// `CHANGES` entries holding the base text; each edited on the server to `edited` if
/// given. The entries and their first revision ids.
async fn entries(api: &Api, user: &User, edited: Option<String>) -> Vec<(Value, String)> {
    let mut made = Vec::with_capacity(CHANGES);
    for n in 0..CHANGES {
        let created = body(
            api.post(
                "/api/journal-entries",
                Some(&user.token),
                json!({ "title": format!("Entry {n}"), "content": text("base", |_| false) }),
            )
            .await,
        )
        .await;
        let base = created["revisionId"].as_str().unwrap().to_owned();
        if let Some(ours) = &edited {
            let path = format!("/api/journal-entries/{}", created["_id"].as_str().unwrap());
            let response = api
                .put(&path, Some(&user.token), json!({ "content": ours }))
                .await;
            assert_eq!(response.status(), StatusCode::OK);
        }
        made.push((created, base));
    }
    made
}

/// Pushes each entry's change to `content`, made from its base revision; the CPU ticks
/// it took, and the outcomes.
async fn push(
    api: &Api,
    user: &User,
    made: &[(Value, String)],
    content: &str,
) -> (u64, Vec<String>) {
    let changes: Vec<Value> = made
        .iter()
        .map(|(entry, base)| {
            json!({ "id": entry["_id"], "base": base, "state": "live",
                    "revisions": [revision(entry, base, content)] })
        })
        .collect();
    let before = cpu_ticks(api, None).await;
    let response = api
        .post(
            "/api/sync/changes",
            Some(&user.token),
            json!({ "changes": changes }),
        )
        .await;
    let spent = cpu_ticks(api, None).await - before;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let outcomes = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_owned())
        .collect();
    (spent, outcomes)
}

#[tokio::test]
async fn a_push_that_merges_every_change_costs_about_what_one_that_follows_on_costs() {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    let user = api.user("merger").await;
    let following = entries(&api, &user, None).await;
    let merging = entries(&api, &user, Some(ours())).await;
    let everything = entries(&api, &user, Some(text("ours", |_| true))).await;
    let (follow_cost, outcomes) = push(&api, &user, &following, &theirs()).await;
    assert!(outcomes.iter().all(|o| o == "applied"), "{outcomes:?}");
    let (merge_cost, outcomes) = push(&api, &user, &merging, &theirs()).await;
    assert!(outcomes.iter().all(|o| o == "merged"), "{outcomes:?}");
    let every_line = text("theirs", |_| true);
    let (clash_cost, outcomes) = push(&api, &user, &everything, &every_line).await;
    assert!(outcomes.iter().all(|o| o == "conflict"), "{outcomes:?}");
    let ms = |ticks: u64| ticks * 1000 / clock_ticks_per_second();
    for (what, cost) in [("merging", merge_cost), ("every line changed", clash_cost)] {
        let ratio = cost as f64 / follow_cost.max(1) as f64;
        println!(
            "push of {CHANGES} changes of {LINES} lines, {what}: {} ms CPU, following on {} ms, \
             ratio {ratio:.2}",
            ms(cost),
            ms(follow_cost)
        );
        assert!(
            ratio <= MOST,
            "a push of {CHANGES} texts of {LINES} lines, {what}, cost {} ms of CPU, \
             {ratio:.1}× the {} ms of one that follows on",
            ms(cost),
            ms(follow_cost)
        );
    }
}

/// A new entry of one short revision, as a replica pushes it, listing `files`.
fn new_change(n: usize, files: &[Value]) -> Value {
    let id = uuid_v7();
    json!({
        "id": id, "base": null, "state": "live",
        "revisions": [{
            "revisionId": uuid_v7(), "parentId": null, "revision": 1,
            "title": format!("Offline {n}"), "content": "written on the train",
            "isPublic": false, "tags": [], "starred": false,
            "date": "2026-11-20T08:00:00.000Z", "editedAt": "2026-11-20T08:00:00.000Z",
            "editedVia": "local"
        }],
        "attachments": files
    })
}

/// An attachment no account has: every lookup misses.
fn unknown_file(n: usize) -> Value {
    json!({ "id": uuid_v7(), "sha256": format!("{n:064x}"), "name": "photo.jpg" })
}

/// The server CPU ticks `path` took for `body`, and its answer.
async fn spend(api: &Api, user: &User, path: &str, body_: Value) -> (u64, Value) {
    let before = cpu_ticks(api, None).await;
    let response = api.post(path, Some(&user.token), body_).await;
    let spent = cpu_ticks(api, None).await - before;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    (spent, answer)
}

/// Attachments in a sync cost lookups by id and hash: the most a token can ask at once
/// (5,000 unknown files, or a push of 1,000 new entries listing 5,000 between them) is
/// measured against the push of the same 1,000 entries without them.
#[tokio::test]
async fn the_most_attachments_a_sync_names_cost_about_what_its_entries_cost() {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    let user = api.user("replica").await;
    let plain: Vec<Value> = (0..1_000).map(|n| new_change(n, &[])).collect();
    let (plain_cost, _) = spend(
        &api,
        &user,
        "/api/sync/changes",
        json!({ "changes": plain }),
    )
    .await;
    let files: Vec<Value> = (0..5_000).map(unknown_file).collect();
    let (ask_cost, answer) = spend(
        &api,
        &user,
        "/api/sync/files/missing",
        json!({ "attachments": files }),
    )
    .await;
    assert_eq!(answer["missing"].as_array().unwrap().len(), 5_000);
    let listing: Vec<Value> = (0..1_000)
        .map(|n| {
            let files: Vec<Value> = (0..5).map(|k| unknown_file(n * 5 + k)).collect();
            new_change(n, &files)
        })
        .collect();
    let (listing_cost, answer) = spend(
        &api,
        &user,
        "/api/sync/changes",
        json!({ "changes": listing }),
    )
    .await;
    assert!(
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "refused"),
        "a change listing files never sent is refused"
    );
    let ms = |ticks: u64| ticks * 1000 / clock_ticks_per_second();
    for (what, cost, most) in [
        ("asking about 5,000 unknown files", ask_cost, 2.5),
        (
            "the same push listing 5,000 unknown files",
            listing_cost,
            4.0,
        ),
    ] {
        let ratio = cost as f64 / plain_cost.max(1) as f64;
        println!(
            "{what}: {} ms CPU; a push of 1,000 new entries {} ms; ratio {ratio:.2}",
            ms(cost),
            ms(plain_cost)
        );
        assert!(
            ratio <= most,
            "{what} cost {} ms of CPU, {ratio:.1}× the {} ms of a push of 1,000 new entries",
            ms(cost),
            ms(plain_cost)
        );
    }
}
