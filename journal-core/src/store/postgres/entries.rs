//! Entries one at a time: insert, find, update, delete; an author's tags; and every
//! entry in id order for copying a journal. Paged lists are in `lists.rs` and the
//! layers in front of them in `pages.rs`.

use uuid::Uuid;

use super::errors::map_pg;
use super::history::{holder, insert_revision, insert_trashed};
use super::pool::Db;
use super::rows::{EntryPlaces, INSERT_ENTRY, entry_values, params, place, ts};
use crate::domain::{EntryId, UserId};
use crate::error::StoreResult;
use crate::filter::TagCount;
use crate::model::{EditedVia, Entry};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::revision_rows::first_revision;
use crate::store::{ImportOutcome, ImportRow, StoredEntry, TRIMMED};

/// Inserts entries and their first revisions (made `via`) in one transaction.
pub(super) async fn insert(db: &Db, entries: &[Entry], via: EditedVia) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let stmt = tx.prepare_cached(&INSERT_ENTRY).await.map_err(map_pg)?;
    // By author: each insert locks its author's counter row until the commit, so
    // two batches that took the rows in different orders could deadlock.
    let mut by_author: Vec<&Entry> = entries.iter().collect();
    by_author.sort_by_key(|e| *e.author_id.as_uuid());
    for e in by_author {
        let values = entry_values(e);
        tx.execute(&stmt, &params(&values)).await.map_err(map_pg)?;
        insert_revision(&tx, &first_revision(e, via)).await?;
    }
    tx.commit().await.map_err(map_pg)
}

/// Writes an import (see `Store::import_entries`) in one transaction.
pub(super) async fn import(db: &Db, rows: &[ImportRow]) -> StoreResult<Vec<ImportOutcome>> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    if let Some(first) = rows.first() {
        // Two imports by one author take turns, so the second sees what the first
        // wrote (same id, or same title, text and date) and skips it. NO KEY UPDATE:
        // the author's other writes (which take KEY SHARE for the foreign key) go on.
        tx.execute(
            "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE",
            &[first.entry.author_id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    }
    let same = tx
        .prepare_cached(
            "SELECT 1 FROM entries WHERE author_id = $1
               AND journal_same_text(title, content) = journal_same_text($5, $6)
               AND date >= $2 AND date < $3
               AND btrim(title, $4) = $5 AND btrim(content, $4) = $6 LIMIT 1",
        )
        .await
        .map_err(map_pg)?;
    let insert = tx.prepare_cached(&INSERT_ENTRY).await.map_err(map_pg)?;
    let revision_taken = tx
        .prepare_cached("SELECT 1 FROM entry_revisions WHERE id = ANY($1) LIMIT 1")
        .await
        .map_err(map_pg)?;
    // What the journal held before this import decides what is skipped: two entries of
    // one file alike in title, text and minute are two entries.
    let mut before = Vec::with_capacity(rows.len());
    for row in rows {
        let e = &row.entry;
        let holder = holder(&tx, &e.id).await?;
        let known = holder == Some(e.author_id)
            || tx
                .query_opt(
                    &same,
                    &[
                        e.author_id.as_uuid(),
                        &ts(row.same_from),
                        &ts(row.same_until),
                        &TRIMMED,
                        &e.title.trim_matches(|c| TRIMMED.contains(c)),
                        &e.content.trim_matches(|c| TRIMMED.contains(c)),
                    ],
                )
                .await
                .map_err(map_pg)?
                .is_some();
        before.push((holder, known));
    }
    let mut outcomes = Vec::with_capacity(rows.len());
    for (row, (holder, known)) in rows.iter().zip(before) {
        let e = &row.entry;
        if known {
            outcomes.push(ImportOutcome::Skipped);
            continue;
        }
        let id = if holder.is_some() { row.fresh_id } else { e.id };
        let wanted: Vec<Uuid> = row.revision_ids().map(|r| *r.as_uuid()).collect();
        let taken = !wanted.is_empty()
            && tx
                .query_opt(&revision_taken, &[&wanted])
                .await
                .map_err(map_pg)?
                .is_some();
        let (stored, revisions) = row.to_write(id, holder.is_some() || taken);
        match row.deleted_at {
            None => {
                let values = entry_values(&stored);
                tx.execute(&insert, &params(&values))
                    .await
                    .map_err(map_pg)?;
            }
            Some(at) => insert_trashed(&tx, &stored, at).await?,
        }
        for revision in &revisions {
            insert_revision(&tx, revision).await?;
        }
        if !row.attachments.is_empty() {
            let ids: Vec<Uuid> = row.attachments.iter().map(|a| *a.as_uuid()).collect();
            tx.execute(
                "UPDATE attachments SET entry_id = $1
                 WHERE id = ANY($2) AND author_id = $3 AND entry_id IS NULL AND deleted_at IS NULL",
                &[id.as_uuid(), &ids, e.author_id.as_uuid()],
            )
            .await
            .map_err(map_pg)?;
        }
        outcomes.push(ImportOutcome::Stored {
            id,
            revision_id: stored.revision_id,
        });
    }
    tx.commit().await.map_err(map_pg)?;
    Ok(outcomes)
}

/// An entry with its author's privacy flag.
pub(super) async fn by_id(db: &Db, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
    let row = db
        .query_opt(
            &format!(
                "SELECT {}, u.is_private OR u.disabled AS author_private
                 FROM entries e JOIN users u ON u.id = e.author_id
                 WHERE e.id = $1",
                *SELECT_ENTRY
            ),
            &[id.as_uuid()],
        )
        .await?;
    row.map(|r| {
        Ok(StoredEntry {
            entry: EntryPlaces::of(r.columns())?.entry(&r),
            author_private: r.get(place(r.columns(), "author_private")?),
        })
    })
    .transpose()
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
