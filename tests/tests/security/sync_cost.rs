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
