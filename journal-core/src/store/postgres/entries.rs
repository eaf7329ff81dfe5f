//! Entries one at a time: insert, find, update, delete; an author's tags; and every
//! entry in id order for copying a journal. Paged lists are in `lists.rs` and the
//! layers in front of them in `pages.rs`.

use uuid::Uuid;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{
    ENTRY_COLUMN_COUNT, ENTRY_COLUMNS, ENTRY_COLUMNS_BARE, INSERT_ENTRY, entry_from_row,
    entry_params, entry_times, ts,
};
use crate::domain::{EntryId, Timestamp, UserId};
use crate::error::StoreResult;
use crate::filter::TagCount;
use crate::input::EntryChanges;
use crate::model::Entry;
use crate::store::StoredEntry;

/// Inserts entries in one transaction.
pub(super) async fn insert(db: &Db, entries: &[Entry]) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let stmt = tx.prepare_cached(INSERT_ENTRY).await.map_err(map_pg)?;
    // By author: each insert locks its author's counter row until the commit, so
    // two batches that took the rows in different orders could deadlock.
    let mut by_author: Vec<&Entry> = entries.iter().collect();
    by_author.sort_by_key(|e| *e.author_id.as_uuid());
    for e in by_author {
        let times = entry_times(e);
        tx.execute(&stmt, &entry_params(e, &times))
            .await
            .map_err(map_pg)?;
    }
    tx.commit().await.map_err(map_pg)
}

/// An entry with its author's privacy flag.
pub(super) async fn by_id(db: &Db, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
    let row = db
        .query_opt(
            &format!(
                "SELECT {ENTRY_COLUMNS}, u.is_private OR u.disabled
                 FROM entries e JOIN users u ON u.id = e.author_id
                 WHERE e.id = $1"
            ),
            &[id.as_uuid()],
        )
        .await?;
    Ok(row.map(|r| StoredEntry {
        entry: entry_from_row(&r),
        author_private: r.get(ENTRY_COLUMN_COUNT),
    }))
}

/// Applies the changes in one statement; `None` when the entry is gone.
pub(super) async fn update(
    db: &Db,
    id: &EntryId,
    changes: &EntryChanges,
    now: Timestamp,
) -> StoreResult<Option<Entry>> {
    let row = db
        .query_opt(
            &format!(
                "UPDATE entries SET
                title      = COALESCE($1, title),
                content    = COALESCE($2, content),
                is_public  = COALESCE($3, is_public),
                tags       = COALESCE($4, tags),
                starred    = COALESCE($5, starred),
                date       = COALESCE($6, date),
                updated_at = $7
             WHERE id = $8
             RETURNING {ENTRY_COLUMNS_BARE}"
            ),
            &[
                &changes.title.as_ref().map(|v| v.as_ref()),
                &changes.content.as_ref().map(|v| v.as_ref()),
                &changes.is_public,
                &changes.tags.clone().map(|t| t.into_inner()),
                &changes.starred,
                &changes.date.map(ts),
                &ts(now),
                id.as_uuid(),
            ],
        )
        .await?;
    Ok(row.as_ref().map(entry_from_row))
}

/// Deletes an entry; false when there was none.
pub(super) async fn delete(db: &Db, id: &EntryId) -> StoreResult<bool> {
    db.execute_one("DELETE FROM entries WHERE id = $1", &[id.as_uuid()])
        .await
}

/// An author's tags with their counts, most used first, then by name.
pub(super) async fn tags(db: &Db, author: &UserId) -> StoreResult<Vec<TagCount>> {
    let client = db.client().await?;
    let stmt = client
        .prepare_cached(
            "SELECT tag, count(*) AS n FROM entry_tags WHERE author_id = $1
             GROUP BY tag ORDER BY n DESC, tag",
        )
        .await
        .map_err(map_pg)?;
    let rows = client
        .query(&stmt, &[author.as_uuid()])
        .await
        .map_err(map_pg)?;
    Ok(rows
        .iter()
        .map(|r| TagCount {
            tag: r.get(0),
            count: r.get::<_, i64>(1).try_into().unwrap_or(0),
        })
        .collect())
}

/// Entries in id order after `after`, at most `limit`.
pub(super) async fn after(db: &Db, after: Option<&EntryId>, limit: u32) -> StoreResult<Vec<Entry>> {
    let client = db.client().await?;
    let after = after.map(|id| *id.as_uuid()).unwrap_or_else(Uuid::nil);
    let rows = client
        .query(
            &format!(
                "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id > $1 ORDER BY e.id LIMIT $2"
            ),
            &[&after, &i64::from(limit)],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(entry_from_row).collect())
}
