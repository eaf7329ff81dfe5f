//! Entries' answers carry their attachments (`{id, name, contentType, size, url}`) in
//! every answer that holds entries, with the link the reader can use; a changed
//! attachment shows in the next answer whatever was rendered before; and the caller's
//! own attachments are listed with the space they take.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, FilesAt, User, assert_error, body, header, keys, on_every_store};

on_every_store!(
    entries_carry_their_attachments_in_every_answer,
    a_changed_attachment_shows_in_the_next_list_answer,
    the_callers_attachments_are_listed_with_the_space_they_take,
);

/// Uploads `text` as a file named `name` for `entry` (or for none); answers it.
async fn upload(api: &Api, user: &User, entry: Option<&str>, name: &str, text: &str) -> Value {
    let path = match entry {
        Some(entry) => format!("/api/journal-entries/{entry}/attachments?name={name}"),
        None => format!("/api/attachments?name={name}"),
    };
    let response = api
        .http
        .post(api.url(&path))
        .bearer_auth(&user.token)
        .header("content-type", "application/octet-stream")
        .body(text.to_owned())
        .send()
        .await
        .expect("upload reaches the server");
    assert_eq!(response.status(), StatusCode::CREATED, "upload {name}");
    body(response).await
}

/// The entry of `id` in a list answer.
fn in_list<'a>(list: &'a Value, id: &str) -> Option<&'a Value> {
    list.as_array()?.iter().find(|e| e["_id"] == id)
}

/// The names of an entry's attachments, in order.
fn names(entry: &Value) -> Vec<String> {
    entry["attachments"]
        .as_array()
        .unwrap_or_else(|| panic!("no attachments in {entry}"))
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn get(api: &Api, path: &str, token: Option<&str>) -> Value {
    let response = api.get(path, token).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    body(response).await
}

async fn entries_carry_their_attachments_in_every_answer(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let public = api.entry(&ada, "Garden public", true).await;
    let private = api.entry(&ada, "Garden private", false).await;
    assert_eq!(public["attachments"], json!([]), "a new entry has none");
    let (p, q) = (
        public["_id"].as_str().unwrap(),
        private["_id"].as_str().unwrap(),
    );
    let first = upload(&api, &ada, Some(p), "first.txt", "the first file").await;
    upload(&api, &ada, Some(p), "second.txt", "the second file").await;
    let secret = upload(&api, &ada, Some(q), "secret.txt", "a private file").await;

    // The single entry: oldest first, exactly these fields, a plain link for a public
    // entry's file.
    let one = get(&api, &format!("/api/journal-entries/{p}"), Some(&ada.token)).await;
    assert_eq!(names(&one), ["first.txt", "second.txt"]);
    let a = &one["attachments"][0];
    assert_eq!(keys(a), ["contentType", "id", "name", "size", "url"]);
    assert_eq!(a["id"], first["id"]);
    assert_eq!(a["size"], "the first file".len());
    assert_eq!(a["contentType"], "text/plain; charset=utf-8");
    assert_eq!(
        a["url"],
        format!("/api/attachments/{}", first["id"].as_str().unwrap())
    );
    let plain = api.get(a["url"].as_str().unwrap(), None).await;
    assert_eq!(
        plain.status(),
        StatusCode::OK,
        "anyone reads a public entry's file"
    );

    // The author's private entry: a signed link that works without a token.
    let mine = get(&api, &format!("/api/journal-entries/{q}"), Some(&ada.token)).await;
    let url = mine["attachments"][0]["url"].as_str().unwrap().to_owned();
    assert!(url.contains("sig="), "{url}");
    let read = api.get(&url, None).await;
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(read.text().await.unwrap(), "a private file");

    // The author's list, search, and the public feed.
    let own = get(
        &api,
        &format!("/api/user/{}/journal-entries", ada.id),
        Some(&ada.token),
    )
    .await;
    assert_eq!(
        names(in_list(&own, p).unwrap()),
        ["first.txt", "second.txt"]
    );
    assert_eq!(names(in_list(&own, q).unwrap()), ["secret.txt"]);
    let found = get(
        &api,
        "/api/search/journal-entries?q=garden",
        Some(&ada.token),
    )
    .await;
    assert_eq!(names(in_list(&found, q).unwrap()), ["secret.txt"]);
    assert!(
        in_list(&found, q).unwrap()["attachments"][0]["url"]
            .as_str()
            .unwrap()
            .contains("sig=")
    );
    let feed = get(&api, "/api/public/journal-entries", None).await;
    assert_eq!(
        names(in_list(&feed, p).unwrap()),
        ["first.txt", "second.txt"]
    );

    // Nobody else sees anything of the private entry's file: not in the public feed,
    // not in the author's list as others see it, not in its own answer.
    let secret_id = secret["id"].as_str().unwrap();
    for (path, token) in [
        ("/api/public/journal-entries".to_owned(), None),
        (
            "/api/public/journal-entries".to_owned(),
            Some(bob.token.as_str()),
        ),
        (
            format!("/api/user/{}/journal-entries", ada.id),
            Some(bob.token.as_str()),
        ),
        (
            "/api/search/journal-entries?q=garden".to_owned(),
            Some(bob.token.as_str()),
        ),
    ] {
        let response = api.get(&path, token).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let text = response.text().await.unwrap();
        assert!(!text.contains(secret_id), "{path} shows the private file");
        assert!(
            !text.contains("secret.txt"),
            "{path} shows the private file"
        );
    }
    assert_error(
        api.get(&format!("/api/journal-entries/{q}"), Some(&bob.token))
            .await,
        404,
        "Not Found",
    )
    .await;

    // Round trip: the entry as answered, sent back as is, answers the same attachments
    // (the field is the answer's; an update never changes them).
    let response = api
        .put(
            &format!("/api/journal-entries/{p}"),
            Some(&ada.token),
            one.clone(),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let updated = body(response).await;
    assert_eq!(updated["attachments"], one["attachments"]);
    let again = get(&api, &format!("/api/journal-entries/{p}"), Some(&ada.token)).await;
    assert_eq!(again["attachments"], one["attachments"]);
}

async fn a_changed_attachment_shows_in_the_next_list_answer(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "Kept page", true).await;
    let id = entry["_id"].as_str().unwrap();
    let own = format!("/api/user/{}/journal-entries", ada.id);
    let feed = "/api/public/journal-entries";
    // First pages are rendered once and kept: read each twice so the next answer
    // would come from what was kept if the attachments were not part of it.
    for _ in 0..2 {
        assert_eq!(
            names(in_list(&get(&api, &own, Some(&ada.token)).await, id).unwrap()),
            Vec::<String>::new()
        );
        assert_eq!(
            names(in_list(&get(&api, feed, None).await, id).unwrap()),
            Vec::<String>::new()
        );
    }
    let added = upload(&api, &ada, Some(id), "added.txt", "new").await;
    assert_eq!(
        names(in_list(&get(&api, &own, Some(&ada.token)).await, id).unwrap()),
        ["added.txt"]
    );
    let first_feed = api.get(feed, None).await;
    let etag = header(&first_feed, "etag");
    assert_eq!(
        names(in_list(&body(first_feed).await, id).unwrap()),
        ["added.txt"]
    );

    let deleted = api
        .delete(
            &format!("/api/attachments/{}", added["id"].as_str().unwrap()),
            Some(&ada.token),
        )
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_eq!(
        names(in_list(&get(&api, &own, Some(&ada.token)).await, id).unwrap()),
        Vec::<String>::new()
    );
    // The feed's validator changes with its attachments: no 304 for the old copy.
    let revalidated = api
        .http
        .get(api.url(feed))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), StatusCode::OK);
    assert_eq!(
        names(in_list(&body(revalidated).await, id).unwrap()),
        Vec::<String>::new()
    );
}

