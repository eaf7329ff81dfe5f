//! Pages reached by a cursor (`Link` next), read for many requests in one statement.
//!
//! A page after a cursor cannot be kept in memory (each cursor is asked once), so each
//! costs a statement, and on PostgreSQL a statement's fixed cost (the round trip, the
//! protocol, starting the executor) outweighs reading ten rows by index. The pages
//! asked for at the same moment are read together (`coalesce.rs`): one statement, a
//! `LATERAL` page per request over the arrays of their lists and cursors, each with its
//! list's total. An answer comes from a statement sent after it was asked, so it
//! shows every write acknowledged before, as a statement of its own would. Unfiltered
//! lists only: a filtered page is read on its own.

use chrono::{DateTime, Utc};

use super::coalesce::{Coalesced, slot};
use super::feed_total::FEED_COUNT;
use super::lists::filtered_page;
use super::pool::Db;
use super::rows::{EntryPlaces, from_ts, place, ts};
use crate::domain::{Cursor, EntryId, PageRequest, UserId};
use crate::error::{StoreError, StoreResult};
use crate::filter::EntryFilter;
use crate::model::{CacheCounts, Entry, Page};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::list_query::Scope;

/// One request's page: whose list (nil for the feed), after which entry, how many.
#[derive(Clone)]
pub(super) struct Continuation {
    author: uuid::Uuid,
    date: DateTime<Utc>,
    id: uuid::Uuid,
    limit: i64,
}

/// The entries of a page and its list's total.
type Answer = (Vec<Entry>, u64);

/// The lists whose cursor pages are read together, each with its statement.
pub(super) struct LinkPages {
    own: Lane,
    public: Lane,
    feed: Lane,
}

/// One list shape: its statement, the statement counting one list, and the requests
/// waiting on it.
struct Lane {
    sql: String,
    count: &'static str,
    scope: fn(uuid::Uuid) -> Scope,
    pages: Coalesced<Continuation, Answer>,
}

impl Lane {
    /// The lane whose pages are `rows` (from `FROM` on, ending in a condition, with `e`
    /// the entries and `q` the request).
    /// `count` is the statement counting one list, its author `$1`.
    fn new(rows: &str, count: &'static str, scope: fn(uuid::Uuid) -> Scope) -> Lane {
        let total = count.replace("$1", "q.author");
        let columns = &*SELECT_ENTRY;
        // The requests' lists and cursors as rows (`q`), each joined to its page; an
        // empty page still gives its request one row, for the total.
        let sql = format!(
            "SELECT {columns}, ({total})::bigint AS total, q.at
             FROM unnest($1::uuid[], $2::timestamptz[], $3::uuid[], $4::int8[])
                  WITH ORDINALITY AS q(author, date, id, lim, at)
             LEFT JOIN LATERAL (SELECT {columns} FROM {rows}
                                AND (e.date, e.id) < (q.date, q.id)
                                ORDER BY e.date DESC, e.id DESC LIMIT q.lim) e ON true"
        );
        Lane {
            sql,
            count,
            scope,
            pages: Coalesced::default(),
        }
    }
}

impl Default for LinkPages {
    fn default() -> Self {
        LinkPages {
            own: Lane::new(
                "entries e WHERE e.author_id = q.author",
                "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = $1), 0)",
                |id| Scope::Author {
                    id: UserId::from_uuid(id),
                    public_only: false,
                },
            ),
            public: Lane::new(
                "entries e WHERE e.author_id = q.author AND e.is_public",
                "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = $1), 0)",
                |id| Scope::Author {
                    id: UserId::from_uuid(id),
                    public_only: true,
                },
            ),
            // The authors' visibility as in `list_query.rs`.
            feed: Lane::new(
                "entries e JOIN users u ON u.id = e.author_id
                 WHERE e.is_public AND u.is_private IS FALSE AND u.disabled IS FALSE",
                FEED_COUNT,
                |_| Scope::Feed,
            ),
        }
    }
}

