//! Full-text search: a generated `tsvector` column over `journal_fold(title)` and
//! `journal_fold(content)` with a GIN index (see the first migration), and the query
//! expression that matches it.

use crate::domain::{SearchQuery, UserId};
use crate::filter::EntryFilter;
use crate::store::list_query::{Arg, Dialect, ListQuery, Scope};

/// The count and the page (from `FROM` on) of an author's matches that pass `filter`,
/// best first, then the latest `date`: `$1` the expression, `$2` the author, then the
/// filter's parameters (returned). Limit and offset come after them.
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
        "SELECT COUNT(*) FROM entries e
         WHERE e.author_id = $2 AND e.search @@ to_tsquery('simple', journal_unaccent($1)){kept}"
    );
    let page = format!(
        "FROM entries e, to_tsquery('simple', journal_unaccent($1)) q
         WHERE e.author_id = $2 AND e.search @@ q{kept}
         ORDER BY ts_rank(e.search, q) DESC, e.date DESC, e.id DESC"
    );
    (count, page, args)
}

/// Turns the query's words into a `to_tsquery` expression: each word a quoted prefix
/// lexeme (a whole lexeme when it is short, see [`SearchQuery::is_prefix`]), all
/// required. The words hold only letters and digits; quoting them anyway
/// means nothing in them can ever be read as query syntax.
pub(super) fn tsquery_expression(query: &SearchQuery) -> String {
    query
        .terms()
        .iter()
        .map(|t| {
            let star = if SearchQuery::is_prefix(t) { ":*" } else { "" };
            format!("'{}'{star}", t.replace('\'', "''").replace('\\', "\\\\"))
        })
        .collect::<Vec<_>>()
        .join(" & ")
}
