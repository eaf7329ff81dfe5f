//! Accounts for public servers: invitations, disabled accounts, the users' list for
//! administrators, personal access tokens and the second factor. One query (or one
//! write transaction) per function; `mod.rs` runs them on the reader or the writer.

use rusqlite::{Connection, OptionalExtension, params};

use super::rows::{USER_COLUMNS, insert_user_row, role_col, user_from_row};
use crate::domain::{PageRequest, Role, Timestamp};
use crate::error::{Conflict, StoreError, StoreResult};
use crate::model::{AccessToken, AdminUser, InviteSummary, Page};
use crate::store::{
    AccessTokenAuth, AccessTokenRecord, INVITE_ID_CHARS, InviteRecord, TotpChange, UserRecord,
};

/// Uses up the invitation and inserts the user, in the writer's transaction: `Ok(None)`
/// when the invitation does not work, `Ok(Some(false))` when the e-mail is taken (the
/// invitation is then left unused). The invitation is checked first, so one that does
/// not work answers the same whatever the e-mail.
pub(super) fn insert_user_with_invite(
    c: &Connection,
    user: &UserRecord,
    invite_hash: &str,
    now: Timestamp,
) -> rusqlite::Result<Option<bool>> {
    // The writer is the only one (BEGIN IMMEDIATE), so nothing changes between this
    // check and the claim below: not the invitation, nor its maker's role or state.
    let works: bool = c
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM invites i JOIN users u ON u.id = i.created_by
                            WHERE i.code_hash = ?1 AND i.used_by IS NULL AND i.expires_at > ?2
                              AND u.role = 'admin' AND u.disabled = 0)",
        )?
        .query_row(params![invite_hash, now.as_millis()], |r| r.get(0))?;
    if !works {
        return Ok(None);
    }
    let taken: bool = c
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM users WHERE email = ?1)")?
        .query_row([&user.profile.email], |r| r.get(0))?;
    if taken {
        return Ok(Some(false));
    }
    c.prepare_cached("UPDATE invites SET used_by = ?1, used_at = ?2 WHERE code_hash = ?3")?
        .execute(params![
            user.profile.id.to_string(),
            now.as_millis(),
            invite_hash
        ])?;
    insert_user_row(c, user).map(Some)
}

pub(super) fn insert_invite(c: &Connection, invite: &InviteRecord) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO invites (code_hash, created_by, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        invite.hash,
        invite.created_by.to_string(),
        invite.created_at.as_millis(),
        invite.expires_at.as_millis()
    ])?;
    Ok(())
}

pub(super) fn invites(
    c: &Connection,
    now: Timestamp,
    limit: u32,
) -> rusqlite::Result<Vec<InviteSummary>> {
    c.prepare_cached(
        "SELECT substr(i.code_hash, 1, ?3), i.created_by, u.email, i.created_at, i.expires_at
         FROM invites i JOIN users u ON u.id = i.created_by
         WHERE i.used_by IS NULL AND i.expires_at > ?1 AND u.role = 'admin' AND u.disabled = 0
         ORDER BY i.created_at, i.code_hash LIMIT ?2",
    )?
    .query_map(
        params![now.as_millis(), limit, INVITE_ID_CHARS as i64],
        |r| {
            let maker: String = r.get(1)?;
            Ok(InviteSummary {
                id: r.get(0)?,
                created_by: maker.parse().map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        1,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?,
                created_by_email: r.get(2)?,
                created_at: Timestamp::from_millis(r.get(3)?),
                expires_at: Timestamp::from_millis(r.get(4)?),
            })
        },
    )?
    .collect()
}

