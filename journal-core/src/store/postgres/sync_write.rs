//! A sync's writes (see `Store::sync_writes`) in one transaction, each only if its
//! entry is still as the core read it; and the two reads the core plans them on.

use std::sync::LazyLock;

use deadpool_postgres::GenericClient;
use uuid::Uuid;

use super::errors::map_pg;
use super::history::{insert_revision, range, trashed};
use super::pool::Db;
use super::rows::{EntryPlaces, INSERT_ENTRY, PgValue, entry_values, params, ts};
use super::tombstones::tombstones;
use crate::domain::{EntryId, RevisionId, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Entry, Revision};
use crate::store::entry_columns::{ENTRY_COLUMNS, SELECT_ENTRY, entry_cells};
use crate::store::revision_rows::EntryWrite;
use crate::store::sync_write::{Place, SyncWrite, SyncWritten, plan_rows};

/// The columns a whole-entry update leaves: the entry's identity and origin.
const UNCHANGING: [&str; 4] = ["id", "author_id", "author_name", "created_at"];

/// Every changing column of an entry, for the entry whose id is the last parameter.
static UPDATE_ENTRY: LazyLock<String> = LazyLock::new(|| {
    let mut set = Vec::new();
    for column in ENTRY_COLUMNS.iter().filter(|c| !UNCHANGING.contains(c)) {
        set.push(format!("{column} = ${}", set.len() + 1));
    }
    format!(
        "UPDATE entries SET {} WHERE id = ${}",
        set.join(", "),
        set.len() + 1
    )
});

/// The entry live, or in the trash with when it was deleted; with `lock`, its row
/// locked until the transaction ends.
async fn find(
    client: &impl GenericClient,
    id: &EntryId,
    lock: bool,
) -> StoreResult<Option<(Entry, Option<Timestamp>)>> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    let live = client
        .query_opt(
            &format!(
                "SELECT {} FROM entries e WHERE e.id = $1{lock}",
                *SELECT_ENTRY
            ),
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    if let Some(r) = live {
        return Ok(Some((EntryPlaces::of(r.columns())?.entry(&r), None)));
    }
    let in_trash = client
        .query_opt(
            &format!("SELECT entry, deleted_at FROM trashed_entries WHERE id = $1{lock}"),
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    in_trash
        .map(|r| trashed(&r).map(|t| (t.entry, Some(t.deleted_at))))
        .transpose()
}

/// The entries with these ids live or in the trash (see `Store::entries_anywhere`), in
/// two statements.
pub(super) async fn entries_anywhere(
    db: &Db,
    ids: &[EntryId],
) -> StoreResult<Vec<(Entry, Option<Timestamp>)>> {
    let client = db.client().await?;
    let ids: Vec<Uuid> = ids.iter().map(|id| *id.as_uuid()).collect();
    let live = client
        .query(
            &format!(
                "SELECT {} FROM entries e WHERE e.id = ANY($1)",
                *SELECT_ENTRY
            ),
            &[&ids],
        )
        .await
        .map_err(map_pg)?;
    let mut found = Vec::with_capacity(ids.len());
    if let Some(first) = live.first() {
        let places = EntryPlaces::of(first.columns())?;
        found.extend(live.iter().map(|r| (places.entry(r), None)));
    }
    let in_trash = client
        .query(
            "SELECT entry, deleted_at FROM trashed_entries WHERE id = ANY($1)",
            &[&ids],
        )
        .await
        .map_err(map_pg)?;
    for r in &in_trash {
        let t = trashed(r)?;
        found.push((t.entry, Some(t.deleted_at)));
    }
    Ok(found)
}

/// The entry each existing revision id belongs to.
pub(super) async fn revision_owners(
    db: &Db,
    ids: &[RevisionId],
) -> StoreResult<Vec<(RevisionId, EntryId)>> {
    let ids: Vec<Uuid> = ids.iter().map(|id| *id.as_uuid()).collect();
    let rows = db
        .query(
            "SELECT id, entry_id FROM entry_revisions WHERE id = ANY($1)",
            &[&ids],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            (
                RevisionId::from_uuid(r.get(0)),
                EntryId::from_uuid(r.get(1)),
            )
        })
        .collect())
}

