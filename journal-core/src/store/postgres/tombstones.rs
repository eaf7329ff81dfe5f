//! What a purge leaves in the change feed (migration 16): a tombstone per entry, so a
//! replica learns it is gone for good. Its number is the trigger's.

use deadpool_postgres::GenericClient;
use uuid::Uuid;

use super::errors::map_pg;
use super::rows::ts;
use crate::domain::Timestamp;
use crate::error::StoreResult;

/// Leaves purged entries' tombstones in their authors' feeds.
pub(super) async fn tombstones(
    client: &impl GenericClient,
    purged: &[(Uuid, Uuid)],
    at: Timestamp,
) -> StoreResult<()> {
    let (ids, authors): (Vec<Uuid>, Vec<Uuid>) = purged.iter().copied().unzip();
    client
        .execute(
            "INSERT INTO entry_tombstones (author_id, entry_id, purged_at)
             SELECT author, id, $3 FROM unnest($1::uuid[], $2::uuid[]) AS t (id, author)
             ORDER BY author",
            &[&ids, &authors, &ts(at)],
        )
        .await
        .map_err(map_pg)?;
    client
        .execute(
            "DELETE FROM entry_conflicts c USING unnest($1::uuid[], $2::uuid[]) AS t (id, author)
             WHERE c.author_id = t.author AND c.entry_id = t.id",
            &[&ids, &authors],
        )
        .await
        .map_err(map_pg)?;
    Ok(())
}
