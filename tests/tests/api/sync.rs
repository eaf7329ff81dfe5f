//! The change feed over HTTP (`GET /api/sync/changes`): a replica pages through its
//! own account's changes with the cursor it is given; nobody reads another's; a cursor
//! it was not given is 400; a cursor of another database is 409. A push that
//! overlaps the server's edit leaves a conflict its author lists and settles.

use serde_json::{Value, json};

use crate::support::{Api, assert_error, body, on_every_database};

on_every_database!(
    a_replica_pages_through_its_changes_and_resumes,
    the_feed_is_only_the_callers_and_refuses_what_it_did_not_give,
    a_replica_pushes_an_entry_made_offline_and_twice_is_once,
    a_push_is_refused_whole_or_per_change_and_never_crosses_accounts,
    a_conflict_is_listed_to_its_author_and_settled_either_way,
    files_travel_once_by_their_bytes_and_never_cross_accounts,
);

/// A UUIDv7-shaped id, as a replica makes one.
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let ms = (nanos / 1_000_000) as u64;
    let tail = nanos as u64 ^ (std::process::id() as u64).rotate_left(17);
    format!(
        "{:08x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        ms >> 16,
        ms & 0xffff,
        tail & 0xfff,
        (tail >> 12) & 0xfff,
        (tail >> 24) & 0xffff_ffff_ffff
    )
}

fn offline_entry(id: &str, revision: &str, title: &str) -> Value {
    json!({
        "id": id, "base": null, "state": "live",
        "revisions": [{
            "revisionId": revision, "parentId": null, "revision": 1,
            "title": title, "content": "written on the train", "isPublic": false,
            "tags": ["travel"], "starred": false, "date": "2026-11-20T08:00:00.000Z",
            "editedAt": "2026-11-20T08:00:00.000Z", "editedVia": "local"
        }]
    })
}

async fn a_replica_pushes_an_entry_made_offline_and_twice_is_once(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let (id, revision) = (new_id(), new_id());
    let push = json!({ "changes": [offline_entry(&id, &revision, "On the train")] });
    for _ in 0..2 {
        let answer = body(
            api.post("/api/sync/changes", Some(&ada.token), push.clone())
                .await,
        )
        .await;
        assert_eq!(answer["results"][0]["outcome"], "applied", "{answer}");
        assert_eq!(answer["results"][0]["revisionId"], revision.as_str());
    }
    let entry = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(entry["title"], "On the train");
    assert_eq!(entry["revision"], 1, "pushed twice, written once");
    assert_eq!(entry["tags"], json!(["travel"]));
    let feed = body(api.get("/api/sync/changes", Some(&ada.token)).await).await;
    assert_eq!(change_ids(&feed), vec![format!("{id}:live")]);
}

async fn a_push_is_refused_whole_or_per_change_and_never_crosses_accounts(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let (id, revision) = (new_id(), new_id());
    let push = json!({ "changes": [offline_entry(&id, &revision, "Ada's")] });
    assert_error(
        api.post("/api/sync/changes", None, push.clone()).await,
        401,
        "Unauthorized",
    )
    .await;
    body(
        api.post("/api/sync/changes", Some(&ada.token), push.clone())
            .await,
    )
    .await;

    // Bob pushing Ada's entry id (even knowing her revision): refused, nothing written.
    let mut over = offline_entry(&id, &new_id(), "Bob's now");
    over["base"] = json!(revision);
    let answer = body(
        api.post(
            "/api/sync/changes",
            Some(&bob.token),
            json!({ "changes": [over] }),
        )
        .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "refused", "{answer}");
    let entry = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(entry["title"], "Ada's");

    // Bad pushes, each 400 naming what is wrong, and nothing written.
    let fresh = new_id();
    let good = offline_entry(&fresh, &new_id(), "fine");
    for (bad, says) in [
        (json!({}), "changes"),
        (
            json!({ "changes": [good.clone(), { "id": "not-a-uuid", "state": "live" }] }),
            "change 2",
        ),
        (
            json!({ "changes": [good.clone(), { "id": new_id(), "state": "gone" }] }),
            "state",
        ),
        (
            json!({ "changes": [good.clone(), { "id": new_id(), "state": "live", "revisions": [{ "revisionId": new_id(), "revision": 1, "title": "", "editedAt": "2026-01-01T00:00:00Z" }] }] }),
            "title",
        ),
        (
            json!({ "changes": [good.clone(), { "id": new_id(), "state": "trashed", "deletedAt": "1850-01-01T00:00:00Z" }] }),
            "deletedAt",
        ),
        (
            json!({ "changes": [good.clone(), { "id": new_id(), "state": "trashed", "base": new_id() }] }),
            "deletedAt",
        ),
    ] {
        let response = api
            .post("/api/sync/changes", Some(&ada.token), bad.clone())
            .await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(message.contains(says), "{bad}: {message}");
    }
    let missing = api
        .get(&format!("/api/journal-entries/{fresh}"), Some(&ada.token))
        .await;
    assert_eq!(
        missing.status(),
        404,
        "nothing of a refused push is written"
    );
    let many: Vec<Value> = (0..1_001)
        .map(|_| offline_entry(&new_id(), &new_id(), "t"))
        .collect();
    let response = api
        .post(
            "/api/sync/changes",
            Some(&ada.token),
            json!({ "changes": many }),
        )
        .await;
    assert_error(response, 400, "Bad Request").await;
    let text = api
        .http
        .post(api.url("/api/sync/changes"))
        .bearer_auth(&ada.token)
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(text.status(), 415);
}

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

