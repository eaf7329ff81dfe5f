//! SQLite's errors as the store's: what a retry may cure is `Unavailable`.

use rusqlite::ErrorCode;

use crate::error::{Conflict, StoreError};

/// A full disk, a read-only or locked file and I/O failures are `Unavailable` (the
/// operator can fix them, and nothing was written); anything else is `Internal`. A
/// taken e-mail address never arrives here: the store checks for it by its conflict
/// clause (see `rows::insert_user_row`) and reports `Conflict` itself.
pub(super) fn map_err(e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(failure, _) = &e {
        // The one foreign key a write can break: an entry's author (see the schema).
        if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY {
            return StoreError::Conflict(Conflict::AuthorGone);
        }
        match failure.code {
            ErrorCode::DiskFull
            | ErrorCode::ReadOnly
            | ErrorCode::CannotOpen
            | ErrorCode::DatabaseBusy
            | ErrorCode::DatabaseLocked
            | ErrorCode::SystemIoFailure
            | ErrorCode::FileLockingProtocolFailed => return StoreError::unavailable(e),
            ErrorCode::OperationInterrupted => {
                return StoreError::unavailable("the query ran past its time limit");
            }
            _ => {}
        }
    }
    StoreError::internal(e)
}

/// True when `e` is SQLite's "busy" or "locked": another connection held a lock.
pub(super) fn is_busy(e: &StoreError) -> bool {
    let (StoreError::Unavailable(cause) | StoreError::Internal(cause)) = e else {
        return false;
    };
    matches!(
        cause.downcast_ref::<rusqlite::Error>(),
        Some(rusqlite::Error::SqliteFailure(f, _))
            if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}
