//! Paged lists: a page of entries and the list's total, read from one snapshot.

use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

use super::errors::map_pg;
use super::pool::{Db, within_limit};
use super::rows::{EntryPlaces, entries, place, ts};
use crate::domain::PageRequest;
use crate::error::StoreResult;
use crate::filter::EntryFilter;
use crate::model::{Entry, Page};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::list_query::{Arg, Dialect, ListQuery, Scope, cap_total};

/// The database's current snapshot: which transactions' writes are visible. Two equal
/// snapshots see exactly the same data, whichever server asks: every write, by any
/// server, runs in a transaction with an id that shows in the snapshot while it runs
/// and leaves it changed when it ends. Read-only transactions get no id and change
/// nothing.
pub(super) const SNAPSHOT: &str = "SELECT pg_current_snapshot()::text";

/// A query and its parameters.
pub(super) type Query<'a> = (&'a str, &'a [&'a (dyn ToSql + Sync)]);

/// How a page's statement gets the list's total.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Total {
    /// A scalar subquery (`count_sql`), computed once: for lists whose totals are
    /// kept, or whose pages stop early in an index.
    Subquery,
    /// Chosen in a subquery `m` over narrow rows: the page's keys and the order's,
    /// with `count(*) OVER ()` as `m.total`, limited where `page_from` writes
    /// [`RANKED_LIMIT`]; only the page's rows are then read whole. For pages that must
    /// read every row anyway (search ranks every match): the rows are read once, and
    /// the count and the sort carry no text.
    Ranked,
}

/// Where a [`Total::Ranked`] page's `page_from` takes its `LIMIT` (and `OFFSET`).
pub(super) const RANKED_LIMIT: &str = "{limit}";

/// Runs `sql` with `params`: prepared once per connection and reused, or, when
/// `types` (one per parameter) is given, planned for these values every time (an
/// unnamed statement, still one round trip). Reuse suits lists whose best plan does not
/// depend on the values (an author's page, the feed): after five runs PostgreSQL may
/// settle on a generic plan. Searches and filtered lists need their own: a generic
/// search plan intersected a light user's few entries with every match of the word,
/// several times slower than reading their entries, and a generic day filter's plan
/// took seconds (`docs/PERFORMANCE.md`).
async fn run(
    client: &deadpool_postgres::Object,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    types: Option<&[Type]>,
) -> StoreResult<Vec<Row>> {
    within_limit(async {
        match types {
            Some(types) => {
                let typed: Vec<(&(dyn ToSql + Sync), Type)> = params
                    .iter()
                    .zip(types)
                    .map(|(value, ty)| (*value, ty.clone()))
                    .collect();
                client.query_typed(sql, &typed).await.map_err(map_pg)
            }
            None => {
                let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
                client.query(&stmt, params).await.map_err(map_pg)
            }
        }
    })
    .await
}

/// One page and its total in one statement, so the two agree (one snapshot) and the
/// page costs one round trip: the total is a scalar subquery beside each row
/// (`count_sql`, whose parameters are the page's first ones), computed once, or a
/// window count (see [`Total`]). Only an empty page asks for the total on its own.
/// `page_from` is the page query from its `FROM` on, without `LIMIT`; the limit is
/// written in, and a nonzero offset added as the last parameter.
pub(super) async fn paged(
    db: &Db,
    page: PageRequest,
    total: Total,
    count: Query<'_>,
    page_from: Query<'_>,
    types: Option<&[Type]>,
) -> StoreResult<Page<Entry>> {
    Ok(read_page(db, page, total, count, page_from, types, false)
        .await?
        .0)
}

/// [`paged`]; with `name_snapshot`, also the snapshot the page was read in (see
/// [`SNAPSHOT`]), from the same statement.
pub(super) async fn read_page(
    db: &Db,
    page: PageRequest,
    total: Total,
    (count_sql, count_args): Query<'_>,
    (page_from, args): Query<'_>,
    types: Option<&[Type]>,
    name_snapshot: bool,
) -> StoreResult<(Page<Entry>, Option<String>)> {
    let client = db.guarded_client().await?;
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let mut all: Vec<&(dyn ToSql + Sync)> = args.to_vec();
    // The limit, and an offset of 0 (first pages, and every page reached by its
    // cursor), are written into the statement: with either as a parameter, the plan
    // of a reused statement cannot know how many rows are wanted, PostgreSQL keeps
    // planning it afresh for each run, and planning cost three times the execution
    // (pgbench, the feed's page 2: 2,200 runs/s against 6,600 with both written in).
    // Limits are 1 to 100, so each connection keeps at most a hundred variants of a
    // list's statement; deeper pages by number pass their offset as a parameter.
    let offset_sql = if offset == 0 {
        String::new()
    } else {
        all.push(&offset);
        format!(" OFFSET ${}", all.len())
    };
    let snapshot_column = if name_snapshot {
        ", pg_current_snapshot()::text AS snapshot"
    } else {
        ""
    };
    let limit = format!(" LIMIT {}{offset_sql}", page.limit());
    let sql = match total {
        Total::Subquery => format!(
            "SELECT {}, ({count_sql}) AS total{snapshot_column} {page_from}{limit}",
            *SELECT_ENTRY
        ),
        Total::Ranked => format!(
            "SELECT {}, m.total AS total{snapshot_column} {}",
            *SELECT_ENTRY,
            page_from.replace(RANKED_LIMIT, &limit)
        ),
    };
    let all_types = types.map(|types| {
        let mut all = types.to_vec();
        if offset != 0 {
            all.push(Type::INT8);
        }
        all
    });
    let rows = run(&client, &sql, &all, all_types.as_deref()).await?;
    let (total, snapshot): (i64, Option<String>) = match rows.first() {
        Some(row) => (
            row.get(place(row.columns(), "total")?),
            match name_snapshot {
                true => Some(row.get(place(row.columns(), "snapshot")?)),
                false => None,
            },
        ),
        None => {
            let sql = format!("SELECT ({count_sql}){snapshot_column}");
            let count_types = types.map(|types| &types[..count_args.len()]);
            let rows = run(&client, &sql, count_args, count_types).await?;
            let row = rows
                .first()
                .ok_or_else(|| crate::error::StoreError::internal("a count gave no row"))?;
            (row.get(0), name_snapshot.then(|| row.get(1)))
        }
    };
    client.done();
    let page = Page {
        items: entries(&rows)?,
        total: u64::try_from(total).unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    };
    Ok((page, snapshot))
}

