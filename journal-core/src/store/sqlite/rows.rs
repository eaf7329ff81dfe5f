//! Rows ↔ model: the column lists every query selects, and their conversions.

use rusqlite::{Connection, Row, params};
use uuid::Uuid;

use crate::domain::{EntryId, Role, Timestamp, UserId};
use crate::model::{Entry, Profile};
use crate::store::{TotpState, UserRecord};

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

fn uuid_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<Uuid> {
    let text: String = row.get(idx)?;
    Uuid::try_parse(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub(super) fn role_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<Role> {
    let text: String = row.get(idx)?;
    text.parse().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub(super) fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: EntryId::from_uuid(uuid_col(row, 0)?),
        title: row.get(1)?,
        content: row.get(2)?,
        is_public: row.get(3)?,
        author_id: UserId::from_uuid(uuid_col(row, 4)?),
        author_name: row.get(5)?,
        created_at: Timestamp::from_millis(row.get(6)?),
        updated_at: Timestamp::from_millis(row.get(7)?),
        tags: tags_from_column(row.get_ref(8)?.as_str()?),
        starred: row.get(9)?,
        date: Timestamp::from_millis(row.get(10)?),
    })
}

/// The `tags` column's text: the tags, sorted, separated by single spaces.
pub(super) fn tags_column(tags: &[String]) -> String {
    tags.join(" ")
}

fn tags_from_column(text: &str) -> Vec<String> {
    text.split(' ')
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

pub(super) fn profile_from_row(row: &Row<'_>) -> rusqlite::Result<Profile> {
    Ok(Profile {
        id: UserId::from_uuid(uuid_col(row, 0)?),
        full_name: row.get(1)?,
        nickname: row.get(2)?,
        email: row.get(3)?,
        profile_pic: row.get(4)?,
        role: role_col(row, 5)?,
        is_private: row.get(6)?,
    })
}

pub(super) fn user_from_row(row: &Row<'_>) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get(7)?,
        password_changed_at: Timestamp::from_millis(row.get(8)?),
        created_at: Timestamp::from_millis(row.get(9)?),
        disabled: row.get(10)?,
        totp: TotpState {
            secret: row.get(11)?,
            pending: row.get(12)?,
            last_step: row.get(13)?,
        },
    })
}

/// Inserts one entry row (the triggers keep the search index and the totals).
pub(super) fn insert_entry_row(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO entries (id, author_id, author_name, title, content, is_public, created_at,
                              updated_at, tags, starred, date)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        e.id.to_string(),
        e.author_id.to_string(),
        e.author_name,
        e.title,
        e.content,
        e.is_public,
        e.created_at.as_millis(),
        e.updated_at.as_millis(),
        tags_column(&e.tags),
        e.starred,
        e.date.as_millis(),
    ])?;
    Ok(())
}

/// Inserts one user row; false when the e-mail address is taken.
pub(super) fn insert_user_row(conn: &Connection, u: &UserRecord) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "INSERT INTO users (id, email, full_name, nickname, password_hash, profile_pic, role,
                            is_private, password_changed_at, created_at, updated_at,
                            disabled, totp_secret, totp_pending, totp_last_step)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT (email) DO NOTHING",
    )?
    .execute(params![
        u.profile.id.to_string(),
        u.profile.email,
        u.profile.full_name,
        u.profile.nickname,
        u.password_hash,
        u.profile.profile_pic,
        u.profile.role.as_str(),
        u.profile.is_private,
        u.password_changed_at.as_millis(),
        u.created_at.as_millis(),
        u.disabled,
        u.totp.secret,
        u.totp.pending,
        u.totp.last_step,
    ])
    .map(|n| n == 1)
}
