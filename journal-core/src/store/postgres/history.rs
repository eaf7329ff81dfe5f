//! Revisions and the trash: recording a revision with each write, reading an entry's
//! history back, and moving entries to and from the trash. What a revision row holds
//! and how its text is kept small is `store/revision_rows.rs`, shared with SQLite.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{EntryPlaces, INSERT_ENTRY, PgValue, entry_values, from_ts, params, ts};
use super::tombstones::tombstones;
use crate::domain::{EntryId, PageRequest, RevisionId, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::input::EntryChanges;
use crate::model::{EditedVia, Entry, Page, Revision, TrashedEntry};
use crate::store::entry_columns::{Cell, SELECT_ENTRY, update_entry_sql};
use crate::store::revision_rows::{
    Edit, EntryWrite, HistoryKeep, REVISION_COLUMNS, RevisionRow, UpdatePlan, insert_revision_sql,
    page_numbers_sql, plan_prune, plan_update, prune_candidates_sql, rebuild, refusal,
    rows_for_range_sql,
};

fn p(n: usize) -> String {
    format!("${n}")
}

/// Writes one revision row.
pub(super) async fn insert_revision(
    client: &impl GenericClient,
    row: &RevisionRow,
) -> StoreResult<()> {
    let revision = i32::try_from(row.revision).map_err(StoreError::internal)?;
    let edited_at = ts(row.edited_at);
    let (keep_prefix, keep_suffix) = match row.delta {
        Some((a, b)) => (
            Some(i32::try_from(a).map_err(StoreError::internal)?),
            Some(i32::try_from(b).map_err(StoreError::internal)?),
        ),
        None => (None, None),
    };
    let parent = row.parent_id.map(|id| *id.as_uuid());
    let values: [&(dyn ToSql + Sync); 11] = [
        row.id.as_uuid(),
        row.entry_id.as_uuid(),
        row.author_id.as_uuid(),
        &parent,
        &revision,
        &edited_at,
        &row.via.as_str(),
        &row.state,
        &row.content,
        &keep_prefix,
        &keep_suffix,
    ];
    let stmt = client
        .prepare_cached(&insert_revision_sql(p))
        .await
        .map_err(map_pg)?;
    client.execute(&stmt, &values).await.map_err(map_pg)?;
    Ok(())
}

async fn current_for_update(tx: &impl GenericClient, id: &EntryId) -> StoreResult<Option<Entry>> {
    let row = tx
        .query_opt(
            &format!(
                "SELECT {} FROM entries e WHERE e.id = $1 FOR UPDATE",
                *SELECT_ENTRY
            ),
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    row.map(|r| Ok(EntryPlaces::of(r.columns())?.entry(&r)))
        .transpose()
}

/// Applies the changes and records their revision (see `Store::update_entry`).
pub(super) async fn update(
    db: &Db,
    id: &EntryId,
    changes: &EntryChanges,
    edit: &Edit,
) -> StoreResult<EntryWrite<Entry>> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let Some(current) = current_for_update(&tx, id).await? else {
        return Ok(EntryWrite::Missing);
    };
    if let Some(refused) = refusal(&current, edit) {
        return Ok(refused);
    }
    let (next, row) = match plan_update(&current, changes, edit) {
        UpdatePlan::Unchanged => return Ok(EntryWrite::Done(current)),
        UpdatePlan::Write { next, row } => (next, row),
    };
    // The revision first: its foreign key takes the author's row (KEY SHARE) before the
    // entry's triggers take the author's counters, the order every write keeps, so a
    // concurrent privacy change (users row, then counters) cannot deadlock with it.
    insert_revision(&tx, &row).await?;
    let mut values = Vec::new();
    let sql = update_entry_sql(changes, p, |cell| values.push(PgValue::of(cell)), &[]);
    values.push(PgValue::of(Some(Cell::Time(next.updated_at))));
    values.push(PgValue::of(Some(Cell::Count(next.revision))));
    values.push(PgValue::of(Some(Cell::Id(next.revision_id.as_uuid()))));
    values.push(PgValue::of(Some(Cell::Id(id.as_uuid()))));
    let stmt = tx.prepare_cached(&sql).await.map_err(map_pg)?;
    let updated = tx
        .query_one(&stmt, &params(&values))
        .await
        .map_err(map_pg)?;
    let updated = EntryPlaces::of(updated.columns())?.entry(&updated);
    tx.commit().await.map_err(map_pg)?;
    Ok(EntryWrite::Done(updated))
}

/// Moves an entry to its author's trash (see `Store::delete_entry`).
pub(super) async fn trash_entry(
    db: &Db,
    id: &EntryId,
    edit: &Edit,
) -> StoreResult<EntryWrite<Entry>> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let Some(entry) = current_for_update(&tx, id).await? else {
        return Ok(EntryWrite::Missing);
    };
    if let Some(refused) = refusal(&entry, edit) {
        return Ok(refused);
    }
    // Into the trash first, for the lock order (see `update`).
    let json = serde_json::to_string(&entry).map_err(StoreError::internal)?;
    tx.execute(
        "INSERT INTO trashed_entries (id, author_id, deleted_at, entry) VALUES ($1, $2, $3, $4)",
        &[id.as_uuid(), entry.author_id.as_uuid(), &ts(edit.at), &json],
    )
    .await
    .map_err(map_pg)?;
    tx.execute("DELETE FROM entries WHERE id = $1", &[id.as_uuid()])
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(EntryWrite::Done(entry))
}

