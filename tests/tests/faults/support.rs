//! Helpers for the fault tests: a user, writers that remember what was acknowledged,
//! checks that it is all still there, and the SQLite integrity check.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use journal_tests::TestServer;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A SQLite database in a temporary directory, removed on drop.
pub struct SqliteDb {
    pub dir: tempfile::TempDir,
    /// `sqlite:<dir>/j.db`
    pub url: String,
}

impl SqliteDb {
    pub fn new() -> SqliteDb {
        SqliteDb::in_dir(tempfile::tempdir().expect("temporary directory"))
    }

    pub fn in_dir(dir: tempfile::TempDir) -> SqliteDb {
        let url = format!("sqlite:{}", dir.path().join("j.db").display());
        SqliteDb { dir, url }
    }

    pub fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("j.db")
    }
}

/// An HTTP client that gives up on a request after 30 s.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("HTTP client")
}

/// Registers a user and returns a token. Tokens outlive restarts: the signing secret is
/// kept in the database.
pub async fn user_token(http: &reqwest::Client, server: &TestServer, who: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let email = format!("{who}.{}.{nanos}@example.com", std::process::id());
    let password = format!("{who} keeps a durable journal");
    let response = http
        .post(server.url("/api/user/register"))
        .json(&json!({ "fullName": who, "nickname": who, "email": email, "password": password }))
        .send()
        .await
        .expect("register");
    assert_eq!(response.status(), StatusCode::CREATED, "register {who}");
    let response = http
        .post(server.url("/api/user/login"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::OK, "login {who}");
    let body: Value = response.json().await.expect("login body");
    body["token"].as_str().expect("token").to_owned()
}

/// An entry the server acknowledged with 201.
#[derive(Clone, Debug)]
pub struct Acked {
    pub id: String,
    pub title: String,
    pub content: String,
    pub is_public: bool,
}

/// The body of the `n`th entry of `client` in `round`: varied text, so a torn or mixed-up
/// write would show.
pub fn entry_body(round: usize, client: usize, n: usize) -> Value {
    json!({
        "title": format!("round {round} client {client} #{n}"),
        "content": format!(
            "Entry {n} of client {client}, round {round}: «ünïcødé», 😀, \"quotes\",\n\ttabs; {}",
            "durable ".repeat(n % 40)
        ),
        "isPublic": n.is_multiple_of(2),
    })
}

/// Creates one entry; `Ok(Some)` on 201, `Ok(None)` when the request got no answer (the
/// server went away), `Err(status, body)` on any other answer.
pub async fn create(
    http: &reqwest::Client,
    base_url: &str,
    token: &str,
    body: &Value,
) -> Result<Option<Acked>, (u16, String)> {
    let response = match http
        .post(format!("{base_url}/api/journal-entries"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
    {
        Ok(response) => response,
        Err(_) => return Ok(None),
    };
    let status = response.status();
    let Ok(text) = response.text().await else {
        // Headers arrived but the body did not: not an acknowledgement.
        return Ok(None);
    };
    if status != StatusCode::CREATED {
        return Err((status.as_u16(), text));
    }
    let entry: Value = serde_json::from_str(&text).map_err(|e| (201, format!("{e}: {text}")))?;
    Ok(Some(Acked {
        id: entry["_id"].as_str().expect("_id").to_owned(),
        title: body["title"].as_str().expect("title").to_owned(),
        content: body["content"].as_str().expect("content").to_owned(),
        is_public: body["isPublic"].as_bool().expect("isPublic"),
    }))
}

/// `clients` writers creating entries until `stop` is set or the server stops answering.
/// Each returns what was acknowledged; any answer other than 201 fails the test.
pub fn spawn_writers(
    clients: usize,
    round: usize,
    base_url: &str,
    token: &str,
    stop: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<Vec<Acked>>> {
    (0..clients)
        .map(|c| {
            let (base_url, token, stop) = (base_url.to_owned(), token.to_owned(), stop.clone());
            tokio::spawn(async move {
                let http = client();
                let mut acked = Vec::new();
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    match create(&http, &base_url, &token, &entry_body(round, c, n)).await {
                        Ok(Some(entry)) => acked.push(entry),
                        Ok(None) => break,
                        Err((status, body)) => {
                            panic!("client {c}: create answered {status} instead of 201: {body}")
                        }
                    }
                    n += 1;
                }
                acked
            })
        })
        .collect()
}

/// Joins the writers and returns everything they saw acknowledged.
pub async fn join_writers(writers: Vec<tokio::task::JoinHandle<Vec<Acked>>>) -> Vec<Acked> {
    let mut all = Vec::new();
    for writer in writers {
        all.extend(writer.await.expect("writer task"));
    }
    all
}

/// Every acknowledged entry is on `server`, exactly as written (read back by 8 clients).
pub async fn assert_all_present(
    http: &reqwest::Client,
    server: &TestServer,
    token: &str,
    acked: &[Acked],
) {
    let readers: Vec<_> = acked
        .chunks(acked.len().div_ceil(8).max(1))
        .map(|chunk| {
            let (http, base, token, chunk) = (
                http.clone(),
                server.base_url.clone(),
                token.to_owned(),
                chunk.to_vec(),
            );
            tokio::spawn(async move {
                for a in chunk {
                    assert_present(&http, &base, &token, &a).await;
                }
            })
        })
        .collect();
    for reader in readers {
        reader.await.expect("reader task");
    }
}

async fn assert_present(http: &reqwest::Client, base_url: &str, token: &str, a: &Acked) {
    let response = http
        .get(format!("{base_url}/api/journal-entries/{}", a.id))
        .bearer_auth(token)
        .send()
        .await
        .expect("read back an entry");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "acknowledged entry {} ({}) is missing",
        a.id,
        a.title
    );
    let entry: Value = response.json().await.expect("entry body");
    assert_eq!(entry["title"], a.title.as_str(), "title of {}", a.id);
    assert_eq!(entry["content"], a.content.as_str(), "content of {}", a.id);
    assert_eq!(entry["isPublic"], a.is_public, "isPublic of {}", a.id);
}

/// `PRAGMA integrity_check` of the SQLite file at `path` is `ok` (run with no server on it).
pub async fn assert_integrity_ok(path: &Path) {
    let store = journal_core::store::sqlite::SqliteStore::open(path)
        .await
        .expect("open the SQLite file after the fault");
    let verdict = store.integrity_check().await.expect("run integrity_check");
    assert_eq!(
        verdict,
        "ok",
        "PRAGMA integrity_check of {}",
        path.display()
    );
}

/// Checks an error answer: `status` with the JSON error body.
pub async fn assert_error_body(response: reqwest::Response, status: u16, reason: &str) {
    assert_eq!(response.status().as_u16(), status, "{}", response.url());
    let body: Value = response.json().await.expect("the error body is JSON");
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["error"], reason, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

/// Sends `signal` (`TERM`, `KILL`) to a process.
pub fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid}");
}
