//! Full-text search: a generated `tsvector` column over `journal_fold(title)` and
//! `journal_fold(content)` (see the first migration), ranked by `ts_rank`; an index of
//! its words scoped by author (migration 9, [`matches`]) that finds an author's
//! matches; and the query expression. Light authors' searches are read together
//! ([`LightSearches`]).

use tokio_postgres::types::{ToSql, Type};

use super::coalesce::{Coalesced, slot};
use super::lists::{RANKED_LIMIT, Total, paged, pg_types, pg_values};
use super::pool::Db;
use super::rows::{EntryPlaces, place};
use crate::domain::{PageRequest, SearchQuery, UserId};
use crate::error::StoreResult;
use crate::filter::EntryFilter;
use crate::model::{CacheCounts, Entry, Page};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::list_query::{Arg, Dialect, ListQuery, Scope};

/// The condition that `e` is one of author `author`'s entries matching query `query`
/// (SQL expressions), found by the author-scoped index of words (migration 9). The
/// entry's own `search` is matched too, as the index keeps no positions (a phrase
/// must match as one). The author is checked apart too, since two authors may share a
/// scope; written so that
/// it is no index condition (`IS TRUE`), or PostgreSQL would intersect the matches with
/// all of the author's entries by the author's index, which for an author with
/// thousands of entries costs more than the search.
fn matches(author: &str, query: &str) -> String {
    format!(
        "journal_scoped_words(e.author_id, e.search) @@ journal_scoped_query({author}, {query})
         AND e.search @@ {query} AND (e.author_id = {author}) IS TRUE"
    )
}

/// The count and the page (from `FROM` on, a [`Total::Ranked`] page) of an author's
/// matches that pass `filter`, best first, then the latest `date`: `$1` the
/// expression, `$2` the author, then the filter's parameters (returned). Limit and
/// offset come after them. Every match is read and ranked, as narrow rows (id, rank,
/// date); only the page's entries are then read whole.
pub(super) fn sql(author: &UserId, filter: &EntryFilter) -> (String, String, Vec<Arg>) {
    let (kept, args) = if filter.is_empty() {
        (String::new(), Vec::new())
    } else {
        let scope = Scope::Author {
            id: *author,
            public_only: false,
        };
        let list = ListQuery::new(Dialect::Postgres, &scope, filter, 3);
        (format!(" AND e.id IN ({})", list.keys()), list.args)
    };
    let count = format!(
        "SELECT COUNT(*) FROM entries e, journal_search_query($1) q
         WHERE {}{kept}",
        matches("$2", "q")
    );
    let page = format!(
        "FROM (SELECT e.id, ts_rank(e.search, q) AS rank, e.date, count(*) OVER () AS total
               FROM entries e, journal_search_query($1) q
               WHERE {}{kept}
               ORDER BY rank DESC, e.date DESC, e.id DESC{RANKED_LIMIT}) m
         JOIN entries e ON e.id = m.id
         ORDER BY m.rank DESC, m.date DESC, m.id DESC",
        matches("$2", "q")
    );
    (count, page, args)
}

/// A search: an unfiltered one read together with the light searches asked at once
/// when its author has few entries, any other on its own.
pub(super) async fn page(
    db: &Db,
    light: &LightSearches,
    author: &UserId,
    query: &SearchQuery,
    filter: &EntryFilter,
    page: PageRequest,
) -> StoreResult<Page<Entry>> {
    let expression = tsquery_expression(query);
    if filter.is_empty()
        && let Some(found) = light.page(db, author, &expression, page).await?
    {
        return Ok(found);
    }
    alone(db, author, &expression, filter, page).await
}

/// One search on its own: `author`'s entries matching `expression` that pass `filter`,
/// best first, with the number of matches, planned for these values.
async fn alone(
    db: &Db,
    author: &UserId,
    expression: &str,
    filter: &EntryFilter,
    page: PageRequest,
) -> StoreResult<Page<Entry>> {
    let (count, sql, filter_args) = sql(author, filter);
    let mut types = vec![Type::TEXT, Type::UUID];
    types.extend(pg_types(&filter_args));
    let filter_args = pg_values(filter_args);
    let mut args: Vec<&(dyn ToSql + Sync)> = vec![&expression, author.as_uuid()];
    args.extend(
        filter_args
            .iter()
            .map(|v| v.as_ref() as &(dyn ToSql + Sync)),
    );
    // Every match is read and ranked for the page: count them in the same pass.
    paged(
        db,
        page,
        Total::Ranked,
        (&count, &args),
        (&sql, &args),
        // Planned for the author: a user with 100 entries reads them, one with 50,000
        // intersects them with the word's matches.
        Some(&types),
    )
    .await
}

/// Turns the query's words into a `to_tsquery` expression: each word a quoted prefix
/// lexeme (a whole lexeme when it is short, see [`SearchQuery::is_prefix`]), and a run
/// of characters of scripts written without spaces the phrase of its pairs
/// (`'東京' <-> '京の'`, see [`SearchQuery::lookups`]); all required, joined by ` & `
/// (`journal_search_query` reads them so). The words hold only letters and digits;
/// quoting them anyway means nothing in them can ever be read as query syntax.
fn tsquery_expression(query: &SearchQuery) -> String {
    query
        .lookups()
        .map(|lookup| {
            let star = if lookup.prefix { ":*" } else { "" };
            let phrase: Vec<String> = lookup
                .terms
                .iter()
                .map(|t| format!("'{}'", t.replace('\'', "''").replace('\\', "\\\\")))
                .collect();
            format!("{}{star}", phrase.join(" <-> "))
        })
        .collect::<Vec<_>>()
        .join(" & ")
}

