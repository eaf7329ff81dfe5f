//! New entries indexed for search once per write batch (migration 12).
//!
//! FTS5 writes the terms it holds in memory as a new index segment at every savepoint,
//! and SQLite opens a savepoint for each statement that fires triggers inside a
//! transaction. So an entry indexed by its own insert's trigger cost a segment per
//! create, each batch wrote as many segments as it held creates, and merging them cost
//! more than writing them. Instead an insert only notes its entry in `fts_pending`, and
//! the writer indexes all the noted entries with one statement just before the batch
//! commits ([`index_pending`]): one segment per batch, as FTS5 is meant to be written.

use rusqlite::Connection;

/// Adds every entry noted in `fts_pending` to the search index and clears the notes,
/// in the batch's open transaction, before it commits. Entries in rowid order: FTS5
/// starts a new segment whenever a rowid is lower than the one before.
pub(super) fn index_pending(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO entries_fts (rowid, title, content, tags)
         SELECT e.seq, journal_terms(e.author_id, e.title), journal_terms(e.author_id, e.content),
                journal_terms(e.author_id, e.tags)
         FROM fts_pending p JOIN entries e ON e.seq = p.seq
         ORDER BY p.seq",
    )?
    .execute([])?;
    conn.prepare_cached("DELETE FROM fts_pending")?
        .execute([])?;
    Ok(())
}
