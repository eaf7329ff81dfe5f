//! Accounts for public servers: invitations, disabled accounts, the users' list for
//! administrators, personal access tokens and the second factor. One statement (or
//! one transaction) per function; `mod.rs` calls them.

use chrono::{DateTime, Utc};
use tokio_postgres::{Row, Transaction};
use uuid::Uuid;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{INSERT_USER, USER_COLUMNS, from_ts, role_of, ts, user_from_row, user_params};
use crate::domain::{AccessTokenId, PageRequest, Timestamp, UserId};
use crate::error::{Conflict, StoreError, StoreResult};
use crate::model::{AccessToken, AdminUser, InviteSummary, Page};
use crate::store::{
    AccessTokenAuth, AccessTokenRecord, INVITE_ID_CHARS, InviteRecord, TotpChange, UserRecord,
};

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
    tx.execute(
        INSERT_USER,
        &user_params(user, &[ts(user.password_changed_at), ts(user.created_at)]),
    )
    .await
    .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(true)
}

pub(super) async fn insert_invite(db: &Db, invite: &InviteRecord) -> StoreResult<()> {
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

pub(super) async fn invites(
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

pub(super) async fn delete_invite(db: &Db, id_or_hash: &str) -> StoreResult<bool> {
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

/// The working administrators (role `admin`, not disabled), their rows locked until
/// the transaction ends. Every change that could leave the server without
/// one reads them this way first, so two such changes take turns: the second waits for
/// the first to commit, and its locking read then sees the rows as the first left them
/// (a row disabled or demoted meanwhile no longer matches). Locked in id order, so two
/// of them never deadlock.
async fn working_admins(tx: &Transaction<'_>) -> StoreResult<Vec<Uuid>> {
    Ok(tx
        .query(
            "SELECT id FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE",
            &[],
        )
        .await
        .map_err(map_pg)?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Deletes the unused invitations `maker` made: they die with the maker's standing, for
/// good (enabling the account again does not bring them back). Using one checks the
/// maker too, which covers a change racing the use.
async fn drop_invites_of(tx: &Transaction<'_>, maker: &UserId) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM invites WHERE created_by = $1 AND used_by IS NULL",
        &[maker.as_uuid()],
    )
    .await
    .map_err(map_pg)?;
    Ok(())
}

/// Sets a role by e-mail; a demotion deletes the unused invitations the user made, in
/// the same statement.
pub(super) async fn set_role(db: &Db, email: &str, role: &str) -> StoreResult<bool> {
    let row = db
        .query_opt(
            "WITH changed AS (UPDATE users SET role = $1 WHERE email = $2 RETURNING id),
                  dropped AS (DELETE FROM invites WHERE $1 <> 'admin' AND used_by IS NULL
                                AND created_by IN (SELECT id FROM changed))
             SELECT count(*) FROM changed",
            &[&role, &email],
        )
        .await?;
    Ok(row.is_some_and(|r| r.get::<_, i64>(0) == 1))
}

fn last_admin() -> StoreError {
    StoreError::Conflict(Conflict::LastAdmin)
}

/// True when `id` is the only working administrator.
fn only(admins: &[Uuid], id: &UserId) -> bool {
    matches!(admins, [one] if one == id.as_uuid())
}

pub(super) async fn set_disabled(db: &Db, id: &UserId, disabled: bool) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    if disabled {
        if only(&working_admins(&tx).await?, id) {
            return Err(last_admin());
        }
        drop_invites_of(&tx, id).await?;
    }
    let n = tx
        .execute(
            "UPDATE users SET disabled = $1 WHERE id = $2",
            &[&disabled, id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(n == 1)
}

pub(super) async fn delete_user(db: &Db, id: &UserId) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    if only(&working_admins(&tx).await?, id) {
        return Err(last_admin());
    }
    drop_invites_of(&tx, id).await?;
    let n = tx
        .execute("DELETE FROM users WHERE id = $1", &[id.as_uuid()])
        .await
        .map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    Ok(n == 1)
}

pub(super) async fn users_page(db: &Db, page: PageRequest) -> StoreResult<Page<AdminUser>> {
    let client = db.client().await?;
    let total: i64 = client
        .query_one("SELECT count(*) FROM users", &[])
        .await
        .map_err(map_pg)?
        .get(0);
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {USER_COLUMNS}, coalesce((SELECT entries FROM author_counts a WHERE a.author_id = users.id), 0)
             FROM users ORDER BY created_at, id LIMIT $1 OFFSET $2"
        ))
        .await
        .map_err(map_pg)?;
    let rows = client
        .query(&stmt, &[&i64::from(page.limit()), &offset])
        .await
        .map_err(map_pg)?;
    let items = rows
        .iter()
        .map(|r| {
            let user = user_from_row(r)?;
            Ok(AdminUser {
                profile: user.profile,
                disabled: user.disabled,
                created_at: user.created_at,
                entry_count: r.get::<_, i64>(14).try_into().unwrap_or(0),
            })
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Page {
        items,
        total: total.try_into().unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
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

pub(super) async fn set_totp(db: &Db, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let changed = match change {
        TotpChange::Pending(secret) => tx
            .execute(
                "UPDATE users SET totp_pending = $1 WHERE id = $2",
                &[secret, id.as_uuid()],
            )
            .await
            .map_err(map_pg)?,
        TotpChange::Enable {
            recovery_hashes,
            step,
        } => {
            let n = tx
                .execute(
                    "UPDATE users SET totp_secret = totp_pending, totp_pending = NULL,
                                      totp_last_step = $1
                     WHERE id = $2 AND totp_pending IS NOT NULL",
                    &[step, id.as_uuid()],
                )
                .await
                .map_err(map_pg)?;
            if n == 1 {
                tx.execute(
                    "DELETE FROM recovery_codes WHERE user_id = $1",
                    &[id.as_uuid()],
                )
                .await
                .map_err(map_pg)?;
                tx.execute(
                    "INSERT INTO recovery_codes (user_id, code_hash)
                     SELECT $1, unnest($2::text[])",
                    &[id.as_uuid(), recovery_hashes],
                )
                .await
                .map_err(map_pg)?;
            }
            n
        }
        TotpChange::Disable => {
            tx.execute(
                "DELETE FROM recovery_codes WHERE user_id = $1",
                &[id.as_uuid()],
            )
            .await
            .map_err(map_pg)?;
            tx.execute(
                "UPDATE users SET totp_secret = NULL, totp_pending = NULL WHERE id = $1",
                &[id.as_uuid()],
            )
            .await
            .map_err(map_pg)?
        }
        TotpChange::Reset { signed_out_at } => {
            tx.execute(
                "DELETE FROM recovery_codes WHERE user_id = $1",
                &[id.as_uuid()],
            )
            .await
            .map_err(map_pg)?;
            // Dated as a password change is: after every token recorded so far.
            tx.execute(
                "UPDATE users SET totp_secret = NULL, totp_pending = NULL,
                    password_changed_at = GREATEST($2, last_token_at + interval '1 millisecond')
                 WHERE id = $1",
                &[id.as_uuid(), &ts(*signed_out_at)],
            )
            .await
            .map_err(map_pg)?
        }
    };
    tx.commit().await.map_err(map_pg)?;
    Ok(changed == 1)
}
