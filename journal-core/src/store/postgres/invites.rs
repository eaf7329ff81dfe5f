//! Invitations: kept, listed, revoked, used up by a registration, and dying with their
//! maker's standing. One statement (or one transaction) per function.

use tokio_postgres::Transaction;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{from_ts, insert_user, ts};
use crate::domain::{Timestamp, UserId};
use crate::error::StoreResult;
use crate::model::InviteSummary;
use crate::store::{INVITE_ID_CHARS, InviteRecord, UserRecord};

/// Uses up the invitation and inserts the user in one transaction: false (nothing
/// written) when the invitation does not work; a taken e-mail is the insert's
/// conflict, which rolls the claim back too. The invitation is checked first, so one
/// that does not work answers the same whatever the e-mail.
pub(super) async fn insert_user_with_invite(
    db: &Db,
    user: &UserRecord,
    invite_hash: &str,
    now: Timestamp,
) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // The maker's row is share-locked until the account exists: demoting, disabling or
    // deleting them (which locks every working administrator's row, see
    // `working_admins`) waits for this registration, or this waits for that change and
    // then sees it, since a locking read checks the row as it is once the lock is had.
    let maker_works = tx
        .query_opt(
            "SELECT 1 FROM invites i JOIN users u ON u.id = i.created_by
             WHERE i.code_hash = $1 AND u.role = 'admin' AND NOT u.disabled
             FOR SHARE OF u",
            &[&invite_hash],
        )
        .await
        .map_err(map_pg)?
        .is_some();
    if !maker_works {
        return Ok(false);
    }
    let claimed = tx
        .execute(
            "UPDATE invites SET used_by = $1, used_at = $2
             WHERE code_hash = $3 AND used_by IS NULL AND expires_at > $2",
            &[user.profile.id.as_uuid(), &ts(now), &invite_hash],
        )
        .await
        .map_err(map_pg)?;
    if claimed != 1 {
        return Ok(false);
    }
    let times = [ts(user.password_changed_at), ts(user.created_at)];
    let (sql, params) = insert_user(user, &times);
    tx.execute(&sql, &params).await.map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(true)
}

pub(super) async fn insert(db: &Db, invite: &InviteRecord) -> StoreResult<()> {
    db.execute_one(
        "INSERT INTO invites (code_hash, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        &[
            &invite.hash,
            invite.created_by.as_uuid(),
            &ts(invite.created_at),
            &ts(invite.expires_at),
        ],
    )
    .await
    .map(|_| ())
}

pub(super) async fn working(
    db: &Db,
    now: Timestamp,
    limit: u32,
) -> StoreResult<Vec<InviteSummary>> {
    let client = db.client().await?;
    let stmt = client
        .prepare_cached(
            "SELECT left(i.code_hash, $3), i.created_by, u.email, i.created_at, i.expires_at
             FROM invites i JOIN users u ON u.id = i.created_by
             WHERE i.used_by IS NULL AND i.expires_at > $1 AND u.role = 'admin' AND NOT u.disabled
             ORDER BY i.created_at, i.code_hash LIMIT $2",
        )
        .await
        .map_err(map_pg)?;
    let rows = client
        .query(
            &stmt,
            &[&ts(now), &i64::from(limit), &(INVITE_ID_CHARS as i32)],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows
        .iter()
        .map(|r| InviteSummary {
            id: r.get(0),
            created_by: UserId::from_uuid(r.get(1)),
            created_by_email: r.get(2),
            created_at: from_ts(r.get(3)),
            expires_at: from_ts(r.get(4)),
        })
        .collect())
}

pub(super) async fn delete(db: &Db, id_or_hash: &str) -> StoreResult<bool> {
    let client = db.client().await?;
    let stmt = client
        .prepare_cached(
            "DELETE FROM invites
             WHERE (code_hash = $1 OR left(code_hash, $2) = $1) AND used_by IS NULL",
        )
        .await
        .map_err(map_pg)?;
    let n = client
        .execute(&stmt, &[&id_or_hash, &(INVITE_ID_CHARS as i32)])
        .await
        .map_err(map_pg)?;
    Ok(n >= 1)
}

/// Deletes the unused invitations `maker` made: they die with the maker's standing, for
/// good (enabling the account again does not bring them back). Using one checks the
/// maker too, which covers a change racing the use.
pub(super) async fn drop_invites_of(tx: &Transaction<'_>, maker: &UserId) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM invites WHERE created_by = $1 AND used_by IS NULL",
        &[maker.as_uuid()],
    )
    .await
    .map_err(map_pg)?;
    Ok(())
}
