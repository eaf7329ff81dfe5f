//! Writes by other processes on the same file, such as the `journal` command run on
//! the server's database: the writer thread looks for them, so that the read cache
//! (`cache.rs`) drops what they may have changed.
//!
//! `PRAGMA data_version` on a connection changes when another connection commits, and
//! never for the connection's own commits. In this process only the writer's
//! connection writes (checkpoints move pages, they change no content), so on that
//! connection a change means another process wrote. The writer asks at most every
//! [`POLL`]: between batches when busy, on a timer when idle. Asking is one read of the
//! WAL's header, so the cache's values need no expiry of their own.

use std::time::{Duration, Instant};

use rusqlite::Connection;

/// How often the writer looks for other processes' commits: the longest a value
/// written by another process can go unseen through the cache, but for the time the
/// writer is busy with this process's own writes or waits for another process's
/// write lock (up to the busy timeout).
pub(super) const POLL: Duration = Duration::from_millis(100);

/// The writer's view of other processes' commits.
pub(super) struct OtherWriters {
    /// `data_version` when last asked (`None`: it could not be read).
    version: Option<i64>,
    asked: Instant,
}

impl OtherWriters {
    /// Starts from the database as `conn`, the writer's connection, sees it now.
    pub(super) fn new(conn: &Connection) -> OtherWriters {
        OtherWriters {
            version: data_version(conn),
            asked: Instant::now(),
        }
    }

    /// How long until the next look is due.
    pub(super) fn due_in(&self) -> Duration {
        POLL.saturating_sub(self.asked.elapsed())
    }

    /// When a look is due: true if another connection committed since the last look,
    /// or if that cannot be told.
    pub(super) fn wrote(&mut self, conn: &Connection) -> bool {
        if !self.due_in().is_zero() {
            return false;
        }
        self.asked = Instant::now();
        let now = data_version(conn);
        let changed = now.is_none() || now != self.version;
        self.version = now;
        changed
    }
}

fn data_version(conn: &Connection) -> Option<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
        .inspect_err(|e| tracing::debug!(error = %e, "reading data_version failed"))
        .ok()
}
