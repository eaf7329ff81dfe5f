//! Change numbers (migration 19): every row an author's write leaves in `entries`,
//! `trashed_entries` or `entry_tombstones` takes the author's next one, in the
//! statement that writes it; the tables' triggers move the counter on. The feed that
//! reads them is `changes.rs`.

use rusqlite::{Connection, params};

use crate::domain::Timestamp;

/// The author's next change number, as an SQL expression, for the author named by
/// `author` (a placeholder or a column). The statement writes it with its row, and the
/// row's trigger moves the counter on (migration 19).
pub(super) fn next_change(author: &str) -> String {
    // An author deleted meanwhile has no counter: the write goes on to meet the foreign
    // key, which says so (`Conflict::AuthorGone`), rather than a NULL number.
    format!("coalesce((SELECT change_seq + 1 FROM author_counts WHERE author_id = {author}), 1)")
}

/// Leaves a purged entry's tombstone in its author's feed.
pub(super) fn tombstone(
    c: &Connection,
    author: &str,
    id: &str,
    at: Timestamp,
) -> rusqlite::Result<()> {
    c.prepare_cached(&format!(
        "INSERT INTO entry_tombstones (author_id, change_seq, entry_id, purged_at)
         VALUES (?1, {}, ?2, ?3)",
        next_change("?1")
    ))?
    .execute(params![author, id, at.as_millis()])?;
    c.prepare_cached("DELETE FROM entry_conflicts WHERE author_id = ?1 AND entry_id = ?2")?
        .execute([author, id])?;
    Ok(())
}
