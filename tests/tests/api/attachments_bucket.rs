//! Attachments in an S3-compatible bucket, as many servers share one: two servers on one
//! PostgreSQL and one bucket serve each other's uploads and honour a privacy flip at
//! once; a bucket out of reach fails what needs it (503, the JSON body) and nothing
//! else; the collection clears the bucket of what nothing needs. Against s3s-fs, a real
//! S3 server (tests/src/s3.rs); the same attachment tests as the folder's run on a
//! bucket too (`on_every_store!` in attachments.rs and entry_attachments.rs).

use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::attachments::{fetch as read, png, upload, walk};
use crate::support::{FilesAt, SqliteDb, assert_error, body};

macro_rules! on_postgres_and_a_bucket {
    ($($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            #[cfg_attr(
                not(all(s3_tests, postgres_tests)),
                ignore = "needs an S3 server and PostgreSQL: set JOURNAL_TEST_S3_SERVER and JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
            )]
            async fn $name() {
                let files = FilesAt::bucket();
                super::$name(&journal_tests::postgres_url(), &files).await;
            }
        )*
    };
}

mod s3 {
    use super::FilesAt;
    on_postgres_and_a_bucket!(
        an_upload_to_one_server_is_served_by_the_other,
        a_privacy_flip_is_honoured_by_both_servers_at_once,
        a_bucket_out_of_reach_fails_uploads_with_503_and_nothing_else,
        the_collection_clears_the_bucket_of_what_nothing_needs,
    );

    #[tokio::test]
    #[cfg_attr(
        not(s3_tests),
        ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
    )]
    async fn files_move_from_a_folder_to_a_bucket_while_the_server_serves_them() {
        super::files_move_from_a_folder_to_a_bucket_while_the_server_serves_them().await;
    }
}

