//! Paged lists: a page of entries and the list's total, read by one statement.

use rusqlite::Connection;
use rusqlite::types::Value;

use super::rows::EntryPlaces;
use crate::domain::PageRequest;
use crate::domain::UserId;
use crate::filter::EntryFilter;
use crate::model::{Entry, Page};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::list_query::{Arg, Dialect, ListQuery, Scope, cap_total};

/// A page of an author's list (public entries only for others' view), its total from
/// the author's counters when unfiltered.
pub(super) fn author_page(
    c: &Connection,
    author: UserId,
    public_only: bool,
    filter: &EntryFilter,
    page: PageRequest,
) -> rusqlite::Result<Page<Entry>> {
    let scope = Scope::Author {
        id: author,
        public_only,
    };
    let total = if public_only {
        "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = ?1), 0)"
    } else {
        "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = ?1), 0)"
    };
    filtered_page(c, &scope, filter, page, Some(total))
}

/// A page of the public feed, its total from the feed's counter when unfiltered.
pub(super) fn feed_page(
    c: &Connection,
    filter: &EntryFilter,
    page: PageRequest,
) -> rusqlite::Result<Page<Entry>> {
    let total = "SELECT n FROM feed_count WHERE id = 0";
    filtered_page(c, &Scope::Feed, filter, page, Some(total))
}

/// One page and the total, read by one statement so the two agree: the total is a
/// scalar subquery beside each row (`count_sql`, whose parameters are the page's
/// first ones). Only an empty page asks for the total on its own. `page_from` is the
/// page query from its `FROM` on, without `LIMIT`.
pub(super) fn paged(
    conn: &Connection,
    page: PageRequest,
    (count_sql, count_args): (&str, &[&dyn rusqlite::ToSql]),
    (page_from, args): (&str, &[&dyn rusqlite::ToSql]),
) -> rusqlite::Result<Page<Entry>> {
    let limit = i64::from(page.limit());
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let mut all: Vec<&dyn rusqlite::ToSql> = args.to_vec();
    all.push(&offset);
    // The limit is written into the SQL, not bound: SQLite plans with a LIMIT's value,
    // so binding one makes it re-prepare the statement on every run. It is a number
    // from a validated page size, and the few sizes clients use each get their own
    // cached statement.
    let sql = format!(
        "SELECT {}, ({count_sql}) AS total {page_from} LIMIT {limit} OFFSET ?{}",
        *SELECT_ENTRY,
        all.len()
    );
    let mut total = None;
    let mut statement = conn.prepare_cached(&sql)?;
    let (places, total_at) = (
        EntryPlaces::of(&statement)?,
        statement.column_index("total")?,
    );
    let items = statement
        .query_map(all.as_slice(), |row| {
            total = Some(row.get::<_, i64>(total_at)?);
            places.entry(row)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let total = match total {
        Some(total) => total,
        None => conn
            .prepare_cached(count_sql)?
            .query_row(count_args, |r| r.get(0))?,
    };
    Ok(Page {
        items,
        total: u64::try_from(total).unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
}

/// Runs `f` in one read transaction, so that what it reads is one snapshot.
pub(super) fn in_read_transaction<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    // Inside the writer's batch (in-memory databases) a transaction is already open.
    if !conn.is_autocommit() {
        return f(conn);
    }
    // BEGIN and COMMIT go through the statement cache, so neither is parsed per read.
    conn.prepare_cached("BEGIN")?.execute([])?;
    let result = f(conn);
    conn.prepare_cached(if result.is_ok() { "COMMIT" } else { "ROLLBACK" })?
        .execute([])?;
    result
}

/// A page of `scope` that passes `filter`, newest first, with the filtered total (up
/// to a cap, see [`ListQuery::count`]); a
/// list without a filter takes its total from the counters (`count_sql`, whose only
/// parameter is `?1`, the author when there is one).
fn filtered_page(
    conn: &Connection,
    scope: &Scope,
    filter: &EntryFilter,
    page: PageRequest,
    count_sql: Option<&str>,
) -> rusqlite::Result<Page<Entry>> {
    let mut sql = ListQuery::new(Dialect::Sqlite, scope, filter, 1);
    if !filter.is_empty() && page.after().is_none() && !sql.counts_apart() {
        let mut found = numbered_filtered_page(conn, sql, page)?;
        cap_total(&mut found);
        return Ok(found);
    }
    let count = match count_sql {
        Some(count) if filter.is_empty() => count.to_owned(),
        _ => sql.count(),
    };
    let count_args = sql.args.len();
    let page_from = sql.page_from(page);
    let args = sql_values(sql.args);
    let args: Vec<&dyn rusqlite::ToSql> = args.iter().map(|v| v as _).collect();
    let mut found = paged(
        conn,
        page,
        (&count, &args[..count_args]),
        (&page_from, &args),
    )?;
    if !filter.is_empty() {
        cap_total(&mut found);
    }
    Ok(found)
}

/// A filtered list's page reached by number, with its count, from one walk of the
/// list's first rows (see [`ListQuery::first_keys`]): counted apart, the same rows were
/// found twice, each looked up in `entries` (and its author, on the feed).
fn numbered_filtered_page(
    conn: &Connection,
    mut q: ListQuery,
    page: PageRequest,
) -> rusqlite::Result<Page<Entry>> {
    let first = q.first_keys();
    let columns = &*SELECT_ENTRY;
    let sql = format!(
        "WITH m AS MATERIALIZED ({first}),
              p AS (SELECT * FROM m ORDER BY date DESC, id DESC LIMIT {} OFFSET {})
         SELECT {columns}, n.total
         FROM (SELECT count(*) AS total FROM m) n
         LEFT JOIN (p JOIN entries e ON e.id = p.id) ON true
         ORDER BY p.date DESC, p.id DESC",
        page.limit(),
        page.offset()
    );
    let args = sql_values(q.args);
    let args: Vec<&dyn rusqlite::ToSql> = args.iter().map(|v| v as _).collect();
    let mut total = 0i64;
    let mut items = Vec::new();
    let mut statement = conn.prepare_cached(&sql)?;
    let places = EntryPlaces::of(&statement)?;
    let (total_at, id_at) = (
        statement.column_index("total")?,
        statement.column_index("id")?,
    );
    let mut rows = statement.query(args.as_slice())?;
    while let Some(row) = rows.next()? {
        total = row.get(total_at)?;
        // An empty page still gives one row, for the total.
        if row.get_ref(id_at)? != rusqlite::types::ValueRef::Null {
            items.push(places.entry(row)?);
        }
    }
    Ok(Page {
        items,
        total: u64::try_from(total).unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
}

/// The list query's parameters as SQLite values: ids as text, times as milliseconds.
pub(super) fn sql_values(args: Vec<Arg>) -> Vec<Value> {
    args.into_iter()
        .map(|arg| match arg {
            Arg::Id(id) => Value::Text(id.to_string()),
            Arg::Text(text) => Value::Text(text),
            Arg::Texts(_) => unreachable!("SQLite list queries pass tags one by one"),
            Arg::Time(t) => Value::Integer(t.as_millis()),
            Arg::Times(times) => Value::Text(
                serde_json::to_string(&times.iter().map(|t| t.as_millis()).collect::<Vec<_>>())
                    .expect("numbers serialise"),
            ),
            Arg::Ranges(ranges) => Value::Text(
                serde_json::to_string(
                    &ranges
                        .iter()
                        .map(|(start, end)| [start.as_millis(), end.as_millis()])
                        .collect::<Vec<_>>(),
                )
                .expect("numbers serialise"),
            ),
        })
        .collect()
}
