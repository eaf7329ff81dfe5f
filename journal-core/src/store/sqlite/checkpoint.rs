//! WAL checkpoints off the commit path.
//!
//! By default SQLite checkpoints inside the commit that takes the WAL past 1,000
//! pages: that commit copies the pages into the database file and syncs it before it
//! returns, and every write queued behind it waits. Here the writer's connection
//! never checkpoints (`wal_autocheckpoint=0`); a thread of its own, with its own
//! connection, runs a PASSIVE checkpoint a moment after commits, which copies what no
//! reader still needs and never blocks the writer or the readers. Durability is the
//! WAL's: a commit is on disk (`synchronous=FULL`) before it is acknowledged, whether
//! or not it has been copied yet.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{StoreError, StoreResult};

/// How long commits gather before a checkpoint copies them: pages written again
/// meanwhile are copied once.
const GATHER: Duration = Duration::from_millis(250);

/// The checkpointing thread of one database.
pub(super) struct Checkpointer {
    /// Taken out on drop, which ends the thread's loop.
    signal: Option<SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing with `conn`, a connection of its own to the database.
    pub(super) fn start(conn: Connection) -> StoreResult<Checkpointer> {
        let (signal, commits) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("journal-sqlite-checkpoint".into())
            .spawn(move || run(conn, commits))
            .map_err(StoreError::internal)?;
        Ok(Checkpointer {
            signal: Some(signal),
            thread: Some(thread),
        })
    }

    /// Tells the thread that a commit landed. Never waits: a signal already pending
    /// covers this commit too.
    pub(super) fn committed(&self) {
        if let Some(signal) = &self.signal
            && let Err(TrySendError::Disconnected(())) = signal.try_send(())
        {
            tracing::warn!("the SQLite checkpoint thread has stopped");
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.signal.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(conn: Connection, commits: Receiver<()>) {
    while commits.recv().is_ok() {
        std::thread::sleep(GATHER);
        // Commits during the wait are covered by this checkpoint.
        while commits.try_recv().is_ok() {}
        let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        });
        match done {
            Ok((log, copied)) => tracing::trace!(log, copied, "checkpoint"),
            // Another process's checkpoint or recovery holds the lock: the next
            // commit's signal tries again.
            Err(e) => tracing::debug!(error = %e, "checkpoint skipped"),
        }
    }
}