/// `journal ARGS…` on the bucket's credentials, with a home of its own; its output.
fn journal(args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(journal_tests::cargo_bin("journal"))
        .arg("--config")
        .arg(home.path().join("journal.json"))
        .args(args)
        .env("HOME", home.path())
        .env("AWS_ACCESS_KEY_ID", journal_tests::s3::ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", journal_tests::s3::SECRET_KEY)
        .output()
        .expect("run journal");
    assert!(
        out.status.success(),
        "journal {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The objects in the bucket, by their names.
fn objects(files: &FilesAt) -> Vec<String> {
    let dir = files.stored_dir();
    let mut names: Vec<String> = walk(&dir)
        .into_iter()
        .map(|path| {
            path.strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

async fn an_upload_to_one_server_is_served_by_the_other(db: &str, files: &FilesAt) {
    let one = files.start(db, &[]);
    let two = files.start(db, &[]);
    let ada = one.user("ada").await;
    let entry = one.entry(&ada, "Public, with a photo", true).await;
    let id = entry["_id"].as_str().unwrap();
    let photo = png(false);
    let created = upload(
        &one,
        &ada,
        &format!("/api/journal-entries/{id}/attachments?name=red.png"),
        photo.clone(),
    )
    .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created = body(created).await;
    let url = created["url"].as_str().unwrap();

    let served = read(&two, url, None).await;
    assert_eq!(served.status(), StatusCode::OK);
    let served = served.bytes().await.unwrap();
    assert!(served.starts_with(b"\x89PNG"));
    assert_eq!(
        format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(&served)),
        created["sha256"].as_str().unwrap(),
        "the other server serves the bytes the first stored"
    );
    // And the thumbnail the first made.
    let separator = if url.contains('?') { '&' } else { '?' };
    let thumb = read(&two, &format!("{url}{separator}size=thumb"), None).await;
    assert_eq!(thumb.status(), StatusCode::OK);
    // The entry, read from the other server, names it.
    let listed = body(
        read(
            &two,
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(listed["attachments"][0]["id"], created["id"]);
    // Deleted through the other: gone from both.
    let plain = format!("/api/attachments/{}", created["id"].as_str().unwrap());
    assert_eq!(
        two.delete(&plain, Some(&ada.token)).await.status(),
        StatusCode::OK
    );
    for api in [&one, &two] {
        assert_error(read(api, &plain, Some(&ada.token)).await, 404, "Not Found").await;
    }
}

async fn a_privacy_flip_is_honoured_by_both_servers_at_once(db: &str, files: &FilesAt) {
    let one = files.start(db, &[]);
    let two = files.start(db, &[]);
    let ada = one.user("ada").await;
    let bob = one.user("bob").await;
    let entry = one.entry(&ada, "Public, then not", true).await;
    let id = entry["_id"].as_str().unwrap();
    let created = body(
        upload(
            &one,
            &ada,
            &format!("/api/journal-entries/{id}/attachments?name=notes.txt"),
            b"seen by all, then by me".to_vec(),
        )
        .await,
    )
    .await;
    let plain = format!("/api/attachments/{}", created["id"].as_str().unwrap());
    for api in [&one, &two] {
        assert_eq!(read(api, &plain, None).await.status(), StatusCode::OK);
        assert_eq!(
            read(api, &plain, Some(&bob.token)).await.status(),
            StatusCode::OK
        );
    }

    // Made private on one server: at once, both refuse everyone but its author, on
    // every link, the one that was public included.
    let flipped = one
        .put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "isPublic": false }),
        )
        .await;
    assert_eq!(flipped.status(), StatusCode::OK);
    for api in [&one, &two] {
        assert_error(read(api, &plain, None).await, 404, "Not Found").await;
        assert_error(read(api, &plain, Some(&bob.token)).await, 404, "Not Found").await;
        assert_error(
            read(api, created["url"].as_str().unwrap(), None).await,
            404,
            "Not Found",
        )
        .await;
        assert_eq!(
            read(api, &plain, Some(&ada.token)).await.status(),
            StatusCode::OK
        );
    }
    // And public again, on the other server: both serve it.
    let back = two
        .put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "isPublic": true }),
        )
        .await;
    assert_eq!(back.status(), StatusCode::OK);
    for api in [&one, &two] {
        assert_eq!(read(api, &plain, None).await.status(), StatusCode::OK);
    }
}

async fn a_bucket_out_of_reach_fails_uploads_with_503_and_nothing_else(db: &str, files: &FilesAt) {
    let FilesAt::Bucket(s3) = files else {
        unreachable!("this test stops its S3 server")
    };
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let entry = api.entry(&ada, "Before the outage", false).await;
    let id = entry["_id"].as_str().unwrap();
    let kept = body(
        upload(
            &api,
            &ada,
            &format!("/api/journal-entries/{id}/attachments?name=kept.txt"),
            b"stored before".to_vec(),
        )
        .await,
    )
    .await;
    let plain = format!("/api/attachments/{}", kept["id"].as_str().unwrap());

    // The bucket stops answering. (The S3 server is stopped: a request fails fast, as
    // it does when a store's host is down; one that hangs is bounded by the client's
    // timeouts, in bucket.rs.)
    s3.stop();

    let refused = upload(
        &api,
        &ada,
        "/api/attachments?name=new.txt",
        b"later".to_vec(),
    )
    .await;
    let message = assert_error(refused, 503, "Service Unavailable").await;
    assert!(message.contains("attachment files"), "{message}");
    let unread = read(&api, &plain, Some(&ada.token)).await;
    assert_error(unread, 503, "Service Unavailable").await;

    // Everything without a file goes on: write, change, list, search.
    let written = api.entry(&ada, "During the outage", false).await;
    assert!(written["_id"].is_string());
    let changed = api
        .put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "content": "edited while the bucket was away" }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    let listed: Value = body(
        read(
            &api,
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let with_file = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["_id"] == entry["_id"])
        .unwrap();
    assert_eq!(
        with_file["attachments"][0]["id"], kept["id"],
        "the list still names the file"
    );

    // Back: the file is read, and uploads work again.
    s3.restart();
    let read_again = read(&api, &plain, Some(&ada.token)).await;
    assert_eq!(read_again.status(), StatusCode::OK);
    assert_eq!(read_again.text().await.unwrap(), "stored before");
    let stored = upload(
        &api,
        &ada,
        "/api/attachments?name=new.txt",
        b"later".to_vec(),
    )
    .await;
    assert_eq!(stored.status(), StatusCode::CREATED);
}

async fn the_collection_clears_the_bucket_of_what_nothing_needs(db: &str, files: &FilesAt) {
    let api = files.start(db, &[]);
    let ada = api.user("ada").await;
    let doomed = api.entry(&ada, "To be purged", false).await;
    let kept = api.entry(&ada, "Kept", false).await;
    let doomed_id = doomed["_id"].as_str().unwrap();
    let kept_id = kept["_id"].as_str().unwrap();
    for (entry, name, bytes) in [
        (doomed_id, "red.png", png(false)),
        (doomed_id, "notes.txt", b"short-lived".to_vec()),
        (kept_id, "keep.txt", b"kept".to_vec()),
    ] {
        let stored = upload(
            &api,
            &ada,
            &format!("/api/journal-entries/{entry}/attachments?name={name}"),
            bytes,
        )
        .await;
        assert_eq!(stored.status(), StatusCode::CREATED);
    }
    // Something else keeps files in the same bucket: never the journal's to collect.
    let foreign = files.stored_dir().join("other-app");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), b"not the journal's").unwrap();
    let before = objects(files);
    assert_eq!(before.len(), 4, "{before:?}");

    let path = format!("/api/journal-entries/{doomed_id}");
    assert_eq!(
        api.delete(&path, Some(&ada.token)).await.status(),
        StatusCode::OK
    );
    let purge = format!("/api/user/trash/{doomed_id}");
    assert_eq!(
        api.delete(&purge, Some(&ada.token)).await.status(),
        StatusCode::OK
    );

    let place = files.arg();
    let gc = journal(&[
        "--database",
        db,
        "admin",
        "gc",
        "--json",
        "--attachments",
        &place,
    ]);
    let report: Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert_eq!(report["files"], 2, "{report}");
    let after = objects(files);
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(
        after.contains(&"other-app/notes.txt".to_owned()),
        "{after:?}"
    );
    assert!(after.iter().all(|name| before.contains(name)));
    let listed = body(
        read(
            &api,
            &format!("/api/journal-entries/{kept_id}/attachments"),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    let plain = format!("/api/attachments/{}", listed[0]["id"].as_str().unwrap());
    let served = read(&api, &plain, Some(&ada.token)).await;
    assert_eq!(served.text().await.unwrap(), "kept");
}

/// The runbook's move (docs/OPERATIONS.md, "Moving attachments"): the server restarts
/// on the bucket with the folder as its fallback, every file stays readable while
/// `journal admin move-attachments` copies them, new uploads go to the bucket, and once
/// the fallback is gone every file is still served.
async fn files_move_from_a_folder_to_a_bucket_while_the_server_serves_them() {
    let db = SqliteDb::new();
    let folder = FilesAt::folder();
    let bucket = FilesAt::bucket();
    let before = folder.start(&db.url, &[]);
    let ada = before.user("ada").await;
    let entry = before.entry(&ada, "Photos of the garden", false).await;
    let id = entry["_id"].as_str().unwrap();
    let mut stored = Vec::new();
    for (name, bytes) in [
        ("red.png", png(false)),
        ("notes.txt", b"the roses came back".to_vec()),
    ] {
        let created = upload(
            &before,
            &ada,
            &format!("/api/journal-entries/{id}/attachments?name={name}"),
            bytes.clone(),
        )
        .await;
        assert_eq!(created.status(), StatusCode::CREATED);
        stored.push((
            body(created).await["id"].as_str().unwrap().to_owned(),
            bytes,
        ));
    }
    drop(before);

    // On the bucket, reading the folder behind it: nothing is copied yet, and every
    // file is served.
    let fallback = folder.arg();
    let during = bucket.start(&db.url, &["--attachments-fallback", &fallback]);
    for (attachment, bytes) in &stored {
        let served = read(
            &during,
            &format!("/api/attachments/{attachment}"),
            Some(&ada.token),
        )
        .await;
        assert_eq!(served.status(), StatusCode::OK);
        assert_eq!(&served.bytes().await.unwrap()[..], &bytes[..]);
    }
    // A new upload goes to the bucket, not to the folder.
    let folder_before = walk(&folder.stored_dir()).len();
    let new = upload(
        &during,
        &ada,
        "/api/attachments?name=new.txt",
        b"after".to_vec(),
    )
    .await;
    assert_eq!(new.status(), StatusCode::CREATED);
    let new = body(new).await;
    assert_eq!(walk(&folder.stored_dir()).len(), folder_before);
    assert_eq!(objects(&bucket).len(), 1);

    let target = bucket.arg();
    let moved = journal(&[
        "admin",
        "move-attachments",
        "--json",
        "--from",
        &fallback,
        "--to",
        &target,
    ]);
    let report: Value = serde_json::from_slice(&moved.stdout).unwrap();
    assert_eq!(report["copied"], folder_before, "{report}");
    drop(during);

    // Without the fallback, and with the folder gone: everything is in the bucket.
    drop(folder);
    let after = bucket.start(&db.url, &[]);
    stored.push((new["id"].as_str().unwrap().to_owned(), b"after".to_vec()));
    for (attachment, bytes) in &stored {
        let served = read(
            &after,
            &format!("/api/attachments/{attachment}"),
            Some(&ada.token),
        )
        .await;
        assert_eq!(served.status(), StatusCode::OK, "{attachment}");
        assert_eq!(&served.bytes().await.unwrap()[..], &bytes[..]);
    }
}
