//! `journal admin` on PostgreSQL, and `journal admin migrate` from a SQLite journal to
//! PostgreSQL, then served by journal-server. Ignored without JOURNAL_TEST_POSTGRES_URL.

use journal_tests::TestServer;
use serde_json::json;

use crate::{Sandbox, USAGE, check_ok, fail, json, new_entry, succeed, with_stdin};

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
fn a_local_journal_migrates_to_postgres_and_is_served_from_there() {
    let pg = journal_tests::postgres_url();
    let sb = Sandbox::new();
    let first = new_entry(&sb, &["Walked to the lake", "--public"]);
    let evening = new_entry(&sb, &["Private evening notes"]);
    // History, the trash and a file go with the journal.
    sb.ok(&["edit", &evening, "--content", "the evening was long"]);
    let binned = new_entry(&sb, &["Thrown away"]);
    sb.ok(&["rm", &binned, "--yes"]);
    let attachment = attach_notes_and_set_a_password(&sb, &evening);

    let db = format!("sqlite:{}", sb.database.display());
    // The files need a folder the PostgreSQL servers share: refused before anything
    // is copied, so that the migration can run again with one.
    let err = fail(
        sb.journal(&["admin", "migrate", "--from", &db, "--to", &pg]),
        USAGE,
    );
    assert!(err.contains("--attachments"), "{err}");
    let files = sb.path("served-files");
    let files = files.to_str().unwrap();
    let migrate = [
        "--json",
        "admin",
        "migrate",
        "--from",
        &db,
        "--to",
        &pg,
        "--attachments-dir",
        files,
    ];
    let out = sb.ok(&migrate);
    let report = json(&out);
    assert_eq!(
        (
            report["users"].as_u64(),
            report["entries"].as_u64(),
            report["trashed"].as_u64(),
            report["revisions"].as_u64(),
            report["attachments"].as_u64(),
            report["files"].as_u64(),
        ),
        (Some(1), Some(2), Some(1), Some(4), Some(1), Some(1)),
        "{out}"
    );

    // Migrating twice would mix two journals: refused, target unchanged.
    let err = fail(sb.journal(&migrate), USAGE);
    assert!(err.contains("already holds a journal"), "{err}");

    // journal admin works on the PostgreSQL database too.
    succeed(sb.bare(&["--database", &pg, "admin", "promote", "tester@localhost"]));

    let server = TestServer::start(&pg, &["--attachments-dir", files]);
    let http = reqwest::blocking::Client::new();
    let login = log_in(&http, &server);
    let token = login["token"]
        .as_str()
        .expect("the migrated account logs in");
    let profile: serde_json::Value = http
        .get(server.url("/api/user/profile"))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(profile["user"]["role"], "admin");
    let me = profile["user"]["_id"].as_str().unwrap();
    let listed: serde_json::Value = http
        .get(server.url(&format!("/api/user/{me}/journal-entries")))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let titles: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Private evening notes", "Walked to the lake"]);
    assert_eq!(listed[1]["_id"], first, "ids are kept");

    let history: serde_json::Value = http
        .get(server.url(&format!("/api/journal-entries/{evening}/revisions")))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let contents: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(contents.len(), 2, "{history}");
    assert_eq!(contents[0], "the evening was long", "{history}");
    let trash: serde_json::Value = http
        .get(server.url("/api/user/trash"))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(trash[0]["_id"], binned, "{trash}");
    let bytes = http
        .get(server.url(&format!("/api/attachments/{attachment}")))
        .bearer_auth(token)
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    assert_eq!(
        &bytes[..],
        b"what the river said\n",
        "the file moved with its row"
    );
}

/// A journal migrated with its files into a bucket: a server on the new database and
/// the bucket serves the file, byte for byte.
#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn a_journal_migrates_with_its_files_into_a_bucket() {
    let s3 = journal_tests::s3::S3Server::start();
    let sb = Sandbox::new();
    let entry = new_entry(&sb, &["With a file"]);
    let attachment = attach_notes_and_set_a_password(&sb, &entry);
    let from = format!("sqlite:{}", sb.database.display());
    let to = format!("sqlite:{}", sb.path("served.db").display());
    let bucket = s3.url_in(Some("migrated"));
    let out = sb.ok(&[
        "--json",
        "admin",
        "migrate",
        "--from",
        &from,
        "--to",
        &to,
        "--attachments",
        &bucket,
    ]);
    assert_eq!(json(&out)["files"], 1, "{out}");

    let server = TestServer::start(&to, &["--attachments", &bucket]);
    let http = reqwest::blocking::Client::new();
    let login = log_in(&http, &server);
    let token = login["token"].as_str().expect("the account logs in");
    let served = http
        .get(server.url(&format!("/api/attachments/{attachment}")))
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.text().unwrap(), "what the river said\n");
}

/// Attaches a note to `entry` in the local journal, and sets the local owner's password
/// so that the served journal can be logged into; answers the attachment's id.
fn attach_notes_and_set_a_password(sb: &Sandbox, entry: &str) -> String {
    let notes = sb.path("notes.txt");
    std::fs::write(&notes, "what the river said\n").unwrap();
    let attached = sb.ok(&["--json", "attach", entry, notes.to_str().unwrap()]);
    check_ok(with_stdin(
        sb.journal(&["passwd", "--password-stdin"]),
        "migration is easy\n",
    ));
    json(&attached)[0]["id"].as_str().unwrap().to_owned()
}

/// The migrated owner's login on `server`.
fn log_in(http: &reqwest::blocking::Client, server: &TestServer) -> serde_json::Value {
    http.post(server.url("/api/user/login"))
        .json(&json!({"email": "tester@localhost", "password": "migration is easy"}))
        .send()
        .unwrap()
        .json()
        .unwrap()
}