/// Authors with at most this many entries have their searches read together; a heavier
/// author's search may have thousands of matches to read and rank, and would hold up
/// every search read with it.
const LIGHT_AUTHOR: i64 = 2_000;

/// Searches of light authors, read for the requests asking at once in one statement.
///
/// Each search in the statement finds its author's matches by the author-scoped index
/// ([`matches`]), planned once for all; authors with more than [`LIGHT_AUTHOR`]
/// entries, told apart in the same statement, are searched alone, planned for their
/// values, on a connection of their own. As with every shared question
/// (`coalesce.rs`), a search is answered by a statement sent after it was asked.
pub(super) struct LightSearches {
    sql: String,
    searches: Coalesced<Question, Option<Answer>>,
}

/// One request's search: whose entries, the `to_tsquery` expression, and the page.
#[derive(Clone)]
struct Question {
    author: uuid::Uuid,
    expression: String,
    limit: i64,
    offset: i64,
}

/// The entries of a page and the number of matches.
type Answer = (Vec<Entry>, u64);

impl Default for LightSearches {
    fn default() -> Self {
        let matches = matches("q.author", "t");
        let columns = &*SELECT_ENTRY;
        let sql = format!(
            "SELECT {columns}, e.total, q.at, light.yes
             FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::int8[])
                  WITH ORDINALITY AS q(author, expression, lim, off, at)
             CROSS JOIN LATERAL (
                 SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = q.author), 0)
                        <= {LIGHT_AUTHOR} AS yes) light
             LEFT JOIN LATERAL (
                 SELECT {columns}, count(*) OVER () AS total, ts_rank(e.search, t) AS rank
                 FROM entries e, journal_search_query(q.expression) t
                 WHERE light.yes AND {matches}
                 ORDER BY ts_rank(e.search, t) DESC, e.date DESC, e.id DESC
                 LIMIT q.lim OFFSET q.off) e ON true
             ORDER BY q.at, e.rank DESC, e.date DESC, e.id DESC"
        );
        LightSearches {
            sql,
            searches: Coalesced::default(),
        }
    }
}

impl LightSearches {
    /// `author`'s entries matching `expression`, the page `page` of them, read with other
    /// searches asked at once; `None` when the author has too many entries for that, or
    /// when the page is empty past the first (whose total only a search alone can
    /// tell).
    pub(super) async fn page(
        &self,
        db: &Db,
        author: &UserId,
        expression: &str,
        page: PageRequest,
    ) -> StoreResult<Option<Page<Entry>>> {
        let question = Question {
            author: *author.as_uuid(),
            expression: expression.to_owned(),
            limit: i64::from(page.limit()),
            offset: i64::try_from(page.offset()).unwrap_or(i64::MAX),
        };
        let answer = self
            .searches
            .ask(
                question,
                |alone| read_alone(db, alone),
                |questions| self.read(db, questions),
            )
            .await?;
        Ok(answer.map(|(items, total)| Page {
            items,
            total,
            total_is_lower_bound: false,
            page: page.page(),
            limit: page.limit(),
        }))
    }

    /// How many searches rode on a statement sent for another's (`hits`), and how many
    /// statements were sent (`misses`).
    pub(super) fn counts(&self) -> CacheCounts {
        self.searches.counts()
    }

    /// Reads `questions` with the shared statement: each page and its number of
    /// matches, in order; `None` for a heavy author's.
    async fn read(&self, db: &Db, questions: Vec<Question>) -> StoreResult<Vec<Option<Answer>>> {
        let mut authors = Vec::with_capacity(questions.len());
        let mut expressions = Vec::with_capacity(questions.len());
        let mut limits = Vec::with_capacity(questions.len());
        let mut offsets = Vec::with_capacity(questions.len());
        for q in &questions {
            authors.push(q.author);
            expressions.push(q.expression.as_str());
            limits.push(q.limit);
            offsets.push(q.offset);
        }
        let rows = db
            .query(&self.sql, &[&authors, &expressions, &limits, &offsets])
            .await?;
        let mut answers: Vec<Option<Answer>> = vec![Some((Vec::new(), 0)); questions.len()];
        if let Some(first) = rows.first() {
            let columns = first.columns();
            let places = EntryPlaces::of(columns)?;
            let [total_at, at_at, light_at] =
                ["total", "at", "yes"].map(|name| place(columns, name));
            let (total_at, at_at, light_at) = (total_at?, at_at?, light_at?);
            for row in &rows {
                let at: i64 = row.get(at_at);
                let Some(slot) = slot(&mut answers, at) else {
                    continue;
                };
                if !row.get::<_, bool>(light_at) {
                    *slot = None;
                    continue;
                }
                if let (Some((items, total)), Some(matches)) =
                    (slot, row.get::<_, Option<i64>>(total_at))
                {
                    *total = u64::try_from(matches).unwrap_or(0);
                    items.push(places.entry(row));
                }
            }
        }
        for (answer, question) in answers.iter_mut().zip(&questions) {
            if answer.as_ref().is_some_and(|(items, _)| items.is_empty()) && question.offset > 0 {
                *answer = None;
            }
        }
        Ok(answers)
    }
}

/// A search asked alone, searched alone: planned for its values, heavy author or not.
async fn read_alone(db: &Db, q: Question) -> StoreResult<Option<Answer>> {
    let number = q.offset / q.limit.max(1) + 1;
    let page = PageRequest::new(Some(number), Some(q.limit))
        .map_err(|e| crate::error::StoreError::internal(e.to_string()))?;
    let author = UserId::from_uuid(q.author);
    let found = alone(db, &author, &q.expression, &EntryFilter::default(), page).await?;
    Ok(Some((found.items, found.total)))
}
