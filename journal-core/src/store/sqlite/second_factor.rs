//! The second factor: its secret being set up, enabled, turned off or reset, the last
//! step whose code was accepted, and the recovery codes. One write transaction per
//! function.

use rusqlite::{Connection, OptionalExtension, params};

use crate::domain::Timestamp;
use crate::store::TotpChange;

pub(super) fn set(c: &Connection, id: &str, change: &TotpChange) -> rusqlite::Result<bool> {
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
            replace_recovery_codes(c, id, recovery_hashes)
        }
        TotpChange::NewRecoveryCodes { recovery_hashes } => {
            let on: bool = c
                .prepare_cached("SELECT totp_secret IS NOT NULL FROM users WHERE id = ?1")?
                .query_row([id], |row| row.get(0))
                .optional()?
                .unwrap_or(false);
            if !on {
                return Ok(false);
            }
            replace_recovery_codes(c, id, recovery_hashes)
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

/// The user's recovery codes become these hashes' (the ones before are gone).
fn replace_recovery_codes(c: &Connection, id: &str, hashes: &[String]) -> rusqlite::Result<bool> {
    c.prepare_cached("DELETE FROM recovery_codes WHERE user_id = ?1")?
        .execute([id])?;
    let mut insert =
        c.prepare_cached("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?1, ?2)")?;
    for hash in hashes {
        insert.execute([id, hash])?;
    }
    Ok(true)
}

pub(super) fn claim_step(c: &Connection, id: &str, step: i64) -> rusqlite::Result<bool> {
    c.prepare_cached("UPDATE users SET totp_last_step = ?1 WHERE id = ?2 AND totp_last_step < ?1")?
        .execute(params![step, id])
        .map(|n| n == 1)
}

pub(super) fn recovery_codes_left(c: &Connection, id: &str) -> rusqlite::Result<u32> {
    c.prepare_cached("SELECT count(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL")?
        .query_row(params![id], |row| row.get(0))
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