pub(super) fn delete_invite(c: &Connection, id_or_hash: &str) -> rusqlite::Result<bool> {
    c.prepare_cached(
        "DELETE FROM invites
         WHERE (code_hash = ?1 OR substr(code_hash, 1, ?2) = ?1) AND used_by IS NULL",
    )?
    .execute(params![id_or_hash, INVITE_ID_CHARS as i64])
    .map(|n| n >= 1)
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

/// Deletes the unused invitations `maker` made: they die with the maker's standing, for
/// good (enabling or promoting the account again does not bring them back). Using one
/// checks the maker too, which covers a change racing the use.
pub(super) fn drop_invites_of(c: &Connection, maker: &str) -> rusqlite::Result<()> {
    c.prepare_cached("DELETE FROM invites WHERE created_by = ?1 AND used_by IS NULL")?
        .execute([maker])?;
    Ok(())
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

pub(super) fn delete_user(c: &Connection, id: &str) -> rusqlite::Result<AccountChange> {
    if is_last_admin(c, id)? {
        return Ok(AccountChange::LastAdmin);
    }
    drop_invites_of(c, id)?;
    // Deleting the entries explicitly (rather than by cascade) keeps the full-text
    // index in step through its trigger.
    c.prepare_cached("DELETE FROM entries WHERE author_id = ?1")?
        .execute([id])?;
    c.prepare_cached("DELETE FROM users WHERE id = ?1")?
        .execute([id])
        .map(changed)
}

pub(super) fn users_page(c: &Connection, page: PageRequest) -> rusqlite::Result<Page<AdminUser>> {
    let total: i64 = c
        .prepare_cached("SELECT count(*) FROM users")?
        .query_row([], |r| r.get(0))?;
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let items = c
        .prepare_cached(&format!(
            "SELECT {USER_COLUMNS}, coalesce((SELECT entries FROM author_counts WHERE author_id = users.id), 0)
             FROM users ORDER BY created_at, id LIMIT ?1 OFFSET ?2"
        ))?
        .query_map(params![page.limit(), offset], |r| {
            let user = user_from_row(r)?;
            Ok(AdminUser {
                profile: user.profile,
                disabled: user.disabled,
                created_at: user.created_at,
                entry_count: r.get::<_, i64>(14)?.try_into().unwrap_or(0),
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

pub(super) fn set_totp(c: &Connection, id: &str, change: &TotpChange) -> rusqlite::Result<bool> {
    match change {
        TotpChange::Pending(secret) => c
            .prepare_cached("UPDATE users SET totp_pending = ?1 WHERE id = ?2")?
            .execute(params![secret, id])
            .map(|n| n == 1),
        TotpChange::Enable {
            recovery_hashes,
            step,
        } => {
            let n = c
                .prepare_cached(
                    "UPDATE users SET totp_secret = totp_pending, totp_pending = NULL,
                                      totp_last_step = ?1
                     WHERE id = ?2 AND totp_pending IS NOT NULL",
                )?
                .execute(params![step, id])?;
            if n != 1 {
                return Ok(false);
            }
            c.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
                .execute([id])?;
            let mut insert = c.prepare_cached(
                "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?1, ?2)",
            )?;
            for hash in recovery_hashes {
                insert.execute([id, hash])?;
            }
            Ok(true)
        }
        TotpChange::Disable => {
            c.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
                .execute([id])?;
            c.prepare_cached(
                "UPDATE users SET totp_secret = NULL, totp_pending = NULL WHERE id = ?1",
            )?
            .execute([id])
            .map(|n| n == 1)
        }
        TotpChange::Reset { signed_out_at } => {
            c.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
                .execute([id])?;
            // Dated as a password change is: after every token recorded so far.
            c.prepare_cached(
                "UPDATE users SET totp_secret = NULL, totp_pending = NULL,
                    password_changed_at = max(?2, last_token_at + 1)
                 WHERE id = ?1",
            )?
            .execute(params![id, signed_out_at.as_millis()])
            .map(|n| n == 1)
        }
    }
}

pub(super) fn claim_totp_step(c: &Connection, id: &str, step: i64) -> rusqlite::Result<bool> {
    c.prepare_cached("UPDATE users SET totp_last_step = ?1 WHERE id = ?2 AND totp_last_step < ?1")?
        .execute(params![step, id])
        .map(|n| n == 1)
}

pub(super) fn claim_recovery_code(
    c: &Connection,
    id: &str,
    hash: &str,
    at: Timestamp,
) -> rusqlite::Result<bool> {
    c.prepare_cached(
        "UPDATE recovery_codes SET used_at = ?1
         WHERE user_id = ?2 AND code_hash = ?3 AND used_at IS NULL",
    )?
    .execute(params![at.as_millis(), id, hash])
    .map(|n| n == 1)
}
