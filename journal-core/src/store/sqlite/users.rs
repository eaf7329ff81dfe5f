//! Users: accounts by e-mail and by id, profile and password changes, roles, disabled
//! and deleted accounts, and the administrators' list. One query (or one write
//! transaction) per function; `mod.rs` runs them on a reader or the writer.

use rusqlite::{Connection, OptionalExtension, params};

use super::cache::Touched;
use super::invites::drop_invites_of;
use super::rows::{USER_COLUMNS, insert_user_row, profile_from_row, user_from_row};
use crate::domain::{PageRequest, Role, Timestamp, UserId};
use crate::error::{Conflict, StoreError, StoreResult};
use crate::input::ProfileChanges;
use crate::model::{AdminUser, Page, Profile};
use crate::store::UserRecord;

/// Inserts a user; false when the e-mail address is taken.
pub(super) fn insert(c: &Connection, user: &UserRecord) -> rusqlite::Result<bool> {
    insert_user_row(c, user)
}

pub(super) fn by_email(c: &Connection, email: &str) -> rusqlite::Result<Option<UserRecord>> {
    c.prepare_cached(&format!(
        "SELECT {USER_COLUMNS} FROM users WHERE email = ?1"
    ))?
    .query_row([email], user_from_row)
    .optional()
}

pub(super) fn by_id(c: &Connection, id: &str) -> rusqlite::Result<Option<UserRecord>> {
    c.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"))?
        .query_row([id], user_from_row)
        .optional()
}

/// Applies profile changes: `Ok(None)` when the user is gone, `Err` when the new
/// e-mail address is taken.
pub(super) fn update(
    c: &Connection,
    id: &str,
    changes: &ProfileChanges,
    now: Timestamp,
) -> rusqlite::Result<StoreResult<Option<Profile>>> {
    let full_name = changes.full_name.as_ref().map(|v| v.as_ref());
    let nickname = changes.nickname.as_ref().map(|v| v.as_ref());
    let email = changes.email.as_ref().map(|v| v.as_ref());
    let pic = changes.profile_pic.as_ref().map(|v| v.as_ref());
    // The check and the update run in one write transaction, so nobody can take the
    // address in between.
    if let Some(email) = email {
        let taken: bool = c
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM users WHERE email = ?1 AND id <> ?2)")?
            .query_row(params![email, id], |r| r.get(0))?;
        if taken {
            return Ok(Err(email_taken()));
        }
    }
    c.prepare_cached(&format!(
        "UPDATE users SET
            full_name   = COALESCE(?1, full_name),
            nickname    = COALESCE(?2, nickname),
            email       = COALESCE(?3, email),
            profile_pic = COALESCE(?4, profile_pic),
            is_private  = COALESCE(?5, is_private),
            updated_at  = ?6
         WHERE id = ?7
         RETURNING {USER_COLUMNS}"
    ))?
    .query_row(
        params![
            full_name,
            nickname,
            email,
            pic,
            changes.is_private,
            now.as_millis(),
            id
        ],
        profile_from_row,
    )
    .optional()
    .map(Ok)
}

/// The store's answer to a write that found the e-mail address taken.
pub(super) fn email_taken() -> StoreError {
    StoreError::Conflict(Conflict::EmailTaken)
}

pub(super) fn set_password(
    c: &Connection,
    id: &str,
    hash: &str,
    changed_at: Timestamp,
    revoke_access_tokens: bool,
) -> rusqlite::Result<bool> {
    let changed = c.execute(
        "UPDATE users SET password_hash = ?1,
            password_changed_at = max(?2, last_token_at + 1), updated_at = ?2
         WHERE id = ?3",
        params![hash, changed_at.as_millis(), id],
    )? == 1;
    if changed && revoke_access_tokens {
        c.execute("DELETE FROM access_tokens WHERE user_id = ?1", params![id])?;
    }
    Ok(changed)
}

/// Records a token checked against the password set at `password_changed_at`; on the
/// writer, so it is ordered with every password change. Touches the user's account
/// only, not their entries or the feed.
pub(super) fn record_token(
    c: &Connection,
    user: UserId,
    password_changed_at: Timestamp,
    issued_at: Timestamp,
) -> rusqlite::Result<(bool, Touched)> {
    let recorded = c
        .prepare_cached(
            "UPDATE users SET last_token_at = max(last_token_at, ?1)
             WHERE id = ?2 AND password_changed_at = ?3",
        )?
        .execute(params![
            issued_at.as_millis(),
            user.to_string(),
            password_changed_at.as_millis()
        ])?;
    Ok((recorded == 1, Touched::account_of(user)))
}

/// What became of a change to an account that may be an administrator's.
pub(super) enum AccountChange {
    Done,
    NoSuchUser,
    /// Refused: it would leave no administrator whose account works.
    LastAdmin,
}

