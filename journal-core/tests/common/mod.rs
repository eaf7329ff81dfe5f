//! Backends the core's tests run against: SQLite always (a temp file and `:memory:`),
//! PostgreSQL when `JOURNAL_TEST_POSTGRES_URL` is set (each test in a fresh schema).
//! A test on every backend is an `async fn NAME(backend: Backend)` followed by
//! `on_every_backend!(NAME)`; a PostgreSQL test not run is reported as ignored.

#![allow(dead_code, unused_macros, unused_imports)]

use std::sync::Arc;

use journal_core::api::{CreateEntryRequest, LoginRequest, RegisterRequest};
use journal_core::store::Store;
use journal_core::{Caller, Journal, JournalOptions};

/// A store under test and what keeps it alive (its temp directory).
pub struct Backend {
    pub name: String,
    pub store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    /// A fresh SQLite file in a temporary directory.
    pub async fn sqlite_file() -> Backend {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("journal.db");
        Backend {
            name: "sqlite file".into(),
            store: journal_core::store::open(&format!("sqlite:{}", file.display()))
                .await
                .expect("open sqlite file"),
            _dir: Some(dir),
        }
    }

    /// A fresh SQLite database in memory.
    pub async fn sqlite_memory() -> Backend {
        Backend {
            name: "sqlite memory".into(),
            store: journal_core::store::open("sqlite::memory:")
                .await
                .expect("open sqlite memory"),
            _dir: None,
        }
    }

    /// Another fresh, empty store of this one's kind (a journal to move into).
    pub async fn another(&self) -> Backend {
        match self.name.as_str() {
            "sqlite file" => Backend::sqlite_file().await,
            "sqlite memory" => Backend::sqlite_memory().await,
            _ => Backend::postgres().await,
        }
    }

    /// A fresh schema on the PostgreSQL database of `JOURNAL_TEST_POSTGRES_URL`.
    pub async fn postgres() -> Backend {
        Backend {
            name: "postgres".into(),
            store: journal_core::store::open(&postgres_url())
                .await
                .expect("open postgres"),
            _dir: None,
        }
    }
}

/// Runs `async fn $name(backend: Backend)` as one test per backend, in a module of its
/// name: `$name::sqlite_file`, `$name::sqlite_memory` and `$name::postgres`. The last is
/// ignored, and `cargo test` says so, unless PostgreSQL was configured when the tests
/// were built (`build.rs`). `multi_thread` gives each a runtime of 4 worker threads.
macro_rules! on_every_backend {
    ($name:ident) => {
        $crate::common::on_every_backend!($name, [tokio::test]);
    };
    ($name:ident, multi_thread) => {
        $crate::common::on_every_backend!(
            $name,
            [tokio::test(flavor = "multi_thread", worker_threads = 4)]
        );
    };
    ($name:ident, [$($test:tt)*]) => {
        mod $name {
            #[$($test)*]
            async fn sqlite_file() {
                super::$name($crate::common::Backend::sqlite_file().await).await;
            }

            #[$($test)*]
            async fn sqlite_memory() {
                super::$name($crate::common::Backend::sqlite_memory().await).await;
            }

            #[$($test)*]
            #[cfg_attr(
                not(postgres_tests),
                ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
            )]
            async fn postgres() {
                super::$name($crate::common::Backend::postgres().await).await;
            }
        }
    };
}
pub(crate) use on_every_backend;

/// A URL for a fresh, empty schema on the database `JOURNAL_TEST_POSTGRES_URL` names.
/// Only tests that run on PostgreSQL call this, and `build.rs` builds them ignored when
/// no database is configured; so a missing URL here is a test that had to run (as under
/// `JOURNAL_TEST_REQUIRE_POSTGRES=1`) and fails, never one that passes unrun.
pub fn postgres_url() -> String {
    let base = std::env::var("JOURNAL_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| {
            panic!(
                "this PostgreSQL test must run (JOURNAL_TEST_REQUIRE_POSTGRES=1, or the \
                 tests were built with JOURNAL_TEST_POSTGRES_URL set), but \
                 JOURNAL_TEST_POSTGRES_URL is not set: point it at a database the tests \
                 may use (docs/TESTING.md)"
            )
        });
    let schema = format!("test_{}", uuid_like());
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}schema={schema}")
}

fn uuid_like() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{nanos:x}{:x}{n:x}", std::process::id())
}

/// A journal over `store` with a fixed secret and short hashing queue.
pub async fn journal(store: Arc<dyn Store>) -> Journal {
    Journal::with_store(store, JournalOptions::default())
        .await
        .expect("journal over store")
}

pub fn register_request(email: &str, nickname: &str) -> RegisterRequest {
    RegisterRequest {
        full_name: Some(format!("{nickname} Example")),
        nickname: Some(nickname.into()),
        email: Some(email.into()),
        password: Some("correct horse battery".into()),
        ..Default::default()
    }
}

/// Registers, logs in and authenticates a user; returns the caller and the token.
pub async fn user(j: &Journal, email: &str, nickname: &str) -> (Caller, String) {
    j.register(&register_request(email, nickname))
        .await
        .expect("register");
    let token = j
        .login(&LoginRequest {
            email: Some(email.into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .expect("login");
    (j.authenticate(&token).await.expect("authenticate"), token)
}

pub fn entry(title: &str, content: &str, public: bool) -> CreateEntryRequest {
    CreateEntryRequest {
        title: Some(title.into()),
        content: Some(content.into()),
        is_public: Some(public),
        ..Default::default()
    }
}
