//! Helpers for the API tests: a server with a client, users, entries, and checks of the
//! error body.

use std::sync::atomic::{AtomicU32, Ordering};

use journal_tests::TestServer;
use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};

/// Runs `$name(url)` once on SQLite in a fresh temporary directory (`sqlite`) and once on
/// PostgreSQL (`postgres`), which is ignored, and `cargo test` says so, unless
/// `JOURNAL_TEST_POSTGRES_URL` was set when the tests were built (`build.rs`).
macro_rules! on_every_database {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = $crate::support::SqliteDb::new();
                    super::$name(&db.url).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                #[cfg_attr(
                    not(postgres_tests),
                    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
                )]
                async fn $name() {
                    super::$name(&journal_tests::postgres_url()).await;
                }
            )*
        }
    };
}
pub(crate) use on_every_database;

/// Runs `$name(url, files)` where attachments may be kept: in a folder on SQLite
/// (`sqlite`) and on PostgreSQL (`postgres`), and in an S3-compatible bucket on
/// PostgreSQL (`s3`), the deployment of many servers. The bucket's tests are ignored,
/// and `cargo test` says so, unless the tests were built with an S3 server
/// (`JOURNAL_TEST_S3_SERVER`) and PostgreSQL (`build.rs`).
#[allow(unused_macros)] // the security tests share this file and use only the first
macro_rules! on_every_store {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = $crate::support::SqliteDb::new();
                    super::$name(&db.url, &$crate::support::FilesAt::folder()).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                #[cfg_attr(
                    not(postgres_tests),
                    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
                )]
                async fn $name() {
                    let files = $crate::support::FilesAt::folder();
                    super::$name(&journal_tests::postgres_url(), &files).await;
                }
            )*
        }
        mod s3 {
            $(
                #[tokio::test]
                #[cfg_attr(
                    not(all(s3_tests, postgres_tests)),
                    ignore = "needs an S3 server and PostgreSQL: set JOURNAL_TEST_S3_SERVER and JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
                )]
                async fn $name() {
                    let files = $crate::support::FilesAt::bucket();
                    super::$name(&journal_tests::postgres_url(), &files).await;
                }
            )*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_every_store;

/// Where a test's server keeps attachments: a folder of its own, or a bucket on an S3
/// server of its own.
pub enum FilesAt {
    Folder(tempfile::TempDir),
    Bucket(journal_tests::s3::S3Server),
}

impl FilesAt {
    pub fn folder() -> FilesAt {
        FilesAt::Folder(tempfile::tempdir().expect("temporary directory"))
    }

    pub fn bucket() -> FilesAt {
        FilesAt::Bucket(journal_tests::s3::S3Server::start())
    }

    /// The value of `--attachments`.
    pub fn arg(&self) -> String {
        match self {
            FilesAt::Folder(dir) => dir.path().display().to_string(),
            FilesAt::Bucket(s3) => s3.url(),
        }
    }

    /// The folder on disk the stored bytes end up in (for a bucket, the S3 server's).
    pub fn stored_dir(&self) -> std::path::PathBuf {
        match self {
            FilesAt::Folder(dir) => dir.path().to_owned(),
            FilesAt::Bucket(s3) => s3.bucket_dir(),
        }
    }

    /// A server on `db` keeping attachments here, with more flags.
    pub fn start(&self, db: &str, more: &[&str]) -> Api {
        let place = self.arg();
        let mut args = vec!["--attachments", place.as_str()];
        args.extend_from_slice(more);
        Api::start_with(db, &args)
    }
}

/// A SQLite database in a temporary directory, removed on drop.
pub struct SqliteDb {
    _dir: tempfile::TempDir,
    /// `sqlite:<dir>/j.db`
    pub url: String,
}

impl SqliteDb {
    pub fn new() -> SqliteDb {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite:{}", dir.path().join("j.db").display());
        SqliteDb { _dir: dir, url }
    }
}

