//! Backends the core's tests run against: SQLite always (a temp file and `:memory:`),
//! PostgreSQL when `JOURNAL_TEST_POSTGRES_URL` is set (each test in a fresh schema).

#![allow(dead_code)]

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

/// Every backend available here, each fresh and empty.
pub async fn backends(test: &str) -> Vec<Backend> {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("journal.db");
    let mut all = vec![
        Backend {
            name: "sqlite file".into(),
            store: journal_core::store::open(&format!("sqlite:{}", file.display()))
                .await
                .expect("open sqlite file"),
            _dir: Some(dir),
        },
        Backend {
            name: "sqlite memory".into(),
            store: journal_core::store::open("sqlite::memory:")
                .await
                .expect("open sqlite memory"),
            _dir: None,
        },
    ];
    if let Some(url) = postgres_url(test) {
        all.push(Backend {
            name: "postgres".into(),
            store: journal_core::store::open(&url)
                .await
                .expect("open postgres"),
            _dir: None,
        });
    }
    all
}

/// A fresh-schema PostgreSQL URL, or `None` after printing why the variant was skipped.
pub fn postgres_url(test: &str) -> Option<String> {
    let base = match std::env::var("JOURNAL_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => {
            eprintln!("skipped: {test} on PostgreSQL (JOURNAL_TEST_POSTGRES_URL is not set)");
            return None;
        }
    };
    if !cfg!(feature = "postgres") {
        eprintln!(
            "skipped: {test} on PostgreSQL (journal-core built without the postgres feature)"
        );
        return None;
    }
    let schema = format!("test_{}", uuid_like());
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{sep}schema={schema}"))
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
