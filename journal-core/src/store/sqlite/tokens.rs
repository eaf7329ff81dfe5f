//! Tokens: what checking a login token needs, revoked token ids, and personal access
//! tokens. One query (or one write transaction) per function.

use rusqlite::{Connection, OptionalExtension, params};

use super::rows::role_col;
use crate::domain::Timestamp;
use crate::model::AccessToken;
use crate::store::{AccessTokenAuth, AccessTokenRecord, AuthState};

/// A token's user state: the user's role and password time, whether `jti` is revoked.
pub(super) fn auth_state(
    c: &Connection,
    id: &str,
    jti: &str,
) -> rusqlite::Result<Option<AuthState>> {
    c.prepare_cached(
        "SELECT role, password_changed_at,
                EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?2), disabled
         FROM users WHERE id = ?1",
    )?
    .query_row([id, jti], |r| {
        Ok(AuthState {
            role: role_col(r, 0)?,
            password_changed_at: Timestamp::from_millis(r.get(1)?),
            revoked: r.get(2)?,
            disabled: r.get(3)?,
        })
    })
    .optional()
}

/// Revokes `jti` until `expires_at`, forgetting revocations expired before `now`.
pub(super) fn revoke(
    c: &Connection,
    jti: &str,
    expires_at: Timestamp,
    now: Timestamp,
) -> rusqlite::Result<()> {
    c.execute(
        "DELETE FROM revoked_tokens WHERE expires_at < ?1",
        [now.as_millis()],
    )?;
    c.execute(
        "INSERT OR IGNORE INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2)",
        params![jti, expires_at.as_millis()],
    )?;
    Ok(())
}

/// Token ids revoked and not expired at `now`.
pub(super) fn revoked(
    c: &Connection,
    now: Timestamp,
) -> rusqlite::Result<Vec<(String, Timestamp)>> {
    c.prepare_cached("SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= ?1")?
        .query_map([now.as_millis()], |r| {
            Ok((r.get(0)?, Timestamp::from_millis(r.get(1)?)))
        })?
        .collect()
}

/// False, and nothing written, when the owner already has `max` tokens: the writer runs
/// alone, so the count cannot change before the insert.
pub(super) fn insert_access_token(
    c: &Connection,
    t: &AccessTokenRecord,
    max: usize,
) -> rusqlite::Result<bool> {
    let held: i64 = c
        .prepare_cached("SELECT count(*) FROM access_tokens WHERE user_id = ?1")?
        .query_row([t.user_id.to_string()], |r| r.get(0))?;
    if usize::try_from(held).unwrap_or(usize::MAX) >= max {
        return Ok(false);
    }
    c.prepare_cached(
        "INSERT INTO access_tokens (id, user_id, name, token_hash, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        t.token.id.to_string(),
        t.user_id.to_string(),
        t.token.name,
        t.hash,
        t.token.created_at.as_millis(),
        t.token.expires_at.map(|at| at.as_millis()),
    ])?;
    Ok(true)
}

fn token_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AccessToken> {
    let id: String = r.get(0)?;
    Ok(AccessToken {
        id: id.parse().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })?,
        name: r.get(1)?,
        created_at: Timestamp::from_millis(r.get(2)?),
        expires_at: r.get::<_, Option<i64>>(3)?.map(Timestamp::from_millis),
        last_used_at: r.get::<_, Option<i64>>(4)?.map(Timestamp::from_millis),
    })
}

pub(super) fn access_tokens(c: &Connection, user: &str) -> rusqlite::Result<Vec<AccessToken>> {
    c.prepare_cached(
        "SELECT id, name, created_at, expires_at, last_used_at FROM access_tokens
         WHERE user_id = ?1 ORDER BY created_at, id",
    )?
    .query_map([user], token_from_row)?
    .collect()
}

pub(super) fn delete_access_token(c: &Connection, user: &str, id: &str) -> rusqlite::Result<bool> {
    c.prepare_cached("DELETE FROM access_tokens WHERE id = ?1 AND user_id = ?2")?
        .execute([id, user])
        .map(|n| n == 1)
}

pub(super) fn access_token_auth(
    c: &Connection,
    hash: &str,
) -> rusqlite::Result<Option<AccessTokenAuth>> {
    c.prepare_cached(
        "SELECT t.id, t.name, t.created_at, t.expires_at, t.last_used_at, t.user_id, u.role, u.disabled
         FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?1",
    )?
    .query_row([hash], |r| {
        let user: String = r.get(5)?;
        Ok(AccessTokenAuth {
            token: AccessTokenRecord {
                token: token_from_row(r)?,
                user_id: user.parse().map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        5,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?,
                hash: hash.to_owned(),
            },
            role: role_col(r, 6)?,
            disabled: r.get(7)?,
        })
    })
    .optional()
}

pub(super) fn touch_access_token(c: &Connection, id: &str, at: Timestamp) -> rusqlite::Result<()> {
    c.prepare_cached("UPDATE access_tokens SET last_used_at = ?1 WHERE id = ?2")?
        .execute(params![at.as_millis(), id])?;
    Ok(())
}
