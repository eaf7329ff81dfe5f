//! Rows ↔ model: the column lists every query selects, and their conversions.

use chrono::{DateTime, Utc};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use crate::domain::{EntryId, Role, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Entry, Profile};
use crate::store::{AuthState, TotpState, UserRecord};

/// An entry's columns, in the order [`entry_from_row`] reads them (`e` is `entries`).
pub(super) const ENTRY_COLUMNS: &str = "e.id, e.title, e.content, e.is_public, e.author_id, \
                                         e.author_name, e.created_at, e.updated_at, e.tags, \
                                         e.starred, e.date";
/// How many columns [`ENTRY_COLUMNS`] has: a query's extra columns come after them.
pub(super) const ENTRY_COLUMN_COUNT: usize = 11;
/// The same columns, unqualified, for `RETURNING`.
pub(super) const ENTRY_COLUMNS_BARE: &str = "id, title, content, is_public, author_id, \
                                             author_name, created_at, updated_at, tags, \
                                             starred, date";
/// A user's columns, in the order [`user_from_row`] reads them.
pub(super) const USER_COLUMNS: &str = "id, full_name, nickname, email, profile_pic, role, \
                                       is_private, password_hash, password_changed_at, created_at, \
                                       disabled, totp_secret, totp_pending, totp_last_step";

/// The statement [`entry_params`] fills.
pub(super) const INSERT_ENTRY: &str = "INSERT INTO entries (id, author_id, author_name, title, content, is_public, created_at, updated_at, tags, starred, date)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

pub(super) fn ts(t: Timestamp) -> DateTime<Utc> {
    t.to_datetime()
}

pub(super) fn from_ts(t: DateTime<Utc>) -> Timestamp {
    Timestamp::from_millis(t.timestamp_millis())
}

pub(super) fn role_of(text: &str) -> StoreResult<Role> {
    text.parse()
        .map_err(|_| StoreError::internal(format!("unknown role {text:?} in users")))
}

pub(super) fn entry_from_row(row: &Row) -> Entry {
    Entry {
        id: EntryId::from_uuid(row.get(0)),
        title: row.get(1),
        content: row.get(2),
        is_public: row.get(3),
        author_id: UserId::from_uuid(row.get(4)),
        author_name: row.get(5),
        created_at: from_ts(row.get(6)),
        updated_at: from_ts(row.get(7)),
        tags: row.get(8),
        starred: row.get(9),
        date: from_ts(row.get(10)),
    }
}

/// The parameters of [`INSERT_ENTRY`] for `e`, with the timestamps converted into
/// `times` (which the parameters borrow).
pub(super) fn entry_params<'a>(
    e: &'a Entry,
    times: &'a [DateTime<Utc>; 3],
) -> [&'a (dyn ToSql + Sync); 11] {
    [
        e.id.as_uuid(),
        e.author_id.as_uuid(),
        &e.author_name,
        &e.title,
        &e.content,
        &e.is_public,
        &times[0],
        &times[1],
        &e.tags,
        &e.starred,
        &times[2],
    ]
}

/// The timestamps [`entry_params`] needs.
pub(super) fn entry_times(e: &Entry) -> [DateTime<Utc>; 3] {
    [ts(e.created_at), ts(e.updated_at), ts(e.date)]
}

/// The statement [`user_params`] fills.
pub(super) const INSERT_USER: &str =
    "INSERT INTO users (id, email, full_name, nickname, password_hash, profile_pic, role,
                        is_private, password_changed_at, created_at, updated_at,
                        disabled, totp_secret, totp_pending, totp_last_step)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $13, $14)";

/// The parameters of [`INSERT_USER`] for `u`, with its password-change and creation
/// times converted into `times`.
pub(super) fn user_params<'a>(
    u: &'a UserRecord,
    times: &'a [DateTime<Utc>; 2],
) -> [&'a (dyn ToSql + Sync); 14] {
    [
        u.profile.id.as_uuid(),
        &u.profile.email,
        &u.profile.full_name,
        &u.profile.nickname,
        &u.password_hash,
        &u.profile.profile_pic,
        match u.profile.role {
            Role::User => &"user",
            Role::Admin => &"admin",
        },
        &u.profile.is_private,
        &times[0],
        &times[1],
        &u.disabled,
        &u.totp.secret,
        &u.totp.pending,
        &u.totp.last_step,
    ]
}

pub(super) fn profile_from_row(row: &Row) -> StoreResult<Profile> {
    Ok(Profile {
        id: UserId::from_uuid(row.get(0)),
        full_name: row.get(1),
        nickname: row.get(2),
        email: row.get(3),
        profile_pic: row.get(4),
        role: role_of(row.get(5))?,
        is_private: row.get(6),
    })
}

pub(super) fn user_from_row(row: &Row) -> StoreResult<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get(7),
        password_changed_at: from_ts(row.get(8)),
        created_at: from_ts(row.get(9)),
        disabled: row.get(10),
        totp: TotpState {
            secret: row.get(11),
            pending: row.get(12),
            last_step: row.get(13),
        },
    })
}

/// A token's state from a row of `AUTH_STATE` or `AUTH_STATES` (column 0 is the
/// token's place in its batch).
pub(super) fn auth_state_from_row(row: &Row) -> StoreResult<AuthState> {
    Ok(AuthState {
        role: role_of(row.get(1))?,
        password_changed_at: from_ts(row.get(2)),
        revoked: row.get(3),
        disabled: row.get(4),
    })
}
