//! The server over time: restarts on the same database, shutdown, bad configuration.

use std::time::Duration;

use reqwest::StatusCode;

use crate::support::{Api, SqliteDb, body, on_every_database};

on_every_database!(restarting_on_the_same_database_keeps_users_entries_and_tokens);

async fn restarting_on_the_same_database_keeps_users_entries_and_tokens(db: &str) {
    let first = Api::start(db);
    let ada = first.user("ada").await;
    let entry = first.entry(&ada, "remember me", false).await;
    first.server.kill();

    let second = Api::start(db);
    let path = format!("/api/journal-entries/{}", entry["_id"].as_str().unwrap());
    // The old token still works: the signing secret lives in the database.
    let response = second.get(&path, Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, entry);
    second.login(&ada.email, &ada.password).await;
}

#[cfg(unix)]
#[tokio::test]
async fn sigterm_stops_the_server_cleanly() {
    let db = SqliteDb::new();
    let mut api = Api::start(&db.url);
    api.user("ada").await;
    let file = db.url.trim_start_matches("sqlite:").to_owned();
    assert!(
        std::path::Path::new(&format!("{file}-wal")).exists(),
        "WAL while running"
    );
    let status = std::process::Command::new("kill")
        .args(["-TERM", &api.server.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let exit = api
        .server
        .wait_exit(Duration::from_secs(10))
        .expect("the server exits after SIGTERM");
    assert!(exit.success(), "{exit}");
    // The database was closed, not abandoned: SQLite checkpoints and removes the WAL
    // when its last connection closes.
    assert!(
        !std::path::Path::new(&format!("{file}-wal")).exists(),
        "WAL left behind"
    );
}

#[test]
fn a_database_that_cannot_be_opened_is_a_clear_error_and_a_failing_exit() {
    let output = std::process::Command::new(journal_tests::cargo_bin("journal-server"))
        .args([
            "--bind",
            "127.0.0.1:0",
            "--database",
            "sqlite:/nonexistent-directory/for/sure/j.db",
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run journal-server");
    // A setting to change, not a failure to retry: exit code 2, naming the flag.
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--database sqlite:/nonexistent-directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
