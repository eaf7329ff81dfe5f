//! The second factor: its secret being set up, enabled, turned off or reset, the last
//! step whose code was accepted, and the recovery codes. One statement (or one
//! transaction) per function.

use super::errors::map_pg;
use super::pool::Db;
use super::rows::ts;
use crate::domain::{Timestamp, UserId};
use crate::error::StoreResult;
use crate::store::TotpChange;

pub(super) async fn set(db: &Db, id: &UserId, change: &TotpChange) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    // The user's row first, whatever the change: two changes at once take their locks
    // in the same order, and never deadlock over the recovery codes' rows.
    tx.execute(
        "SELECT 1 FROM users WHERE id = $1 FOR UPDATE",
        &[id.as_uuid()],
    )
    .await
    .map_err(map_pg)?;
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
                replace_recovery_codes(&tx, id, recovery_hashes).await?;
            }
            n
        }
        TotpChange::NewRecoveryCodes { recovery_hashes } => {
            // The row is locked: a concurrent disable waits, or has won.
            let on = tx
                .query_opt(
                    "SELECT 1 FROM users WHERE id = $1 AND totp_secret IS NOT NULL",
                    &[id.as_uuid()],
                )
                .await
                .map_err(map_pg)?
                .is_some();
            if on {
                replace_recovery_codes(&tx, id, recovery_hashes).await?;
            }
            u64::from(on)
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

/// The user's recovery codes become these hashes' (the ones before are gone), in `tx`.
async fn replace_recovery_codes(
    tx: &deadpool_postgres::Transaction<'_>,
    id: &UserId,
    hashes: &[String],
) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM recovery_codes WHERE user_id = $1",
        &[id.as_uuid()],
    )
    .await
    .map_err(map_pg)?;
    tx.execute(
        "INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])",
        &[id.as_uuid(), &hashes],
    )
    .await
    .map_err(map_pg)?;
    Ok(())
}

pub(super) async fn claim_step(db: &Db, id: &UserId, step: i64) -> StoreResult<bool> {
    db.execute_one(
        "UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_last_step < $1",
        &[&step, id.as_uuid()],
    )
    .await
}

pub(super) async fn recovery_codes_left(db: &Db, id: &UserId) -> StoreResult<u32> {
    let row = db
        .query_opt(
            "SELECT count(*) FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL",
            &[id.as_uuid()],
        )
        .await?;
    let left: i64 = row.map_or(0, |row| row.get(0));
    Ok(u32::try_from(left).unwrap_or(u32::MAX))
}

pub(super) async fn claim_recovery_code(
    db: &Db,
    id: &UserId,
    hash: &str,
    at: Timestamp,
) -> StoreResult<bool> {
    db.execute_one(
        "UPDATE recovery_codes SET used_at = $1
         WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL",
        &[&ts(at), id.as_uuid(), &hash],
    )
    .await
}
