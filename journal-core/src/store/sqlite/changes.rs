//! The change feed (migration 19): an author's changes after a number. The numbers
//! are written with the rows (`change_numbers.rs`).

use rusqlite::{Connection, OptionalExtension, params};

use super::entries::current;
use super::history::{range, trashed};
use super::lists::in_read_transaction;
use crate::domain::{EntryId, Timestamp};
use crate::model::{ChangeState, EntryChange, Revision};
use crate::store::{FEED_PAGE_BYTES, FEED_REVISIONS_PER_CHANGE, StoredChanges, change_bytes};

/// Where a changed entry is, as the feed's first query finds it.
enum Found {
    Live(String),
    Trashed(String),
    Purged(String, Timestamp),
}

/// Up to `limit` of `author`'s changes after `after` (see `Store::changes`).
pub(super) fn feed(
    c: &Connection,
    author: &str,
    start: u64,
    after: u64,
    limit: u32,
) -> rusqlite::Result<StoredChanges> {
    in_read_transaction(c, |c| {
        let (counter, forgotten): (i64, i64) = c
            .prepare_cached(
                "SELECT change_seq, forgotten_through FROM author_counts WHERE author_id = ?1",
            )?
            .query_row([author], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or((0, 0));
        let epoch: String = c
            .prepare_cached("SELECT value FROM settings WHERE key = 'sync_epoch'")?
            .query_row([], |r| r.get(0))?;
        // Each table in its own index order, stopping at `limit`, then merged: one
        // query over the three would sort every change after `after` for each page.
        // One more than asked for, to know whether more come.
        let (after, fetch) = (after as i64, limit + 1);
        let mut found: Vec<(i64, Found)> = Vec::new();
        let mut live = c.prepare_cached(
            "SELECT change_seq, id FROM entries WHERE author_id = ?1 AND change_seq > ?2
             ORDER BY change_seq LIMIT ?3",
        )?;
        for row in live.query_map(params![author, after, fetch], |r| {
            Ok((r.get(0)?, Found::Live(r.get(1)?)))
        })? {
            found.push(row?);
        }
        let mut trash = c.prepare_cached(
            "SELECT change_seq, id FROM trashed_entries WHERE author_id = ?1 AND change_seq > ?2
             ORDER BY change_seq LIMIT ?3",
        )?;
        for row in trash.query_map(params![author, after, fetch], |r| {
            Ok((r.get(0)?, Found::Trashed(r.get(1)?)))
        })? {
            found.push(row?);
        }
        let mut purged = c.prepare_cached(
            "SELECT change_seq, entry_id, purged_at FROM entry_tombstones
             WHERE author_id = ?1 AND change_seq > ?2 ORDER BY change_seq LIMIT ?3",
        )?;
        for row in purged.query_map(params![author, after, fetch], |r| {
            Ok((
                r.get(0)?,
                Found::Purged(r.get(1)?, Timestamp::from_millis(r.get(2)?)),
            ))
        })? {
            found.push(row?);
        }
        found.sort_by_key(|(seq, _)| *seq);
        let mut more = found.len() > limit as usize;
        found.truncate(limit as usize);
        let mut changes = Vec::with_capacity(found.len());
        let mut bytes = 0;
        for (seq, place) in found {
            let change = change(c, place, start)?;
            bytes += change_bytes(&change);
            if bytes > FEED_PAGE_BYTES && !changes.is_empty() {
                more = true;
                break;
            }
            changes.push((seq as u64, change));
        }
        Ok(StoredChanges {
            changes,
            more,
            counter: counter as u64,
            forgotten_through: forgotten as u64,
            epoch,
        })
    })
}

/// The change of an entry found at `place`, with its revisions numbered `start` or
/// later.
fn change(c: &Connection, place: Found, start: u64) -> rusqlite::Result<EntryChange> {
    let missing = || rusqlite::Error::QueryReturnedNoRows;
    let (id, state) = match place {
        Found::Live(id) => {
            let entry = current(c, &id)?.ok_or_else(missing)?;
            (id, ChangeState::Live { entry })
        }
        Found::Trashed(id) => {
            let t = c
                .prepare_cached("SELECT entry, deleted_at FROM trashed_entries WHERE id = ?1")?
                .query_row([&id], trashed)?;
            let state = ChangeState::Trashed {
                entry: t.entry,
                deleted_at: t.deleted_at,
            };
            (id, state)
        }
        Found::Purged(id, purged_at) => (id, ChangeState::Purged { purged_at }),
    };
    let revisions = match state {
        ChangeState::Purged { .. } => Vec::new(),
        _ => revisions_from(c, &id, start)?,
    };
    let id: EntryId = id.parse().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(EntryChange {
        id,
        state,
        revisions,
        attachments: Vec::new(),
    })
}

/// An entry's revisions numbered `start` or later, oldest first, at most the newest
/// [`FEED_REVISIONS_PER_CHANGE`]; at least its current one, so a replica that lacks
/// the entry (restored from the trash, with no new revision) can write it. Revisions
/// written before the change feed existed are numbered 0, so a first sync (from 0)
/// takes them.
fn revisions_from(c: &Connection, id: &str, start: u64) -> rusqlite::Result<Vec<Revision>> {
    let numbers: (Option<u32>, Option<u32>) = c
        .prepare_cached(
            "SELECT min(revision), max(revision) FROM entry_revisions
             WHERE entry_id = ?1 AND change_seq >= ?2",
        )?
        .query_row(params![id, start as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let current: Option<u32> = c
        .prepare_cached("SELECT max(revision) FROM entry_revisions WHERE entry_id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let Some(high) = current else {
        return Ok(Vec::new());
    };
    let low = numbers.0.unwrap_or(high);
    let newest = high.saturating_sub(FEED_REVISIONS_PER_CHANGE - 1);
    range(c, id, low.max(newest), high)
}

/// Drops up to `limit` tombstones of entries purged before `before` (see
/// `Store::forget_tombstones`).
pub(super) fn forget_before(
    c: &Connection,
    before: Timestamp,
    limit: u32,
) -> rusqlite::Result<u64> {
    let gone = c
        .prepare_cached(
            "DELETE FROM entry_tombstones WHERE (author_id, change_seq) IN (
                 SELECT author_id, change_seq FROM entry_tombstones WHERE purged_at < ?1
                 ORDER BY purged_at LIMIT ?2)
             RETURNING author_id, change_seq",
        )?
        .query_map(params![before.as_millis(), limit], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut forget = c.prepare_cached(
        "UPDATE author_counts SET forgotten_through = max(forgotten_through, ?2)
         WHERE author_id = ?1",
    )?;
    for (author, seq) in &gone {
        forget.execute(params![author, seq])?;
    }
    Ok(gone.len() as u64)
}
