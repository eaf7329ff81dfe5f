//! Web sessions' refresh tokens (`session_tokens`): added, read, rotated once, ended.
//! One statement (or one transaction) per function.

use tokio_postgres::Row;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{from_ts, ts};
use crate::domain::{Timestamp, UserId};
use crate::error::StoreResult;
use crate::store::{
    Rotation, SESSIONS_PER_USER, SessionToken, SessionsToEnd, USED_SESSION_TOKENS_KEPT,
};

const INSERT: &str = "INSERT INTO session_tokens (token_hash, session_id, user_id, started_at,
         expires_at, access_jti, access_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

pub(super) async fn insert(db: &Db, t: &SessionToken, now: Timestamp) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    tx.execute(
        "DELETE FROM session_tokens WHERE expires_at < $1",
        &[&ts(now)],
    )
    .await
    .map_err(map_pg)?;
    add(&tx, t).await?;
    tx.execute(
        "DELETE FROM session_tokens WHERE user_id = $1 AND session_id IN (
             SELECT session_id FROM session_tokens WHERE user_id = $1
             GROUP BY session_id ORDER BY max(started_at) DESC, session_id DESC OFFSET $2)",
        &[t.user_id.as_uuid(), &(SESSIONS_PER_USER as i64)],
    )
    .await
    .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)
}

async fn add(tx: &tokio_postgres::Transaction<'_>, t: &SessionToken) -> StoreResult<()> {
    tx.execute(
        INSERT,
        &[
            &t.hash,
            &t.session_id,
            t.user_id.as_uuid(),
            &ts(t.started_at),
            &ts(t.expires_at),
            &t.access_token_id,
            &ts(t.access_expires_at),
        ],
    )
    .await
    .map_err(map_pg)?;
    Ok(())
}

pub(super) async fn by_hash(db: &Db, hash: &str) -> StoreResult<Option<(SessionToken, bool)>> {
    let row = db
        .query_opt(
            "SELECT token_hash, session_id, user_id, started_at, expires_at, access_jti,
                    access_expires_at, used_at IS NOT NULL
             FROM session_tokens WHERE token_hash = $1",
            &[&hash],
        )
        .await?;
    Ok(row.as_ref().map(|r: &Row| {
        (
            SessionToken {
                hash: r.get(0),
                session_id: r.get(1),
                user_id: UserId::from_uuid(r.get(2)),
                started_at: from_ts(r.get(3)),
                expires_at: from_ts(r.get(4)),
                access_token_id: r.get(5),
                access_expires_at: from_ts(r.get(6)),
            },
            r.get(7),
        )
    }))
}

pub(super) async fn rotate(
    db: &Db,
    used_hash: &str,
    next: &SessionToken,
    now: Timestamp,
) -> StoreResult<Rotation> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // The row's lock orders two refreshes with one token, and a refresh with a
    // sign-out: the second finds it used, or gone.
    let marked = tx
        .execute(
            "UPDATE session_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL",
            &[&used_hash, &ts(now)],
        )
        .await
        .map_err(map_pg)?;
    if marked != 1 {
        let used = tx
            .query_opt(
                "SELECT used_at IS NOT NULL FROM session_tokens WHERE token_hash = $1",
                &[&used_hash],
            )
            .await
            .map_err(map_pg)?
            .map(|r| r.get::<_, bool>(0));
        return Ok(if used == Some(true) {
            Rotation::Used
        } else {
            Rotation::Gone
        });
    }
    add(&tx, next).await?;
    tx.execute(
        "DELETE FROM session_tokens WHERE session_id = $1 AND used_at IS NOT NULL
           AND token_hash NOT IN (
             SELECT token_hash FROM session_tokens WHERE session_id = $1 AND used_at IS NOT NULL
             ORDER BY used_at DESC LIMIT $2)",
        &[&next.session_id, &(USED_SESSION_TOKENS_KEPT as i64)],
    )
    .await
    .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(Rotation::Rotated)
}

pub(super) async fn end(
    db: &Db,
    which: &SessionsToEnd,
    now: Timestamp,
) -> StoreResult<Vec<(String, Timestamp)>> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let rows = match which {
        SessionsToEnd::One(session) => {
            // Twice: a refresh committing while the first waited on its row adds a
            // token this statement's snapshot does not see; the second statement (read
            // committed: a new snapshot) does. A refresh starting later finds its token
            // gone.
            let delete = "DELETE FROM session_tokens WHERE session_id = $1
                 RETURNING access_jti, access_expires_at";
            let mut rows = tx.query(delete, &[session]).await.map_err(map_pg)?;
            rows.extend(tx.query(delete, &[session]).await.map_err(map_pg)?);
            rows
        }
        SessionsToEnd::Everywhere { user, at } => {
            // Dated as a password change is: after every token recorded so far.
            tx.execute(
                "UPDATE users
                 SET password_changed_at = GREATEST($2, last_token_at + interval '1 millisecond')
                 WHERE id = $1",
                &[user.as_uuid(), &ts(*at)],
            )
            .await
            .map_err(map_pg)?;
            let delete = "DELETE FROM session_tokens WHERE user_id = $1
                 RETURNING access_jti, access_expires_at";
            let mut rows = tx.query(delete, &[user.as_uuid()]).await.map_err(map_pg)?;
            rows.extend(tx.query(delete, &[user.as_uuid()]).await.map_err(map_pg)?);
            rows
        }
    };
    tx.commit().await.map_err(map_pg)?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, String>(0), from_ts(r.get(1))))
        .filter(|(_, expires)| *expires >= now)
        .collect())
}
