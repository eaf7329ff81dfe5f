//! Work the server does on its own, in the background, never in a request: purging
//! entries that have been in the trash past `--trash-days`, and pruning history past
//! `--history-keep` / `--history-days`, forgetting purges older than `--sync-lease`,
//! then collecting attachments nothing needs (rows of purged entries, uploads never
//! attached, and the stored files no row names).
//! Several servers on one database may sweep at
//! once; a purge takes what it deletes, and pruning an entry holds it, so nothing is
//! done twice.

use std::time::Duration;

use journal_core::Journal;
use journal_core::store::HistoryKeep;

use crate::Config;

/// Starts the sweep: now, then every `--housekeeping-every`. It stops with the runtime.
pub fn spawn(journal: Journal, config: &Config) {
    let keep = Duration::from_secs(u64::from(config.trash_days) * 24 * 3600);
    let lease = Duration::from_secs(u64::from(config.sync_lease) * 24 * 3600);
    let every = config.housekeeping_every.max(Duration::from_millis(100));
    let history = HistoryKeep {
        revisions: config.history_keep,
        days: config.history_days,
    };
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match journal.purge_expired_trash(keep).await {
                Ok(0) => {}
                Ok(purged) => tracing::info!(purged, "purged entries past their days in the trash"),
                Err(e) => {
                    tracing::warn!(error = %e, "could not sweep the trash; trying again later")
                }
            }
            match journal.prune_history(&history).await {
                Ok(0) => {}
                Ok(pruned) => tracing::info!(pruned, "pruned revisions past the history limits"),
                Err(e) => {
                    tracing::warn!(error = %e, "could not prune history; trying again later")
                }
            }
            match journal.forget_purges(lease).await {
                Ok(0) => {}
                Ok(forgotten) => {
                    tracing::info!(forgotten, "forgot purges older than the sync lease")
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not forget old purges; trying again later")
                }
            }
            match journal
                .collect_attachments(journal_core::COLLECT_SPARES)
                .await
            {
                Ok(c) if c.rows == 0 && c.objects == 0 => {}
                Ok(c) => tracing::info!(
                    rows = c.rows,
                    files = c.objects,
                    "collected attachments nothing needs"
                ),
                Err(e) => {
                    tracing::warn!(error = %e, "could not collect attachments; trying again later")
                }
            }
        }
    });
}
