//! Texts a sync could not merge (`entry_conflicts`, migration 19): listing an
//! author's and settling an entry's. They are written with the sync's write
//! (`sync_write.rs`) and go with the entry when it is purged (`change_numbers.rs`).

use rusqlite::{Connection, Row};

use super::history::{author_page, id_of};
use crate::domain::{PageRequest, RevisionId, Timestamp};
use crate::model::{Conflict, Page};

/// Only conflicts of live entries whose set-aside revision is still there are
/// listed: a trashed entry's come back with it.
const OPEN: &str = "FROM entry_conflicts c
     JOIN entries e ON e.id = c.entry_id AND e.author_id = c.author_id
     JOIN entry_revisions r ON r.id = c.revision_id AND r.entry_id = c.entry_id
     WHERE c.author_id = ?1";

fn conflict(r: &Row<'_>) -> rusqlite::Result<Conflict> {
    Ok(Conflict {
        entry_id: id_of(&r.get::<_, String>(0)?)?,
        title: r.get(1)?,
        revision_id: id_of(&r.get::<_, String>(2)?)?,
        revision: r.get(3)?,
        detected_at: Timestamp::from_millis(r.get(4)?),
    })
}

/// One page of `author`'s open conflicts, newest first.
pub(super) fn page(
    c: &Connection,
    author: &str,
    page: PageRequest,
) -> rusqlite::Result<Page<Conflict>> {
    author_page(
        c,
        author,
        page,
        &format!("SELECT count(*) {OPEN}"),
        &format!(
            "SELECT c.entry_id, e.title, c.revision_id, r.revision, c.detected_at {OPEN}
             ORDER BY c.detected_at DESC, c.entry_id, r.revision LIMIT ?2 OFFSET ?3"
        ),
        conflict,
    )
}

/// The revisions set aside by `author`'s conflicts on entry `id`.
pub(super) fn of_entry(
    c: &Connection,
    author: &str,
    id: &str,
) -> rusqlite::Result<Vec<RevisionId>> {
    c.prepare_cached(
        "SELECT revision_id FROM entry_conflicts WHERE author_id = ?1 AND entry_id = ?2",
    )?
    .query_map([author, id], |r| id_of(&r.get::<_, String>(0)?))?
    .collect()
}

/// Settles `author`'s conflicts on entry `id` that set `revisions` aside; how many
/// there were.
pub(super) fn settle(
    c: &Connection,
    author: &str,
    id: &str,
    revisions: &[String],
) -> rusqlite::Result<u64> {
    let mut settle = c.prepare_cached(
        "DELETE FROM entry_conflicts WHERE author_id = ?1 AND entry_id = ?2 AND revision_id = ?3",
    )?;
    let mut n = 0;
    for revision in revisions {
        n += settle.execute([author, id, revision])? as u64;
    }
    Ok(n)
}
