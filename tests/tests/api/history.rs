//! History, the trash and `If-Match` over HTTP: every response carrying one entry has
//! its revision as `ETag`; a stale `If-Match` is 412 and changes nothing; racing
//! writers that re-read on 412 lose no save; only the author reads history; a deleted
//! entry leaves at once and comes back whole.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, header, ids, keys, on_every_database};

on_every_database!(
    every_entry_response_carries_its_revision_as_etag,
    a_stale_if_match_is_412_and_changes_nothing,
    a_malformed_or_weak_if_match_is_400,
    racing_writers_with_if_match_lose_no_save,
    history_is_paged_newest_first_and_only_for_the_author,
    a_diff_names_the_words_a_revision_changed,
    restoring_a_revision_is_a_new_revision_with_its_state,
    a_deleted_entry_leaves_everywhere_and_comes_back_whole,
    the_trash_is_swept_after_its_days,
);

fn path_of(entry: &Value) -> String {
    format!(
        "/api/journal-entries/{}",
        entry["_id"].as_str().expect("_id")
    )
}

fn etag_of(entry: &Value) -> String {
    format!("\"{}\"", entry["revisionId"].as_str().expect("revisionId"))
}

async fn send_if(
    api: &Api,
    method: Method,
    path: &str,
    user: &User,
    if_match: &str,
    body: Option<Value>,
) -> Response {
    let mut request = api
        .http
        .request(method, api.url(path))
        .bearer_auth(&user.token)
        .header("if-match", if_match);
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.expect("request reaches the server")
}

async fn every_entry_response_carries_its_revision_as_etag(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let created = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "t", "content": "c" }),
        )
        .await;
    let etag = header(&created, "etag");
    let entry = body(created).await;
    assert_eq!(entry["revision"], 1);
    assert_eq!(etag, etag_of(&entry));
    let read = api.get(&path_of(&entry), Some(&ada.token)).await;
    assert_eq!(header(&read, "etag"), etag);
    let updated = api
        .put(
            &path_of(&entry),
            Some(&ada.token),
            json!({ "content": "d" }),
        )
        .await;
    let new_etag = header(&updated, "etag");
    let updated = body(updated).await;
    assert_eq!(updated["revision"], 2);
    assert_eq!(new_etag, etag_of(&updated));
    assert_ne!(new_etag, etag);
}

async fn a_stale_if_match_is_412_and_changes_nothing(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "shared", false).await;
    let first = etag_of(&entry);
    // Tab A saves from revision 1.
    let a = send_if(
        &api,
        Method::PUT,
        &path_of(&entry),
        &ada,
        &first,
        Some(json!({ "content": "A's text" })),
    )
    .await;
    assert_eq!(a.status(), StatusCode::OK);
    let current = header(&a, "etag");
    // Tab B saves from revision 1 too: refused, told the current revision.
    let b = send_if(
        &api,
        Method::PUT,
        &path_of(&entry),
        &ada,
        &first,
        Some(json!({ "content": "B's text" })),
    )
    .await;
    assert_eq!(header(&b, "etag"), current);
    let message = assert_error(b, 412, "Precondition Failed").await;
    assert!(message.contains("revision 2"), "{message}");
    let now = body(api.get(&path_of(&entry), Some(&ada.token)).await).await;
    assert_eq!(now["content"], "A's text");
    assert_eq!(now["revision"], 2);
    // A stale delete and restore change nothing either.
    let gone = send_if(&api, Method::DELETE, &path_of(&entry), &ada, &first, None).await;
    assert_error(gone, 412, "Precondition Failed").await;
    let restore = format!("{}/revisions/1/restore", path_of(&entry));
    let back = send_if(&api, Method::POST, &restore, &ada, &first, None).await;
    assert_error(back, 412, "Precondition Failed").await;
    let now = body(api.get(&path_of(&entry), Some(&ada.token)).await).await;
    assert_eq!(
        (now["content"].clone(), now["revision"].clone()),
        (json!("A's text"), json!(2))
    );
    // With the current tag (or *), it goes through; without If-Match, as before.
    let ok = send_if(
        &api,
        Method::PUT,
        &path_of(&entry),
        &ada,
        &current,
        Some(json!({ "content": "merged" })),
    )
    .await;
    assert_eq!(ok.status(), StatusCode::OK);
    let star = send_if(
        &api,
        Method::PUT,
        &path_of(&entry),
        &ada,
        "*",
        Some(json!({ "starred": true })),
    )
    .await;
    assert_eq!(star.status(), StatusCode::OK);
    let plain = api
        .put(
            &path_of(&entry),
            Some(&ada.token),
            json!({ "title": "plain" }),
        )
        .await;
    assert_eq!(body(plain).await["revision"], 5);
}

