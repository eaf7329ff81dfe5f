//! Tokens: what checking a login token needs (many checks asked at once are read
//! together), revoked token ids, and personal access tokens. One statement (or one
//! transaction) per function.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;

use super::coalesce::{Coalesced, slot};
use super::errors::map_pg;
use super::pool::Db;
use super::rows::{auth_state_from_row, from_ts, role_of, ts};
use crate::domain::{AccessTokenId, Timestamp, UserId};
use crate::error::StoreResult;
use crate::model::AccessToken;
use crate::store::{AccessTokenAuth, AccessTokenRecord, AuthState};

/// The state of one token checked alone (`$1` its user, `$2` its id), in
/// [`AUTH_STATES`]' columns.
const AUTH_STATE: &str = "SELECT 1::bigint, role, password_changed_at,
        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2), disabled
     FROM users WHERE id = $1";

/// The state of each token asked about (`$1` its users, `$2` its ids), numbered by its
/// place in the arrays; a user who no longer exists has no row. The lookup sits in a
/// `LIMIT 1` subquery so the plan stays one index probe per token, whatever the
/// arrays' length.
const AUTH_STATES: &str = "SELECT t.at, u.role, u.password_changed_at,
        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = t.jti), u.disabled
     FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS t(id, jti, at)
     CROSS JOIN LATERAL (SELECT role, password_changed_at, disabled FROM users
                         WHERE id = t.id LIMIT 1) u";

/// Token checks asked at the moment, by user and token id.
pub(super) type TokenChecks = Coalesced<(UserId, String), Option<AuthState>>;

/// A token's user state, checked together with the other tokens being checked at the
/// moment (one statement, sent after this call: a revocation committed before it is
/// seen).
pub(super) async fn auth_state(
    db: &Db,
    checks: &TokenChecks,
    id: &UserId,
    token_id: &str,
) -> StoreResult<Option<AuthState>> {
    checks
        .ask(
            (*id, token_id.to_owned()),
            |(id, jti)| async move {
                let row = db.query_opt(AUTH_STATE, &[id.as_uuid(), &jti]).await?;
                row.as_ref().map(auth_state_from_row).transpose()
            },
            |tokens| async move {
                let (ids, jtis): (Vec<uuid::Uuid>, Vec<String>) = tokens
                    .into_iter()
                    .map(|(id, jti)| (*id.as_uuid(), jti))
                    .unzip();
                let mut states: Vec<Option<AuthState>> = vec![None; ids.len()];
                for row in db.query(AUTH_STATES, &[&ids, &jtis]).await? {
                    if let Some(state) = slot(&mut states, row.get(0)) {
                        *state = Some(auth_state_from_row(&row)?);
                    }
                }
                Ok(states)
            },
        )
        .await
}

/// Revokes `token_id` until `expires_at`, forgetting revocations already expired.
pub(super) async fn revoke(db: &Db, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    tx.execute("DELETE FROM revoked_tokens WHERE expires_at < now()", &[])
        .await
        .map_err(map_pg)?;
    tx.execute(
        "INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
        &[&token_id, &ts(expires_at)],
    )
    .await
    .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)
}

/// Token ids revoked and not yet expired.
pub(super) async fn revoked(db: &Db) -> StoreResult<Vec<(String, Timestamp)>> {
    let client = db.client().await?;
    let rows = client
        .query(
            "SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= now()",
            &[],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(|r| (r.get(0), from_ts(r.get(1)))).collect())
}

/// False, and nothing written, when the owner already has `max` tokens.
pub(super) async fn insert_access_token(
    db: &Db,
    t: &AccessTokenRecord,
    max: usize,
) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // Concurrent creations for one owner take turns on the owner's row, so each counts
    // the tokens the others committed (read committed: each statement sees what was
    // committed before it began). NO KEY UPDATE leaves the tokens' foreign-key checks
    // on that row free.
    let owner = tx
        .query_opt(
            "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE",
            &[t.user_id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    let held: i64 = tx
        .query_one(
            "SELECT count(*) FROM access_tokens WHERE user_id = $1",
            &[t.user_id.as_uuid()],
        )
        .await
        .map_err(map_pg)?
        .get(0);
    if owner.is_some() && usize::try_from(held).unwrap_or(usize::MAX) >= max {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO access_tokens (id, user_id, name, token_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            t.token.id.as_uuid(),
            t.user_id.as_uuid(),
            &t.token.name,
            &t.hash,
            &ts(t.token.created_at),
            &t.token.expires_at.map(ts),
        ],
    )
    .await
    .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(true)
}

fn token_from_row(r: &Row) -> AccessToken {
    AccessToken {
        id: AccessTokenId::from_uuid(r.get(0)),
        name: r.get(1),
        created_at: from_ts(r.get(2)),
        expires_at: r.get::<_, Option<DateTime<Utc>>>(3).map(from_ts),
        last_used_at: r.get::<_, Option<DateTime<Utc>>>(4).map(from_ts),
    }
}

pub(super) async fn access_tokens(db: &Db, user: &UserId) -> StoreResult<Vec<AccessToken>> {
    let client = db.client().await?;
    let stmt = client
        .prepare_cached(
            "SELECT id, name, created_at, expires_at, last_used_at FROM access_tokens
             WHERE user_id = $1 ORDER BY created_at, id",
        )
        .await
        .map_err(map_pg)?;
    let rows = client
        .query(&stmt, &[user.as_uuid()])
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(token_from_row).collect())
}

pub(super) async fn access_token_auth(db: &Db, hash: &str) -> StoreResult<Option<AccessTokenAuth>> {
    let Some(r) = db
        .query_opt(
            "SELECT t.id, t.name, t.created_at, t.expires_at, t.last_used_at, t.user_id, u.role, u.disabled
             FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1",
            &[&hash],
        )
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(AccessTokenAuth {
        token: AccessTokenRecord {
            token: token_from_row(&r),
            user_id: UserId::from_uuid(r.get(5)),
            hash: hash.to_owned(),
        },
        role: role_of(r.get(6))?,
        disabled: r.get(7),
    }))
}

pub(super) async fn delete_access_token(
    db: &Db,
    user: &UserId,
    id: &AccessTokenId,
) -> StoreResult<bool> {
    db.execute_one(
        "DELETE FROM access_tokens WHERE id = $1 AND user_id = $2",
        &[id.as_uuid(), user.as_uuid()],
    )
    .await
}

pub(super) async fn touch_access_token(
    db: &Db,
    id: &AccessTokenId,
    at: Timestamp,
) -> StoreResult<()> {
    db.execute_one(
        "UPDATE access_tokens SET last_used_at = $1 WHERE id = $2",
        &[&ts(at), id.as_uuid()],
    )
    .await
    .map(|_| ())
}
