//! The core's rules through its public API, on every backend: validation, tokens,
//! search, pagination and concurrency.

#[path = "../common/mod.rs"]
mod common;

mod accounts;
mod caches;
mod files;
mod lists;
mod search;
mod validation;

use journal_core::Error;
use journal_core::domain::PageRequest;

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef-test";

fn page(p: i64, l: i64) -> PageRequest {
    PageRequest::new(Some(p), Some(l)).unwrap()
}

/// The URL of the SQLite file `file` in `dir`.
fn sqlite_url(dir: &tempfile::TempDir, file: &str) -> String {
    format!("sqlite:{}", dir.path().join(file).display())
}

/// `count` of the store's caches named in `names`, summed.
fn cache_count(
    store: &dyn journal_core::store::Store,
    names: &[&str],
    count: fn(&journal_core::CacheCounts) -> u64,
) -> u64 {
    store
        .cache_counts()
        .iter()
        .filter(|(name, _)| names.contains(name))
        .map(|(_, c)| count(c))
        .sum()
}

fn validation(result: journal_core::Result<impl std::fmt::Debug>) -> (String, String) {
    match result {
        Err(Error::Validation(e)) => (e.field.to_owned(), e.message),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}
