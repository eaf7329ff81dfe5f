//! Opening a database: a file created private, WAL mode, the schema brought up to date
//! (several processes may open one file at once), a file the user may only read opened
//! for reading, and the connections configured alike.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::errors::{self, map_err};
use super::pool::Pool;
use super::{schema, search};
use crate::error::{StoreError, StoreResult};

/// How long a connection waits for another's lock before it gives up with "busy".
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Creates the database file, if it does not exist yet, readable by its owner only: a
/// journal is private. SQLite gives its WAL and shared-memory files the same mode.
fn create_private(path: &Path) -> StoreResult<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // Read-only or not ours to write: SQLite opens it for reading, or says why not.
        Err(e) if path.exists() => {
            tracing::debug!(error = %e, "database file not writable");
            Ok(())
        }
        Err(e) => Err(StoreError::config(format_args!(
            "cannot create the database file {}: {e}",
            path.display()
        ))),
    }
}

/// Reader connections per file database.
const READERS: usize = 4;

/// Search connections per file database (see `Pool::search`): two searches run at
/// once, on threads of their own.
const SEARCHERS: usize = 2;

/// Opens and configures one more connection to `path`.
fn open_with(path: &Path, access: OpenFlags) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, access | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    configure(&conn)?;
    Ok(conn)
}

/// True when `PATH-wal` is missing or empty: everything written is in the main file.
fn wal_is_empty(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).map_or(true, |m| m.len() == 0)
}

/// `file:PATH?immutable=1`, with the path's special characters escaped.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/._-~".contains(b) {
            uri.push(char::from(*b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Brings the schema up to date, with a clear error naming the file.
fn migrate(conn: &mut Connection, path: &Path) -> StoreResult<()> {
    schema::migrate(conn).map_err(|e| migration_error(e, path))
}

fn migration_error(e: schema::MigrationError, path: &Path) -> StoreError {
    match e {
        schema::MigrationError::Sqlite(e) => map_err(e),
        other => StoreError::internal(format!("{}: {other}", path.display())),
    }
}

/// Settings every connection gets, the writer's and the readers'.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    search::register_functions(conn)?;
    // More than the store's distinct statements, so none is parsed twice.
    conn.set_prepared_statement_cache_capacity(64);
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

/// Opens (creating if needed) the database at `path`, or an in-memory database for
/// `:memory:`, brings its schema up to date, and starts its connections' threads.
pub(super) fn pool(path: &Path) -> StoreResult<Pool> {
    // SQLite answers "busy" at once, without waiting, while another process closes
    // the file (it cleans the WAL up under an exclusive lock) or recovers it after
    // a crash: both take moments, so try again for as long as a lock may be waited.
    let started = std::time::Instant::now();
    loop {
        match try_open(path) {
            Err(e) if errors::is_busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

fn try_open(path: &Path) -> StoreResult<Pool> {
    if path.as_os_str() == ":memory:" {
        let mut conn = Connection::open_in_memory().map_err(map_err)?;
        configure(&conn).map_err(map_err)?;
        migrate(&mut conn, path)?;
        return Pool::start(conn, Vec::new(), Vec::new(), None, None);
    }
    create_private(path)?;
    // One connection sets the file up (WAL, migrations) and then serves nothing: the
    // ones that serve are opened once the schema is complete, so none starts with a
    // picture of it from halfway through another process's migration
    // (docs/ARCHITECTURE.md). It stays open until they are, so that closing it is
    // never closing this process's last connection (a checkpoint).
    let mut setup = Connection::open(path).map_err(map_err)?;
    // Before anything that locks: another process may be creating or migrating
    // the same file, and this one should wait for it rather than fail.
    setup.busy_timeout(BUSY_TIMEOUT).map_err(map_err)?;
    // SQLite opens a file it may not write for reading only.
    if setup.is_readonly(rusqlite::MAIN_DB).map_err(map_err)? {
        return open_read_only(path);
    }
    let mode: String = setup
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(map_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::internal(format!(
            "could not switch {} to WAL mode (got {mode})",
            path.display()
        )));
    }
    configure(&setup).map_err(map_err)?;
    migrate(&mut setup, path)?;
    let writer = open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(map_err)?;
    // Checkpoints run on a thread of their own (checkpoint.rs), not in commits.
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .map_err(map_err)?;
    let checkpoints = open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(map_err)?;
    let mut readers = (0..READERS + SEARCHERS)
        .map(|_| open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE))
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(map_err)?;
    let searchers = readers.split_off(READERS);
    let pool = Pool::start(writer, readers, searchers, Some(checkpoints), None);
    drop(setup);
    pool
}

/// Opens a file this process may read but not write: reads work, writes are
/// refused with a clear message. When the WAL's shared-memory file cannot be made
/// (a folder the user may not write), the file is read as immutable: nothing else
/// is writing it then, as a writer would have made that file.
fn open_read_only(path: &Path) -> StoreResult<Pool> {
    let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY;
    let immutable = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
    let uri = immutable_uri(path);
    let open = |n: usize| -> rusqlite::Result<Vec<Connection>> {
        match open_with(path, read_only) {
            Ok(first) => {
                let mut all = vec![first];
                for _ in 1..n {
                    all.push(open_with(path, read_only)?);
                }
                Ok(all)
            }
            // Immutable ignores the WAL: only when there is none to ignore.
            Err(e) if wal_is_empty(path) => {
                tracing::debug!(error = %e, "reading the database as immutable");
                (0..n)
                    .map(|_| open_with(Path::new(&uri), immutable))
                    .collect()
            }
            Err(e) => Err(e),
        }
    };
    let mut connections = open(1 + READERS + SEARCHERS).map_err(map_err)?;
    let writer = connections.remove(0);
    let searchers = connections.split_off(READERS);
    schema::check_current(&writer).map_err(|e| migration_error(e, path))?;
    let why = format!(
        "the database {} is read-only for this user: it can be read, not changed",
        path.display()
    );
    Pool::start(writer, connections, searchers, None, Some(why))
}
