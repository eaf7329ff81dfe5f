//! Rows ↔ model: the column lists every query selects, and their conversions. An
//! entry's columns are written once for both backends (`store/entry_columns.rs`);
//! this file only carries their kinds into PostgreSQL's types.

use std::sync::LazyLock;

use bytes::BytesMut;
use chrono::{DateTime, Utc};
use tokio_postgres::types::{IsNull, ToSql, Type};
use tokio_postgres::{Column, Row};
use uuid::Uuid;

use crate::domain::{Role, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::model::{Entry, Profile};
use crate::store::entry_columns::{
    Cell, ENTRY_COLUMNS, ReadCells, entry_cells, insert_entry_sql, read_entry,
};
use crate::store::{AuthState, TotpState, UserRecord};

/// A user's columns, in the order [`user_from_row`] reads them.
pub(super) const USER_COLUMNS: &str = "id, full_name, nickname, email, profile_pic, role, \
                                       is_private, password_hash, password_changed_at, created_at, \
                                       disabled, totp_secret, totp_pending, totp_last_step";

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

/// Where an entry's columns are in one statement's rows, found by name once per
/// statement (from its first row), so a row is read without a look-up by name.
pub(super) struct EntryPlaces(Vec<usize>);

impl EntryPlaces {
    /// The places of [`ENTRY_COLUMNS`] among `columns` (a row's).
    pub(super) fn of(columns: &[Column]) -> StoreResult<EntryPlaces> {
        ENTRY_COLUMNS
            .iter()
            .map(|column| place(columns, column))
            .collect::<StoreResult<_>>()
            .map(EntryPlaces)
    }

    /// The entry in `row`.
    pub(super) fn entry(&self, row: &Row) -> Entry {
        match read_entry(&mut RowCells {
            row,
            places: &self.0,
            next: 0,
        }) {
            Ok(entry) => entry,
            Err(never) => match never {},
        }
    }
}

/// The entries in `rows`, their columns' places found once, from the first row.
pub(super) fn entries(rows: &[Row]) -> StoreResult<Vec<Entry>> {
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    let places = EntryPlaces::of(first.columns())?;
    Ok(rows.iter().map(|row| places.entry(row)).collect())
}

/// The place of the column `name` among `columns`.
pub(super) fn place(columns: &[Column], name: &str) -> StoreResult<usize> {
    columns
        .iter()
        .position(|c| c.name() == name)
        .ok_or_else(|| StoreError::internal(format!("no column {name} in the statement's rows")))
}

/// A row being read as an entry: the `next` column read is at `places[next]`.
struct RowCells<'a> {
    row: &'a Row,
    places: &'a [usize],
    next: usize,
}

impl RowCells<'_> {
    fn place(&mut self, column: &'static str) -> usize {
        debug_assert_eq!(ENTRY_COLUMNS[self.next], column);
        let at = self.places[self.next];
        self.next += 1;
        at
    }
}

/// Reads as `Row::get` does: a column of another type is a bug, and panics.
impl ReadCells for RowCells<'_> {
    type Error = std::convert::Infallible;

    fn id(&mut self, column: &'static str) -> Result<Uuid, Self::Error> {
        Ok(self.row.get(self.place(column)))
    }

    fn text(&mut self, column: &'static str) -> Result<String, Self::Error> {
        Ok(self.row.get(self.place(column)))
    }

    fn flag(&mut self, column: &'static str) -> Result<bool, Self::Error> {
        Ok(self.row.get(self.place(column)))
    }

    fn time(&mut self, column: &'static str) -> Result<Timestamp, Self::Error> {
        Ok(from_ts(self.row.get(self.place(column))))
    }

    fn tags(&mut self, column: &'static str) -> Result<Vec<String>, Self::Error> {
        Ok(self.row.get(self.place(column)))
    }

    fn count(&mut self, column: &'static str) -> Result<u32, Self::Error> {
        let n: i32 = self.row.get(self.place(column));
        Ok(u32::try_from(n).unwrap_or(0))
    }
}

