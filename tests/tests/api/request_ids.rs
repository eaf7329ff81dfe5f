//! Request ids: every answer carries `X-Request-Id`, a proxy's sane one is kept and an
//! unsafe one replaced, and the request's log lines name it, in text and in JSON.

use journal_tests::TestServer;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::{Api, SqliteDb, header};

#[tokio::test]
async fn every_answer_carries_a_request_id_of_its_own() {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    let mut seen = Vec::new();
    for path in [
        "/api/status",
        "/api/no-such-path",
        "/api/public/journal-entries",
    ] {
        let answer = api.get(path, None).await;
        let id = header(&answer, "x-request-id");
        assert_eq!(id.len(), 36, "a UUID for {path}: {id:?}");
        seen.push(id);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 3, "each request its own id");

    // From a proxy in front: kept when sane, replaced when not (a space, a line break
    // that would forge a log line, too long).
    let kept = api
        .http
        .get(api.url("/api/status"))
        .header("x-request-id", "lb-7f3a:01.req_9")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&kept, "x-request-id"), "lb-7f3a:01.req_9");
    for insane in ["two words", "forged level=error", &"x".repeat(65)] {
        let replaced = api
            .http
            .get(api.url("/api/status"))
            .header("x-request-id", insane)
            .send()
            .await
            .unwrap();
        assert_eq!(replaced.status(), StatusCode::OK);
        let id = header(&replaced, "x-request-id");
        assert_ne!(id, insane);
        assert_eq!(id.len(), 36, "{id}");
    }
}

/// The request's line in the log names its id, so one request's lines can be found
/// together.
#[tokio::test]
async fn the_log_names_each_requests_id_in_text_and_in_json() {
    for json in [false, true] {
        let db = SqliteDb::new();
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("server.log");
        let args: &[&str] = if json { &["--log-format", "json"] } else { &[] };
        let server = TestServer::start_logged_at(&db.url, args, &log, "info");
        let http = reqwest::Client::new();
        let answer = http
            .get(server.url("/api/no-such-path"))
            .header("x-request-id", "trace-me-39")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND);
        drop(server);
        let text = std::fs::read_to_string(&log).unwrap();
        let line = text
            .lines()
            .find(|line| line.contains("trace-me-39"))
            .unwrap_or_else(|| panic!("no line names the id:\n{text}"));
        if json {
            let line: Value = serde_json::from_str(line).expect("a JSON object a line");
            assert_eq!(line["spans"][0]["id"], "trace-me-39", "{line}");
            assert_eq!(line["fields"]["status"], 404, "{line}");
            assert_eq!(line["fields"]["path"], "/api/no-such-path", "{line}");
            for other in text.lines().filter(|l| !l.trim().is_empty()) {
                serde_json::from_str::<Value>(other)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {other}"));
            }
        } else {
            assert!(line.contains("status=404"), "{line}");
            assert!(line.contains("id=trace-me-39"), "{line}");
        }
    }
}

/// At the level operators run with (`warn`), the lines that are written still name the
/// request: here, the warning of a request past its deadline, which answers 503 and
/// would otherwise leave no line at all.
#[tokio::test]
async fn a_request_past_its_deadline_is_logged_with_its_id_at_warn() {
    let db = SqliteDb::new();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let server = TestServer::start_logged_at(&db.url, &["--request-timeout", "1ms"], &log, "warn");
    let http = reqwest::Client::new();
    // A login hashes a password: far more than a millisecond.
    let answer = http
        .post(server.url("/api/user/login"))
        .header("x-request-id", "late-39")
        .json(&serde_json::json!({ "email": "nobody@example.com", "password": "a long password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(header(&answer, "x-request-id"), "late-39");
    drop(server);
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|line| line.contains("past its deadline"))
        .unwrap_or_else(|| panic!("no line for the late request:\n{text}"));
    assert!(line.contains("id=late-39"), "{line}");
}