fn revision_row(r: &Row) -> StoreResult<RevisionRow> {
    let parent: Option<Uuid> = r.get(3);
    let revision: i32 = r.get(4);
    let keep_prefix: Option<i32> = r.get(9);
    let keep_suffix: Option<i32> = r.get(10);
    let count = |n: i32| u32::try_from(n).map_err(StoreError::internal);
    Ok(RevisionRow {
        id: RevisionId::from_uuid(r.get(0)),
        entry_id: EntryId::from_uuid(r.get(1)),
        author_id: UserId::from_uuid(r.get(2)),
        parent_id: parent.map(RevisionId::from_uuid),
        revision: count(revision)?,
        edited_at: from_ts(r.get(5)),
        via: EditedVia::from_name(r.get(6)),
        state: r.get(7),
        content: r.get(8),
        delta: match (keep_prefix, keep_suffix) {
            (Some(a), Some(b)) => Some((count(a)?, count(b)?)),
            _ => None,
        },
    })
}

/// The revisions numbered `low ..= high` of an entry, oldest first.
pub(super) async fn range(
    client: &impl GenericClient,
    id: &EntryId,
    low: u32,
    high: u32,
) -> StoreResult<Vec<Revision>> {
    let (low_i, high_i) = (
        i32::try_from(low).unwrap_or(i32::MAX),
        i32::try_from(high).unwrap_or(i32::MAX),
    );
    let stmt = client
        .prepare_cached(&rows_for_range_sql(p))
        .await
        .map_err(map_pg)?;
    let rows = client
        .query(&stmt, &[id.as_uuid(), &low_i, &high_i])
        .await
        .map_err(map_pg)?;
    let rows = rows
        .iter()
        .map(revision_row)
        .collect::<StoreResult<Vec<_>>>()?;
    let mut revisions = rebuild(rows).map_err(StoreError::internal)?;
    revisions.retain(|r| r.revision >= low);
    Ok(revisions)
}

/// A read-only transaction on one snapshot, for a page and its count.
pub(super) async fn snapshot(
    client: &mut deadpool_postgres::Object,
) -> StoreResult<deadpool_postgres::Transaction<'_>> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(map_pg)
}

