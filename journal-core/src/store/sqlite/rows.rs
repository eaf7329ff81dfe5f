//! Rows ↔ model: the column lists every query selects, and their conversions. An
//! entry's columns are written once for both backends (`store/entry_columns.rs`);
//! this file only carries their kinds into SQLite's: ids as text, times as
//! milliseconds, tags as one space-separated text.

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, Row, RowIndex, Statement, params, params_from_iter};
use std::sync::LazyLock;
use uuid::Uuid;

use super::change_numbers::next_change;
use crate::domain::{Role, Timestamp, UserId};
use crate::model::{Entry, Profile};
use crate::store::entry_columns::{
    Cell, ENTRY_COLUMN_LIST, ENTRY_COLUMNS, ReadCells, entry_cells, read_entry,
};
use crate::store::import_batch::same_text_key;
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

    fn count(&mut self, column: &'static str) -> rusqlite::Result<u32> {
        let at = self.place(column);
        self.row.get(at)
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
        Cell::Count(n) => ToSqlOutput::Owned(Value::Integer(n.into())),
    }
}

/// The statement [`insert_entry_row`] runs: the entry's columns, then `same_text`,
/// then the author's next change number.
static INSERT_ENTRY: LazyLock<String> = LazyLock::new(|| {
    let values: Vec<String> = (1..=ENTRY_COLUMNS.len() + 1)
        .map(|n| format!("?{n}"))
        .collect();
    let author = ENTRY_COLUMNS
        .iter()
        .position(|c| *c == "author_id")
        .expect("an entry has an author");
    format!(
        "INSERT INTO entries ({}, same_text, change_seq) VALUES ({}, {})",
        *ENTRY_COLUMN_LIST,
        values.join(", "),
        next_change(&format!("?{}", author + 1))
    )
});

/// Inserts one entry row (the triggers keep the search index and the totals) with
/// the key an import finds its text by (migration 18).
pub(super) fn insert_entry_row(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    let mut values = Vec::with_capacity(ENTRY_COLUMNS.len() + 1);
    entry_cells(e, |_, cell| values.push(sql_value(cell)));
    values.push(ToSqlOutput::Owned(Value::Integer(same_text_key(
        &e.title, &e.content,
    ))));
    conn.prepare_cached(&INSERT_ENTRY)?
        .execute(params_from_iter(values))?;
    Ok(())
}

/// The columns a whole-entry update writes: all but the entry's identity and origin.
const UNCHANGING: [&str; 4] = ["id", "author_id", "author_name", "created_at"];

/// The statement [`update_entry_row`] runs: every changing column, `same_text` and the
/// author's next change number, for the entry whose id is the last parameter.
static UPDATE_ENTRY: LazyLock<String> = LazyLock::new(|| {
    let mut set = Vec::new();
    for column in ENTRY_COLUMNS.iter().filter(|c| !UNCHANGING.contains(c)) {
        set.push(format!("{column} = ?{}", set.len() + 1));
    }
    set.push(format!("same_text = ?{}", set.len() + 1));
    set.push(format!("change_seq = {}", next_change("entries.author_id")));
    format!(
        "UPDATE entries SET {} WHERE id = ?{}",
        set.join(", "),
        set.len()
    )
});

/// Writes every changing field of `e` over its row (a sync's state, from revisions
/// made elsewhere).
pub(super) fn update_entry_row(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    let mut values = Vec::with_capacity(ENTRY_COLUMNS.len());
    entry_cells(e, |column, cell| {
        if !UNCHANGING.contains(&column) {
            values.push(sql_value(cell));
        }
    });
    values.push(ToSqlOutput::Owned(Value::Integer(same_text_key(
        &e.title, &e.content,
    ))));
    values.push(ToSqlOutput::Owned(Value::Text(e.id.to_string())));
    conn.prepare_cached(&UPDATE_ENTRY)?
        .execute(params_from_iter(values))?;
    Ok(())
}

/// Keeps an entry's `same_text` (migration 18) after its title or content changed.
pub(super) fn update_same_text(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE entries SET same_text = ?1 WHERE id = ?2")?
        .execute(params![
            same_text_key(&e.title, &e.content),
            e.id.to_string()
        ])?;
    Ok(())
}

/// A user's columns, in the order [`user_from_row`] reads them.
pub(super) const USER_COLUMNS: &str = "id, full_name, nickname, email, profile_pic, role, \
                                       is_private, password_hash, password_changed_at, created_at, \
                                       disabled, totp_secret, totp_pending, totp_last_step";

fn uuid_col(row: &Row<'_>, column: impl RowIndex) -> rusqlite::Result<Uuid> {
    let idx = column.idx(row.as_ref())?;
    let text: String = row.get(idx)?;
    Uuid::try_parse(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub(super) fn role_col(row: &Row<'_>, column: impl RowIndex) -> rusqlite::Result<Role> {
    let idx = column.idx(row.as_ref())?;
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
        id: UserId::from_uuid(uuid_col(row, "id")?),
        full_name: row.get("full_name")?,
        nickname: row.get("nickname")?,
        email: row.get("email")?,
        profile_pic: row.get("profile_pic")?,
        role: role_col(row, "role")?,
        is_private: row.get("is_private")?,
    })
}

pub(super) fn user_from_row(row: &Row<'_>) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get("password_hash")?,
        password_changed_at: Timestamp::from_millis(row.get("password_changed_at")?),
        created_at: Timestamp::from_millis(row.get("created_at")?),
        disabled: row.get("disabled")?,
        totp: TotpState {
            secret: row.get("totp_secret")?,
            pending: row.get("totp_pending")?,
            last_step: row.get("totp_last_step")?,
        },
    })
}

/// A user's values for an insert, by column (`updated_at` starts as `created_at`).
fn user_values(u: &UserRecord) -> [(&'static str, Value); 15] {
    [
        ("id", Value::Text(u.profile.id.to_string())),
        ("email", Value::Text(u.profile.email.clone())),
        ("full_name", Value::Text(u.profile.full_name.clone())),
        ("nickname", Value::Text(u.profile.nickname.clone())),
        ("password_hash", Value::Text(u.password_hash.clone())),
        ("profile_pic", Value::Text(u.profile.profile_pic.clone())),
        ("role", Value::Text(u.profile.role.as_str().to_owned())),
        (
            "is_private",
            Value::Integer(i64::from(u.profile.is_private)),
        ),
        (
            "password_changed_at",
            Value::Integer(u.password_changed_at.as_millis()),
        ),
        ("created_at", Value::Integer(u.created_at.as_millis())),
        ("updated_at", Value::Integer(u.created_at.as_millis())),
        ("disabled", Value::Integer(i64::from(u.disabled))),
        (
            "totp_secret",
            u.totp.secret.clone().map_or(Value::Null, Value::Text),
        ),
        (
            "totp_pending",
            u.totp.pending.clone().map_or(Value::Null, Value::Text),
        ),
        ("totp_last_step", Value::Integer(u.totp.last_step)),
    ]
}

/// Inserts one user row; false when the e-mail address is taken.
pub(super) fn insert_user_row(conn: &Connection, u: &UserRecord) -> rusqlite::Result<bool> {
    let (columns, values): (Vec<&str>, Vec<Value>) = user_values(u).into_iter().unzip();
    let places: Vec<String> = (1..=columns.len()).map(|n| format!("?{n}")).collect();
    conn.prepare_cached(&format!(
        "INSERT INTO users ({}) VALUES ({}) ON CONFLICT (email) DO NOTHING",
        columns.join(", "),
        places.join(", ")
    ))?
    .execute(params_from_iter(values))
    .map(|n| n == 1)
}
