//! Full-text search: a generated `tsvector` column over `journal_fold(title)` and
//! `journal_fold(content)` with a GIN index (see the first migration), and the query
//! expression that matches it.

use crate::domain::SearchQuery;

/// The count of an author's matches: `$1` the expression, `$2` the author.
pub(super) const COUNT: &str = "SELECT COUNT(*) FROM entries e
     WHERE e.author_id = $2 AND e.search @@ to_tsquery('simple', journal_unaccent($1))";

/// A page of an author's matches, best first: `$1` the expression, `$2` the author,
/// `$3` and `$4` limit and offset. Selects the entry columns.
pub(super) fn page_sql(entry_columns: &str) -> String {
    format!(
        "SELECT {entry_columns} FROM entries e, to_tsquery('simple', journal_unaccent($1)) q
         WHERE e.author_id = $2 AND e.search @@ q
         ORDER BY ts_rank(e.search, q) DESC, e.created_at DESC, e.id DESC
         LIMIT $3 OFFSET $4"
    )
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