/// A value as PostgreSQL keeps its kind, or `NULL` (a change not made).
#[derive(Debug)]
pub(super) struct PgValue<'a>(Option<Cell<'a>>);

impl<'a> PgValue<'a> {
    /// The value of `cell`, `NULL` for `None`.
    pub(super) fn of(cell: Option<Cell<'a>>) -> PgValue<'a> {
        PgValue(cell)
    }
}

impl ToSql for PgValue<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.to_sql_checked(ty, out)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    /// Checked by the kind's own type, as a parameter of that type would be.
    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match &self.0 {
            None => Ok(IsNull::Yes),
            Some(Cell::Id(id)) => id.to_sql_checked(ty, out),
            Some(Cell::Text(text)) => text.to_sql_checked(ty, out),
            Some(Cell::Flag(flag)) => flag.to_sql_checked(ty, out),
            Some(Cell::Time(t)) => ts(*t).to_sql_checked(ty, out),
            Some(Cell::Tags(tags)) => {
                let tags: &[String] = tags;
                tags.to_sql_checked(ty, out)
            }
            Some(Cell::Count(n)) => i32::try_from(*n)?.to_sql_checked(ty, out),
        }
    }
}

/// The statement [`entry_values`] fills.
pub(super) static INSERT_ENTRY: LazyLock<String> =
    LazyLock::new(|| insert_entry_sql(|n| format!("${n}")));

/// The parameters of [`INSERT_ENTRY`] for `e`.
pub(super) fn entry_values(e: &Entry) -> Vec<PgValue<'_>> {
    let mut values = Vec::with_capacity(ENTRY_COLUMNS.len());
    entry_cells(e, |_, cell| values.push(PgValue::of(Some(cell))));
    values
}

/// `values` as a statement's parameters.
pub(super) fn params<'a>(values: &'a [PgValue<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// `INSERT INTO users` with a user's values, each named by its column (`updated_at`
/// starts as `created_at`): the statement, and its parameters in the same order.
pub(super) fn insert_user<'a>(
    u: &'a UserRecord,
    times: &'a [DateTime<Utc>; 2],
) -> (String, Vec<&'a (dyn ToSql + Sync)>) {
    let role: &'static (dyn ToSql + Sync) = match u.profile.role {
        Role::User => &"user",
        Role::Admin => &"admin",
    };
    let values: [(&str, &'a (dyn ToSql + Sync)); 15] = [
        ("id", u.profile.id.as_uuid()),
        ("email", &u.profile.email),
        ("full_name", &u.profile.full_name),
        ("nickname", &u.profile.nickname),
        ("password_hash", &u.password_hash),
        ("profile_pic", &u.profile.profile_pic),
        ("role", role),
        ("is_private", &u.profile.is_private),
        ("password_changed_at", &times[0]),
        ("created_at", &times[1]),
        ("updated_at", &times[1]),
        ("disabled", &u.disabled),
        ("totp_secret", &u.totp.secret),
        ("totp_pending", &u.totp.pending),
        ("totp_last_step", &u.totp.last_step),
    ];
    let columns: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
    let places: Vec<String> = (1..=values.len()).map(|n| format!("${n}")).collect();
    let sql = format!(
        "INSERT INTO users ({}) VALUES ({})",
        columns.join(", "),
        places.join(", ")
    );
    (sql, values.iter().map(|(_, v)| *v).collect())
}

pub(super) fn profile_from_row(row: &Row) -> StoreResult<Profile> {
    Ok(Profile {
        id: UserId::from_uuid(row.get("id")),
        full_name: row.get("full_name"),
        nickname: row.get("nickname"),
        email: row.get("email"),
        profile_pic: row.get("profile_pic"),
        role: role_of(row.get("role"))?,
        is_private: row.get("is_private"),
    })
}

pub(super) fn user_from_row(row: &Row) -> StoreResult<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get("password_hash"),
        password_changed_at: from_ts(row.get("password_changed_at")),
        created_at: from_ts(row.get("created_at")),
        disabled: row.get("disabled"),
        totp: TotpState {
            secret: row.get("totp_secret"),
            pending: row.get("totp_pending"),
            last_step: row.get("totp_last_step"),
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
