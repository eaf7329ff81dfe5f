//! Entries one at a time: insert, find, update, delete; an author's tags; and every
//! entry in id order for copying a journal. Paged lists are in `lists.rs`. Writes
//! say what they touched, for the cache.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::cache::Touched;
use super::change_numbers::next_change;
use super::history::{holder, insert_revision, insert_trashed};
use super::rows::{EntryPlaces, insert_entry_row, sql_value, update_same_text};
use crate::filter::TagCount;
use crate::input::EntryChanges;
use crate::model::{EditedVia, Entry};
use crate::store::entry_columns::{Cell, SELECT_ENTRY, update_entry_sql};
use crate::store::import_batch::same_text_key;
use crate::store::revision_rows::{
    Edit, EntryWrite, UpdatePlan, first_revision, plan_update, refusal,
};
use crate::store::{ImportOutcome, ImportRow, StoredEntry, TRIMMED};

/// Inserts one entry and its first revision. A private entry leaves the feed as it
/// was; the author's cached first pages take the entry in.
pub(super) fn insert(
    c: &Connection,
    entry: &Entry,
    via: EditedVia,
) -> rusqlite::Result<((), Touched)> {
    insert_entry_row(c, entry)?;
    insert_revision(c, &first_revision(entry, via))?;
    Ok(((), Touched::created(entry.clone())))
}

/// Inserts many entries in the writer's batch.
pub(super) fn insert_many(c: &Connection, entries: &[Entry]) -> rusqlite::Result<((), Touched)> {
    let mut touched = Touched::nothing();
    for e in entries {
        insert_entry_row(c, e)?;
        insert_revision(c, &first_revision(e, EditedVia::Import))?;
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
    let mut same = c.prepare_cached(
        "SELECT 1 FROM entries WHERE author_id = ?1 AND same_text = ?7
           AND date >= ?2 AND date < ?3
           AND trim(title, ?4) = ?5 AND trim(content, ?4) = ?6 LIMIT 1",
    )?;
    let mut revision_taken = c.prepare_cached("SELECT 1 FROM entry_revisions WHERE id = ?1")?;
    let mut touched = Touched::nothing();
    // What the journal held before this import decides what is skipped: two entries of
    // one file alike in title, text and minute are two entries.
    let mut before = Vec::with_capacity(rows.len());
    for row in rows {
        // An import holds the one writer: it stops once nobody waits for it.
        super::caller::check()?;
        let e = &row.entry;
        let holder = holder(c, &e.id)?;
        let known = holder == Some(e.author_id)
            || same.exists(params![
                e.author_id.to_string(),
                row.same_from.as_millis(),
                row.same_until.as_millis(),
                TRIMMED,
                e.title.trim_matches(|c| TRIMMED.contains(c)),
                e.content.trim_matches(|c| TRIMMED.contains(c)),
                same_text_key(&e.title, &e.content),
            ])?;
        before.push((holder, known));
    }
    let mut outcomes = Vec::with_capacity(rows.len());
    for (row, (holder, known)) in rows.iter().zip(before) {
        super::caller::check()?;
        let e = &row.entry;
        if known {
            outcomes.push(ImportOutcome::Skipped);
            continue;
        }
        let id = if holder.is_some() { row.fresh_id } else { e.id };
        let mut taken = false;
        for revision in row.revision_ids() {
            taken |= revision_taken.exists([revision.to_string()])?;
        }
        let (stored, revisions) = row.to_write(id, holder.is_some() || taken);
        match row.deleted_at {
            None => {
                insert_entry_row(c, &stored)?;
                touched.add(Touched::entries_of(e.author_id, e.is_public));
            }
            Some(at) => insert_trashed(c, &stored, at)?,
        }
        for revision in &revisions {
            insert_revision(c, revision)?;
        }
        if !row.attachments.is_empty() {
            super::attachments::attach(c, &e.author_id, &id, &row.attachments)?;
        }
        outcomes.push(ImportOutcome::Stored {
            id,
            revision_id: stored.revision_id,
        });
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

/// An entry as its writer reads it before changing it: without its author's flags.
pub(super) fn current(c: &Connection, id: &str) -> rusqlite::Result<Option<Entry>> {
    let mut statement = c.prepare_cached(&format!(
        "SELECT {} FROM entries e WHERE e.id = ?1",
        *SELECT_ENTRY
    ))?;
    let places = EntryPlaces::of(&statement)?;
    statement.query_row([id], |r| places.entry(r)).optional()
}

/// Applies the changes and records their revision (see `Store::update_entry`).
pub(super) fn update(
    c: &Connection,
    id: &str,
    changes: &EntryChanges,
    edit: &Edit,
) -> rusqlite::Result<(EntryWrite<Entry>, Touched)> {
    let Some(current) = current(c, id)? else {
        return Ok((EntryWrite::Missing, Touched::nothing()));
    };
    if let Some(refused) = refusal(&current, edit) {
        return Ok((refused, Touched::nothing()));
    }
    let (next, row) = match plan_update(&current, changes, edit) {
        UpdatePlan::Unchanged => return Ok((EntryWrite::Done(current), Touched::nothing())),
        UpdatePlan::Write { next, row } => (next, row),
    };
    let mut values = Vec::new();
    let sql = update_entry_sql(
        changes,
        |n| format!("?{n}"),
        |cell| values.push(cell.map(sql_value)),
        &[format!("change_seq = {}", next_change("entries.author_id"))],
    );
    values.push(Some(sql_value(Cell::Time(next.updated_at))));
    values.push(Some(sql_value(Cell::Count(next.revision))));
    values.push(Some(sql_value(Cell::Id(next.revision_id.as_uuid()))));
    values.push(Some(ToSqlOutput::Borrowed(ValueRef::Text(id.as_bytes()))));
    let mut statement = c.prepare_cached(&sql)?;
    let places = EntryPlaces::of(&statement)?;
    let updated = statement.query_row(params_from_iter(values), |r| places.entry(r))?;
    if changes.title.is_some() || changes.content.is_some() {
        update_same_text(c, &updated)?;
    }
    insert_revision(c, &row)?;
    // The entry may have left or joined the feed, or changed in it.
    let touched = Touched::entries_of(updated.author_id, true);
    Ok((EntryWrite::Done(updated), touched))
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

/// Moves an entry to its author's trash (see `Store::delete_entry`).
pub(super) fn trash(
    c: &Connection,
    id: &str,
    edit: &Edit,
) -> rusqlite::Result<(EntryWrite<Entry>, Touched)> {
    let Some(entry) = current(c, id)? else {
        return Ok((EntryWrite::Missing, Touched::nothing()));
    };
    if let Some(refused) = refusal(&entry, edit) {
        return Ok((refused, Touched::nothing()));
    }
    c.prepare_cached("DELETE FROM entries WHERE id = ?1")?
        .execute([id])?;
    insert_trashed(c, &entry, edit.at)?;
    let touched = Touched::entries_of(entry.author_id, true);
    Ok((EntryWrite::Done(entry), touched))
}
