//! Revisions and the trash: recording a revision with each write, reading an entry's
//! history back, and moving entries to and from the trash. What a revision row holds
//! and how its text is kept small is `store/revision_rows.rs`, shared with PostgreSQL.

use std::sync::LazyLock;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::cache::Touched;
use super::change_numbers::{next_change, tombstone};
use super::lists::in_read_transaction;
use super::rows::insert_entry_row;
use crate::domain::{EntryId, PageRequest, RevisionId, Timestamp, UserId};
use crate::model::{EditedVia, Entry, Page, Revision, TrashedEntry};
use crate::store::revision_rows::{
    HistoryKeep, REVISION_COLUMNS, RevisionRow, page_numbers_sql, plan_prune, prune_candidates_sql,
    rebuild, rows_for_range_sql,
};

fn p(n: usize) -> String {
    format!("?{n}")
}

/// The statement [`insert_revision`] runs: the row's columns, then the author's change
/// counter as it stands (migration 19).
static INSERT_REVISION: LazyLock<String> = LazyLock::new(|| {
    let values: Vec<String> = (1..=11).map(p).collect();
    format!(
        "INSERT INTO entry_revisions ({REVISION_COLUMNS}, change_seq)
         VALUES ({}, coalesce((SELECT change_seq FROM author_counts WHERE author_id = ?3), 0))",
        values.join(", ")
    )
});

/// Writes one revision row.
pub(super) fn insert_revision(c: &Connection, row: &RevisionRow) -> rusqlite::Result<()> {
    let values = [
        Value::Text(row.id.to_string()),
        Value::Text(row.entry_id.to_string()),
        Value::Text(row.author_id.to_string()),
        row.parent_id
            .map_or(Value::Null, |id| Value::Text(id.to_string())),
        Value::Integer(row.revision.into()),
        Value::Integer(row.edited_at.as_millis()),
        Value::Text(row.via.as_str().to_owned()),
        Value::Text(row.state.clone()),
        Value::Text(row.content.clone()),
        row.delta
            .map_or(Value::Null, |(k, _)| Value::Integer(k.into())),
        row.delta
            .map_or(Value::Null, |(_, k)| Value::Integer(k.into())),
    ];
    c.prepare_cached(&INSERT_REVISION)?
        .execute(params_from_iter(values))?;
    Ok(())
}

pub(super) fn conversion(e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}

pub(super) fn id_of<T: std::str::FromStr>(text: &str) -> rusqlite::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    text.parse().map_err(conversion)
}

fn revision_row(r: &Row<'_>) -> rusqlite::Result<RevisionRow> {
    let parent: Option<String> = r.get(3)?;
    let keep_prefix: Option<u32> = r.get(9)?;
    let keep_suffix: Option<u32> = r.get(10)?;
    Ok(RevisionRow {
        id: id_of(&r.get::<_, String>(0)?)?,
        entry_id: id_of(&r.get::<_, String>(1)?)?,
        author_id: id_of(&r.get::<_, String>(2)?)?,
        parent_id: parent.as_deref().map(id_of::<RevisionId>).transpose()?,
        revision: r.get(4)?,
        edited_at: Timestamp::from_millis(r.get(5)?),
        via: EditedVia::from_name(&r.get::<_, String>(6)?),
        state: r.get(7)?,
        content: r.get(8)?,
        delta: keep_prefix.zip(keep_suffix),
    })
}

