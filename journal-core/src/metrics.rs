//! What the core tells a [`metrics`] recorder: how long work waits for a database
//! connection, how many writes each SQLite commit carries, the pools' sizes and the
//! caches' counts.
//!
//! The core only emits, through the `metrics` facade; a program that wants the figures
//! installs a recorder (journal-server does, for `--metrics-bind`). Without one every
//! call here is a no-op. The names are stable: dashboards and alerts use them
//! (docs/OPERATIONS.md lists each).

use std::time::Duration;

use crate::model::CacheCounts;

/// Seconds a request waited for a database connection (histogram, by `pool`).
pub const POOL_WAIT: &str = "journal_db_pool_wait_seconds";
/// Connections (or SQLite threads) a pool holds (gauge, by `pool`).
pub const POOL_SIZE: &str = "journal_db_pool_connections";
/// Connections of a pool not in use (gauge, by `pool`).
pub const POOL_IDLE: &str = "journal_db_pool_idle";
/// Requests waiting for a connection of a pool (gauge, by `pool`).
pub const POOL_WAITING: &str = "journal_db_pool_waiting";
/// Writes committed together by the SQLite writer (histogram).
pub const WRITE_BATCH: &str = "journal_sqlite_write_batch_size";
/// Requests a cache answered from memory (counter, by `cache`).
pub const CACHE_HITS: &str = "journal_cache_hits_total";
/// Requests a cache sent to the database (counter, by `cache`).
pub const CACHE_MISSES: &str = "journal_cache_misses_total";

/// The SQLite writer's batch sizes are counted into these buckets (the writer commits
/// at most 256 jobs together).
pub const WRITE_BATCH_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// One pool of database connections as it is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolState {
    /// The pool's name in the `pool` label: `postgres`, `sqlite-reader`,
    /// `sqlite-searcher` or `sqlite-writer`.
    pub name: &'static str,
    /// Connections it holds (for SQLite, threads, each with its connection).
    pub size: usize,
    /// Of those, the ones not in use.
    pub idle: usize,
    /// Requests waiting for one.
    pub waiting: usize,
}

/// Describes every metric the core emits, for the recorder's `# HELP` lines.
pub fn describe() {
    metrics::describe_histogram!(
        POOL_WAIT,
        metrics::Unit::Seconds,
        "Time a request waited for a database connection, by pool."
    );
    metrics::describe_gauge!(POOL_SIZE, "Connections a database pool holds.");
    metrics::describe_gauge!(POOL_IDLE, "Connections of a database pool not in use.");
    metrics::describe_gauge!(
        POOL_WAITING,
        "Requests waiting for a connection of a database pool."
    );
    metrics::describe_histogram!(
        WRITE_BATCH,
        "Writes the SQLite writer committed together (one fsync each batch)."
    );
    metrics::describe_counter!(CACHE_HITS, "Requests a cache answered from memory.");
    metrics::describe_counter!(CACHE_MISSES, "Requests a cache sent to the database.");
}

/// Records that a request waited `waited` for a connection of `pool`.
pub(crate) fn waited(pool: &'static str, waited: Duration) {
    metrics::histogram!(POOL_WAIT, "pool" => pool).record(waited.as_secs_f64());
}

/// Records a commit of the SQLite writer carrying `jobs` writes.
pub(crate) fn write_batch(jobs: usize) {
    metrics::histogram!(WRITE_BATCH).record(jobs as f64);
}

/// Sets the gauges of each pool's state, read at a scrape.
pub(crate) fn report_pools(pools: &[PoolState]) {
    for pool in pools {
        metrics::gauge!(POOL_SIZE, "pool" => pool.name).set(pool.size as f64);
        metrics::gauge!(POOL_IDLE, "pool" => pool.name).set(pool.idle as f64);
        metrics::gauge!(POOL_WAITING, "pool" => pool.name).set(pool.waiting as f64);
    }
}

/// Sets the counters of each cache's cumulative counts, read at a scrape: the store's
/// ([`crate::Journal::report_metrics`]) and a program's own.
pub fn report_caches(caches: &[(&'static str, CacheCounts)]) {
    for (name, counts) in caches {
        metrics::counter!(CACHE_HITS, "cache" => *name).absolute(counts.hits);
        metrics::counter!(CACHE_MISSES, "cache" => *name).absolute(counts.misses);
    }
}
