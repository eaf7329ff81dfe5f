//! An entry's columns, written once for both backends: their names, how a row becomes
//! an [`Entry`] ([`read_entry`]), and an entry's values for an insert
//! ([`entry_cells`]) or an update ([`change_cells`]). A new entry field is one line in
//! each of these three functions (and a migration per backend); the backends build
//! their column lists and statements from them and read rows by these names.
//!
//! A backend carries each value as one of a few kinds ([`Cell`]: an id, text, a flag,
//! a time, tags) and converts kinds, never fields: SQLite keeps ids as text, times as
//! milliseconds and tags as one space-separated text; PostgreSQL has `uuid`,
//! `timestamptz` and `text[]`.

use std::borrow::Cow;
use std::sync::LazyLock;

use uuid::Uuid;

use crate::domain::{EntryId, RevisionId, Timestamp, UserId};
use crate::input::EntryChanges;
use crate::model::Entry;

/// One column's value, by kind; each backend turns a kind into its own parameter.
#[derive(Clone, Debug)]
pub(crate) enum Cell<'a> {
    /// A UUID (an entry's or a user's id).
    Id(&'a Uuid),
    /// Text.
    Text(&'a str),
    /// A boolean.
    Flag(bool),
    /// A point in time.
    Time(Timestamp),
    /// An entry's tags, sorted.
    Tags(Cow<'a, [String]>),
    /// A count (a revision number).
    Count(u32),
}

/// A row being read, column by column, by name. Each backend implements it over its
/// row type with the columns' places found once per statement ([`ENTRY_COLUMNS`] in
/// order), so reading a row costs no look-up by name.
pub(crate) trait ReadCells {
    /// The backend's error.
    type Error;
    /// A UUID column.
    fn id(&mut self, column: &'static str) -> Result<Uuid, Self::Error>;
    /// A text column.
    fn text(&mut self, column: &'static str) -> Result<String, Self::Error>;
    /// A boolean column.
    fn flag(&mut self, column: &'static str) -> Result<bool, Self::Error>;
    /// A time column.
    fn time(&mut self, column: &'static str) -> Result<Timestamp, Self::Error>;
    /// The tags column.
    fn tags(&mut self, column: &'static str) -> Result<Vec<String>, Self::Error>;
    /// A count column.
    fn count(&mut self, column: &'static str) -> Result<u32, Self::Error>;
}

/// An entry from its row. The order of the reads is the order of [`ENTRY_COLUMNS`].
pub(crate) fn read_entry<R: ReadCells>(r: &mut R) -> Result<Entry, R::Error> {
    Ok(Entry {
        id: EntryId::from_uuid(r.id("id")?),
        title: r.text("title")?,
        content: r.text("content")?,
        is_public: r.flag("is_public")?,
        author_id: UserId::from_uuid(r.id("author_id")?),
        author_name: r.text("author_name")?,
        created_at: r.time("created_at")?,
        updated_at: r.time("updated_at")?,
        tags: r.tags("tags")?,
        starred: r.flag("starred")?,
        date: r.time("date")?,
        revision: r.count("revision")?,
        revision_id: RevisionId::from_uuid(r.id("revision_id")?),
    })
}

/// An entry's values for an insert, by column, in the order of [`ENTRY_COLUMNS`].
pub(crate) fn entry_cells<'a>(e: &'a Entry, mut cell: impl FnMut(&'static str, Cell<'a>)) {
    cell("id", Cell::Id(e.id.as_uuid()));
    cell("title", Cell::Text(&e.title));
    cell("content", Cell::Text(&e.content));
    cell("is_public", Cell::Flag(e.is_public));
    cell("author_id", Cell::Id(e.author_id.as_uuid()));
    cell("author_name", Cell::Text(&e.author_name));
    cell("created_at", Cell::Time(e.created_at));
    cell("updated_at", Cell::Time(e.updated_at));
    cell("tags", Cell::Tags(Cow::Borrowed(&e.tags)));
    cell("starred", Cell::Flag(e.starred));
    cell("date", Cell::Time(e.date));
    cell("revision", Cell::Count(e.revision));
    cell("revision_id", Cell::Id(e.revision_id.as_uuid()));
}

/// The columns an update may change, each with its new value or `None` to keep it.
/// (`updated_at` is the update's time, set by the backend.)
pub(crate) fn change_cells<'a>(
    c: &'a EntryChanges,
    mut cell: impl FnMut(&'static str, Option<Cell<'a>>),
) {
    cell("title", c.title.as_ref().map(|v| Cell::Text(v.as_ref())));
    cell(
        "content",
        c.content.as_ref().map(|v| Cell::Text(v.as_ref())),
    );
    cell("is_public", c.is_public.map(Cell::Flag));
    cell(
        "tags",
        c.tags
            .as_ref()
            .map(|t| Cell::Tags(Cow::Owned(t.clone().into_inner()))),
    );
    cell("starred", c.starred.map(Cell::Flag));
    cell("date", c.date.map(Cell::Time));
}

/// An entry's column names, in the order [`read_entry`] reads them (found by running
/// it over a row that only notes the names).
pub(crate) static ENTRY_COLUMNS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut names = Names(Vec::new());
    let _ = read_entry(&mut names);
    names.0
});

/// The entry's columns of `e` (`entries` as `e`), for a `SELECT`. Each is named
/// with `AS`: SQLite names a result column after its expression when it likes.
pub(crate) static SELECT_ENTRY: LazyLock<String> = LazyLock::new(|| {
    let qualified: Vec<String> = ENTRY_COLUMNS
        .iter()
        .map(|c| format!("e.{c} AS {c}"))
        .collect();
    qualified.join(", ")
});

/// The entry's columns, unqualified, for `RETURNING` and `INSERT`.
pub(crate) static ENTRY_COLUMN_LIST: LazyLock<String> = LazyLock::new(|| ENTRY_COLUMNS.join(", "));

/// `INSERT INTO entries (…) VALUES (…)` with the placeholders `placeholder(1)`, … in
/// the order of [`entry_cells`].
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) fn insert_entry_sql(placeholder: impl Fn(usize) -> String) -> String {
    let values: Vec<String> = (1..=ENTRY_COLUMNS.len()).map(placeholder).collect();
    format!(
        "INSERT INTO entries ({}) VALUES ({})",
        *ENTRY_COLUMN_LIST,
        values.join(", ")
    )
}

/// `UPDATE entries SET …` for `changes`: each changeable column set to its parameter
/// when given (`COALESCE`, so `None` keeps it), then `updated_at`, `revision` and
/// `revision_id` to the next three parameters, for the entry whose id is the one
/// after, returning the entry's columns; `also` are more assignments a backend makes
/// itself. The changes' parameters, in order, go to `param`.
pub(crate) fn update_entry_sql<'a>(
    changes: &'a EntryChanges,
    placeholder: impl Fn(usize) -> String,
    mut param: impl FnMut(Option<Cell<'a>>),
    also: &[String],
) -> String {
    let mut set = Vec::new();
    change_cells(changes, |column, value| {
        set.push(format!(
            "{column} = COALESCE({}, {column})",
            placeholder(set.len() + 1)
        ));
        param(value);
    });
    let n = set.len();
    set.extend_from_slice(also);
    format!(
        "UPDATE entries SET {}, updated_at = {}, revision = {}, revision_id = {} WHERE id = {} \
         RETURNING {}",
        set.join(", "),
        placeholder(n + 1),
        placeholder(n + 2),
        placeholder(n + 3),
        placeholder(n + 4),
        *ENTRY_COLUMN_LIST
    )
}

/// A row that only notes the names read from it.
struct Names(Vec<&'static str>);

impl ReadCells for Names {
    type Error = std::convert::Infallible;
    fn id(&mut self, column: &'static str) -> Result<Uuid, Self::Error> {
        self.0.push(column);
        Ok(Uuid::nil())
    }
    fn text(&mut self, column: &'static str) -> Result<String, Self::Error> {
        self.0.push(column);
        Ok(String::new())
    }
    fn flag(&mut self, column: &'static str) -> Result<bool, Self::Error> {
        self.0.push(column);
        Ok(false)
    }
    fn time(&mut self, column: &'static str) -> Result<Timestamp, Self::Error> {
        self.0.push(column);
        Ok(Timestamp::from_millis(0))
    }
    fn tags(&mut self, column: &'static str) -> Result<Vec<String>, Self::Error> {
        self.0.push(column);
        Ok(Vec::new())
    }
    fn count(&mut self, column: &'static str) -> Result<u32, Self::Error> {
        self.0.push(column);
        Ok(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An insert's values come in the order of the columns read, which is the order
    /// of the insert's column list.
    #[test]
    fn an_insert_writes_the_columns_a_row_is_read_by() {
        let entry = Entry {
            id: EntryId::from_uuid(Uuid::from_u128(1)),
            title: "t".into(),
            content: "c".into(),
            is_public: true,
            tags: vec!["a".into()],
            starred: false,
            date: Timestamp::from_millis(3),
            author_id: UserId::from_uuid(Uuid::from_u128(2)),
            author_name: "n".into(),
            created_at: Timestamp::from_millis(1),
            updated_at: Timestamp::from_millis(2),
            revision: 1,
            revision_id: RevisionId::from_uuid(Uuid::from_u128(4)),
        };
        let mut written = Vec::new();
        entry_cells(&entry, |column, _| written.push(column));
        assert_eq!(written, *ENTRY_COLUMNS);
        let mut changeable = Vec::new();
        change_cells(&EntryChanges::default(), |column, _| {
            changeable.push(column)
        });
        assert!(changeable.iter().all(|c| ENTRY_COLUMNS.contains(c)));
    }
}