/// The revisions numbered `low ..= high` of an entry, oldest first.
pub(super) fn range(
    c: &Connection,
    id: &str,
    low: u32,
    high: u32,
) -> rusqlite::Result<Vec<Revision>> {
    let rows = c
        .prepare_cached(&rows_for_range_sql(p))?
        .query_map(params![id, low, high], revision_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut revisions = rebuild(rows).map_err(conversion)?;
    revisions.retain(|r| r.revision >= low);
    Ok(revisions)
}

/// One page of an entry's revisions, newest first.
pub(super) fn page(
    c: &Connection,
    id: &str,
    page: PageRequest,
) -> rusqlite::Result<Page<Revision>> {
    in_read_transaction(c, |c| {
        let total: i64 = c
            .prepare_cached("SELECT count(*) FROM entry_revisions WHERE entry_id = ?1")?
            .query_row([id], |r| r.get(0))?;
        let numbers = c
            .prepare_cached(&page_numbers_sql(p))?
            .query_map(params![id, page.limit(), page.offset()], |r| {
                r.get::<_, u32>(0)
            })?
            .collect::<rusqlite::Result<Vec<u32>>>()?;
        let items = match (numbers.last(), numbers.first()) {
            (Some(&low), Some(&high)) => {
                let mut items = range(c, id, low, high)?;
                items.reverse();
                items
            }
            _ => Vec::new(),
        };
        Ok(Page::exact(items, total, page))
    })
}

/// Revision `number` of an entry.
pub(super) fn one(c: &Connection, id: &str, number: u32) -> rusqlite::Result<Option<Revision>> {
    in_read_transaction(c, |c| Ok(range(c, id, number, number)?.pop()))
}

pub(super) fn trashed(r: &Row<'_>) -> rusqlite::Result<TrashedEntry> {
    Ok(TrashedEntry {
        entry: serde_json::from_str(&r.get::<_, String>(0)?).map_err(conversion)?,
        deleted_at: Timestamp::from_millis(r.get(1)?),
    })
}

/// One page of an author's trash, newest deletion first.
pub(super) fn trash_page(
    c: &Connection,
    author: &str,
    page: PageRequest,
) -> rusqlite::Result<Page<TrashedEntry>> {
    author_page(
        c,
        author,
        page,
        "SELECT count(*) FROM trashed_entries WHERE author_id = ?1",
        "SELECT entry, deleted_at FROM trashed_entries WHERE author_id = ?1
         ORDER BY deleted_at DESC, id DESC LIMIT ?2 OFFSET ?3",
        trashed,
    )
}

/// One page of one author's rows, counted, in one read transaction: `count` takes the
/// author (`?1`), `items` the author, the page's limit and offset (`?1`–`?3`).
pub(super) fn author_page<T>(
    c: &Connection,
    author: &str,
    page: PageRequest,
    count: &str,
    items: &str,
    row: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Page<T>> {
    in_read_transaction(c, |c| {
        let total: i64 = c.prepare_cached(count)?.query_row([author], |r| r.get(0))?;
        let items = c
            .prepare_cached(items)?
            .query_map(params![author, page.limit(), page.offset()], row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Page::exact(items, total, page))
    })
}

/// Puts an entry of `author`'s trash back.
pub(super) fn untrash(
    c: &Connection,
    author: &str,
    id: &str,
) -> rusqlite::Result<(Option<Entry>, Touched)> {
    let entry: Option<String> = c
        .prepare_cached(
            "DELETE FROM trashed_entries WHERE id = ?1 AND author_id = ?2 RETURNING entry",
        )?
        .query_row([id, author], |r| r.get(0))
        .optional()?;
    let Some(entry) = entry else {
        return Ok((None, Touched::nothing()));
    };
    let entry: Entry = serde_json::from_str(&entry).map_err(conversion)?;
    insert_entry_row(c, &entry)?;
    let touched = Touched::entries_of(entry.author_id, true);
    Ok((Some(entry), touched))
}

/// Removes an entry of `author`'s trash and its revisions.
pub(super) fn purge(c: &Connection, author: &str, id: &str) -> rusqlite::Result<(bool, Touched)> {
    let gone = c
        .prepare_cached("DELETE FROM trashed_entries WHERE id = ?1 AND author_id = ?2")?
        .execute([id, author])?
        == 1;
    if gone {
        c.prepare_cached("DELETE FROM entry_revisions WHERE entry_id = ?1")?
            .execute([id])?;
        tombstone(c, author, id, Timestamp::now())?;
    }
    Ok((gone, Touched::nothing()))
}

/// Purges up to `limit` entries deleted before `before`.
pub(super) fn purge_before(
    c: &Connection,
    before: Timestamp,
    limit: u32,
) -> rusqlite::Result<(u64, Touched)> {
    let ids = c
        .prepare_cached(
            "DELETE FROM trashed_entries WHERE id IN (
                 SELECT id FROM trashed_entries WHERE deleted_at < ?1
                 ORDER BY deleted_at LIMIT ?2)
             RETURNING id, author_id",
        )?
        .query_map(params![before.as_millis(), limit], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut revisions = c.prepare_cached("DELETE FROM entry_revisions WHERE entry_id = ?1")?;
    let now = Timestamp::now();
    for (id, author) in &ids {
        revisions.execute([id])?;
        tombstone(c, author, id, now)?;
    }
    Ok((ids.len() as u64, Touched::nothing()))
}

/// The author of an entry id, live or in the trash (an import's id check).
pub(super) fn holder(c: &Connection, id: &EntryId) -> rusqlite::Result<Option<UserId>> {
    let text: Option<String> = c
        .prepare_cached(
            "SELECT author_id FROM entries WHERE id = ?1
             UNION ALL SELECT author_id FROM trashed_entries WHERE id = ?1 LIMIT 1",
        )?
        .query_row([id.to_string()], |r| r.get(0))
        .optional()?;
    text.as_deref().map(id_of).transpose()
}

/// Prunes the history of up to `limit` entries (see `Store::prune_history`).
pub(super) fn prune(
    c: &Connection,
    keep: &HistoryKeep,
    now: Timestamp,
    limit: u32,
) -> rusqlite::Result<(u64, Touched)> {
    let (count, before) = keep.bounds(now);
    let ids = c
        .prepare_cached(&prune_candidates_sql(p))?
        .query_map(params![count, before.as_millis(), limit], |r| {
            r.get::<_, String>(0)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut removed = 0;
    for id in ids {
        let rows = c
            .prepare_cached(&format!(
                "SELECT {REVISION_COLUMNS} FROM entry_revisions WHERE entry_id = ?1 ORDER BY revision"
            ))?
            .query_map([&id], revision_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let held = c
            .prepare_cached("SELECT revision_id FROM entry_conflicts WHERE entry_id = ?1")?
            .query_map([&id], |r| id_of(&r.get::<_, String>(0)?))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let plan = plan_prune(rows, keep, now, &held).map_err(conversion)?;
        let mut whole = c.prepare_cached(
            "UPDATE entry_revisions SET state = ?1, content = ?2, keep_prefix = NULL,
                 keep_suffix = NULL
             WHERE entry_id = ?3 AND revision = ?4",
        )?;
        for (n, state, text) in &plan.make_whole {
            whole.execute(params![state, text, id, n])?;
        }
        let mut delete =
            c.prepare_cached("DELETE FROM entry_revisions WHERE entry_id = ?1 AND revision = ?2")?;
        for n in &plan.delete {
            delete.execute(params![id, n])?;
        }
        removed += plan.delete.len() as u64;
    }
    Ok((removed, Touched::nothing()))
}

/// Writes an entry into its author's trash, deleted at `at` (a delete, or an import
/// of an export's trash).
pub(super) fn insert_trashed(c: &Connection, entry: &Entry, at: Timestamp) -> rusqlite::Result<()> {
    c.prepare_cached(&format!(
        "INSERT INTO trashed_entries (id, author_id, deleted_at, entry, change_seq)
         VALUES (?1, ?2, ?3, ?4, {})",
        next_change("?2")
    ))?
    .execute(params![
        entry.id.to_string(),
        entry.author_id.to_string(),
        at.as_millis(),
        serde_json::to_string(entry).map_err(conversion)?
    ])?;
    Ok(())
}
