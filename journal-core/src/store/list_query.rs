//! The SQL of a filtered list, for both backends: which table drives the query, the
//! conditions, the order and the parameters. Each store runs it with its own driver
//! types (see `sqlite/lists.rs` and `postgres/lists.rs`).
//!
//! The driving table follows the filter, so that each filter walks an index in list
//! order and stops at the page's end: for a tag, that tag's rows in `entry_tags`
//! (newest first); for a day of the year, one range of the date index per year; else
//! the list's own index. Both schemas have the same tables and indexes for this.

use uuid::Uuid;

use crate::domain::{PageRequest, Timestamp, UserId};
use crate::filter::EntryFilter;
use crate::model::COUNT_CAP;

/// Whose entries a list holds.
#[derive(Clone, Debug)]
pub(crate) enum Scope {
    /// One author's: all of them, or only the public ones.
    Author { id: UserId, public_only: bool },
    /// The public feed: public entries of authors whose profile is not private.
    Feed,
}

/// Which SQL to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `?N` parameters, integers for booleans and milliseconds for times.
    Sqlite,
    /// `$N` parameters, booleans and `timestamptz`.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Postgres,
}

/// A parameter of a list query.
#[derive(Clone, Debug)]
pub(crate) enum Arg {
    /// A user's or an entry's id.
    Id(Uuid),
    /// A tag.
    Text(String),
    /// Tags, as an array (PostgreSQL only).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Texts(Vec<String>),
    /// An instant.
    Time(Timestamp),
    /// Half-open ranges of instants (a day of the year in each year), as one value
    /// (SQLite: a JSON array of pairs).
    Ranges(Vec<(Timestamp, Timestamp)>),
    /// Instants, as an array (PostgreSQL: the ranges' starts, then their ends).
    Times(Vec<Timestamp>),
}

/// A list's rows as SQL: the `FROM` clause with its joins, the conditions, the columns
/// it is ordered by, and its numbered parameters.
pub(crate) struct ListQuery {
    dialect: Dialect,
    from: String,
    /// When a tag drives the query and no condition reads `entries`: counting and
    /// collecting keys then read `entry_tags` alone, an index range, without a row
    /// lookup per entry.
    tags_alone: bool,
    /// When one range per year of a day drives the query.
    ranges_drive: bool,
    /// When SQLite counts starred entries through their own partial index.
    starred_index: bool,
    /// When the count reads an index alone (a tag's rows of the author's own list, or
    /// the author's dates): counted apart, it reads no entry, where one walk of the first
    /// rows would look every one of them up.
    index_count: bool,
    conditions: Vec<String>,
    date: &'static str,
    id: &'static str,
    /// The parameters, in number order from `first_arg`.
    pub args: Vec<Arg>,
    first_arg: usize,
}

