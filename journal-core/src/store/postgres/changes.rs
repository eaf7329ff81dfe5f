//! The change feed (migration 16): an author's changes after a number. The numbers
//! are the triggers' (`journal_next_change`); a purge's tombstones, `tombstones.rs`.

use std::collections::HashMap;

use deadpool_postgres::GenericClient;
use uuid::Uuid;

use super::errors::map_pg;
use super::history::{range, snapshot, trashed};
use super::pool::Db;
use super::rows::{EntryPlaces, from_ts, ts};
use crate::domain::{EntryId, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{ChangeState, EntryChange};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::{FEED_PAGE_BYTES, FEED_REVISIONS_PER_CHANGE, StoredChanges, change_bytes};

/// Up to `limit` of `author`'s changes after `after` (see `Store::changes`), read on
/// one snapshot.
pub(super) async fn feed(
    db: &Db,
    author: &UserId,
    start: u64,
    after: u64,
    limit: u32,
) -> StoreResult<StoredChanges> {
    let mut client = db.client().await?;
    let tx = snapshot(&mut client).await?;
    let head = tx
        .query_one(
            "SELECT (SELECT change_seq FROM author_counts WHERE author_id = $1),
                    (SELECT value FROM settings WHERE key = 'sync_epoch'),
                    (SELECT forgotten_through FROM author_counts WHERE author_id = $1)",
            &[author.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    let counter: Option<i64> = head.get(0);
    let epoch: Option<String> = head.get(1);
    let forgotten: Option<i64> = head.get(2);
    let epoch = epoch.ok_or_else(|| StoreError::internal(NoEpoch))?;
    // One more than asked for, to know whether more come.
    let (after, fetch) = (after as i64, i64::from(limit) + 1);
    // Each table in its own index order, stopping at `limit`, then merged.
    let mut found: Vec<(i64, Uuid, ChangeState)> = Vec::new();
    let live = tx
        .query(
            &format!(
                "SELECT e.change_seq AS change_seq, {} FROM entries e
                 WHERE e.author_id = $1 AND e.change_seq > $2 ORDER BY e.change_seq LIMIT $3",
                *SELECT_ENTRY
            ),
            &[author.as_uuid(), &after, &fetch],
        )
        .await
        .map_err(map_pg)?;
    if let Some(first) = live.first() {
        let places = EntryPlaces::of(first.columns())?;
        for r in &live {
            let entry = places.entry(r);
            found.push((r.get(0), *entry.id.as_uuid(), ChangeState::Live { entry }));
        }
    }
    for r in tx
        .query(
            "SELECT entry, deleted_at, change_seq, id FROM trashed_entries
             WHERE author_id = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3",
            &[author.as_uuid(), &after, &fetch],
        )
        .await
        .map_err(map_pg)?
    {
        let t = trashed(&r)?;
        let state = ChangeState::Trashed {
            entry: t.entry,
            deleted_at: t.deleted_at,
        };
        found.push((r.get(2), r.get(3), state));
    }
    for r in tx
        .query(
            "SELECT change_seq, entry_id, purged_at FROM entry_tombstones
             WHERE author_id = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3",
            &[author.as_uuid(), &after, &fetch],
        )
        .await
        .map_err(map_pg)?
    {
        let state = ChangeState::Purged {
            purged_at: from_ts(r.get(2)),
        };
        found.push((r.get(0), r.get(1), state));
    }
    found.sort_by_key(|(seq, _, _)| *seq);
    let mut more = found.len() > limit as usize;
    found.truncate(limit as usize);
    let with_history: Vec<Uuid> = found
        .iter()
        .filter(|(_, _, s)| !matches!(s, ChangeState::Purged { .. }))
        .map(|(_, id, _)| *id)
        .collect();
    let wanted = wanted_revisions(&tx, &with_history, start).await?;
    let mut changes = Vec::with_capacity(found.len());
    let mut bytes = 0;
    for (seq, id, state) in found {
        let id = EntryId::from_uuid(id);
        let revisions = match wanted.get(id.as_uuid()) {
            Some(&(low, high)) => range(&tx, &id, low, high).await?,
            None => Vec::new(),
        };
        let change = EntryChange {
            id,
            state,
            revisions,
            attachments: Vec::new(),
        };
        bytes += change_bytes(&change);
        if bytes > FEED_PAGE_BYTES && !changes.is_empty() {
            more = true;
            break;
        }
        changes.push((seq as u64, change));
    }
    tx.commit().await.map_err(map_pg)?;
    Ok(StoredChanges {
        changes,
        more,
        counter: counter.unwrap_or(0) as u64,
        forgotten_through: forgotten.unwrap_or(0) as u64,
        epoch,
    })
}

/// For each of `ids`, the first and last of its revisions to send: those numbered
/// `start` or later, at least its current one, at most the newest
/// [`FEED_REVISIONS_PER_CHANGE`]; in one query.
async fn wanted_revisions(
    client: &impl GenericClient,
    ids: &[Uuid],
    start: u64,
) -> StoreResult<HashMap<Uuid, (u32, u32)>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    // Each entry's current revision at least, so a replica that lacks the entry
    // (restored from the trash, with no new revision) can write it.
    let rows = client
        .query(
            "SELECT entry_id,
                    coalesce(min(revision) FILTER (WHERE change_seq >= $2), max(revision)),
                    max(revision)
             FROM entry_revisions WHERE entry_id = ANY($1) GROUP BY entry_id",
            &[&ids, &(start as i64)],
        )
        .await
        .map_err(map_pg)?;
    let count = |n: i32| u32::try_from(n).map_err(StoreError::internal);
    rows.iter()
        .map(|r| {
            let (low, high) = (count(r.get(1))?, count(r.get(2))?);
            let newest = high.saturating_sub(FEED_REVISIONS_PER_CHANGE - 1);
            Ok((r.get(0), (low.max(newest), high)))
        })
        .collect()
}

/// The database has no sync epoch: its migrations did not run to the end.
#[derive(Debug, thiserror::Error)]
#[error("the database has no sync epoch (migration 16 did not run)")]
struct NoEpoch;

/// Drops up to `limit` tombstones of entries purged before `before` (see
/// `Store::forget_tombstones`), in one transaction.
pub(super) async fn forget_before(db: &Db, before: Timestamp, limit: u32) -> StoreResult<u64> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // The authors' counters first, as a write that brings a purged id back takes its
    // author's counter before its trigger drops the tombstone: never the other order.
    tx.execute(
        "SELECT 1 FROM author_counts WHERE author_id IN (
             SELECT author_id FROM entry_tombstones WHERE purged_at < $1)
         ORDER BY author_id FOR UPDATE",
        &[&ts(before)],
    )
    .await
    .map_err(map_pg)?;
    let gone = tx
        .query(
            "WITH gone AS (
                 DELETE FROM entry_tombstones WHERE (author_id, change_seq) IN (
                     SELECT author_id, change_seq FROM entry_tombstones WHERE purged_at < $1
                     ORDER BY purged_at LIMIT $2)
                 RETURNING author_id, change_seq),
             newest AS (SELECT author_id, max(change_seq) AS seq FROM gone GROUP BY author_id)
             UPDATE author_counts a SET forgotten_through = greatest(a.forgotten_through, n.seq)
             FROM newest n WHERE a.author_id = n.author_id
             RETURNING (SELECT count(*) FROM gone)",
            &[&ts(before), &i64::from(limit)],
        )
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(gone.first().map_or(0, |r| r.get::<_, i64>(0) as u64))
}
