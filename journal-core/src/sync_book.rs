//! A replica's own bookkeeping for `journal sync`, in a small SQLite file beside its
//! journal: which server and account the journal is linked to, where it is in both
//! change feeds, and the revision each entry had when both sides last agreed (two
//! 16-byte ids, a state and a fingerprint of its attachments an entry). Kept apart from the journal itself, so any store can sync; every
//! step of a sync is idempotent (revisions are known by their ids), so bookkeeping
//! written after the journal's own write loses nothing when a sync is killed between
//! the two: the next sync does that step again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::domain::{EntryId, RevisionId, Timestamp, UserId};

/// Why the bookkeeping could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("the sync bookkeeping in {path} cannot be used: {source}")]
pub struct SyncBookError {
    path: PathBuf,
    #[source]
    source: rusqlite::Error,
}

/// What a journal is linked to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncLink {
    /// The server's address.
    pub remote: String,
    /// The account on it.
    pub account_id: UserId,
    /// Where this replica is in the account's feed (the server's cursor).
    pub pulled: Option<String>,
    /// Where this replica is in its own journal's feed: what it has sent.
    pub pushed: Option<String>,
    /// When it last finished a sync.
    pub last_sync: Option<Timestamp>,
}

/// The state both sides last agreed an entry was in: its revision, `live`, `trashed`
/// or `purged`, and which attachments it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agreed {
    /// The entry's revision then.
    pub revision: RevisionId,
    /// Where it was: `live`, `trashed` or `purged`.
    pub state: &'static str,
    /// A fingerprint of its attachments then (their ids, and which were deleted): 0
    /// for none. See [`crate::sync_client`].
    pub files: u32,
}

fn state_name(number: i64) -> &'static str {
    match number {
        1 => "trashed",
        2 => "purged",
        _ => "live",
    }
}

fn state_number(name: &str) -> i64 {
    match name {
        "trashed" => 1,
        "purged" => 2,
        _ => 0,
    }
}

/// The bookkeeping's layout: 1 kept ids as text (95 bytes an entry at 100k entries);
/// 2 keeps them as 16-byte blobs and adds the attachments' fingerprint.
const LAYOUT: i64 = 2;

/// The bookkeeping file of one journal.
pub struct SyncBook {
    path: PathBuf,
    conn: Connection,
}

