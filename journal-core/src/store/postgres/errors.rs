//! PostgreSQL's errors as the store's: conflicts by constraint name (the store's
//! constants) mapped to what conflicted, and what a retry
//! may cure as `Unavailable`.

use deadpool_postgres::PoolError;
use tokio_postgres::error::SqlState;

use crate::error::{Conflict, StoreError};
use crate::store::{AUTHOR_CONSTRAINT, EMAIL_CONSTRAINT};

pub(super) fn map_pg(e: tokio_postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        if *db.code() == SqlState::UNIQUE_VIOLATION && db.constraint() == Some(EMAIL_CONSTRAINT) {
            return StoreError::Conflict(Conflict::EmailTaken);
        }
        if *db.code() == SqlState::FOREIGN_KEY_VIOLATION
            && db.constraint() == Some(AUTHOR_CONSTRAINT)
        {
            return StoreError::Conflict(Conflict::AuthorGone);
        }
        let code = db.code().code();
        // Connection exceptions, shutdown, resource exhaustion, read-only standby, a
        // statement past its time limit, and a transaction the database rolled back to
        // break a deadlock or a serialization clash (class 40): all cured by a retry.
        if code.starts_with("08")
            || code.starts_with("40")
            || code.starts_with("53")
            || code.starts_with("57P")
            || *db.code() == SqlState::QUERY_CANCELED
            || *db.code() == SqlState::READ_ONLY_SQL_TRANSACTION
        {
            return StoreError::unavailable(e);
        }
        return StoreError::internal(e);
    }
    // No database error: the connection itself failed or closed.
    StoreError::unavailable(e)
}

pub(super) fn map_pool(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => map_pg(e),
        PoolError::Timeout(_) | PoolError::Closed => StoreError::unavailable(e),
        other => StoreError::internal(other.to_string()),
    }
}
