//! The change feed (migration 16): an author's changes after a number. The numbers
//! are the triggers' (`journal_next_change`); a purge's tombstones, `tombstones.rs`.

use std::collections::HashMap;

use deadpool_postgres::GenericClient;
use uuid::Uuid;

use super::errors::map_pg;
use super::history::{revision_row, snapshot, trashed};
use super::pool::Db;
use super::rows::{EntryPlaces, from_ts};
use crate::domain::{EntryId, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Change, ChangeState, Revision};
use crate::store::StoredChanges;
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::revision_rows::{REVISION_COLUMNS, rebuild};

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
                    (SELECT value FROM settings WHERE key = 'sync_epoch')",
            &[author.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    let counter: Option<i64> = head.get(0);
    let epoch: Option<String> = head.get(1);
    let epoch = epoch.ok_or_else(|| StoreError::internal(NoEpoch))?;
    let (after, limit) = (after as i64, i64::from(limit));
    // Each table in its own index order, stopping at `limit`, then merged.
    let mut found: Vec<(i64, Uuid, ChangeState)> = Vec::new();
    let live = tx
        .query(
            &format!(
                "SELECT e.change_seq AS change_seq, {} FROM entries e
                 WHERE e.author_id = $1 AND e.change_seq > $2 ORDER BY e.change_seq LIMIT $3",
                *SELECT_ENTRY
            ),
            &[author.as_uuid(), &after, &limit],
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
            &[author.as_uuid(), &after, &limit],
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
            &[author.as_uuid(), &after, &limit],
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
    found.truncate(limit as usize);
    let with_history: Vec<Uuid> = found
        .iter()
        .filter(|(_, _, s)| !matches!(s, ChangeState::Purged { .. }))
        .map(|(_, id, _)| *id)
        .collect();
    let mut revisions = revisions_from(&tx, &with_history, start).await?;
    tx.commit().await.map_err(map_pg)?;
    let changes = found
        .into_iter()
        .map(|(seq, id, state)| {
            let change = Change {
                id: EntryId::from_uuid(id),
                state,
                revisions: revisions.remove(&id).unwrap_or_default(),
            };
            (seq as u64, change)
        })
        .collect();
    Ok(StoredChanges {
        changes,
        counter: counter.unwrap_or(0) as u64,
        epoch,
    })
}

/// The revisions numbered `start` or later of each of `ids`, oldest first, in one
/// query: each entry's rows from the last whole one at or before its first such
/// revision, so the deltas rebuild.
async fn revisions_from(
    client: &impl GenericClient,
    ids: &[Uuid],
    start: u64,
) -> StoreResult<HashMap<Uuid, Vec<Revision>>> {
    let mut by_entry: HashMap<Uuid, Vec<Revision>> = HashMap::new();
    if ids.is_empty() {
        return Ok(by_entry);
    }
    let columns: Vec<String> = REVISION_COLUMNS
        .split(", ")
        .map(|c| format!("r.{c}"))
        .collect();
    let rows = client
        .query(
            &format!(
                "WITH wanted AS (
                     SELECT entry_id, min(revision) AS low, max(revision) AS high
                     FROM entry_revisions
                     WHERE entry_id = ANY($1) AND change_seq >= $2 GROUP BY entry_id)
                 SELECT {}, w.low FROM wanted w
                 JOIN entry_revisions r ON r.entry_id = w.entry_id
                 WHERE r.revision <= w.high AND r.revision >= COALESCE(
                     (SELECT max(s.revision) FROM entry_revisions s
                      WHERE s.entry_id = w.entry_id AND s.revision <= w.low
                        AND s.keep_prefix IS NULL), 0)
                 ORDER BY r.entry_id, r.revision",
                columns.join(", ")
            ),
            &[&ids, &(start as i64)],
        )
        .await
        .map_err(map_pg)?;
    let mut rows = rows.iter().peekable();
    while let Some(first) = rows.next() {
        let entry: Uuid = first.get(1);
        let low: i32 = first.get(11);
        let mut group = vec![revision_row(first)?];
        while let Some(next) = rows.next_if(|r| r.get::<_, Uuid>(1) == entry) {
            group.push(revision_row(next)?);
        }
        let mut revisions = rebuild(group).map_err(StoreError::internal)?;
        revisions.retain(|r| i64::from(r.revision) >= i64::from(low));
        by_entry.insert(entry, revisions);
    }
    Ok(by_entry)
}

/// The database has no sync epoch: its migrations did not run to the end.
#[derive(Debug, thiserror::Error)]
#[error("the database has no sync epoch (migration 16 did not run)")]
struct NoEpoch;
