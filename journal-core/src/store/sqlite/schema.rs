//! The SQLite schema: versioned migrations, recorded in `PRAGMA user_version`.
//!
//! Each migration is a file in `migrations/`, applied in order once. Superseded steps
//! stay: a file written by an older build upgrades through every step in between.

use rusqlite::Connection;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_initial.sql"),
    include_str!("migrations/002_fts_author_column.sql"),
    include_str!("migrations/003_list_counts.sql"),
    include_str!("migrations/004_author_scoped_terms.sql"),
];

/// Brings the database up to the newest schema. The connection must have the store's
/// SQL functions registered: migrations call `journal_terms`.
pub(super) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let done: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        // Some migrations rebuild an index over every entry (about a minute per million
        // entries): say so, or a server that is upgrading looks hung.
        tracing::info!(version = i + 1, "applying SQLite migration");
        let started = std::time::Instant::now();
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
        tracing::info!(version = i + 1, elapsed = ?started.elapsed(), "SQLite migration applied");
    }
    Ok(())
}