impl SyncBook {
    /// Opens (creating) the bookkeeping at `path`, mode 0600 on Unix.
    pub fn open(path: &Path) -> Result<SyncBook, SyncBookError> {
        let fail = |source| SyncBookError {
            path: path.to_owned(),
            source,
        };
        let conn = Connection::open(path).map_err(fail)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE IF NOT EXISTS sync_link (
                 id         INTEGER PRIMARY KEY CHECK (id = 0),
                 remote     TEXT NOT NULL,
                 account_id TEXT NOT NULL,
                 pulled     TEXT,
                 pushed     TEXT,
                 last_sync  INTEGER
             );
             CREATE TABLE IF NOT EXISTS sync_state (
                 entry_id    BLOB PRIMARY KEY,
                 revision_id BLOB NOT NULL,
                 state       INTEGER NOT NULL,
                 files       INTEGER NOT NULL DEFAULT 0
             ) WITHOUT ROWID;",
        )
        .map_err(fail)?;
        let layout: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        if layout < LAYOUT {
            upgrade(&conn).map_err(fail)?;
        }
        Ok(SyncBook {
            path: path.to_owned(),
            conn,
        })
    }

    fn fail(&self, source: rusqlite::Error) -> SyncBookError {
        SyncBookError {
            path: self.path.clone(),
            source,
        }
    }

    /// The link, if the journal has one.
    pub fn link(&self) -> Result<Option<SyncLink>, SyncBookError> {
        let row = self
            .conn
            .query_row(
                "SELECT remote, account_id, pulled, pushed, last_sync FROM sync_link",
                [],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, Option<i64>>(4)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.fail(e))?;
        Ok(row.and_then(|(remote, account, pulled, pushed, last)| {
            Some(SyncLink {
                remote,
                account_id: account.parse().ok()?,
                pulled,
                pushed,
                last_sync: last.map(Timestamp::from_millis),
            })
        }))
    }

    /// Keeps `link` as the journal's link.
    pub fn set_link(&self, link: &SyncLink) -> Result<(), SyncBookError> {
        self.conn
            .execute(
                "INSERT INTO sync_link (id, remote, account_id, pulled, pushed, last_sync)
                 VALUES (0, ?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (id) DO UPDATE SET remote = ?1, account_id = ?2, pulled = ?3,
                     pushed = ?4, last_sync = ?5",
                params![
                    link.remote,
                    link.account_id.to_string(),
                    link.pulled,
                    link.pushed,
                    link.last_sync.map(|t| t.as_millis())
                ],
            )
            .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// Forgets every entry's agreed state (the other side was restored from a backup, or
    /// replaced): the next sync sends everything, and the other side keeps what it has.
    pub fn forget_agreed(&self) -> Result<(), SyncBookError> {
        self.conn
            .execute("DELETE FROM sync_state", [])
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// Forgets the link and every entry's agreed revision.
    pub fn unlink(&self) -> Result<(), SyncBookError> {
        self.conn
            .execute_batch("DELETE FROM sync_link; DELETE FROM sync_state;")
            .map_err(|e| self.fail(e))
    }

    /// The state each of `ids` had when both sides last agreed, for those that have
    /// one.
    pub fn agreed(&self, ids: &[EntryId]) -> Result<HashMap<EntryId, Agreed>, SyncBookError> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT revision_id, state, files FROM sync_state WHERE entry_id = ?1")
            .map_err(|e| self.fail(e))?;
        let mut found = HashMap::new();
        for id in ids {
            let row: Option<(Vec<u8>, i64, i64)> = statement
                .query_row([id.as_uuid().as_bytes().as_slice()], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .optional()
                .map_err(|e| self.fail(e))?;
            if let Some((revision, state, files)) = row
                && let Ok(revision) = uuid::Uuid::from_slice(&revision)
            {
                found.insert(
                    *id,
                    Agreed {
                        revision: RevisionId::from_uuid(revision),
                        state: state_name(state),
                        files: files as u32,
                    },
                );
            }
        }
        Ok(found)
    }

    /// Records the states both sides now agree on (`None`: forget the entry).
    pub fn agree(&mut self, on: &[(EntryId, Option<Agreed>)]) -> Result<(), SyncBookError> {
        let path = self.path.clone();
        let fail = |source| SyncBookError {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(fail)?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT INTO sync_state (entry_id, revision_id, state, files)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (entry_id) DO UPDATE SET revision_id = ?2, state = ?3,
                         files = ?4",
                )
                .map_err(fail)?;
            let mut forget = tx
                .prepare_cached("DELETE FROM sync_state WHERE entry_id = ?1")
                .map_err(fail)?;
            for (id, agreed) in on {
                let id = id.as_uuid().as_bytes().as_slice();
                match agreed {
                    Some(a) => put.execute(params![
                        id,
                        a.revision.as_uuid().as_bytes().as_slice(),
                        state_number(a.state),
                        i64::from(a.files)
                    ]),
                    None => forget.execute([id]),
                }
                .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)
    }

    /// How many entries have an agreed revision.
    pub fn agreed_count(&self) -> Result<u64, SyncBookError> {
        self.conn
            .query_row("SELECT count(*) FROM sync_state", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(|e| self.fail(e))
    }
}

/// Moves a bookkeeping file of an older layout to this one, keeping every agreed state
/// (a sync after the upgrade has nothing more to send than before it).
fn upgrade(conn: &Connection) -> rusqlite::Result<()> {
    let had_text: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'sync_entries'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)?;
    if had_text {
        let rows: Vec<(String, String, String)> = conn
            .prepare("SELECT entry_id, revision_id, state FROM sync_entries")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let tx = conn.unchecked_transaction()?;
        {
            let mut put = tx.prepare(
                "INSERT OR REPLACE INTO sync_state (entry_id, revision_id, state, files)
                 VALUES (?1, ?2, ?3, 0)",
            )?;
            for (entry, revision, state) in rows {
                if let (Ok(entry), Ok(revision)) = (
                    uuid::Uuid::parse_str(&entry),
                    uuid::Uuid::parse_str(&revision),
                ) {
                    put.execute(params![
                        entry.as_bytes().as_slice(),
                        revision.as_bytes().as_slice(),
                        state_number(&state)
                    ])?;
                }
            }
        }
        // Attaching a file did not move its entry in either feed before this layout:
        // both feeds are read again from their beginning, and the entries with
        // attachments (whose fingerprint is not 0) are sent and received; the others
        // are agreed already.
        tx.execute_batch(
            "DROP TABLE sync_entries; UPDATE sync_link SET pushed = NULL, pulled = NULL;",
        )?;
        tx.commit()?;
    }
    conn.execute_batch(&format!("PRAGMA user_version = {LAYOUT}; VACUUM;"))
}