impl ListQuery {
    /// The rows of `scope` that pass `filter`, with parameters numbered from
    /// `first_arg` (a caller's own parameters come before).
    pub fn new(
        dialect: Dialect,
        scope: &Scope,
        filter: &EntryFilter,
        first_arg: usize,
    ) -> ListQuery {
        let mut q = ListQuery {
            dialect,
            from: String::new(),
            tags_alone: false,
            ranges_drive: false,
            starred_index: false,
            index_count: false,
            conditions: Vec::new(),
            date: "e.date",
            id: "e.id",
            args: Vec::new(),
            first_arg,
        };
        let (yes, no) = match dialect {
            Dialect::Sqlite => ("= 1", "= 0"),
            Dialect::Postgres => ("", "IS FALSE"),
        };
        let ranges = filter.day_ranges();
        let mut checked_tags = filter.tags();
        match (ranges, filter.tags().split_first()) {
            (None, Some((first, rest))) => {
                q.from = match dialect {
                    Dialect::Sqlite => "entry_tags t JOIN entries e ON e.seq = t.seq",
                    Dialect::Postgres => "entry_tags t JOIN entries e ON e.id = t.entry_id",
                }
                .into();
                (q.date, q.id) = ("t.date", "t.entry_id");
                let tag = q.arg(Arg::Text(first.clone()));
                q.conditions.push(format!("t.tag = {tag}"));
                if let Scope::Author { id, public_only } = scope {
                    let author = q.arg(Arg::Id(*id.as_uuid()));
                    q.conditions.push(format!("t.author_id = {author}"));
                    q.tags_alone = !public_only && filter.starred().is_none();
                }
                checked_tags = rest;
            }
            (Some(ranges), _) => {
                q.ranges_drive = true;
                q.from = match dialect {
                    Dialect::Sqlite => {
                        let ranges = q.arg(Arg::Ranges(ranges));
                        // CROSS JOIN keeps the ranges outside: joined the other
                        // way, SQLite walks every entry of the list and scans the
                        // ranges for each (seconds, where this takes a millisecond).
                        format!(
                            "json_each({ranges}) r CROSS JOIN entries e
                             ON e.date >= (r.value ->> 0) AND e.date < (r.value ->> 1)"
                        )
                    }
                    Dialect::Postgres => {
                        let (starts, ends) = ranges.into_iter().unzip();
                        let starts = q.arg(Arg::Times(starts));
                        let ends = q.arg(Arg::Times(ends));
                        // Each range's entries found by index on their own: a subquery
                        // per range (`LATERAL`, which `OFFSET 0` keeps PostgreSQL from
                        // flattening), with the scope's conditions inside so the index
                        // can use them. Joined plainly, PostgreSQL guessed thousands
                        // of entries per one-day range and read all of a heavy
                        // author's entries to test each against every range.
                        let within = match scope {
                            Scope::Author { id, public_only } => {
                                let author = q.arg(Arg::Id(*id.as_uuid()));
                                let public = if *public_only { " AND e.is_public" } else { "" };
                                format!("e.author_id = {author}{public}")
                            }
                            Scope::Feed => "e.is_public".to_owned(),
                        };
                        format!(
                            "unnest({starts}::timestamptz[], {ends}::timestamptz[]) r(lo, hi)
                             CROSS JOIN LATERAL (SELECT * FROM entries e
                                 WHERE {within} AND e.date >= r.lo AND e.date < r.hi
                                 OFFSET 0) e"
                        )
                    }
                };
            }
            (None, None) => {
                q.from = "entries e".into();
                q.starred_index = dialect == Dialect::Sqlite && filter.starred() == Some(true);
            }
        }
        if let [tag] = checked_tags {
            let tag = q.arg(Arg::Text(tag.clone()));
            q.conditions.push(format!(
                "EXISTS (SELECT 1 FROM entry_tags t2 WHERE t2.tag = {tag} \
                 AND t2.date = {} AND t2.entry_id = {})",
                q.date, q.id
            ));
        } else if !checked_tags.is_empty() {
            // One subquery for all the other tags, not one each: PostgreSQL took seconds
            // to plan twenty semi-joins, before reading a row.
            let listed = match dialect {
                Dialect::Sqlite => {
                    let tags: Vec<String> = checked_tags
                        .iter()
                        .map(|t| q.arg(Arg::Text(t.clone())))
                        .collect();
                    format!("IN ({})", tags.join(", "))
                }
                Dialect::Postgres => {
                    let tags = q.arg(Arg::Texts(checked_tags.to_vec()));
                    format!("= ANY({tags}::text[])")
                }
            };
            q.conditions.push(format!(
                "(SELECT count(*) FROM entry_tags t2 WHERE t2.tag {listed} \
                 AND t2.date = {} AND t2.entry_id = {}) = {}",
                q.date,
                q.id,
                checked_tags.len()
            ));
        }
        match scope {
            Scope::Author { id, public_only } => {
                // With a tag driving, `t.author_id` already keeps to the author.
                if q.date != "t.date" {
                    let author = q.arg(Arg::Id(*id.as_uuid()));
                    q.conditions.push(format!("e.author_id = {author}"));
                }
                if *public_only {
                    q.conditions.push(format!("e.is_public {yes}"));
                }
            }
            Scope::Feed => {
                q.from.push_str(" JOIN users u ON u.id = e.author_id");
                q.conditions.push(format!("e.is_public {yes}"));
                q.conditions.push(format!("u.is_private {no}"));
                q.conditions.push(format!("u.disabled {no}"));
            }
        }
        // The day's ranges are already clipped to `from` and `until`. Written again as
        // conditions, they gave SQLite constant bounds on the date index that it
        // preferred to each range's own, so every range scanned all of `from`..`until`.
        if !q.ranges_drive {
            if let Some(from) = filter.from() {
                let from = q.arg(Arg::Time(from));
                q.conditions.push(format!("{} >= {from}", q.date));
            }
            if let Some(until) = filter.until() {
                let until = q.arg(Arg::Time(until));
                q.conditions.push(format!("{} < {until}", q.date));
            }
        }
        // Literals, not parameters: the starred index is partial on starred entries.
        match filter.starred() {
            Some(true) => q.conditions.push(format!("e.starred {yes}")),
            Some(false) => q.conditions.push(format!("e.starred {no}")),
            None => {}
        }
        q.index_count = q.tags_alone
            || (matches!(scope, Scope::Author { .. })
                && filter.starred().is_none()
                && filter.tags().is_empty());
        q
    }

    /// Adds a parameter; returns its placeholder.
    fn arg(&mut self, value: Arg) -> String {
        self.args.push(value);
        let n = self.first_arg + self.args.len() - 1;
        match self.dialect {
            Dialect::Sqlite => format!("?{n}"),
            Dialect::Postgres => format!("${n}"),
        }
    }