/// One page of an entry's revisions, newest first.
pub(super) async fn page(db: &Db, id: &EntryId, page: PageRequest) -> StoreResult<Page<Revision>> {
    let mut client = db.client().await?;
    let tx = snapshot(&mut client).await?;
    let total: i64 = tx
        .query_one(
            "SELECT count(*) FROM entry_revisions WHERE entry_id = $1",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?
        .get(0);
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let numbers: Vec<i32> = tx
        .query(
            &page_numbers_sql(p),
            &[id.as_uuid(), &i64::from(page.limit()), &offset],
        )
        .await
        .map_err(map_pg)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let items = match (numbers.last(), numbers.first()) {
        (Some(&low), Some(&high)) => {
            let count = |n: i32| u32::try_from(n).map_err(StoreError::internal);
            let mut items = range(&tx, id, count(low)?, count(high)?).await?;
            items.reverse();
            items
        }
        _ => Vec::new(),
    };
    tx.commit().await.map_err(map_pg)?;
    Ok(Page::exact(items, total, page))
}

/// Revision `number` of an entry.
pub(super) async fn one(db: &Db, id: &EntryId, number: u32) -> StoreResult<Option<Revision>> {
    let client = db.client().await?;
    Ok(range(&client, id, number, number).await?.pop())
}

pub(super) fn trashed(r: &Row) -> StoreResult<TrashedEntry> {
    Ok(TrashedEntry {
        entry: serde_json::from_str(r.get(0)).map_err(StoreError::internal)?,
        deleted_at: from_ts(r.get(1)),
    })
}

/// One page of an author's trash, newest deletion first.
pub(super) async fn trash_page(
    db: &Db,
    author: &UserId,
    page: PageRequest,
) -> StoreResult<Page<TrashedEntry>> {
    author_page(
        db,
        author,
        page,
        "SELECT count(*) FROM trashed_entries WHERE author_id = $1",
        "SELECT entry, deleted_at FROM trashed_entries WHERE author_id = $1
         ORDER BY deleted_at DESC, id DESC LIMIT $2 OFFSET $3",
        trashed,
    )
    .await
}

/// One page of one author's rows, counted, under one snapshot: `count` takes the
/// author (`$1`), `items` the author, the page's limit and offset (`$1`–`$3`).
pub(super) async fn author_page<T>(
    db: &Db,
    author: &UserId,
    page: PageRequest,
    count: &str,
    items: &str,
    row: impl Fn(&tokio_postgres::Row) -> StoreResult<T>,
) -> StoreResult<Page<T>> {
    let mut client = db.client().await?;
    let tx = snapshot(&mut client).await?;
    let total: i64 = tx
        .query_one(count, &[author.as_uuid()])
        .await
        .map_err(map_pg)?
        .get(0);
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let rows = tx
        .query(
            items,
            &[author.as_uuid(), &i64::from(page.limit()), &offset],
        )
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(Page::exact(
        rows.iter().map(row).collect::<StoreResult<_>>()?,
        total,
        page,
    ))
}

/// Puts an entry of `author`'s trash back.
pub(super) async fn untrash(db: &Db, author: &UserId, id: &EntryId) -> StoreResult<Option<Entry>> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let row = tx
        .query_opt(
            "DELETE FROM trashed_entries WHERE id = $1 AND author_id = $2 RETURNING entry",
            &[id.as_uuid(), author.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    let Some(row) = row else { return Ok(None) };
    let entry: Entry = serde_json::from_str(row.get(0)).map_err(StoreError::internal)?;
    let values = entry_values(&entry);
    tx.execute(INSERT_ENTRY.as_str(), &params(&values))
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(Some(entry))
}

/// Removes an entry of `author`'s trash and its revisions.
pub(super) async fn purge(db: &Db, author: &UserId, id: &EntryId) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let gone = tx
        .execute(
            "DELETE FROM trashed_entries WHERE id = $1 AND author_id = $2",
            &[id.as_uuid(), author.as_uuid()],
        )
        .await
        .map_err(map_pg)?
        == 1;
    if gone {
        tx.execute(
            "DELETE FROM entry_revisions WHERE entry_id = $1",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
        tombstones(&tx, &[(*id.as_uuid(), *author.as_uuid())], Timestamp::now()).await?;
    }
    tx.commit().await.map_err(map_pg)?;
    Ok(gone)
}

/// Purges up to `limit` entries deleted before `before`.
pub(super) async fn purge_before(db: &Db, before: Timestamp, limit: u32) -> StoreResult<u64> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let purged: Vec<(Uuid, Uuid)> = tx
        .query(
            "DELETE FROM trashed_entries WHERE id IN (
                 SELECT id FROM trashed_entries WHERE deleted_at < $1
                 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED)
             RETURNING id, author_id",
            &[&ts(before), &i64::from(limit)],
        )
        .await
        .map_err(map_pg)?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let ids: Vec<Uuid> = purged.iter().map(|(id, _)| *id).collect();
    tx.execute(
        "DELETE FROM entry_revisions WHERE entry_id = ANY($1)",
        &[&ids],
    )
    .await
    .map_err(map_pg)?;
    tombstones(&tx, &purged, Timestamp::now()).await?;
    tx.commit().await.map_err(map_pg)?;
    Ok(ids.len() as u64)
}

