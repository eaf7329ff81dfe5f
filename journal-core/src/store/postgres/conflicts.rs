//! Texts a sync could not merge (`entry_conflicts`, migration 16): listing an
//! author's and settling an entry's. They are written with the sync's write
//! (`sync_write.rs`) and go with the entry when it is purged (`tombstones.rs`).

use tokio_postgres::Row;

use super::errors::map_pg;
use super::history::author_page;
use super::pool::Db;
use super::rows::from_ts;
use crate::domain::{EntryId, PageRequest, RevisionId, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Conflict, Page};

/// Only conflicts of live entries whose set-aside revision is still there are
/// listed: a trashed entry's come back with it.
const OPEN: &str = "FROM entry_conflicts c
     JOIN entries e ON e.id = c.entry_id AND e.author_id = c.author_id
     JOIN entry_revisions r ON r.id = c.revision_id AND r.entry_id = c.entry_id
     WHERE c.author_id = $1";

fn conflict(r: &Row) -> StoreResult<Conflict> {
    Ok(Conflict {
        entry_id: EntryId::from_uuid(r.get(0)),
        title: r.get(1),
        revision_id: RevisionId::from_uuid(r.get(2)),
        revision: u32::try_from(r.get::<_, i32>(3)).map_err(StoreError::internal)?,
        detected_at: from_ts(r.get(4)),
    })
}

/// One page of `author`'s open conflicts, newest first.
pub(super) async fn page(
    db: &Db,
    author: &UserId,
    page: PageRequest,
) -> StoreResult<Page<Conflict>> {
    author_page(
        db,
        author,
        page,
        &format!("SELECT count(*) {OPEN}"),
        &format!(
            "SELECT c.entry_id, e.title, c.revision_id, r.revision, c.detected_at {OPEN}
             ORDER BY c.detected_at DESC, c.entry_id, r.revision LIMIT $2 OFFSET $3"
        ),
        conflict,
    )
    .await
}

/// The revisions set aside by `author`'s conflicts on entry `id`.
pub(super) async fn of_entry(
    db: &Db,
    author: &UserId,
    id: &EntryId,
) -> StoreResult<Vec<RevisionId>> {
    let rows = db
        .query(
            "SELECT revision_id FROM entry_conflicts WHERE author_id = $1 AND entry_id = $2",
            &[author.as_uuid(), id.as_uuid()],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| RevisionId::from_uuid(r.get(0)))
        .collect())
}

/// Settles `author`'s conflicts on entry `id` that set `revisions` aside; how many
/// there were.
pub(super) async fn settle(
    db: &Db,
    author: &UserId,
    id: &EntryId,
    revisions: &[RevisionId],
) -> StoreResult<u64> {
    let revisions: Vec<uuid::Uuid> = revisions.iter().map(|r| *r.as_uuid()).collect();
    let client = db.client().await?;
    client
        .execute(
            "DELETE FROM entry_conflicts
             WHERE author_id = $1 AND entry_id = $2 AND revision_id = ANY($3)",
            &[author.as_uuid(), id.as_uuid(), &revisions],
        )
        .await
        .map_err(map_pg)
}