impl LinkPages {
    /// The page of `scope` after `page`'s cursor, read with the others asked at once;
    /// `None` when `page` has no cursor.
    pub(super) async fn page(
        &self,
        db: &Db,
        scope: &Scope,
        page: PageRequest,
    ) -> StoreResult<Option<Page<Entry>>> {
        let Some(after) = page.after() else {
            return Ok(None);
        };
        let (lane, author) = match scope {
            Scope::Author {
                id,
                public_only: false,
            } => (&self.own, *id.as_uuid()),
            Scope::Author {
                id,
                public_only: true,
            } => (&self.public, *id.as_uuid()),
            Scope::Feed => (&self.feed, uuid::Uuid::nil()),
        };
        let question = Continuation {
            author,
            date: ts(after.date()),
            id: *after.id().as_uuid(),
            limit: i64::from(page.limit()),
        };
        let (items, total) = lane
            .pages
            .ask(
                question,
                |alone| read_alone(db, lane, alone),
                |pages| read(db, lane, pages),
            )
            .await?;
        Ok(Some(Page {
            items,
            total,
            total_is_lower_bound: false,
            page: page.page(),
            limit: page.limit(),
        }))
    }

    /// How many cursor pages rode on a statement sent for another's (`hits`), and how
    /// many statements were sent (`misses`).
    pub(super) fn counts(&self) -> CacheCounts {
        let [a, b, c] = [&self.own, &self.public, &self.feed].map(|lane| lane.pages.counts());
        CacheCounts {
            hits: a.hits + b.hits + c.hits,
            misses: a.misses + b.misses + c.misses,
        }
    }
}

/// Reads the page `p` asks for alone, with its list's own statement.
async fn read_alone(db: &Db, lane: &Lane, p: Continuation) -> StoreResult<Answer> {
    let cursor = Cursor::new(from_ts(p.date), EntryId::from_uuid(p.id));
    let page = PageRequest::new(Some(1), Some(p.limit))
        .map_err(|e| StoreError::internal(e.to_string()))?
        .continuing(Some(cursor));
    let scope = (lane.scope)(p.author);
    let (found, _) =
        filtered_page(db, &scope, &EntryFilter::default(), page, lane.count, false).await?;
    Ok((found.items, found.total))
}

/// Reads `pages` with `lane`'s statement: their entries, newest first, and totals, in
/// order.
async fn read(db: &Db, lane: &Lane, pages: Vec<Continuation>) -> StoreResult<Vec<Answer>> {
    let sql = &lane.sql;
    let mut authors = Vec::with_capacity(pages.len());
    let mut dates = Vec::with_capacity(pages.len());
    let mut ids = Vec::with_capacity(pages.len());
    let mut limits = Vec::with_capacity(pages.len());
    for p in &pages {
        authors.push(p.author);
        dates.push(p.date);
        ids.push(p.id);
        limits.push(p.limit);
    }
    let rows = db.query(sql, &[&authors, &dates, &ids, &limits]).await?;
    let mut answers: Vec<Answer> = vec![(Vec::new(), 0); pages.len()];
    if let Some(first) = rows.first() {
        let columns = first.columns();
        let places = EntryPlaces::of(columns)?;
        let [id_at, total_at, at_at] = ["id", "total", "at"].map(|name| place(columns, name));
        let (id_at, total_at, at_at) = (id_at?, total_at?, at_at?);
        for row in &rows {
            let at: i64 = row.get(at_at);
            let Some(answer) = slot(&mut answers, at) else {
                continue;
            };
            answer.1 = u64::try_from(row.get::<_, i64>(total_at)).unwrap_or(0);
            // An empty page still gives its request one row, for the total.
            if row.get::<_, Option<uuid::Uuid>>(id_at).is_some() {
                answer.0.push(places.entry(row));
            }
        }
    }
    // Each page's rows come in its own order from the join; sorted anyway, since SQL
    // promises no order without an ORDER BY over the whole statement.
    for (items, _) in &mut answers {
        items.sort_by_key(|e| std::cmp::Reverse((e.date, e.id)));
    }
    Ok(answers)
}