/// Pushes a replica's edit of `id` (at revision `base`) that changes the same line as
/// the server's edit made since: a conflict. Returns the revision set aside.
async fn conflicting_push(api: &Api, token: &str, id: &str, base: &str, replica: &str) -> String {
    let put = json!({ "content": "the server's line" });
    let edited = api
        .put(&format!("/api/journal-entries/{id}"), Some(token), put)
        .await;
    assert_eq!(edited.status(), 200);
    let revision = new_id();
    let push = json!({ "changes": [{
        "id": id, "base": base, "state": "live",
        "revisions": [{
            "revisionId": revision, "parentId": base, "revision": 2,
            "title": "Shared", "content": replica, "isPublic": false,
            "tags": [], "starred": false, "date": "2026-11-20T08:00:00.000Z",
            "editedAt": "2026-11-20T09:00:00.000Z", "editedVia": "local"
        }]
    }]});
    let answer = body(api.post("/api/sync/changes", Some(token), push).await).await;
    assert_eq!(answer["results"][0]["outcome"], "conflict", "{answer}");
    revision
}

async fn a_conflict_is_listed_to_its_author_and_settled_either_way(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let made = body(
        api.post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Shared", "content": "the first line" }),
        )
        .await,
    )
    .await;
    let id = made["_id"].as_str().unwrap().to_owned();
    let base = made["revisionId"].as_str().unwrap().to_owned();
    let aside = conflicting_push(&api, &ada.token, &id, &base, "the replica's line").await;

    let listed = api.get("/api/sync/conflicts", Some(&ada.token)).await;
    assert_eq!(listed.headers()["x-total-count"], "1");
    let listed = body(listed).await;
    assert_eq!(listed[0]["entryId"], id.as_str(), "{listed}");
    assert_eq!(listed[0]["revisionId"], aside.as_str());
    assert_eq!(listed[0]["title"], "Shared");
    let n = listed[0]["revision"].as_u64().unwrap();
    let set_aside = body(
        api.get(
            &format!("/api/journal-entries/{id}/revisions/{n}"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(set_aside["content"], "the replica's line");

    // Strangers, other accounts and bad requests change nothing.
    let resolve = format!("/api/sync/conflicts/{id}/resolve");
    let take = json!({ "keep": aside });
    assert_error(
        api.get("/api/sync/conflicts", None).await,
        401,
        "Unauthorized",
    )
    .await;
    assert_error(
        api.post(&resolve, None, take.clone()).await,
        401,
        "Unauthorized",
    )
    .await;
    assert_eq!(
        body(api.get("/api/sync/conflicts", Some(&bob.token)).await).await,
        json!([])
    );
    assert_error(
        api.post(&resolve, Some(&bob.token), take.clone()).await,
        404,
        "Not Found",
    )
    .await;
    for keep in [json!("theirs"), json!(""), json!(7), json!(null)] {
        assert_error(
            api.post(&resolve, Some(&ada.token), json!({ "keep": keep }))
                .await,
            400,
            "Bad Request",
        )
        .await;
    }
    assert_error(
        api.post(&resolve, Some(&ada.token), json!({ "keep": new_id() }))
            .await,
        404,
        "Not Found",
    )
    .await;
    assert_error(
        api.post(
            "/api/sync/conflicts/not-an-id/resolve",
            Some(&ada.token),
            take.clone(),
        )
        .await,
        404,
        "Not Found",
    )
    .await;
    let entry = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(entry["content"], "the server's line");

    // Taking the text set aside: the entry holds it, the list is empty, and again is 404.
    let taken = api.post(&resolve, Some(&ada.token), take.clone()).await;
    assert_eq!(taken.status(), 200);
    let taken = body(taken).await;
    assert_eq!(taken["content"], "the replica's line");
    assert_eq!(
        body(api.get("/api/sync/conflicts", Some(&ada.token)).await).await,
        json!([])
    );
    assert_error(
        api.post(&resolve, Some(&ada.token), take).await,
        404,
        "Not Found",
    )
    .await;

    // Keeping the entry as it is leaves its text.
    let base = taken["revisionId"].as_str().unwrap().to_owned();
    conflicting_push(&api, &ada.token, &id, &base, "the replica's second line").await;
    let kept = body(
        api.post(&resolve, Some(&ada.token), json!({ "keep": "current" }))
            .await,
    )
    .await;
    assert_eq!(kept["content"], "the server's line");
    assert_eq!(
        body(api.get("/api/sync/conflicts", Some(&ada.token)).await).await,
        json!([])
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn send_file(api: &Api, token: Option<&str>, id: &str, bytes: &[u8]) -> reqwest::Response {
    let mut request = api
        .http
        .put(api.url(&format!("/api/sync/files/{id}?name=note.txt")))
        .header("content-type", "application/octet-stream")
        .body(bytes.to_vec());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("request reaches the server")
}

async fn missing(api: &Api, token: &str, files: Value) -> Value {
    body(
        api.post(
            "/api/sync/files/missing",
            Some(token),
            json!({ "attachments": files }),
        )
        .await,
    )
    .await["missing"]
        .clone()
}

async fn attached(api: &Api, token: &str, entry: &str) -> Vec<String> {
    let list = body(
        api.get(
            &format!("/api/journal-entries/{entry}/attachments"),
            Some(token),
        )
        .await,
    )
    .await;
    list.as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A pushed entry's attachments: refused until their file is sent; a file is asked
/// for only when the account has none of its bytes; the file route keeps every
/// upload rule; deletions travel; and nothing crosses accounts.
async fn files_travel_once_by_their_bytes_and_never_cross_accounts(db: &str) {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start_with(
        db,
        &[
            "--attachments-dir",
            dir.path().to_str().unwrap(),
            "--max-attachment",
            "4KiB",
        ],
    );
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let note = b"the tide tables for Thursday\n";
    let sha = sha256_hex(note);
    let (entry, revision, file) = (new_id(), new_id(), new_id());
    let listed = json!([{ "id": file, "sha256": sha, "name": "note.txt",
                          "createdAt": "2026-11-20T08:00:00.000Z" }]);
    let mut change = offline_entry(&entry, &revision, "Harbour");
    change["attachments"] = listed.clone();
    let push = json!({ "changes": [change] });

    // Listed before its file was sent: refused, saying what to send.
    let answer = body(
        api.post("/api/sync/changes", Some(&ada.token), push.clone())
            .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "refused", "{answer}");
    assert!(
        answer["results"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&file),
        "{answer}"
    );
    assert_eq!(
        missing(&api, &ada.token, listed.clone()).await,
        json!([file])
    );

    // The file route: strangers, bad ids, bad types and sizes are refused.
    assert_error(
        send_file(&api, None, &file, note).await,
        401,
        "Unauthorized",
    )
    .await;
    assert_error(
        send_file(&api, Some(&ada.token), "not-an-id", note).await,
        400,
        "Bad Request",
    )
    .await;
    let elf = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00";
    assert_error(
        send_file(&api, Some(&ada.token), &new_id(), elf).await,
        415,
        "Unsupported Media Type",
    )
    .await;
    assert_error(
        send_file(&api, Some(&ada.token), &new_id(), &[b'a'; 5000]).await,
        413,
        "Payload Too Large",
    )
    .await;
    for _ in 0..2 {
        let sent = send_file(&api, Some(&ada.token), &file, note).await;
        assert_eq!(sent.status(), 201, "sent twice is stored once");
        assert_eq!(body(sent).await["sha256"], sha.as_str());
    }
    assert_eq!(missing(&api, &ada.token, listed.clone()).await, json!([]));
    let answer = body(
        api.post("/api/sync/changes", Some(&ada.token), push.clone())
            .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "applied", "{answer}");
    assert_eq!(attached(&api, &ada.token, &entry).await, vec![file.clone()]);

    // The same bytes under a second id: the account has them, nothing is asked for.
    let copy = new_id();
    let both = json!([listed[0].clone(), { "id": copy, "sha256": sha, "name": "copy.txt" }]);
    assert_eq!(missing(&api, &ada.token, both.clone()).await, json!([]));
    let mut change = json!({ "id": entry, "base": revision, "state": "live", "revisions": [] });
    change["attachments"] = both;
    let answer = body(
        api.post(
            "/api/sync/changes",
            Some(&ada.token),
            json!({ "changes": [change.clone()] }),
        )
        .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "applied", "{answer}");
    let mut now = attached(&api, &ada.token, &entry).await;
    now.sort();
    let mut expected = vec![file.clone(), copy.clone()];
    expected.sort();
    assert_eq!(now, expected);

    // Bob knows Ada's ids and her file's hash: he learns nothing and gets nothing.
    assert_eq!(
        missing(&api, &bob.token, listed.clone()).await,
        json!([file]),
        "another account's attachment is as unknown as any"
    );
    assert_error(
        send_file(&api, Some(&bob.token), &file, note).await,
        409,
        "Conflict",
    )
    .await;
    let (his, his_revision) = (new_id(), new_id());
    let mut theirs = offline_entry(&his, &his_revision, "Bob's");
    theirs["attachments"] = listed.clone();
    let answer = body(
        api.post(
            "/api/sync/changes",
            Some(&bob.token),
            json!({ "changes": [theirs] }),
        )
        .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "applied", "{answer}");
    assert!(
        answer["results"][0]["message"]
            .as_str()
            .unwrap()
            .contains("left out"),
        "{answer}"
    );
    assert!(attached(&api, &bob.token, &his).await.is_empty());
    assert_error(
        api.get(&format!("/api/attachments/{file}"), Some(&bob.token))
            .await,
        404,
        "Not Found",
    )
    .await;

    // A deletion travels, and the feed tells it.
    change["attachments"][1]["deletedAt"] = json!("2026-11-21T08:00:00.000Z");
    let answer = body(
        api.post(
            "/api/sync/changes",
            Some(&ada.token),
            json!({ "changes": [change] }),
        )
        .await,
    )
    .await;
    assert_eq!(answer["results"][0]["outcome"], "applied", "{answer}");
    assert_eq!(attached(&api, &ada.token, &entry).await, vec![file.clone()]);
    let feed = body(api.get("/api/sync/changes", Some(&ada.token)).await).await;
    let files = &feed["changes"][0]["attachments"];
    assert_eq!(files.as_array().unwrap().len(), 2, "{feed}");
    for f in files.as_array().unwrap() {
        assert_eq!(f["sha256"], sha.as_str());
        assert_eq!(f["deletedAt"].is_string(), f["id"] == copy.as_str(), "{f}");
    }

    // Bounds: a bad hash, and more than 5,000 at once.
    assert_error(
        api.post(
            "/api/sync/files/missing",
            Some(&ada.token),
            json!({ "attachments": [{ "id": file, "sha256": "ABC" }] }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    let many: Vec<Value> = (0..5001)
        .map(|_| json!({ "id": file, "sha256": sha }))
        .collect();
    assert_error(
        api.post(
            "/api/sync/files/missing",
            Some(&ada.token),
            json!({ "attachments": many }),
        )
        .await,
        400,
        "Bad Request",
    )
    .await;
    assert_error(
        api.post(
            "/api/sync/files/missing",
            None,
            json!({ "attachments": [] }),
        )
        .await,
        401,
        "Unauthorized",
    )
    .await;
}
