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
//!
//! SQLite starts the WAL over from its beginning only at a write transaction that
//! begins when every frame has been copied. Under a steady stream of writes that never
//! happened: some frames were always newer than the last checkpoint, so the WAL grew
//! for as long as the writes went on, every frame extended the file, and every read
//! looked pages up in an ever larger WAL index (docs/PERFORMANCE.md). So when the WAL
//! has grown past [`RESTART_FRAMES`], this thread checkpoints again until little is
//! left to copy, syncs the database file (a checkpoint that stops short of the end
//! leaves its copies unsynced, and the one that reaches it syncs them all), and then
//! asks the writer ([`Checkpointer::restart_if_due`]) to copy that little itself
//! between two batches: its next transaction then begins with every frame copied, and
//! writes the WAL from its beginning again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;

use rusqlite::Connection;

use super::file_sync;
use crate::error::{StoreError, StoreResult};

/// How long commits gather before a checkpoint copies them: pages written again
/// meanwhile are copied once.
const GATHER: Duration = Duration::from_millis(250);

/// A WAL of this many frames is started over: SQLite's own threshold for a checkpoint.
const RESTART_FRAMES: i64 = 1_000;

/// Frames the writer may be left to copy before it starts the WAL over: a few batches.
const LEFT_FOR_WRITER: i64 = 64;

/// Checkpoints in a row that copy what came in during the one before, at most.
const PASSES: usize = 8;

/// The checkpointing thread of one database.
pub(super) struct Checkpointer {
    /// Taken out on drop, which ends the thread's loop.
    signal: Option<SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Set when the writer should copy the last frames and so start the WAL over.
    restart: Arc<AtomicBool>,
}

impl Checkpointer {
    /// Starts checkpointing with `conn`, a connection of its own to the database.
    pub(super) fn start(conn: Connection) -> StoreResult<Checkpointer> {
        let (signal, commits) = std::sync::mpsc::sync_channel(1);
        let restart = Arc::new(AtomicBool::new(false));
        let asks = restart.clone();
        let thread = std::thread::Builder::new()
            .name("journal-sqlite-checkpoint".into())
            .spawn(move || run(conn, commits, &asks))
            .map_err(StoreError::internal)?;
        Ok(Checkpointer {
            signal: Some(signal),
            thread: Some(thread),
            restart,
        })
    }

    /// Called by the writer between batches, on its own connection: when the WAL is
    /// due to start over, copies what the checkpoints left (the writer's own latest
    /// frames, a few batches' worth), so that its next transaction starts the WAL
    /// over. Never waits for readers; if one still reads an old frame, the WAL goes on
    /// growing until the next time.
    pub(super) fn restart_if_due(&self, writer: &Connection) {
        if !self.restart.swap(false, Ordering::AcqRel) {
            return;
        }
        if let Err(e) = checkpoint(writer) {
            tracing::debug!(error = %e, "checkpoint before starting the WAL over skipped");
        }
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

fn run(conn: Connection, commits: Receiver<()>, restart: &AtomicBool) {
    let mut open = true;
    while open && commits.recv().is_ok() {
        // Commits during the wait are covered by this checkpoint. A store dropped
        // meanwhile (a CLI command ending) checkpoints at once and stops: its process
        // must not wait out the gathering.
        let until = std::time::Instant::now() + GATHER;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match commits.recv_timeout(left) {
                Ok(()) => {}
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        for _ in 0..PASSES {
            match checkpoint(&conn) {
                Ok((log, copied)) => {
                    tracing::trace!(log, copied, "checkpoint");
                    if log < RESTART_FRAMES {
                        break;
                    }
                    if log - copied <= LEFT_FOR_WRITER {
                        // The writer's checkpoint syncs the file too, before the WAL
                        // may start over; synced here first, it finds little left to
                        // sync, and the writes queued behind it do not wait for it.
                        // Should this fail, the writer's sync still comes first.
                        if let Err(e) = file_sync::sync_database(&conn) {
                            tracing::debug!(error = %e, "syncing the database file failed");
                        }
                        restart.store(true, Ordering::Release);
                        break;
                    }
                    // Frames written while this pass ran: copy them too.
                }
                // Another checkpoint holds the lock (SQLite answers -1 frames then,
                // and the loop ends above), or the file could not be read: the next
                // commit's signal tries again.
                Err(e) => {
                    tracing::debug!(error = %e, "checkpoint skipped");
                    break;
                }
            }
        }
    }
}

/// A PASSIVE checkpoint: copies every frame no reader still needs, waiting for
/// nobody. The WAL's frames, and how many of them are now copied.
fn checkpoint(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
        Ok((r.get(1)?, r.get(2)?))
    })
}
