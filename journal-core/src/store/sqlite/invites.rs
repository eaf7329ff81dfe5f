//! Invitations: kept, listed, revoked, used up by a registration, and dying with their
//! maker's standing. One query (or one write transaction) per function.

use rusqlite::{Connection, params};

use super::rows::insert_user_row;
use crate::domain::Timestamp;
use crate::model::InviteSummary;
use crate::store::{INVITE_ID_CHARS, InviteRecord, UserRecord};

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

pub(super) fn insert(c: &Connection, invite: &InviteRecord) -> rusqlite::Result<()> {
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

pub(super) fn working(
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

pub(super) fn delete(c: &Connection, id_or_hash: &str) -> rusqlite::Result<bool> {
    c.prepare_cached(
        "DELETE FROM invites
         WHERE (code_hash = ?1 OR substr(code_hash, 1, ?2) = ?1) AND used_by IS NULL",
    )?
    .execute(params![id_or_hash, INVITE_ID_CHARS as i64])
    .map(|n| n >= 1)
}

/// Deletes the unused invitations `maker` made: they die with the maker's standing, for
/// good (enabling or promoting the account again does not bring them back). Using one
/// checks the maker too, which covers a change racing the use.
pub(super) fn drop_invites_of(c: &Connection, maker: &str) -> rusqlite::Result<()> {
    c.prepare_cached("DELETE FROM invites WHERE created_by = ?1 AND used_by IS NULL")?
        .execute([maker])?;
    Ok(())
}
