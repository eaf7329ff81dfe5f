//! The server's settings kept in the database: the JWT secret.

use rusqlite::{Connection, OptionalExtension};

/// The stored JWT secret (base64), if any.
pub(super) fn jwt_secret(c: &Connection) -> rusqlite::Result<Option<String>> {
    c.query_row(
        "SELECT value FROM settings WHERE key = 'jwt_secret'",
        [],
        |r| r.get(0),
    )
    .optional()
}

/// Stores `encoded` as the JWT secret unless one is there, and returns the one kept.
pub(super) fn keep_jwt_secret(c: &Connection, encoded: &str) -> rusqlite::Result<String> {
    c.execute(
        "INSERT OR IGNORE INTO settings (key, value) VALUES ('jwt_secret', ?1)",
        [encoded],
    )?;
    c.query_row(
        "SELECT value FROM settings WHERE key = 'jwt_secret'",
        [],
        |r| r.get(0),
    )
}
