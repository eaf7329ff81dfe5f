//! `fsync` of the database file from the checkpoint thread (`checkpoint.rs`).
//!
//! A checkpoint that copies the WAL only part of the way leaves its copies unsynced,
//! and the one that finally reaches the end syncs them all. When that one is the
//! writer's (to start the WAL over), every write waits behind it, so the checkpoint
//! thread syncs the file first. Rusqlite has no call for it: the file is reached
//! through the connection's own handle (`SQLITE_FCNTL_FILE_POINTER`), never opened
//! again by its path, since closing any other descriptor of the file would release the
//! locks SQLite holds on it in this process.

use std::ffi::c_void;
use std::ptr;

use rusqlite::{Connection, ffi};

/// Syncs `conn`'s main database file to disk, as SQLite's own checkpoints do.
pub(super) fn sync_database(conn: &Connection) -> rusqlite::Result<()> {
    let mut file: *mut ffi::sqlite3_file = ptr::null_mut();
    // SAFETY: `handle` is this open connection's, used on its own thread for the
    // duration of the call; FILE_POINTER writes one pointer into `file`.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_FILE_POINTER,
            ptr::from_mut(&mut file).cast::<c_void>(),
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(failure(rc));
    }
    // SAFETY: `file` is null or the connection's open database file, whose methods
    // belong to its VFS and stay valid while the connection is open, as it is here.
    let rc = unsafe {
        match file
            .as_ref()
            .and_then(|f| f.pMethods.as_ref())
            .and_then(|m| m.xSync)
        {
            Some(sync) => sync(file, ffi::SQLITE_SYNC_NORMAL),
            None => ffi::SQLITE_MISUSE,
        }
    };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(failure(rc))
    }
}

fn failure(rc: std::ffi::c_int) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        ffi::Error::new(rc),
        Some("syncing the database file".into()),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_database_file_syncs_through_its_connection() {
        let dir = tempfile::tempdir().unwrap();
        let conn = rusqlite::Connection::open(dir.path().join("sync.db")).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);",
        )
        .unwrap();
        super::sync_database(&conn).unwrap();
        // The connection is untouched by it.
        let x: i64 = conn.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(x, 1);
    }
}