    /// `FROM … WHERE …`, with `extra` conditions.
    fn sql_from_where(&self, extra: Option<String>) -> String {
        let conditions: Vec<&str> = self
            .conditions
            .iter()
            .chain(&extra)
            .map(String::as_str)
            .collect();
        if conditions.is_empty() {
            format!("FROM {}", self.from)
        } else {
            format!("FROM {} WHERE {}", self.from, conditions.join(" AND "))
        }
    }

    /// `FROM … WHERE …` for counting and keys: `entry_tags` alone when it answers.
    fn rows(&self) -> String {
        let all = self.sql_from_where(None);
        if self.starred_index {
            // Counting needs no order: the starred entries' own index holds a twentieth
            // of the list, where the date index made SQLite read every entry of the
            // feed to find the starred ones.
            return all.replacen(
                "FROM entries e",
                "FROM entries e INDEXED BY entries_author_starred_date",
                1,
            );
        }
        if !self.tags_alone {
            return all;
        }
        let join = all.find(" JOIN ").expect("a tag-driven list joins entries");
        let conditions = all.find(" WHERE ").map_or("", |at| &all[at..]);
        format!("{}{conditions}", &all[..join])
    }

    /// The statement counting the list (all pages), with the parameters added so far:
    /// up to one past [`COUNT_CAP`], so that a filter matching most of a large list
    /// costs a bounded count (see [`capped_total`]).
    pub fn count(&self) -> String {
        format!(
            "SELECT count(*) FROM (SELECT 1 {} LIMIT {}) counted",
            self.rows(),
            COUNT_CAP + 1
        )
    }

    /// The entries' `seq`s (SQLite) or ids (PostgreSQL), for a set to check against.
    pub fn keys(&self) -> String {
        let key = match (self.dialect, self.tags_alone) {
            (Dialect::Sqlite, false) => "e.seq",
            (Dialect::Sqlite, true) => "t.seq",
            (Dialect::Postgres, false) => "e.id",
            (Dialect::Postgres, true) => "t.entry_id",
        };
        format!("SELECT {key} {}", self.rows())
    }

    /// True when counting apart is cheaper than [`ListQuery::first_keys`]: the count
    /// has an index of its own (see `rows`).
    pub fn counts_apart(&self) -> bool {
        self.starred_index || self.index_count
    }

    /// The list's first rows in order, as `(date, id)` keys, up to one past
    /// [`COUNT_CAP`]: a page reached by number lies within them, and so does its count.
    pub fn first_keys(&mut self) -> String {
        let ordered = self.page_from(PageRequest::new(None, None).expect("the first page"));
        let (date, id) = if self.from.starts_with("unnest(") {
            ("e.date", "e.id")
        } else {
            (self.date, self.id)
        };
        format!(
            "SELECT {date} AS date, {id} AS id {ordered}LIMIT {}",
            COUNT_CAP + 1
        )
    }

    /// The page query from its `FROM` on, ordered newest first, without `LIMIT`: adds
    /// the cursor's parameters when the page continues after one.
    pub fn page_from(&mut self, page: PageRequest) -> String {
        // Under the day's ranges, SQLite would take the cursor for a bound on the date
        // index in place of each range's own, as with `from` and `until` above: `+`
        // keeps it a check on the rows each range finds.
        let plus = if self.ranges_drive && self.dialect == Dialect::Sqlite {
            "+"
        } else {
            ""
        };
        let after = page.after().map(|after| {
            let date = self.arg(Arg::Time(after.date()));
            let id = self.arg(Arg::Id(*after.id().as_uuid()));
            format!("({plus}{}, {}) < ({date}, {id})", self.date, self.id)
        });
        if self.dialect == Dialect::Postgres && self.from.starts_with("unnest(") {
            // The days' rows are few: find them range by range, then sort them. Left
            // to itself PostgreSQL walks the author's whole list in date order and
            // checks every range against every entry (hundreds of milliseconds at
            // 50,000 entries); `OFFSET 0` keeps the inner query from being merged
            // into the outer one.
            return format!(
                "FROM (SELECT e.* {} OFFSET 0) e ORDER BY e.date DESC, e.id DESC ",
                self.sql_from_where(after)
            );
        }
        format!(
            "{} ORDER BY {} DESC, {} DESC ",
            self.sql_from_where(after),
            self.date,
            self.id
        )
    }
}

/// Marks `page`'s total, counted by [`ListQuery::count`], as a lower bound when the
/// count went past [`COUNT_CAP`].
pub(crate) fn cap_total<T>(page: &mut crate::model::Page<T>) {
    (page.total, page.total_is_lower_bound) = capped_total(page.total);
}

/// A count from [`ListQuery::count`] as a page's total: the count itself, or
/// [`COUNT_CAP`] marked as a lower bound when the count went past it.
pub(crate) fn capped_total(counted: u64) -> (u64, bool) {
    if counted > COUNT_CAP {
        (COUNT_CAP, true)
    } else {
        (counted, false)
    }
}
