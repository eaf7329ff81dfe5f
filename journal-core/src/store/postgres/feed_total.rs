//! The public feed's total (migration 7): one folded row plus the deltas appended
//! since, so no write waits on another to count and no read sums every author.
//!
//! Triggers append a delta for each change to the feed's length. A task per store
//! folds them into the total every [`FOLD_EVERY`], so a read adds at most about that
//! long's worth of rows. Folding is one statement: a read sees it all or not at all,
//! and servers folding at once take each delta once (the second waits on the first's
//! deleted rows, then skips them).

use std::time::Duration;

use super::errors::map_pg;
use super::pool::Db;

/// The feed's total: the folded count and the deltas not yet folded, in the reading
/// statement's snapshot.
pub(super) const FEED_COUNT: &str = "SELECT ((SELECT total FROM feed_total)
     + (SELECT coalesce(sum(delta), 0) FROM feed_total_deltas))::bigint";

/// Folds the appended deltas into the total. With nothing to fold it changes no row,
/// so it takes no transaction id and leaves the database's snapshot (and the feed
/// cache) as it was.
const FOLD: &str = "WITH folded AS (DELETE FROM feed_total_deltas RETURNING delta)
     UPDATE feed_total SET total = total + s.sum
     FROM (SELECT coalesce(sum(delta), 0) AS sum, count(*) AS n FROM folded) s
     WHERE s.n > 0";

/// How often the deltas are folded.
const FOLD_EVERY: Duration = Duration::from_secs(1);

/// How often, at most, the deltas' table is vacuumed, when folds have emptied rows.
const VACUUM_EVERY: Duration = Duration::from_secs(10);

/// Frees the folded deltas' space. Every read of the total scans the deltas' table,
/// dead rows included: after a burst of public writes they made up most of a feed
/// page's time until a vacuum, and autovacuum may be slow to come, or off.
/// Run outside a transaction; another server's vacuum of it waits or is skipped.
const VACUUM: &str = "VACUUM feed_total_deltas";

/// The folding task of one store; stopped when the store's last handle is dropped.
pub(super) struct Folder(tokio::task::JoinHandle<()>);

impl Folder {
    /// Starts folding `db`'s deltas.
    pub(super) fn start(db: Db) -> Folder {
        Folder(tokio::spawn(async move {
            let mut every = tokio::time::interval(FOLD_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Vacuumed once at the start too: rows folded before this server started
            // (by another, or by one that stopped) may still hold their space.
            let mut folded_since_vacuum = true;
            let mut last_vacuum: Option<tokio::time::Instant> = None;
            loop {
                every.tick().await;
                match fold(&db).await {
                    Ok(folded) => folded_since_vacuum |= folded,
                    // The next tick tries again; reads stay exact meanwhile.
                    Err(e) => tracing::debug!(error = %e, "folding the feed total's deltas failed"),
                }
                if folded_since_vacuum && last_vacuum.is_none_or(|at| at.elapsed() >= VACUUM_EVERY)
                {
                    last_vacuum = Some(tokio::time::Instant::now());
                    match vacuum(&db).await {
                        Ok(()) => folded_since_vacuum = false,
                        Err(e) => {
                            tracing::debug!(error = %e, "vacuuming the feed total's deltas failed")
                        }
                    }
                }
            }
        }))
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Folds once; true when there were deltas to fold.
pub(super) async fn fold(db: &Db) -> crate::error::StoreResult<bool> {
    let client = db.client().await?;
    let stmt = client.prepare_cached(FOLD).await.map_err(map_pg)?;
    Ok(client.execute(&stmt, &[]).await.map_err(map_pg)? > 0)
}

/// Vacuums the deltas' table.
async fn vacuum(db: &Db) -> crate::error::StoreResult<()> {
    let client = db.client().await?;
    client.simple_query(VACUUM).await.map_err(map_pg)?;
    Ok(())
}