async fn a_malformed_or_weak_if_match_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "e", false).await;
    let tag = etag_of(&entry);
    for bad in [
        "nonsense".to_owned(),
        format!("W/{tag}"),
        format!("{tag}, {tag}"),
        tag.to_uppercase(),
    ] {
        let r = send_if(
            &api,
            Method::PUT,
            &path_of(&entry),
            &ada,
            &bad,
            Some(json!({ "content": "x" })),
        )
        .await;
        let message = assert_error(r, 400, "Bad Request").await;
        assert!(message.contains("If-Match"), "{bad}: {message}");
    }
    let now = body(api.get(&path_of(&entry), Some(&ada.token)).await).await;
    assert_eq!(now["revision"], 1);
}

/// The goal: 8 clients each make 25 saves of one entry with `If-Match`,
/// re-reading and retrying on 412. Every acknowledged save is a revision, the entry has
/// exactly 1 + 200 revisions, revision 1 holds the original, and no 412 changed a thing.
async fn racing_writers_with_if_match_lose_no_save(db: &str) {
    const CLIENTS: usize = 8;
    const SAVES: usize = 25;
    let api = std::sync::Arc::new(Api::start(db));
    let ada = std::sync::Arc::new(api.user("ada").await);
    let entry = api.entry(&ada, "raced", false).await;
    let path = path_of(&entry);
    let mut tasks = Vec::new();
    for client in 0..CLIENTS {
        let (api, ada, path) = (api.clone(), ada.clone(), path.clone());
        tasks.push(tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            let mut refused = 0;
            let mut tag = header(&api.get(&path, Some(&ada.token)).await, "etag");
            while acknowledged.len() < SAVES {
                let text = format!("client {client} save {}", acknowledged.len());
                let r = send_if(
                    &api,
                    Method::PUT,
                    &path,
                    &ada,
                    &tag,
                    Some(json!({ "content": text })),
                )
                .await;
                match r.status() {
                    StatusCode::OK => {
                        tag = header(&r, "etag");
                        let saved = body(r).await;
                        assert_eq!(saved["content"], text.as_str());
                        acknowledged.push(text);
                    }
                    StatusCode::PRECONDITION_FAILED => {
                        refused += 1;
                        tag = header(&api.get(&path, Some(&ada.token)).await, "etag");
                    }
                    other => panic!("save answered {other}"),
                }
            }
            (acknowledged, refused)
        }));
    }
    let mut acknowledged = Vec::new();
    let mut refused = 0;
    for task in tasks {
        let (mine, r) = task.await.expect("client");
        assert_eq!(mine.len(), SAVES);
        acknowledged.extend(mine);
        refused += r;
    }
    let mut history = Vec::new();
    for page in 1.. {
        let r = api
            .get(
                &format!("{path}/revisions?page={page}&limit=20"),
                Some(&ada.token),
            )
            .await;
        let items = body(r).await.as_array().unwrap().clone();
        if items.is_empty() {
            break;
        }
        history.extend(items);
    }
    assert_eq!(
        history.len(),
        1 + CLIENTS * SAVES,
        "{refused} saves were refused"
    );
    let texts: HashSet<&str> = history
        .iter()
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    for text in &acknowledged {
        assert!(
            texts.contains(text.as_str()),
            "acknowledged save {text:?} is no revision"
        );
    }
    let first = history.last().unwrap();
    assert_eq!(
        (first["revision"].clone(), first["content"].clone()),
        (json!(1), json!("content of raced"))
    );
    // Each revision was made from the one before: no save skipped over another.
    for pair in history.windows(2) {
        assert_eq!(pair[0]["parentId"], pair[1]["revisionId"]);
    }
    println!("{refused} saves were refused with 412 and retried");
}

