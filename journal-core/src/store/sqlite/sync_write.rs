//! A sync's writes (see `Store::sync_writes`): for each entry, the revisions a replica
//! made, the entry's state after them, where it ends, and a conflict, in the writer's
//! one transaction, each only if its entry is still as the core read it.

use rusqlite::{Connection, OptionalExtension, params};

use super::cache::Touched;
use super::change_numbers::tombstone;
use super::entries::current;
use super::history::{id_of, insert_revision, insert_trashed, range, trashed};
use super::rows::{insert_entry_row, update_entry_row};
use crate::domain::{EntryId, RevisionId, Timestamp};
use crate::model::Entry;
use crate::store::revision_rows::EntryWrite;
use crate::store::sync_write::{Place, SyncWrite, SyncWritten, plan_rows};

/// Writes each of `writes` in turn, all `author`'s (see `Store::sync_writes`).
pub(super) fn write_all(
    c: &Connection,
    author: &str,
    writes: &[SyncWrite],
) -> rusqlite::Result<(SyncWritten, Touched)> {
    let counter = |c: &Connection| -> rusqlite::Result<u64> {
        let n: Option<i64> = c
            .prepare_cached("SELECT change_seq FROM author_counts WHERE author_id = ?1")?
            .query_row([author], |r| r.get(0))
            .optional()?;
        Ok(n.unwrap_or(0) as u64)
    };
    let before = counter(c)?;
    let mut touched = Touched::nothing();
    let mut results = Vec::with_capacity(writes.len());
    for w in writes {
        let (result, t) = write(c, w)?;
        touched.add(t);
        results.push(result);
    }
    let epoch: String = c
        .prepare_cached("SELECT value FROM settings WHERE key = 'sync_epoch'")?
        .query_row([], |r| r.get(0))?;
    let written = SyncWritten {
        results,
        counter: (before, counter(c)?),
        epoch,
    };
    Ok((written, touched))
}

/// Writes `w`.
fn write(c: &Connection, w: &SyncWrite) -> rusqlite::Result<(EntryWrite<Option<Entry>>, Touched)> {
    let id = w.id.to_string();
    let author = w.author.to_string();
    let live = current(c, &id)?;
    let in_trash = match live {
        Some(_) => None,
        None => c
            .prepare_cached("SELECT entry, deleted_at FROM trashed_entries WHERE id = ?1")?
            .query_row([&id], trashed)
            .optional()?
            .map(|t| t.entry),
    };
    let now = live.as_ref().or(in_trash.as_ref());
    let nothing = Touched::nothing();
    if now.is_some_and(|e| e.author_id != w.author) {
        return Ok((EntryWrite::Foreign, nothing));
    }
    match (now, w.expect) {
        (None, Some(_)) => return Ok((EntryWrite::Missing, nothing)),
        (Some(e), expect) if expect != Some(e.revision_id) => {
            let current = Box::new(e.clone());
            return Ok((EntryWrite::Stale { current }, nothing));
        }
        _ => {}
    }
    let Some((rows, entry)) = plan_rows(now, w) else {
        return Ok((EntryWrite::Missing, nothing));
    };
    for row in &rows {
        insert_revision(c, row)?;
    }
    let was_live = live.is_some();
    let was_trashed = in_trash.is_some();
    // Out of the trash whatever comes: back in, its row is written again (a new number).
    if was_trashed {
        c.prepare_cached("DELETE FROM trashed_entries WHERE id = ?1")?
            .execute([&id])?;
    }
    let ended = match w.place {
        Place::Live if was_live => {
            if !rows.is_empty() {
                update_entry_row(c, &entry)?;
            }
            Some(entry)
        }
        Place::Live => {
            insert_entry_row(c, &entry)?;
            Some(entry)
        }
        Place::Trashed(at) => {
            if was_live {
                c.prepare_cached("DELETE FROM entries WHERE id = ?1")?
                    .execute([&id])?;
            }
            insert_trashed(c, &entry, at)?;
            Some(entry)
        }
        Place::Purged => {
            if was_live {
                c.prepare_cached("DELETE FROM entries WHERE id = ?1")?
                    .execute([&id])?;
            }
            c.prepare_cached("DELETE FROM entry_revisions WHERE entry_id = ?1")?
                .execute([&id])?;
            if was_live || was_trashed {
                tombstone(c, &author, &id, Timestamp::now())?;
            }
            None
        }
    };
    if let Some(revision) = w.conflict {
        c.prepare_cached(
            "INSERT OR IGNORE INTO entry_conflicts (author_id, entry_id, revision_id, detected_at)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            author,
            id,
            revision.to_string(),
            Timestamp::now().as_millis()
        ])?;
    }
    Ok((EntryWrite::Done(ended), Touched::entries_of(w.author, true)))
}

/// An entry live or in the trash, with when it was deleted.
fn entry_anywhere(
    c: &Connection,
    id: &str,
) -> rusqlite::Result<Option<(Entry, Option<Timestamp>)>> {
    if let Some(entry) = current(c, id)? {
        return Ok(Some((entry, None)));
    }
    Ok(
        c.prepare_cached("SELECT entry, deleted_at FROM trashed_entries WHERE id = ?1")?
            .query_row([id], trashed)
            .optional()?
            .map(|t| (t.entry, Some(t.deleted_at))),
    )
}

/// [`entry_anywhere`] of each id, in one read.
pub(super) fn entries_anywhere(
    c: &Connection,
    ids: &[String],
) -> rusqlite::Result<Vec<(Entry, Option<Timestamp>)>> {
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        found.extend(entry_anywhere(c, id)?);
    }
    Ok(found)
}

/// The entry each existing revision id belongs to, in one read.
pub(super) fn revision_owners(
    c: &Connection,
    ids: &[String],
) -> rusqlite::Result<Vec<(RevisionId, EntryId)>> {
    let mut owner = c.prepare_cached("SELECT entry_id FROM entry_revisions WHERE id = ?1")?;
    let mut found = Vec::new();
    for id in ids {
        if let Some(entry) = owner
            .query_row([id], |r| r.get::<_, String>(0))
            .optional()?
        {
            found.push((id_of(id)?, id_of(&entry)?));
        }
    }
    Ok(found)
}

/// The revision with this id, of whichever entry.
pub(super) fn revision_by_id(
    c: &Connection,
    id: &str,
) -> rusqlite::Result<Option<crate::model::Revision>> {
    let place: Option<(String, u32)> = c
        .prepare_cached("SELECT entry_id, revision FROM entry_revisions WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match place {
        Some((entry, n)) => Ok(range(c, &entry, n, n)?.pop()),
        None => Ok(None),
    }
}
