//! Users: accounts by e-mail and by id, profile and password changes, roles, disabled
//! and deleted accounts, and the administrators' list. One statement (or one
//! transaction) per function.

use tokio_postgres::Transaction;
use uuid::Uuid;

use super::errors::map_pg;
use super::invites::drop_invites_of;
use super::pool::Db;
use super::rows::{USER_COLUMNS, insert_user, profile_from_row, ts, user_from_row};
use crate::domain::{PageRequest, Timestamp, UserId};
use crate::error::{Conflict, StoreError, StoreResult};
use crate::input::ProfileChanges;
use crate::model::{AdminUser, Page, Profile};
use crate::store::UserRecord;

/// Inserts a user; a taken e-mail is the insert's conflict.
pub(super) async fn insert(db: &Db, u: &UserRecord) -> StoreResult<()> {
    let times = [ts(u.password_changed_at), ts(u.created_at)];
    let (sql, params) = insert_user(u, &times);
    db.execute_one(&sql, &params).await.map(|_| ())
}

pub(super) async fn by_email(db: &Db, email: &str) -> StoreResult<Option<UserRecord>> {
    let row = db
        .query_opt(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE email = $1"),
            &[&email],
        )
        .await?;
    row.as_ref().map(user_from_row).transpose()
}

pub(super) async fn by_id(db: &Db, id: &UserId) -> StoreResult<Option<UserRecord>> {
    let row = db
        .query_opt(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1"),
            &[id.as_uuid()],
        )
        .await?;
    row.as_ref().map(user_from_row).transpose()
}

/// Applies profile changes; `None` when the user is gone.
pub(super) async fn update(
    db: &Db,
    id: &UserId,
    changes: &ProfileChanges,
    now: Timestamp,
) -> StoreResult<Option<Profile>> {
    let row = db
        .query_opt(
            &format!(
                "UPDATE users SET
                full_name   = COALESCE($1, full_name),
                nickname    = COALESCE($2, nickname),
                email       = COALESCE($3, email),
                profile_pic = COALESCE($4, profile_pic),
                is_private  = COALESCE($5, is_private),
                updated_at  = $6
             WHERE id = $7
             RETURNING {USER_COLUMNS}"
            ),
            &[
                &changes.full_name.as_ref().map(|v| v.as_ref()),
                &changes.nickname.as_ref().map(|v| v.as_ref()),
                &changes.email.as_ref().map(|v| v.as_ref()),
                &changes.profile_pic.as_ref().map(|v| v.as_ref()),
                &changes.is_private,
                &ts(now),
                id.as_uuid(),
            ],
        )
        .await?;
    row.as_ref().map(profile_from_row).transpose()
}

pub(super) async fn set_password(
    db: &Db,
    id: &UserId,
    hash: &str,
    changed_at: Timestamp,
    revoke_access_tokens: bool,
) -> StoreResult<bool> {
    // The row lock orders this with `record_token`; the new time is computed from
    // the row as it is once the lock is held. The tokens go in the same statement,
    // so a password change never commits without them.
    db.execute_one(
        "WITH changed AS (
            UPDATE users SET password_hash = $1,
                password_changed_at = GREATEST($2, last_token_at + interval '1 millisecond'),
                updated_at = $2
             WHERE id = $3
             RETURNING id
         ), revoked AS (
            DELETE FROM access_tokens
             WHERE $4 AND user_id IN (SELECT id FROM changed)
         )
         SELECT 1 FROM changed",
        &[&hash, &ts(changed_at), id.as_uuid(), &revoke_access_tokens],
    )
    .await
}

/// Records a token checked against the password set at `password_changed_at`.
pub(super) async fn record_token(
    db: &Db,
    id: &UserId,
    password_changed_at: Timestamp,
    issued_at: Timestamp,
) -> StoreResult<bool> {
    db.execute_one(
        "UPDATE users SET last_token_at = GREATEST(last_token_at, $1)
         WHERE id = $2 AND password_changed_at = $3",
        &[&ts(issued_at), id.as_uuid(), &ts(password_changed_at)],
    )
    .await
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

pub(super) async fn delete(db: &Db, id: &UserId) -> StoreResult<bool> {
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

pub(super) async fn page(db: &Db, page: PageRequest) -> StoreResult<Page<AdminUser>> {
    let client = db.client().await?;
    let total: i64 = client
        .query_one("SELECT count(*) FROM users", &[])
        .await
        .map_err(map_pg)?
        .get(0);
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {USER_COLUMNS}, coalesce((SELECT entries FROM author_counts a WHERE a.author_id = users.id), 0) AS entry_count
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
                entry_count: r.get::<_, i64>("entry_count").try_into().unwrap_or(0),
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

/// Users in id order after `after`, at most `limit`.
pub(super) async fn after(
    db: &Db,
    after: Option<&UserId>,
    limit: u32,
) -> StoreResult<Vec<UserRecord>> {
    let client = db.client().await?;
    let after = after.map(|id| *id.as_uuid()).unwrap_or_else(Uuid::nil);
    let rows = client
        .query(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE id > $1 ORDER BY id LIMIT $2"),
            &[&after, &i64::from(limit)],
        )
        .await
        .map_err(map_pg)?;
    rows.iter().map(user_from_row).collect()
}