async fn history_is_paged_newest_first_and_only_for_the_author(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let public = api.entry(&ada, "public", true).await;
    for n in 2..=5 {
        api.put(
            &path_of(&public),
            Some(&ada.token),
            json!({ "content": format!("v{n}") }),
        )
        .await;
    }
    let r = api
        .get(
            &format!("{}/revisions?limit=2", path_of(&public)),
            Some(&ada.token),
        )
        .await;
    assert_eq!(header(&r, "x-total-count"), "5");
    assert!(
        header(&r, "link").contains("page=2&limit=2>; rel=\"next\""),
        "{}",
        header(&r, "link")
    );
    let page = body(r).await;
    let numbers: Vec<i64> = page
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["revision"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [5, 4]);
    assert_eq!(
        keys(&page[0]),
        [
            "content",
            "date",
            "editedAt",
            "editedVia",
            "entryId",
            "isPublic",
            "parentId",
            "revision",
            "revisionId",
            "starred",
            "tags",
            "title"
        ]
    );
    assert_eq!(page[0]["editedVia"], "login");
    let one = body(
        api.get(
            &format!("{}/revisions/1", path_of(&public)),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(one["content"], "content of public");
    assert_eq!(one["parentId"], Value::Null);
    // Others see the current state only: 403 where they may see the entry, 404 elsewhere.
    let theirs = api
        .get(&format!("{}/revisions", path_of(&public)), Some(&bob.token))
        .await;
    assert_error(theirs, 403, "Forbidden").await;
    let private = api.entry(&ada, "private", false).await;
    let theirs = api
        .get(
            &format!("{}/revisions/1", path_of(&private)),
            Some(&bob.token),
        )
        .await;
    assert_error(theirs, 404, "Not Found").await;
    let anonymous = api
        .get(&format!("{}/revisions", path_of(&public)), None)
        .await;
    assert_error(anonymous, 401, "Unauthorized").await;
    for bad in ["0", "-1", "x", "99999999999"] {
        let r = api
            .get(
                &format!("{}/revisions/{bad}", path_of(&public)),
                Some(&ada.token),
            )
            .await;
        assert_error(r, 400, "Bad Request").await;
    }
    let past = api
        .get(
            &format!("{}/revisions/6", path_of(&public)),
            Some(&ada.token),
        )
        .await;
    assert_error(past, 404, "Not Found").await;
}

async fn a_diff_names_the_words_a_revision_changed(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let made = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "d", "content": "the cat sat on the mat" }),
        )
        .await;
    let made = body(made).await;
    api.put(
        &path_of(&made),
        Some(&ada.token),
        json!({ "content": "the dog sat on the mat" }),
    )
    .await;
    let diff = body(
        api.get(
            &format!("{}/revisions/1/diff", path_of(&made)),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(
        (diff["from"].clone(), diff["to"].clone()),
        (json!(1), json!(2))
    );
    let runs = diff["content"].as_array().unwrap();
    let text_of = |op: &str| -> String {
        runs.iter()
            .filter(|r| r["op"] == op)
            .map(|r| r["text"].as_str().unwrap())
            .collect()
    };
    assert!(text_of("removed").contains("cat"));
    assert!(text_of("added").contains("dog"));
    let against = api
        .get(
            &format!("{}/revisions/2/diff?against=1", path_of(&made)),
            Some(&ada.token),
        )
        .await;
    assert_eq!(body(against).await["to"], 1);
    let bad = api
        .get(
            &format!("{}/revisions/1/diff?against=zero", path_of(&made)),
            Some(&ada.token),
        )
        .await;
    assert_error(bad, 400, "Bad Request").await;
}

async fn restoring_a_revision_is_a_new_revision_with_its_state(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let made = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Trip", "content": "day one", "tags": ["travel"], "starred": true, "isPublic": true, "date": "2024-05-01T10:00:00.000Z" }),
        )
        .await;
    let made = body(made).await;
    api.put(
        &path_of(&made),
        Some(&ada.token),
        json!({ "title": "Other", "content": "rewritten", "tags": [], "starred": false, "isPublic": false, "date": "2024-06-01T10:00:00.000Z" }),
    )
    .await;
    let r = api
        .post(
            &format!("{}/revisions/1/restore", path_of(&made)),
            Some(&ada.token),
            json!({}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let etag = header(&r, "etag");
    let back = body(r).await;
    assert_eq!(etag, etag_of(&back));
    assert_eq!(back["revision"], 3);
    for field in ["title", "content", "tags", "starred", "isPublic", "date"] {
        assert_eq!(back[field], made[field], "{field}");
    }
    let history = body(
        api.get(&format!("{}/revisions", path_of(&made)), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(history.as_array().unwrap().len(), 3);
    assert_eq!(history[1]["content"], "rewritten");
}

async fn a_deleted_entry_leaves_everywhere_and_comes_back_whole(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let made = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Lakeside", "content": "swimming", "tags": ["summer"], "starred": true, "isPublic": true }),
        )
        .await;
    let made = body(made).await;
    api.put(
        &path_of(&made),
        Some(&ada.token),
        json!({ "content": "swimming twice" }),
    )
    .await;
    let made = body(api.get(&path_of(&made), Some(&ada.token)).await).await;
    let id = made["_id"].as_str().unwrap().to_owned();
    let deleted = api.delete(&path_of(&made), Some(&ada.token)).await;
    assert_eq!(deleted.status(), StatusCode::OK);
    // Gone, in the same moment, from its URL, the lists, the feed and search.
    assert_error(
        api.get(&path_of(&made), Some(&ada.token)).await,
        404,
        "Not Found",
    )
    .await;
    let own = body(
        api.get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert!(!ids(&own).contains(&id));
    let feed = body(api.get("/api/public/journal-entries?limit=100", None).await).await;
    assert!(!ids(&feed).contains(&id));
    let found = body(
        api.get("/api/search/journal-entries?q=swimming", Some(&ada.token))
            .await,
    )
    .await;
    assert!(!ids(&found).contains(&id));
    // In the trash, the author's only.
    let trash = api.get("/api/user/trash", Some(&ada.token)).await;
    assert_eq!(header(&trash, "x-total-count"), "1");
    let trash = body(trash).await;
    assert_eq!(trash[0]["_id"], id.as_str());
    assert!(trash[0]["deletedAt"].as_str().unwrap().ends_with('Z'));
    let theirs = body(api.get("/api/user/trash", Some(&bob.token)).await).await;
    assert_eq!(theirs, json!([]));
    let steal = api
        .post(
            &format!("/api/user/trash/{id}/restore"),
            Some(&bob.token),
            json!({}),
        )
        .await;
    assert_error(steal, 404, "Not Found").await;
    let purge = api
        .delete(&format!("/api/user/trash/{id}"), Some(&bob.token))
        .await;
    assert_error(purge, 404, "Not Found").await;
    // Back whole.
    let back = api
        .post(
            &format!("/api/user/trash/{id}/restore"),
            Some(&ada.token),
            json!({}),
        )
        .await;
    assert_eq!(back.status(), StatusCode::OK);
    assert_eq!(body(back).await, made);
    let feed = body(api.get("/api/public/journal-entries?limit=100", None).await).await;
    assert!(ids(&feed).contains(&id));
    let history = api
        .get(&format!("{}/revisions", path_of(&made)), Some(&ada.token))
        .await;
    assert_eq!(header(&history, "x-total-count"), "2");
    // Purged: gone for good, history too; a personal access token cannot do that.
    api.delete(&path_of(&made), Some(&ada.token)).await;
    let script = api
        .post(
            "/api/user/tokens",
            Some(&ada.token),
            json!({ "name": "script", "password": ada.password }),
        )
        .await;
    let script = body(script).await["token"].as_str().unwrap().to_owned();
    let refused = api
        .delete(&format!("/api/user/trash/{id}"), Some(&script))
        .await;
    let message = assert_error(refused, 403, "Forbidden").await;
    assert!(message.contains("log in"), "{message}");
    let purged = api
        .delete(&format!("/api/user/trash/{id}"), Some(&ada.token))
        .await;
    assert_eq!(purged.status(), StatusCode::OK);
    let again = api
        .post(
            &format!("/api/user/trash/{id}/restore"),
            Some(&ada.token),
            json!({}),
        )
        .await;
    assert_error(again, 404, "Not Found").await;
    assert_eq!(
        body(api.get("/api/user/trash", Some(&ada.token)).await).await,
        json!([])
    );
}

async fn the_trash_is_swept_after_its_days(db: &str) {
    let api = Api::start_with(db, &["--trash-days", "0", "--housekeeping-every", "200ms"]);
    let ada = api.user("ada").await;
    let made = api.entry(&ada, "short-lived", false).await;
    api.delete(&path_of(&made), Some(&ada.token)).await;
    let started = Instant::now();
    loop {
        let trash = body(api.get("/api/user/trash", Some(&ada.token)).await).await;
        if trash == json!([]) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the sweep never purged it"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let history = api
        .get(&format!("{}/revisions", path_of(&made)), Some(&ada.token))
        .await;
    assert_error(history, 404, "Not Found").await;
}

/// Two `If-Match` fields are one list: refused like a list in one field, whatever the
/// first says.
#[tokio::test]
async fn several_if_match_fields_are_400() {
    let db = crate::support::SqliteDb::new();
    let api = Api::start(&db.url);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "e", false).await;
    let r = api
        .http
        .put(api.url(&path_of(&entry)))
        .bearer_auth(&ada.token)
        .header("if-match", etag_of(&entry))
        .header("if-match", "W/\"x\"")
        .json(&json!({ "content": "x" }))
        .send()
        .await
        .unwrap();
    let message = assert_error(r, 400, "Bad Request").await;
    assert!(message.contains("one header field"), "{message}");
    let big = api
        .get(
            &format!("{}/revisions?limit=21", path_of(&entry)),
            Some(&ada.token),
        )
        .await;
    let message = assert_error(big, 400, "Bad Request").await;
    assert!(message.contains("at most 20"), "{message}");
    let named = api
        .get(
            &format!("{}/revisions/1/diff?against=", path_of(&entry)),
            Some(&ada.token),
        )
        .await;
    let message = assert_error(named, 400, "Bad Request").await;
    assert!(message.starts_with("against"), "{message}");
}
