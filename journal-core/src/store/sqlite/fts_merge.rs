//! Search-index merges off the commit path, done when the writer is idle.
//!
//! FTS5 writes each commit's terms as a new segment and merges segments as it goes. By
//! default (`automerge=4`) a commit merges as soon as four segments share a level, so
//! under a stream of creates every commit also rewrites older segments, and a
//! create's bytes and time grow with them. Migration 9 raises `automerge` to 16: commits
//! merge four times less often (faster creates that write fewer bytes each:
//! `docs/PERFORMANCE.md`), at the cost of more segments for a search
//! to read while they pile up. So when no write has come for [`IDLE`], the writer merges
//! a little at a time ([`step`]) until the index is tidy again, and a write that
//! arrives waits for at most one step. Migration 10 keeps `crisismerge`, the count at
//! which a level is merged all at once inside one commit, above `automerge`: equal,
//! every merge was done that way, with the writes queued behind it waiting.

use std::time::Duration;

use rusqlite::Connection;

/// How long the writer waits with no write before it merges.
pub(super) const IDLE: Duration = Duration::from_millis(100);

/// Pages of merge work per step: a few milliseconds.
const PAGES_PER_STEP: u32 = 64;

/// Merges up to [`PAGES_PER_STEP`] pages of the search index's segments, in a
/// transaction of its own. True when it did some work (there may be more to do).
pub(super) fn step(conn: &Connection) -> bool {
    let before = conn.total_changes();
    let merged = conn
        .execute_batch(&format!(
            "BEGIN IMMEDIATE;
             INSERT INTO entries_fts (entries_fts, rank) VALUES ('merge', {PAGES_PER_STEP});
             COMMIT;"
        ))
        .map(|()| conn.total_changes() - before >= 2);
    match merged {
        Ok(worked) => worked,
        Err(e) => {
            // Not ours to fix here (a full disk, another process's lock): the next
            // commit's merges, or the next idle spell, try again.
            let _ = conn.execute_batch("ROLLBACK");
            tracing::debug!(error = %e, "merging the search index failed");
            false
        }
    }
}