/// The revision with this id, of whichever entry.
pub(super) async fn revision_by_id(db: &Db, id: &RevisionId) -> StoreResult<Option<Revision>> {
    let client = db.client().await?;
    let place = client
        .query_opt(
            "SELECT entry_id, revision FROM entry_revisions WHERE id = $1",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    let Some(place) = place else { return Ok(None) };
    let entry = EntryId::from_uuid(place.get(0));
    let n = u32::try_from(place.get::<_, i32>(1)).map_err(StoreError::internal)?;
    Ok(range(&client, &entry, n, n).await?.pop())
}

/// Writes each of `writes` in turn, all `author`'s, in one transaction (see
/// `Store::sync_writes`).
pub(super) async fn write_all(
    db: &Db,
    author: &UserId,
    writes: &[SyncWrite],
) -> StoreResult<SyncWritten> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // One author's sync writes and imports take turns, so two replicas creating one id
    // at once find each other's; other writes go on (they take KEY SHARE).
    tx.execute(
        "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE",
        &[author.as_uuid()],
    )
    .await
    .map_err(map_pg)?;
    // Every entry's row is taken before the first write takes the author's change
    // counter, as an edit takes its entry's row before the counter: a write waiting for
    // an entry never holds the counter an edit of that entry waits for.
    let mut ids: Vec<Uuid> = writes.iter().map(|w| *w.id.as_uuid()).collect();
    ids.sort();
    ids.dedup();
    for table in ["entries", "trashed_entries"] {
        tx.execute(
            &format!("SELECT 1 FROM {table} WHERE id = ANY($1) ORDER BY id FOR UPDATE"),
            &[&ids],
        )
        .await
        .map_err(map_pg)?;
    }
    // Then the author's counter, held to the commit: the numbers this transaction
    // takes follow one another (an edit waits for the counter after its entry's row).
    let counter = "SELECT change_seq FROM author_counts WHERE author_id = $1 FOR UPDATE";
    let read = |row: Option<tokio_postgres::Row>| row.map_or(0, |r| r.get::<_, i64>(0) as u64);
    let before = read(
        tx.query_opt(counter, &[author.as_uuid()])
            .await
            .map_err(map_pg)?,
    );
    let mut results = Vec::with_capacity(writes.len());
    for w in writes {
        results.push(write(&tx, w).await?);
    }
    let after = read(
        tx.query_opt(counter, &[author.as_uuid()])
            .await
            .map_err(map_pg)?,
    );
    let epoch: String = tx
        .query_one("SELECT value FROM settings WHERE key = 'sync_epoch'", &[])
        .await
        .map_err(map_pg)?
        .get(0);
    tx.commit().await.map_err(map_pg)?;
    Ok(SyncWritten {
        results,
        counter: (before, after),
        epoch,
    })
}

/// Writes `w` in `tx`.
async fn write(
    tx: &deadpool_postgres::Transaction<'_>,
    w: &SyncWrite,
) -> StoreResult<EntryWrite<Option<Entry>>> {
    let found = find(tx, &w.id, true).await?;
    let now = found.as_ref().map(|(e, _)| e);
    if now.is_some_and(|e| e.author_id != w.author) {
        return Ok(EntryWrite::Foreign);
    }
    match (now, w.expect) {
        (None, Some(_)) => return Ok(EntryWrite::Missing),
        (Some(e), expect) if expect != Some(e.revision_id) => {
            return Ok(EntryWrite::Stale {
                current: Box::new(e.clone()),
            });
        }
        _ => {}
    }
    let Some((rows, entry)) = plan_rows(now, w) else {
        return Ok(EntryWrite::Missing);
    };
    for row in &rows {
        insert_revision(tx, row).await?;
    }
    let was_live = matches!(found, Some((_, None)));
    let was_trashed = matches!(found, Some((_, Some(_))));
    let id = w.id.as_uuid();
    if was_trashed {
        tx.execute("DELETE FROM trashed_entries WHERE id = $1", &[id])
            .await
            .map_err(map_pg)?;
    }
    let ended = match w.place {
        Place::Live if was_live => {
            if !rows.is_empty() {
                let mut values = Vec::new();
                entry_cells(&entry, |column, cell| {
                    if !UNCHANGING.contains(&column) {
                        values.push(PgValue::of(Some(cell)));
                    }
                });
                values.push(PgValue::of(Some(crate::store::entry_columns::Cell::Id(id))));
                tx.execute(UPDATE_ENTRY.as_str(), &params(&values))
                    .await
                    .map_err(map_pg)?;
            }
            Some(entry)
        }
        Place::Live => {
            let values = entry_values(&entry);
            tx.execute(INSERT_ENTRY.as_str(), &params(&values))
                .await
                .map_err(map_pg)?;
            Some(entry)
        }
        Place::Trashed(at) => {
            let json = serde_json::to_string(&entry).map_err(StoreError::internal)?;
            tx.execute(
                "INSERT INTO trashed_entries (id, author_id, deleted_at, entry)
                 VALUES ($1, $2, $3, $4)",
                &[id, w.author.as_uuid(), &ts(at), &json],
            )
            .await
            .map_err(map_pg)?;
            if was_live {
                tx.execute("DELETE FROM entries WHERE id = $1", &[id])
                    .await
                    .map_err(map_pg)?;
            }
            Some(entry)
        }
        Place::Purged => {
            if was_live {
                tx.execute("DELETE FROM entries WHERE id = $1", &[id])
                    .await
                    .map_err(map_pg)?;
            }
            tx.execute("DELETE FROM entry_revisions WHERE entry_id = $1", &[id])
                .await
                .map_err(map_pg)?;
            if was_live || was_trashed {
                tombstones(tx, &[(*id, *w.author.as_uuid())], Timestamp::now()).await?;
            }
            None
        }
    };
    if let Some(revision) = w.conflict {
        tx.execute(
            "INSERT INTO entry_conflicts (author_id, entry_id, revision_id, detected_at)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[
                w.author.as_uuid(),
                id,
                revision.as_uuid(),
                &ts(Timestamp::now()),
            ],
        )
        .await
        .map_err(map_pg)?;
    }
    Ok(EntryWrite::Done(ended))
}
