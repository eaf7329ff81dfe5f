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
    new_entry(&sb, &["Private evening notes"]);
    // The local owner sets a password so that the served journal can be logged into.
    check_ok(with_stdin(
        sb.journal(&["passwd", "--password-stdin"]),
        "migration is easy\n",
    ));

    let db = format!("sqlite:{}", sb.database.display());
    let out = sb.ok(&["--json", "admin", "migrate", "--from", &db, "--to", &pg]);
    let report = json(&out);
    assert_eq!(
        (report["users"].as_u64(), report["entries"].as_u64()),
        (Some(1), Some(2)),
        "{out}"
    );

    // Migrating twice would mix two journals: refused, target unchanged.
    let err = fail(
        sb.journal(&["admin", "migrate", "--from", &db, "--to", &pg]),
        USAGE,
    );
    assert!(err.contains("already holds a journal"), "{err}");

    // journal admin works on the PostgreSQL database too.
    succeed(sb.bare(&["--database", &pg, "admin", "promote", "tester@localhost"]));

    let server = TestServer::start(&pg, &[]);
    let http = reqwest::blocking::Client::new();
    let login: serde_json::Value = http
        .post(server.url("/api/user/login"))
        .json(&json!({"email": "tester@localhost", "password": "migration is easy"}))
        .send()
        .unwrap()
        .json()
        .unwrap();
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
}