async fn the_callers_attachments_are_listed_with_the_space_they_take(db: &str, files: &FilesAt) {
    let api = files.start(db, &["--attachment-quota", "10KiB"]);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let entry = api.entry(&ada, "Private", false).await;
    let id = entry["_id"].as_str().unwrap();
    let older = upload(&api, &ada, Some(id), "older.txt", &"o".repeat(1000)).await;
    // Uploads are ordered by the millisecond: keep the two apart.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let newer = upload(&api, &ada, None, "loose.txt", &"n".repeat(500)).await;

    let response = api.get("/api/attachments", Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "x-total-count"), "2");
    let list = body(response).await;
    let listed: Vec<&Value> = list.as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], newer["id"], "newest first");
    assert_eq!(
        listed[0]["entryId"],
        Value::Null,
        "an upload not yet attached is listed"
    );
    assert_eq!(listed[1]["id"], older["id"]);
    assert_eq!(listed[1]["entryId"], id);
    let url = listed[1]["url"].as_str().unwrap();
    assert!(url.contains("sig="), "a private entry's file: {url}");
    assert_eq!(api.get(url, None).await.status(), StatusCode::OK);

    let second = api
        .get("/api/attachments?page=2&limit=1", Some(&ada.token))
        .await;
    assert_eq!(second.status(), StatusCode::OK);
    assert!(header(&second, "link").contains("rel=\"prev\""));
    let second = body(second).await;
    assert_eq!(second.as_array().unwrap().len(), 1);
    assert_eq!(second[0]["id"], older["id"]);

    let usage = get(&api, "/api/user/attachment-usage", Some(&ada.token)).await;
    assert_eq!(usage, json!({ "used": 1500, "quota": 10240 }));

    // Others see their own, never ada's; nobody in particular sees nothing.
    assert_eq!(
        get(&api, "/api/attachments", Some(&bob.token)).await,
        json!([])
    );
    assert_eq!(
        get(&api, "/api/user/attachment-usage", Some(&bob.token)).await,
        json!({ "used": 0, "quota": 10240 })
    );
    assert_error(api.get("/api/attachments", None).await, 401, "Unauthorized").await;
    assert_error(
        api.get("/api/user/attachment-usage", None).await,
        401,
        "Unauthorized",
    )
    .await;
    for bad in [
        "limit=100000",
        "limit=0",
        "page=0",
        "page=abc",
        "limit=-1",
        "page=99999999999",
    ] {
        assert_error(
            api.get(&format!("/api/attachments?{bad}"), Some(&ada.token))
                .await,
            400,
            "Bad Request",
        )
        .await;
    }
    // Deleted: off the list and out of the space.
    let gone = api
        .delete(
            &format!("/api/attachments/{}", newer["id"].as_str().unwrap()),
            Some(&ada.token),
        )
        .await;
    assert_eq!(gone.status(), StatusCode::OK);
    let list = get(&api, "/api/attachments", Some(&ada.token)).await;
    assert_eq!(list.as_array().unwrap().len(), 1);

    // Without a quota: null.
    let open = files.start(db, &[]);
    let cy = open.user("cy").await;
    assert_eq!(
        get(&open, "/api/user/attachment-usage", Some(&cy.token)).await,
        json!({ "used": 0, "quota": null })
    );
}
