//! Entries one at a time: insert, find, update, delete; an author's tags; and every
//! entry in id order for copying a journal. Paged lists are in `lists.rs`. Writes
//! say what they touched, for the cache.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::cache::Touched;
use super::rows::{EntryPlaces, insert_entry_row, sql_value};
use crate::domain::{Timestamp, UserId};
use crate::filter::TagCount;
use crate::input::EntryChanges;
use crate::model::Entry;
use crate::store::entry_columns::{Cell, SELECT_ENTRY, update_entry_sql};
use crate::store::{ImportOutcome, ImportRow, StoredEntry, TRIMMED};

/// Inserts one entry. A private entry leaves the feed as it was; the author's cached
/// first pages take the entry in.
pub(super) fn insert(c: &Connection, entry: &Entry) -> rusqlite::Result<((), Touched)> {
    insert_entry_row(c, entry)?;
    Ok(((), Touched::created(entry.clone())))
}

/// Inserts many entries in the writer's batch.
pub(super) fn insert_many(c: &Connection, entries: &[Entry]) -> rusqlite::Result<((), Touched)> {
    let mut touched = Touched::nothing();
    for e in entries {
        insert_entry_row(c, e)?;
        touched.add(Touched::entries_of(e.author_id, e.is_public));
    }
    Ok(((), touched))
}

/// Writes an import (see `Store::import_entries`); the writer runs it in one
/// savepoint, so an error leaves nothing of it.
pub(super) fn import(
    c: &Connection,
    rows: &[ImportRow],
) -> rusqlite::Result<(Vec<ImportOutcome>, Touched)> {
    let mut owner = c.prepare_cached("SELECT author_id FROM entries WHERE id = ?1")?;
    let mut same = c.prepare_cached(
        "SELECT 1 FROM entries WHERE author_id = ?1 AND date >= ?2 AND date < ?3
           AND trim(title, ?4) = ?5 AND trim(content, ?4) = ?6 LIMIT 1",
    )?;
    let mut touched = Touched::nothing();
    let mut outcomes = Vec::with_capacity(rows.len());
    for row in rows {
        let e = &row.entry;
        let author = e.author_id.to_string();
        let holder: Option<String> = owner
            .query_row([e.id.to_string()], |r| r.get(0))
            .optional()?;
        let known = holder.as_deref() == Some(author.as_str())
            || same.exists(params![
                author,
                row.same_from.as_millis(),
                row.same_until.as_millis(),
                TRIMMED,
                e.title.trim_matches(|c| TRIMMED.contains(c)),
                e.content.trim_matches(|c| TRIMMED.contains(c)),
            ])?;
        if known {
            outcomes.push(ImportOutcome::Skipped);
            continue;
        }
        let stored = if holder.is_some() {
            let mut moved = e.clone();
            moved.id = row.fresh_id;
            insert_entry_row(c, &moved)?;
            moved.id
        } else {
            insert_entry_row(c, e)?;
            e.id
        };
        touched.add(Touched::entries_of(e.author_id, e.is_public));
        outcomes.push(ImportOutcome::Stored(stored));
    }
    Ok((outcomes, touched))
}

/// An entry with its author's privacy flag.
pub(super) fn by_id(c: &Connection, id: &str) -> rusqlite::Result<Option<StoredEntry>> {
    let mut statement = c.prepare_cached(&format!(
        "SELECT {}, u.is_private OR u.disabled AS author_private
         FROM entries e JOIN users u ON u.id = e.author_id
         WHERE e.id = ?1",
        *SELECT_ENTRY
    ))?;
    let places = EntryPlaces::of(&statement)?;
    statement
        .query_row([id], |r| {
            Ok(StoredEntry {
                entry: places.entry(r)?,
                author_private: r.get("author_private")?,
            })
        })
        .optional()
}

/// Applies the changes in one statement; `None` when the entry is gone.
pub(super) fn update(
    c: &Connection,
    id: &str,
    changes: &EntryChanges,
    now: Timestamp,
) -> rusqlite::Result<(Option<Entry>, Touched)> {
    let mut values = Vec::new();
    let sql = update_entry_sql(
        changes,
        |n| format!("?{n}"),
        |cell| values.push(cell.map(sql_value)),
    );
    values.push(Some(sql_value(Cell::Time(now))));
    values.push(Some(ToSqlOutput::Borrowed(ValueRef::Text(id.as_bytes()))));
    let mut statement = c.prepare_cached(&sql)?;
    let places = EntryPlaces::of(&statement)?;
    statement
        .query_row(params_from_iter(values), |r| places.entry(r))
        .optional()
        .map(|updated| {
            // The entry may have left or joined the feed, or changed in it.
            let touched = updated
                .as_ref()
                .map_or_else(Touched::nothing, |e| Touched::entries_of(e.author_id, true));
            (updated, touched)
        })
}

/// Deletes an entry; false when there was none.
pub(super) fn delete(c: &Connection, id: &str) -> rusqlite::Result<(bool, Touched)> {
    let author: Option<String> = c
        .prepare_cached("DELETE FROM entries WHERE id = ?1 RETURNING author_id")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    let touched = match author.as_deref().map(str::parse::<UserId>) {
        Some(Ok(author)) => Touched::entries_of(author, true),
        Some(Err(_)) => Touched::everything(),
        None => Touched::nothing(),
    };
    Ok((author.is_some(), touched))
}

/// An author's tags with their counts, most used first, then by name.
pub(super) fn tags(c: &Connection, author: &str) -> rusqlite::Result<Vec<TagCount>> {
    c.prepare_cached(
        "SELECT tag, count(*) AS n FROM entry_tags WHERE author_id = ?1
         GROUP BY tag ORDER BY n DESC, tag",
    )?
    .query_map([author], |r| {
        Ok(TagCount {
            tag: r.get(0)?,
            count: r.get::<_, i64>(1)?.try_into().unwrap_or(0),
        })
    })?
    .collect()
}

/// Entries in id order after `after` (empty: from the first), at most `limit`.
pub(super) fn after(c: &Connection, after: &str, limit: u32) -> rusqlite::Result<Vec<Entry>> {
    let mut statement = c.prepare_cached(&format!(
        "SELECT {} FROM entries e WHERE e.id > ?1 ORDER BY e.id LIMIT ?2",
        *SELECT_ENTRY
    ))?;
    let places = EntryPlaces::of(&statement)?;
    statement
        .query_map(params![after, limit], |r| places.entry(r))?
        .collect()
}