impl From<AccountChange> for StoreResult<bool> {
    fn from(change: AccountChange) -> StoreResult<bool> {
        match change {
            AccountChange::Done => Ok(true),
            AccountChange::NoSuchUser => Ok(false),
            AccountChange::LastAdmin => Err(StoreError::Conflict(Conflict::LastAdmin)),
        }
    }
}

/// True when the user `id` is the only administrator whose account works. Read in the
/// writer's transaction, which no other writer interleaves with, so two administrators
/// disabling each other take turns and the second sees the first's change. The count
/// (a scan of the users) runs only for an administrator: the writer waits on it.
fn is_last_admin(c: &Connection, id: &str) -> rusqlite::Result<bool> {
    c.prepare_cached(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM users
                                  WHERE id = ?1 AND role = 'admin' AND disabled = 0)
                THEN (SELECT count(*) FROM users WHERE role = 'admin' AND disabled = 0) = 1
                ELSE 0 END",
    )?
    .query_row([id], |r| r.get(0))
}

fn changed(n: usize) -> AccountChange {
    if n == 1 {
        AccountChange::Done
    } else {
        AccountChange::NoSuchUser
    }
}

pub(super) fn set_disabled(
    c: &Connection,
    id: &str,
    disabled: bool,
) -> rusqlite::Result<AccountChange> {
    if disabled {
        if is_last_admin(c, id)? {
            return Ok(AccountChange::LastAdmin);
        }
        drop_invites_of(c, id)?;
        // Revisions name their entry, live or trashed; none cascades from the account.
        c.prepare_cached(
            "DELETE FROM entry_revisions WHERE entry_id IN
           (SELECT id FROM entries WHERE author_id = ?1
            UNION ALL SELECT id FROM trashed_entries WHERE author_id = ?1)",
        )?
        .execute([id])?;
    }
    c.prepare_cached("UPDATE users SET disabled = ?1 WHERE id = ?2")?
        .execute(params![disabled, id])
        .map(changed)
}

/// Sets a role by e-mail; a demotion deletes the unused invitations the user made.
pub(super) fn set_role(c: &Connection, email: &str, role: Role) -> rusqlite::Result<bool> {
    if role != Role::Admin
        && let Some(id) = c
            .prepare_cached("SELECT id FROM users WHERE email = ?1")?
            .query_row([email], |r| r.get::<_, String>(0))
            .optional()?
    {
        drop_invites_of(c, &id)?;
    }
    c.prepare_cached("UPDATE users SET role = ?1 WHERE email = ?2")?
        .execute(params![role.as_str(), email])
        .map(|n| n == 1)
}

pub(super) fn delete(c: &Connection, id: &str) -> rusqlite::Result<AccountChange> {
    if is_last_admin(c, id)? {
        return Ok(AccountChange::LastAdmin);
    }
    drop_invites_of(c, id)?;
    // Revisions name their entry, live or trashed; none cascades from the account.
    c.prepare_cached(
        "DELETE FROM entry_revisions WHERE entry_id IN
           (SELECT id FROM entries WHERE author_id = ?1
            UNION ALL SELECT id FROM trashed_entries WHERE author_id = ?1)",
    )?
    .execute([id])?;
    // Deleting the entries explicitly (rather than by cascade) keeps the full-text
    // index in step through its trigger.
    c.prepare_cached("DELETE FROM entries WHERE author_id = ?1")?
        .execute([id])?;
    c.prepare_cached("DELETE FROM users WHERE id = ?1")?
        .execute([id])
        .map(changed)
}

pub(super) fn page(c: &Connection, page: PageRequest) -> rusqlite::Result<Page<AdminUser>> {
    let total: i64 = c
        .prepare_cached("SELECT count(*) FROM users")?
        .query_row([], |r| r.get(0))?;
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let items = c
        .prepare_cached(&format!(
            "SELECT {USER_COLUMNS}, coalesce((SELECT entries FROM author_counts WHERE author_id = users.id), 0) AS entry_count
             FROM users ORDER BY created_at, id LIMIT ?1 OFFSET ?2"
        ))?
        .query_map(params![page.limit(), offset], |r| {
            let user = user_from_row(r)?;
            Ok(AdminUser {
                profile: user.profile,
                disabled: user.disabled,
                created_at: user.created_at,
                entry_count: r.get::<_, i64>("entry_count")?.try_into().unwrap_or(0),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page {
        items,
        total: total.try_into().unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
}

/// Users in id order after `after` (empty: from the first), at most `limit`.
pub(super) fn after(c: &Connection, after: &str, limit: u32) -> rusqlite::Result<Vec<UserRecord>> {
    c.prepare_cached(&format!(
        "SELECT {USER_COLUMNS} FROM users WHERE id > ?1 ORDER BY id LIMIT ?2"
    ))?
    .query_map(params![after, limit], user_from_row)?
    .collect()
}
