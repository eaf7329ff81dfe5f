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

/// The folding task of one store; stopped when the store's last handle is dropped.
pub(super) struct Folder(tokio::task::JoinHandle<()>);

impl Folder {
    /// Starts folding `db`'s deltas.
    pub(super) fn start(db: Db) -> Folder {
        Folder(tokio::spawn(async move {
            let mut every = tokio::time::interval(FOLD_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                if let Err(e) = fold(&db).await {
                    // The next tick tries again; reads stay exact meanwhile.
                    tracing::debug!(error = %e, "folding the feed total's deltas failed");
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

/// Folds once.
pub(super) async fn fold(db: &Db) -> crate::error::StoreResult<()> {
    let client = db.client().await?;
    let stmt = client.prepare_cached(FOLD).await.map_err(map_pg)?;
    client.execute(&stmt, &[]).await.map_err(map_pg)?;
    Ok(())
}
