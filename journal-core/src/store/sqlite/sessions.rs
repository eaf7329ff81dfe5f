//! Web sessions' refresh tokens (`session_tokens`): added, read, rotated once, ended.
//! One write transaction per function that writes.

use rusqlite::{Connection, OptionalExtension, params};

use super::cache::Touched;
use crate::domain::{Timestamp, UserId};
use crate::store::{
    Rotation, SESSIONS_PER_USER, SessionToken, SessionsToEnd, USED_SESSION_TOKENS_KEPT,
};

/// Session tokens are in no cache: their writes touch nothing cached (ending every
/// session of a user changes their account, which is).
pub(super) fn insert(
    c: &Connection,
    t: &SessionToken,
    now: Timestamp,
) -> rusqlite::Result<((), Touched)> {
    c.prepare_cached("DELETE FROM session_tokens WHERE expires_at < ?1")?
        .execute([now.as_millis()])?;
    add(c, t)?;
    c.prepare_cached(
        "DELETE FROM session_tokens WHERE user_id = ?1 AND session_id IN (
             SELECT session_id FROM session_tokens WHERE user_id = ?1
             GROUP BY session_id ORDER BY max(started_at) DESC, session_id DESC LIMIT -1 OFFSET ?2)",
    )?
    .execute(params![t.user_id.to_string(), SESSIONS_PER_USER as i64])?;
    Ok(((), Touched::nothing()))
}

fn add(c: &Connection, t: &SessionToken) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO session_tokens (token_hash, session_id, user_id, started_at, expires_at,
             access_jti, access_expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        t.hash,
        t.session_id.to_string(),
        t.user_id.to_string(),
        t.started_at.as_millis(),
        t.expires_at.as_millis(),
        t.access_token_id,
        t.access_expires_at.as_millis(),
    ])?;
    Ok(())
}

pub(super) fn by_hash(
    c: &Connection,
    hash: &str,
) -> rusqlite::Result<Option<(SessionToken, bool)>> {
    c.prepare_cached(
        "SELECT token_hash, session_id, user_id, started_at, expires_at, access_jti,
                access_expires_at, used_at IS NOT NULL
         FROM session_tokens WHERE token_hash = ?1",
    )?
    .query_row([hash], |r| {
        let text = |i: usize| r.get::<_, String>(i);
        let bad = |i: usize, e: &dyn std::fmt::Display| {
            rusqlite::Error::FromSqlConversionFailure(
                i,
                rusqlite::types::Type::Text,
                e.to_string().into(),
            )
        };
        Ok((
            SessionToken {
                hash: text(0)?,
                session_id: text(1)?.parse().map_err(|e| bad(1, &e))?,
                user_id: text(2)?.parse::<UserId>().map_err(|e| bad(2, &e))?,
                started_at: Timestamp::from_millis(r.get(3)?),
                expires_at: Timestamp::from_millis(r.get(4)?),
                access_token_id: text(5)?,
                access_expires_at: Timestamp::from_millis(r.get(6)?),
            },
            r.get(7)?,
        ))
    })
    .optional()
}

pub(super) fn rotate(
    c: &Connection,
    used_hash: &str,
    next: &SessionToken,
    now: Timestamp,
) -> rusqlite::Result<(Rotation, Touched)> {
    let marked = c
        .prepare_cached(
            "UPDATE session_tokens SET used_at = ?2 WHERE token_hash = ?1 AND used_at IS NULL",
        )?
        .execute(params![used_hash, now.as_millis()])?;
    if marked != 1 {
        let used: Option<bool> = c
            .prepare_cached("SELECT used_at IS NOT NULL FROM session_tokens WHERE token_hash = ?1")?
            .query_row([used_hash], |r| r.get(0))
            .optional()?;
        let rotation = if used == Some(true) {
            Rotation::Used
        } else {
            Rotation::Gone
        };
        return Ok((rotation, Touched::nothing()));
    }
    add(c, next)?;
    c.prepare_cached(
        "DELETE FROM session_tokens WHERE session_id = ?1 AND used_at IS NOT NULL
           AND token_hash NOT IN (
             SELECT token_hash FROM session_tokens WHERE session_id = ?1 AND used_at IS NOT NULL
             ORDER BY used_at DESC LIMIT ?2)",
    )?
    .execute(params![
        next.session_id.to_string(),
        USED_SESSION_TOKENS_KEPT as i64
    ])?;
    Ok((Rotation::Rotated, Touched::nothing()))
}

pub(super) fn end(
    c: &Connection,
    which: &SessionsToEnd,
    now: Timestamp,
) -> rusqlite::Result<(Vec<(String, Timestamp)>, Touched)> {
    let (column, key) = match which {
        SessionsToEnd::One(session) => ("session_id", session.to_string()),
        SessionsToEnd::Everywhere { user, .. } => ("user_id", user.to_string()),
    };
    let issued: Vec<(String, Timestamp)> = c
        .prepare_cached(&format!(
            "DELETE FROM session_tokens WHERE {column} = ?1
             RETURNING access_jti, access_expires_at"
        ))?
        .query_map([&key], |r| {
            Ok((r.get(0)?, Timestamp::from_millis(r.get(1)?)))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut touched = Touched::nothing();
    if let SessionsToEnd::Everywhere { user, at } = which {
        // Dated as a password change is: after every token recorded so far.
        c.prepare_cached(
            "UPDATE users SET password_changed_at = max(?2, last_token_at + 1) WHERE id = ?1",
        )?
        .execute(params![user.to_string(), at.as_millis()])?;
        touched = Touched::account_of(*user);
    }
    let live = issued
        .into_iter()
        .filter(|(_, expires)| *expires >= now)
        .collect();
    Ok((live, touched))
}
