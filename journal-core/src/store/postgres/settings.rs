//! The server's settings kept in the database: the JWT secret.

use super::errors::map_pg;
use super::pool::Db;
use crate::error::StoreResult;

/// Stores `encoded` as the JWT secret unless one is there, and returns the one kept:
/// servers starting at once all get the same.
pub(super) async fn jwt_secret(db: &Db, encoded: &str) -> StoreResult<String> {
    let client = db.client().await?;
    client
        .execute(
            "INSERT INTO settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING",
            &[&encoded],
        )
        .await
        .map_err(map_pg)?;
    Ok(client
        .query_one("SELECT value FROM settings WHERE key = 'jwt_secret'", &[])
        .await
        .map_err(map_pg)?
        .get(0))
}
