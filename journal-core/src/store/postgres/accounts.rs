//! Accounts for public servers: invitations, disabled accounts, the users' list for
//! administrators, personal access tokens and the second factor. One statement (or
//! one transaction) per function; `mod.rs` calls them.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{INSERT_USER, USER_COLUMNS, from_ts, role_of, ts, user_from_row, user_params};
use crate::domain::{AccessTokenId, PageRequest, Timestamp, UserId};
use crate::error::StoreResult;
use crate::model::{AccessToken, AdminUser, Page};
use crate::store::{AccessTokenAuth, AccessTokenRecord, InviteRecord, TotpChange, UserRecord};

/// Uses up the invitation and inserts the user in one transaction: false (nothing
/// written) when the invitation does not work; a taken e-mail is the insert's
/// conflict, which rolls the claim back too.
pub(super) async fn insert_user_with_invite(
    db: &Db,
    user: &UserRecord,
    invite_hash: &str,
    now: Timestamp,
) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
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

pub(super) async fn insert_access_token(db: &Db, t: &AccessTokenRecord) -> StoreResult<()> {
    db.execute_one(
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
    .map(|_| ())
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