/// The PostgreSQL type of each list query parameter.
pub(super) fn pg_types(args: &[Arg]) -> Vec<Type> {
    args.iter()
        .map(|arg| match arg {
            Arg::Id(_) => Type::UUID,
            Arg::Text(_) => Type::TEXT,
            Arg::Texts(_) => Type::TEXT_ARRAY,
            Arg::Time(_) => Type::TIMESTAMPTZ,
            Arg::Times(_) => Type::TIMESTAMPTZ_ARRAY,
            Arg::Ranges(_) => unreachable!("PostgreSQL list queries pass ranges as Times"),
        })
        .collect()
}

/// The list query's parameters as PostgreSQL values.
pub(super) fn pg_values(args: Vec<Arg>) -> Vec<Box<dyn ToSql + Sync + Send>> {
    args.into_iter()
        .map(|arg| -> Box<dyn ToSql + Sync + Send> {
            match arg {
                Arg::Id(id) => Box::new(id),
                Arg::Text(text) => Box::new(text),
                Arg::Texts(texts) => Box::new(texts),
                Arg::Time(t) => Box::new(ts(t)),
                Arg::Times(times) => Box::new(times.into_iter().map(ts).collect::<Vec<_>>()),
                Arg::Ranges(_) => unreachable!("PostgreSQL list queries pass ranges as Times"),
            }
        })
        .collect()
}

/// A page of `scope` that passes `filter`, newest first, with the filtered total (up
/// to a cap, see [`ListQuery::count`]); a
/// list without a filter takes its total from `count_sql` (whose only parameter, if
/// any, is `$1`, the author), and its snapshot when `name_snapshot`.
pub(super) async fn filtered_page(
    db: &Db,
    scope: &Scope,
    filter: &EntryFilter,
    page: PageRequest,
    count_sql: &str,
    name_snapshot: bool,
) -> StoreResult<(Page<Entry>, Option<String>)> {
    let mut q = ListQuery::new(Dialect::Postgres, scope, filter, 1);
    if !filter.is_empty() && page.after().is_none() && !name_snapshot && !q.counts_apart() {
        let mut found = numbered_filtered_page(db, q, page).await?;
        cap_total(&mut found);
        return Ok((found, None));
    }
    let count = if filter.is_empty() {
        count_sql.to_owned()
    } else {
        q.count()
    };
    let count_args = q.args.len();
    let sql = q.page_from(page);
    // A filter's best plan depends on its values (which tag, which days).
    let types = (!filter.is_empty()).then(|| pg_types(&q.args));
    let values = pg_values(q.args);
    let args: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref() as _).collect();
    let (mut found, snapshot) = read_page(
        db,
        page,
        Total::Subquery,
        (&count, &args[..count_args]),
        (&sql, &args),
        types.as_deref(),
        name_snapshot,
    )
    .await?;
    if !filter.is_empty() {
        cap_total(&mut found);
    }
    Ok((found, snapshot))
}

/// A filtered list's page reached by number, with its count, from one walk of the
/// list's first rows (see [`ListQuery::first_keys`]): counted apart, the same rows
/// were found twice, each checked against `entries` (and the author, on the feed).
async fn numbered_filtered_page(
    db: &Db,
    mut q: ListQuery,
    page: PageRequest,
) -> StoreResult<Page<Entry>> {
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
    let types = pg_types(&q.args);
    let values = pg_values(q.args);
    let args: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref() as _).collect();
    let client = db.guarded_client().await?;
    let rows = run(&client, &sql, &args, Some(&types)).await?;
    client.done();
    let (total, items): (i64, Vec<Entry>) = match rows.first() {
        None => (0, Vec::new()),
        Some(first) => {
            let (places, id_at) = (
                EntryPlaces::of(first.columns())?,
                place(first.columns(), "id")?,
            );
            let items = rows
                .iter()
                // An empty page still gives one row, for the total.
                .filter(|row| row.get::<_, Option<uuid::Uuid>>(id_at).is_some())
                .map(|row| places.entry(row))
                .collect();
            (first.get(place(first.columns(), "total")?), items)
        }
    };
    Ok(Page {
        items,
        total: u64::try_from(total).unwrap_or(0),
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
}
