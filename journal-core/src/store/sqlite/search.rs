//! Full-text search: the author-scoped terms the index holds, the query expression
//! that matches them, and the ranked page.
//!
//! The index is a contentless FTS5 table whose terms carry their author: every word is
//! indexed as `a<author id in hex><word>`, so a query's prefix expands over the
//! caller's own vocabulary only. The ranking is [`super::rank`].

use rusqlite::{Connection, OptionalExtension, params};

use super::lists::sql_values;
use super::rank;
use super::rows::EntryPlaces;
use crate::domain::{PageRequest, SearchQuery, UserId, index_words};
use crate::filter::EntryFilter;
use crate::model::{Entry, Page};
use crate::store::entry_columns::SELECT_ENTRY;
use crate::store::list_query::{Dialect, ListQuery, Scope};

/// Makes `journal_terms(author_id, text)` callable from SQL on this connection: the
/// search index's triggers and migration call it (see [`author_terms`]). Also
/// `journal_rank(entries_fts)`, the search's ranking (see [`rank`]), and
/// `journal_same_text(title, content)`, which an index of entries holds for imports
/// (see `import_batch::same_text_key`).
pub(super) fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    rank::register(conn)?;
    conn.create_scalar_function(
        "journal_terms",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let author: String = ctx.get(0)?;
            let text: String = ctx.get(1)?;
            Ok(author_terms(&author, &text))
        },
    )?;
    conn.create_scalar_function(
        "journal_same_text",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let title: String = ctx.get(0)?;
            let content: String = ctx.get(1)?;
            Ok(crate::store::import_batch::same_text_key(&title, &content))
        },
    )
}

/// The search index's text for one author's title, content or tags: each term of `text`
/// (see [`index_words`]: its words, and the pairs of characters of scripts written
/// without spaces) as one token with the author in front, `a<author id, hex>word`.
/// FTS5's `ascii` tokenizer then splits only on the spaces between them: the words are
/// letters and digits, and it takes every non-ASCII character as part of a word.
fn author_terms(author_id: &str, text: &str) -> String {
    let tag = author_tag(author_id);
    let words = index_words(text);
    let mut out = String::with_capacity(words.iter().map(|w| w.len() + tag.len() + 1).sum());
    for word in words {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&tag);
        out.push_str(&word);
    }
    out
}

/// `a` and the author's id without hyphens: what the author's search terms begin with.
fn author_tag(author_id: &str) -> String {
    std::iter::once('a')
        .chain(author_id.chars().filter(|&c| c != '-'))
        .collect()
}

/// Longest a search may run: past it, SQLite stops the query and the search fails as
/// unavailable, so no query ties up a searcher for long (see `Pool::search`).
pub(super) const DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Turns the query's words into an FTS5 expression for one author: each word a quoted
/// prefix of the author's terms (see [`author_terms`]), or the whole term when it is
/// short (see [`SearchQuery::is_prefix`]), and a run of characters of scripts written
/// without spaces the phrase of its pairs (`"a<id>東京" + "a<id>京の"`, see
/// [`SearchQuery::lookups`]); all required. The words hold only letters and digits,
/// so nothing in them is syntax.
pub(super) fn fts_expression(author: &UserId, query: &SearchQuery) -> String {
    let tag = author_tag(&author.to_string());
    query
        .lookups()
        .map(|lookup| {
            let star = if lookup.prefix { "*" } else { "" };
            let phrase: Vec<String> = lookup
                .terms
                .iter()
                .map(|t| format!("\"{tag}{}\"", t.replace('"', "\"\"")))
                .collect();
            format!("{}{star}", phrase.join(" + "))
        })
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// One page of an author's search results, best match first, and their number.
///
/// The index alone finds and scores the matches (the author's terms in `expression`
/// confine it to their entries), once for both the count and the ranking; only the
/// page's rows are then read from `entries`. Reading every match's row to sort it
/// cost more than the ranking, and a separate count ran the match twice. Equal scores
/// are cut at the page boundary by insertion order and shown newest first within the
/// page.
pub(super) fn ranked_page(
    conn: &Connection,
    expression: &str,
    author_id: &UserId,
    filter: &EntryFilter,
    page: PageRequest,
) -> rusqlite::Result<Page<Entry>> {
    // Best first: the higher score, then the later insertion.
    let order = |a: &(i64, f64), b: &(i64, f64)| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0));
    let start = usize::try_from(page.offset()).unwrap_or(usize::MAX);
    // Only the best `keep` can reach the page; trimming as we go bounds the memory for
    // an author whose every entry matches.
    let keep = start.saturating_add(page.limit() as usize);
    let mut total = 0u64;
    let mut hits: Vec<(i64, f64)> = Vec::new();
    // A filter keeps the matches among the author's entries that pass it: the list's
    // rows, as a set the index's matches are checked against.
    let (kept, args) = if filter.is_empty() {
        (String::new(), Vec::new())
    } else {
        let scope = Scope::Author {
            id: *author_id,
            public_only: false,
        };
        let list = ListQuery::new(Dialect::Sqlite, &scope, filter, 2);
        // `+rowid`, not `rowid`: a plain rowid constraint is handed to FTS5, which then
        // evaluates the whole MATCH once per kept row; as an expression it is checked
        // against the kept set, read once, as the index's matches stream by.
        (
            format!(" AND +rowid IN ({})", list.keys()),
            sql_values(list.args),
        )
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT rowid, journal_rank(entries_fts) FROM entries_fts
         WHERE entries_fts MATCH ?1{kept}"
    ))?;
    let mut all: Vec<&dyn rusqlite::ToSql> = vec![&expression];
    all.extend(args.iter().map(|v| v as &dyn rusqlite::ToSql));
    let mut matches = stmt.query(all.as_slice())?;
    while let Some(row) = matches.next()? {
        total += 1;
        hits.push((row.get(0)?, row.get(1)?));
        if hits.len() >= keep.saturating_mul(2).max(1024) {
            hits.select_nth_unstable_by(keep - 1, order);
            hits.truncate(keep);
        }
    }
    hits.sort_by(order);
    let mut rows = Vec::new();
    // The author_id test is redundant with the author-scoped terms; it stays as a
    // second lock on the door.
    let mut read = conn.prepare_cached(&format!(
        "SELECT {} FROM entries e WHERE e.seq = ?1 AND e.author_id = ?2",
        *SELECT_ENTRY
    ))?;
    let places = EntryPlaces::of(&read)?;
    let author = author_id.to_string();
    for &(seq, score) in hits.iter().skip(start).take(page.limit() as usize) {
        if let Some(entry) = read
            .query_row(params![seq, author], |r| places.entry(r))
            .optional()?
        {
            rows.push((score, entry));
        }
    }
    rows.sort_by(|(a, x), (b, y)| {
        b.total_cmp(a)
            .then(y.date.cmp(&x.date))
            .then(y.id.cmp(&x.id))
    });
    Ok(Page {
        items: rows.into_iter().map(|(_, entry)| entry).collect(),
        total,
        total_is_lower_bound: false,
        page: page.page(),
        limit: page.limit(),
    })
}
