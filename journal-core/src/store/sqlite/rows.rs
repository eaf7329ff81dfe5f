//! Rows ↔ model: the column lists every query selects, and their conversions. An
//! entry's columns are written once for both backends (`store/entry_columns.rs`);
//! this file only carries their kinds into SQLite's: ids as text, times as
//! milliseconds, tags as one space-separated text.

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, Row, Statement, params, params_from_iter};
use std::sync::LazyLock;
use uuid::Uuid;

use crate::domain::{Role, Timestamp, UserId};
use crate::model::{Entry, Profile};
use crate::store::entry_columns::{
    Cell, ENTRY_COLUMNS, ReadCells, entry_cells, insert_entry_sql, read_entry,
};
use crate::store::{TotpState, UserRecord};

/// Where an entry's columns are in one statement's rows, found by name once per
/// statement, so a row is read without a look-up by name.
pub(super) struct EntryPlaces(Vec<usize>);

impl EntryPlaces {
    /// The places of [`ENTRY_COLUMNS`] in `statement`'s rows.
    pub(super) fn of(statement: &Statement<'_>) -> rusqlite::Result<EntryPlaces> {
        ENTRY_COLUMNS
            .iter()
            .map(|column| statement.column_index(column))
            .collect::<rusqlite::Result<_>>()
            .map(EntryPlaces)
    }

    /// The entry in `row`.
    pub(super) fn entry(&self, row: &Row<'_>) -> rusqlite::Result<Entry> {
        read_entry(&mut RowCells {
            row,
            places: &self.0,
            next: 0,
        })
    }
}

/// A row being read as an entry: the `next` column read is at `places[next]`.
struct RowCells<'a, 'r> {
    row: &'a Row<'r>,
    places: &'a [usize],
    next: usize,
}

impl RowCells<'_, '_> {
    fn place(&mut self, column: &'static str) -> usize {
        debug_assert_eq!(ENTRY_COLUMNS[self.next], column);
        let at = self.places[self.next];
        self.next += 1;
        at
    }
}

impl ReadCells for RowCells<'_, '_> {
    type Error = rusqlite::Error;

    fn id(&mut self, column: &'static str) -> rusqlite::Result<Uuid> {
        let at = self.place(column);
        Uuid::try_parse(self.row.get_ref(at)?.as_str()?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, Box::new(e))
        })
    }

    fn text(&mut self, column: &'static str) -> rusqlite::Result<String> {
        let at = self.place(column);
        self.row.get(at)
    }

    fn flag(&mut self, column: &'static str) -> rusqlite::Result<bool> {
        let at = self.place(column);
        self.row.get(at)
    }

    fn time(&mut self, column: &'static str) -> rusqlite::Result<Timestamp> {
        let at = self.place(column);
        self.row.get(at).map(Timestamp::from_millis)
    }

    fn tags(&mut self, column: &'static str) -> rusqlite::Result<Vec<String>> {
        let at = self.place(column);
        Ok(tags_from_column(self.row.get_ref(at)?.as_str()?))
    }
}

/// A value as SQLite keeps its kind.
pub(super) fn sql_value(cell: Cell<'_>) -> ToSqlOutput<'_> {
    match cell {
        Cell::Id(id) => ToSqlOutput::Owned(Value::Text(id.to_string())),
        Cell::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
        Cell::Flag(flag) => ToSqlOutput::Owned(Value::Integer(flag.into())),
        Cell::Time(t) => ToSqlOutput::Owned(Value::Integer(t.as_millis())),
        Cell::Tags(tags) => ToSqlOutput::Owned(Value::Text(tags_column(&tags))),
    }
}

/// The statement [`insert_entry_row`] runs.
static INSERT_ENTRY: LazyLock<String> = LazyLock::new(|| insert_entry_sql(|n| format!("?{n}")));

/// Inserts one entry row (the triggers keep the search index and the totals).
pub(super) fn insert_entry_row(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    let mut values = Vec::with_capacity(ENTRY_COLUMNS.len());
    entry_cells(e, |_, cell| values.push(sql_value(cell)));
    conn.prepare_cached(&INSERT_ENTRY)?
        .execute(params_from_iter(values))?;
    Ok(())
}

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