/// The author of an entry id, live or in the trash (an import's id check).
pub(super) async fn holder(
    client: &impl GenericClient,
    id: &EntryId,
) -> StoreResult<Option<UserId>> {
    let row = client
        .query_opt(
            "SELECT author_id FROM entries WHERE id = $1
             UNION ALL SELECT author_id FROM trashed_entries WHERE id = $1 LIMIT 1",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    Ok(row.map(|r| UserId::from_uuid(r.get(0))))
}

/// Prunes the history of up to `limit` entries (see `Store::prune_history`), each in
/// a transaction that holds the entry, so no save interleaves.
pub(super) async fn prune(
    db: &Db,
    keep: &HistoryKeep,
    now: Timestamp,
    limit: u32,
) -> StoreResult<u64> {
    let (count, before) = keep.bounds(now);
    let count = i32::try_from(count).unwrap_or(i32::MAX);
    let ids: Vec<Uuid> = db
        .query(
            &prune_candidates_sql(p),
            &[&count, &ts(before), &i64::from(limit)],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut removed = 0;
    for id in ids {
        let mut client = db.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        tx.execute("SELECT 1 FROM entries WHERE id = $1 FOR UPDATE", &[&id])
            .await
            .map_err(map_pg)?;
        let rows = tx
            .query(
                &format!(
                    "SELECT {REVISION_COLUMNS} FROM entry_revisions WHERE entry_id = $1 ORDER BY revision"
                ),
                &[&id],
            )
            .await
            .map_err(map_pg)?;
        let rows = rows
            .iter()
            .map(revision_row)
            .collect::<StoreResult<Vec<_>>>()?;
        let held: Vec<RevisionId> = tx
            .query(
                "SELECT revision_id FROM entry_conflicts WHERE entry_id = $1",
                &[&id],
            )
            .await
            .map_err(map_pg)?
            .iter()
            .map(|r| RevisionId::from_uuid(r.get(0)))
            .collect();
        let plan = plan_prune(rows, keep, now, &held).map_err(StoreError::internal)?;
        for (n, state, text) in &plan.make_whole {
            let n = i32::try_from(*n).map_err(StoreError::internal)?;
            tx.execute(
                "UPDATE entry_revisions SET state = $1, content = $2, keep_prefix = NULL,
                     keep_suffix = NULL
                 WHERE entry_id = $3 AND revision = $4",
                &[state, text, &id, &n],
            )
            .await
            .map_err(map_pg)?;
        }
        let gone: Vec<i32> = plan
            .delete
            .iter()
            .map(|n| i32::try_from(*n).map_err(StoreError::internal))
            .collect::<StoreResult<_>>()?;
        tx.execute(
            "DELETE FROM entry_revisions WHERE entry_id = $1 AND revision = ANY($2)",
            &[&id, &gone],
        )
        .await
        .map_err(map_pg)?;
        tx.commit().await.map_err(map_pg)?;
        removed += gone.len() as u64;
    }
    Ok(removed)
}

/// Writes an entry straight into its author's trash, deleted at `at` (an import of an
/// export's trash).
pub(super) async fn insert_trashed(
    client: &impl GenericClient,
    entry: &Entry,
    at: Timestamp,
) -> StoreResult<()> {
    let json = serde_json::to_string(entry).map_err(StoreError::internal)?;
    client
        .execute(
            "INSERT INTO trashed_entries (id, author_id, deleted_at, entry) VALUES ($1, $2, $3, $4)",
            &[entry.id.as_uuid(), entry.author_id.as_uuid(), &ts(at), &json],
        )
        .await
        .map_err(map_pg)?;
    Ok(())
}
