//! Paged lists: a page of entries and the list's total, read from one snapshot.

use tokio_postgres::IsolationLevel;
use tokio_postgres::types::ToSql;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::entry_from_row;
use crate::domain::PageRequest;
use crate::error::StoreResult;
use crate::model::{Entry, Page};

/// The database's current snapshot: which transactions' writes are visible. Two equal
/// snapshots see exactly the same data, whichever server asks: every write, by any
/// server, runs in a transaction with an id that shows in the snapshot while it runs
/// and leaves it changed when it ends. Read-only transactions get no id and change
/// nothing.
pub(super) const SNAPSHOT: &str = "SELECT pg_current_snapshot()::text";

/// A query and its parameters. A page query takes two more, limit and offset, last.
pub(super) type Query<'a> = (&'a str, &'a [&'a (dyn ToSql + Sync)]);

/// One page and its total in one read-only transaction, so the two agree.
pub(super) async fn paged(
    db: &Db,
    page: PageRequest,
    count: Query<'_>,
    page_query: Query<'_>,
) -> StoreResult<Page<Entry>> {
    Ok(read_page(db, page, count, page_query, false).await?.0)
}

/// One page and its total in one read-only transaction; with `name_snapshot`, also
/// the transaction's snapshot (see [`SNAPSHOT`]; one more statement, so only when it
/// is wanted).
pub(super) async fn read_page(
    db: &Db,
    page: PageRequest,
    (count_sql, count_args): Query<'_>,
    (page_sql, args): Query<'_>,
    name_snapshot: bool,
) -> StoreResult<(Page<Entry>, Option<String>)> {
    let mut client = db.client().await?;
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(map_pg)?;
    // The first statement fixes the transaction's snapshot; this one names it.
    let snapshot = if name_snapshot {
        let stmt = tx.prepare_cached(SNAPSHOT).await.map_err(map_pg)?;
        Some(tx.query_one(&stmt, &[]).await.map_err(map_pg)?.get(0))
    } else {
        None
    };
    let count = tx.prepare_cached(count_sql).await.map_err(map_pg)?;
    let total: i64 = tx
        .query_one(&count, count_args)
        .await
        .map_err(map_pg)?
        .get(0);
    let limit = i64::from(page.limit());
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let mut all: Vec<&(dyn ToSql + Sync)> = args.to_vec();
    all.push(&limit);
    all.push(&offset);
    let stmt = tx.prepare_cached(page_sql).await.map_err(map_pg)?;
    let rows = tx.query(&stmt, &all).await.map_err(map_pg)?;
    tx.commit().await.map_err(map_pg)?;
    let page = Page {
        items: rows.iter().map(entry_from_row).collect(),
        total: u64::try_from(total).unwrap_or(0),
        page: page.page(),
        limit: page.limit(),
    };
    Ok((page, snapshot))
}