/// A user registered and logged in by a test.
#[derive(Clone, Debug)]
pub struct User {
    pub id: String,
    pub email: String,
    pub password: String,
    pub token: String,
}

/// A running server and an HTTP client for it.
pub struct Api {
    pub server: TestServer,
    pub http: reqwest::Client,
}

/// An e-mail address no other test uses, even on a shared PostgreSQL database.
pub fn unique_email(who: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{who}.{}.{nanos}.{}@example.com",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

impl Api {
    pub fn start(database_url: &str) -> Api {
        Api::start_with(database_url, &[])
    }

    pub fn start_with(database_url: &str, args: &[&str]) -> Api {
        Api {
            server: TestServer::start(database_url, args),
            http: reqwest::Client::new(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// A request with an optional bearer token and an optional JSON body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Response {
        let mut request = self.http.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.expect("request reaches the server")
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Response {
        self.send(Method::GET, path, token, None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.send(Method::POST, path, token, Some(body)).await
    }

    pub async fn put(&self, path: &str, token: Option<&str>, body: Value) -> Response {
        self.send(Method::PUT, path, token, Some(body)).await
    }

    pub async fn delete(&self, path: &str, token: Option<&str>) -> Response {
        self.send(Method::DELETE, path, token, None).await
    }

    /// Registers `who` with a unique e-mail and logs in.
    pub async fn user(&self, who: &str) -> User {
        let email = unique_email(who);
        let password = format!("{who} has a long passphrase");
        let response = self
            .post(
                "/api/user/register",
                None,
                json!({ "fullName": format!("{who} Tester"), "nickname": who,
                        "email": email, "password": password }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED, "register {who}");
        let id = body(response).await["userId"]
            .as_str()
            .expect("userId is a string")
            .to_owned();
        let token = self.login(&email, &password).await;
        User {
            id,
            email,
            password,
            token,
        }
    }

    /// Logs in and returns the token.
    pub async fn login(&self, email: &str, password: &str) -> String {
        let response = self
            .post(
                "/api/user/login",
                None,
                json!({ "email": email, "password": password }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "login {email}");
        body(response).await["token"]
            .as_str()
            .expect("token is a string")
            .to_owned()
    }

    /// Creates an entry and returns it.
    pub async fn entry(&self, user: &User, title: &str, public: bool) -> Value {
        let response = self
            .post(
                "/api/journal-entries",
                Some(&user.token),
                json!({ "title": title, "content": format!("content of {title}"), "isPublic": public }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED, "create {title}");
        body(response).await
    }
}

/// The JSON body of a response.
pub async fn body(response: Response) -> Value {
    let text = response.text().await.expect("body is readable");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("body is not JSON ({e}): {text}"))
}

/// The sorted keys of a JSON object.
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// The `_id`s of a JSON array of entries, in order.
pub fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
        .iter()
        .map(|e| e["_id"].as_str().expect("_id is a string").to_owned())
        .collect()
}

/// Checks an error response: its status, a JSON body with exactly `statusCode`, `error`
/// (the reason phrase) and a non-empty `message`. Returns the message.
pub async fn assert_error(response: Response, status: u16, reason: &str) -> String {
    assert_eq!(
        response.status().as_u16(),
        status,
        "status of {}",
        response.url()
    );
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type}"
    );
    let body = body(response).await;
    assert_eq!(keys(&body), ["error", "message", "statusCode"], "{body}");
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["error"], reason, "{body}");
    let message = body["message"].as_str().expect("message is a string");
    assert!(!message.is_empty(), "{body}");
    message.to_owned()
}

/// The value of a header, or "".
pub fn header(response: &Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// Seconds since the epoch, for second-factor codes.
pub fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The code of the step after now: enabling used the current one, and a code is never
/// accepted twice.
pub fn next_code(secret: &str) -> String {
    journal_core::totp::code_at(secret, now_seconds() + 30).unwrap()
}
