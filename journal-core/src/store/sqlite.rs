//! The SQLite store: the embedded default.
//!
//! One writer connection and four reader connections (WAL lets readers run beside the
//! writer), each on a thread of its own: every SQLite call runs there, never on the
//! async reactor. Commits use `synchronous=FULL`, so an acknowledged write survives a
//! crash or power loss.

#[allow(unsafe_code)] // FTS5's extension API has no safe binding: see the module.
mod rank;

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use base64::Engine as _;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row, params};
use uuid::Uuid;

use super::cache::{Cached, Generation};
use super::{AuthState, EMAIL_CONSTRAINT, Store, StoredEntry, UserRecord, Visibility};
use crate::domain::{EntryId, PageRequest, Role, SearchQuery, Timestamp, UserId, search_words};
use crate::error::{StoreError, StoreResult};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{Entry, Page, Profile};

/// Reader connections per file database.
const READERS: usize = 4;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    email               TEXT NOT NULL,
    full_name           TEXT NOT NULL,
    nickname            TEXT NOT NULL,
    password_hash       TEXT NOT NULL,
    profile_pic         TEXT NOT NULL DEFAULT '',
    role                TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    is_private          INTEGER NOT NULL DEFAULT 0,
    password_changed_at INTEGER NOT NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);

-- `seq` is the rowid the full-text index refers to; `id` is the public identifier.
CREATE TABLE entries (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    author_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    author_name TEXT NOT NULL,
    title       TEXT NOT NULL,
    content     TEXT NOT NULL,
    is_public   INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- An author's own list, newest first.
CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_created ON entries (author_id, is_public, created_at DESC, id DESC);
-- The public feed.
CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public = 1;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content) VALUES ('delete', old.seq, old.title, old.content);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content) VALUES ('delete', old.seq, old.title, old.content);
    INSERT INTO entries_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;

CREATE TABLE revoked_tokens (
    jti        TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"#,
    // Search one author's entries without reading everyone's matches: the author is a
    // column of the full-text index, so FTS5 intersects the author's short posting list
    // with the words' lists instead of joining every match back to `entries`.
    r#"
ALTER TABLE entries ADD COLUMN fts_author TEXT
    GENERATED ALWAYS AS ('a' || replace(author_id, '-', '')) VIRTUAL;
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content, fts_author,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content, fts_author)
    VALUES (new.seq, new.title, new.content, new.fts_author);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
    VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
    VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
    INSERT INTO entries_fts (rowid, title, content, fts_author)
    VALUES (new.seq, new.title, new.content, new.fts_author);
END;
"#,
    // List totals kept by triggers, so `X-Total-Count` is a key lookup instead of a
    // `count(*)` over the list (which made deep pages cost as much as a scan). Every
    // write goes through the one writer connection, so plain counters stay exact.
    r#"
CREATE TABLE author_counts (
    author_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    entries   INTEGER NOT NULL DEFAULT 0,
    public    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- Public entries of authors whose profile is not private: the public feed's total.
CREATE TABLE feed_count (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    n  INTEGER NOT NULL
);
INSERT INTO author_counts (author_id, entries, public)
    SELECT u.id, count(e.seq), coalesce(sum(e.is_public), 0)
    FROM users u LEFT JOIN entries e ON e.author_id = u.id GROUP BY u.id;
INSERT INTO feed_count (id, n)
    SELECT 0, count(*) FROM entries e JOIN users u ON u.id = e.author_id
    WHERE e.is_public = 1 AND u.is_private = 0;

CREATE TRIGGER users_counts_insert AFTER INSERT ON users BEGIN
    INSERT INTO author_counts (author_id) VALUES (new.id);
END;
CREATE TRIGGER entries_counts_insert AFTER INSERT ON entries BEGIN
    UPDATE author_counts SET entries = entries + 1, public = public + new.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + 1
        WHERE new.is_public = 1
          AND (SELECT is_private FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER entries_counts_delete AFTER DELETE ON entries BEGIN
    UPDATE author_counts SET entries = entries - 1, public = public - old.is_public
        WHERE author_id = old.author_id;
    UPDATE feed_count SET n = n - 1
        WHERE old.is_public = 1
          AND (SELECT is_private FROM users WHERE id = old.author_id) = 0;
END;
CREATE TRIGGER entries_counts_update AFTER UPDATE OF is_public ON entries
    WHEN old.is_public <> new.is_public BEGIN
    UPDATE author_counts SET public = public + new.is_public - old.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + new.is_public - old.is_public
        WHERE (SELECT is_private FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER users_counts_privacy AFTER UPDATE OF is_private ON users
    WHEN old.is_private <> new.is_private BEGIN
    UPDATE feed_count SET n = n + (CASE WHEN new.is_private = 0 THEN 1 ELSE -1 END)
        * (SELECT public FROM author_counts WHERE author_id = new.id);
END;
"#,
    // Search terms scoped to their author. Migration 2 put the author in a column of
    // the index, but a prefix word (`"garden"*`) still expanded over every user's
    // postings before meeting the author's: 5 ms for a light user at 1M entries. Now
    // each word is indexed with its author in front (`a<author>garden`, made in Rust by
    // `journal_terms`), so a prefix walks only that author's words. The index keeps no
    // copy of the text: the triggers give it the terms. It deletes by rowid
    // (`contentless_delete`, SQLite 3.43+) rather than by handing the old terms back, so
    // a later change to how words are split (a new Unicode version, say) cannot leave
    // terms behind that no delete would match.
    r#"
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;
ALTER TABLE entries DROP COLUMN fts_author;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content,
    content = '', contentless_delete = 1,
    tokenize = 'ascii'
);
INSERT INTO entries_fts (rowid, title, content)
    SELECT seq, journal_terms(author_id, title), journal_terms(author_id, content) FROM entries;
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content));
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content));
END;
"#,
];

const ENTRY_COLUMNS: &str =
    "e.id, e.title, e.content, e.is_public, e.author_id, e.author_name, e.created_at, e.updated_at";
/// The same columns, unqualified, for `RETURNING`.
const ENTRY_COLUMNS_BARE: &str =
    "id, title, content, is_public, author_id, author_name, created_at, updated_at";
const USER_COLUMNS: &str = "id, full_name, nickname, email, profile_pic, role, is_private, \
                            password_hash, password_changed_at, created_at";

struct Pool {
    /// Jobs for the writer thread, which owns the one writing connection. Taken out
    /// when the pool is dropped, which lets the thread finish and close the connection.
    writer: Option<std::sync::mpsc::Sender<Job>>,
    /// The writer thread, joined on drop so the database is closed before we return.
    writer_thread: Option<std::thread::JoinHandle<()>>,
    /// Bumped by the writer after every commit; see [`super::cache`].
    generation: Arc<Generation>,
    /// A token's user state, by user and token id.
    auth: Cached<(UserId, String), Option<AuthState>>,
    /// Public feed pages, by page and limit.
    feed: Cached<(u32, u32), Page<Entry>>,
    /// Authors' list pages, by author, public-only, page and limit.
    author_pages: Cached<(UserId, bool, u32, u32), Page<Entry>>,
    /// Held while a feed page is read into the cache.
    feed_refill: tokio::sync::Mutex<()>,
    /// Jobs for the reader threads, each of which owns one reader connection. `None`
    /// for `:memory:`, where every connection would be its own database: there, reads
    /// go to the writer thread too.
    readers: Option<std::sync::mpsc::Sender<ReadJob>>,
    reader_threads: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the channel ends the writer loop once queued jobs are done; joining
        // waits for its connection to close (SQLite checkpoints the WAL then).
        // Readers first, so that the writer's connection is the last one closed.
        self.readers.take();
        for thread in self.reader_threads.drain(..) {
            let _ = thread.join();
        }
        self.writer.take();
        if let Some(thread) = self.writer_thread.take() {
            let _ = thread.join();
        }
    }
}

/// Work for the writer thread. It runs inside the batch's transaction (or is told why
/// the transaction could not begin) and returns what to do once the batch's commit is
/// known: reply to its caller.
type Job = Box<dyn FnOnce(Result<&Connection, &str>) -> Reply + Send>;
/// Called with the commit's outcome (`None`: committed).
type Reply = Box<dyn FnOnce(Option<&str>) + Send>;

/// Work for a reader thread.
type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

/// A reader thread: runs read jobs on its connection, one at a time, until the store
/// is dropped. Threads of their own rather than tokio's blocking pool: four threads
/// serve every read, where the pool grew a thread (with its stack and allocator
/// memory) for each read that found none idle.
fn reader_loop(conn: Connection, jobs: Arc<Mutex<std::sync::mpsc::Receiver<ReadJob>>>) {
    loop {
        let job = match lock(&jobs).recv() {
            Ok(job) => job,
            Err(_) => break,
        };
        // A panicking read loses only its own reply (its caller sees an error); the
        // thread and its connection serve on.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&conn)));
    }
}

/// Most jobs committed together.
const MAX_BATCH: usize = 256;

/// The writer thread: group commit. Takes every job already queued (up to `MAX_BATCH`),
/// runs each in its own savepoint inside one transaction, commits once, and only then
/// replies. Under concurrent writes one `fsync` serves many of them; an acknowledged
/// write has always reached the disk; a failing job rolls back only its own savepoint.
fn writer_loop(
    conn: Connection,
    jobs: std::sync::mpsc::Receiver<Job>,
    generation: Arc<Generation>,
) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            let why = e.to_string();
            for job in batch {
                job(Err(&why))(Some(&why));
            }
            continue;
        }
        let replies: Vec<Reply> = batch.into_iter().map(|job| job(Ok(&conn))).collect();
        let outcome = conn.execute_batch("COMMIT").map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            e.to_string()
        });
        let failure = outcome.err();
        // Before any reply: a client told its write succeeded must not then read a
        // cached value from before it.
        generation.bump();
        for reply in replies {
            reply(failure.as_deref());
        }
    }
    // Every store handle is gone: closing the connection checkpoints the WAL.
    drop(conn);
}

/// Runs `f` in a savepoint so that its failure undoes only its own changes.
fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("SAVEPOINT job")?;
    match f(conn) {
        Ok(value) => {
            conn.execute_batch("RELEASE job")?;
            Ok(value)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK TO job; RELEASE job");
            Err(e)
        }
    }
}

/// A journal stored in one SQLite file (or in memory).
#[derive(Clone)]
pub struct SqliteStore {
    pool: Arc<Pool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing is left half-done under these locks (the readers' job queue), so a
    // poisoned lock is still usable.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn map_err(e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(failure, message) = &e {
        match failure.code {
            ErrorCode::ConstraintViolation
                if message
                    .as_deref()
                    .is_some_and(|m| m.contains("users.email")) =>
            {
                return StoreError::Conflict {
                    constraint: EMAIL_CONSTRAINT,
                };
            }
            ErrorCode::DiskFull
            | ErrorCode::ReadOnly
            | ErrorCode::CannotOpen
            | ErrorCode::DatabaseBusy
            | ErrorCode::DatabaseLocked
            | ErrorCode::SystemIoFailure
            | ErrorCode::FileLockingProtocolFailed => return StoreError::unavailable(e),
            _ => {}
        }
    }
    StoreError::internal(e)
}

/// The search index's text for one author's title or content: each word of `text` (see
/// [`search_words`]) as one token with the author in front, `a<author id, hex>word`.
/// FTS5's `ascii` tokenizer then splits only on the spaces between them: the words are
/// letters and digits, and it takes every non-ASCII character as part of a word.
fn author_terms(author_id: &str, text: &str) -> String {
    let tag = author_tag(author_id);
    let words = search_words(text);
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

/// Makes `journal_terms(author_id, text)` callable from SQL on this connection: the
/// search index's triggers and migration call it (see [`author_terms`]). Also
/// `journal_rank(entries_fts)`, the search's ranking (see [`rank`]).
fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
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
    )
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    register_functions(conn)?;
    // More than the store's distinct statements, so none is parsed twice.
    conn.set_prepared_statement_cache_capacity(64);
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let done: usize = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        // Some migrations rebuild an index over every entry (about a minute per million
        // entries): say so, or a server that is upgrading looks hung.
        tracing::info!(version = i + 1, "applying SQLite migration");
        let started = std::time::Instant::now();
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
        tracing::info!(version = i + 1, elapsed = ?started.elapsed(), "SQLite migration applied");
    }
    Ok(())
}

fn uuid_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<Uuid> {
    let text: String = row.get(idx)?;
    Uuid::try_parse(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: EntryId::from_uuid(uuid_col(row, 0)?),
        title: row.get(1)?,
        content: row.get(2)?,
        is_public: row.get(3)?,
        author_id: UserId::from_uuid(uuid_col(row, 4)?),
        author_name: row.get(5)?,
        created_at: Timestamp::from_millis(row.get(6)?),
        updated_at: Timestamp::from_millis(row.get(7)?),
    })
}

fn role_col(row: &Row<'_>, idx: usize) -> rusqlite::Result<Role> {
    let text: String = row.get(idx)?;
    text.parse().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn profile_from_row(row: &Row<'_>) -> rusqlite::Result<Profile> {
    Ok(Profile {
        id: UserId::from_uuid(uuid_col(row, 0)?),
        full_name: row.get(1)?,
        nickname: row.get(2)?,
        email: row.get(3)?,
        profile_pic: row.get(4)?,
        role: role_col(row, 5)?,
        is_private: row.get(6)?,
    })
}

fn user_from_row(row: &Row<'_>) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get(7)?,
        password_changed_at: Timestamp::from_millis(row.get(8)?),
        created_at: Timestamp::from_millis(row.get(9)?),
    })
}

fn limit_offset(page: PageRequest) -> (i64, i64) {
    (
        i64::from(page.limit()),
        i64::try_from(page.offset()).unwrap_or(i64::MAX),
    )
}

/// One page and the total, read by one statement so the two agree: the total is a
/// scalar subquery beside each row (`count_sql`, whose parameters are the page's
/// first ones). Only an empty page asks for the total on its own. `page_from` is the
/// page query from its `FROM` on, without `LIMIT`.
fn paged(
    conn: &Connection,
    page: PageRequest,
    (count_sql, count_args): (&str, &[&dyn rusqlite::ToSql]),
    (page_from, args): (&str, &[&dyn rusqlite::ToSql]),
) -> rusqlite::Result<Page<Entry>> {
    let (limit, offset) = limit_offset(page);
    let mut all: Vec<&dyn rusqlite::ToSql> = args.to_vec();
    all.push(&offset);
    // The limit is written into the SQL, not bound: SQLite plans with a LIMIT's value,
    // so binding one makes it re-prepare the statement on every run (a visible part of
    // every list request). It is a number from a validated page size, and the few
    // sizes clients use each get their own cached statement.
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, ({count_sql}) {page_from} LIMIT {limit} OFFSET ?{}",
        all.len()
    );
    let mut total = None;
    let items = conn
        .prepare_cached(&sql)?
        .query_map(all.as_slice(), |row| {
            total = Some(row.get::<_, i64>(8)?);
            entry_from_row(row)
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
        page: page.page(),
        limit: page.limit(),
    })
}

/// The page number and size of `page` when it is one of a list's first pages, which the
/// caches keep; deep pages would only churn them.
fn first_pages(page: PageRequest) -> Option<(u32, u32)> {
    (page.after().is_none() && page.page() <= 10).then_some((page.page(), page.limit()))
}

/// Runs `f` in one read transaction, so that what it reads is one snapshot.
fn in_read_transaction<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    // Inside the writer's batch (in-memory databases) a transaction is already open.
    if !conn.is_autocommit() {
        return f(conn);
    }
    // BEGIN and COMMIT go through the statement cache: parsing them was a visible part
    // of every list request.
    conn.prepare_cached("BEGIN")?.execute([])?;
    let result = f(conn);
    conn.prepare_cached(if result.is_ok() { "COMMIT" } else { "ROLLBACK" })?
        .execute([])?;
    result
}

/// Turns the query's words into an FTS5 expression for one author: each word a quoted
/// prefix of the author's terms (see [`author_terms`]), all required. The words hold
/// only letters and digits, so nothing in them is syntax.
fn fts_expression(author: &UserId, query: &SearchQuery) -> String {
    let tag = author_tag(&author.to_string());
    query
        .terms()
        .iter()
        .map(|t| format!("\"{tag}{}\"*", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// One page of an author's search results, best match first, and their number.
///
/// The index alone finds and scores the matches (the author's terms in `expression`
/// confine it to their entries), once for both the count and the ranking; only the
/// page's rows are then read from `entries`. Reading every match's row to sort it cost
/// more than the ranking (a heavy user's 2,490 matches: 15 ms against 8 ms), and a
/// separate count ran the match twice. Equal scores are cut at the page boundary by
/// insertion order and shown newest first within the page.
fn ranked_page(
    conn: &Connection,
    expression: &str,
    author: &str,
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
    let mut stmt = conn.prepare_cached(
        "SELECT rowid, journal_rank(entries_fts) FROM entries_fts
         WHERE entries_fts MATCH ?1",
    )?;
    let mut matches = stmt.query([expression])?;
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
    // The author_id test is redundant with the index's author column; it stays as a
    // second lock on the door.
    let mut read = conn.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.seq = ?1 AND e.author_id = ?2"
    ))?;
    for &(seq, score) in hits.iter().skip(start).take(page.limit() as usize) {
        if let Some(entry) = read
            .query_row(params![seq, author], entry_from_row)
            .optional()?
        {
            rows.push((score, entry));
        }
    }
    rows.sort_by(|(a, x), (b, y)| {
        b.total_cmp(a)
            .then(y.created_at.cmp(&x.created_at))
            .then(y.id.cmp(&x.id))
    });
    Ok(Page {
        items: rows.into_iter().map(|(_, entry)| entry).collect(),
        total,
        page: page.page(),
        limit: page.limit(),
    })
}

fn insert_entry_row(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO entries (id, author_id, author_name, title, content, is_public, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        e.id.to_string(),
        e.author_id.to_string(),
        e.author_name,
        e.title,
        e.content,
        e.is_public,
        e.created_at.as_millis(),
        e.updated_at.as_millis(),
    ])?;
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, or an in-memory database for
    /// `:memory:`, and applies migrations.
    pub async fn open(path: impl AsRef<Path>) -> StoreResult<SqliteStore> {
        let path = path.as_ref().to_owned();
        tokio::task::spawn_blocking(move || Self::open_blocking(&path))
            .await
            .map_err(StoreError::internal)?
    }

    fn open_blocking(path: &Path) -> StoreResult<SqliteStore> {
        let memory = path.as_os_str() == ":memory:";
        let mut writer = if memory {
            Connection::open_in_memory()
        } else {
            Connection::open(path)
        }
        .map_err(map_err)?;
        if !memory {
            let mode: String = writer
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
                .map_err(map_err)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::internal(format!(
                    "could not switch {} to WAL mode (got {mode})",
                    path.display()
                )));
            }
        }
        configure(&writer).map_err(map_err)?;
        migrate(&mut writer).map_err(map_err)?;
        let connections = if memory {
            Vec::new()
        } else {
            (0..READERS)
                .map(|_| {
                    let conn = Connection::open_with_flags(
                        path,
                        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                    )?;
                    configure(&conn)?;
                    Ok(conn)
                })
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(map_err)?
        };
        let (sender, jobs) = std::sync::mpsc::channel();
        let generation = Arc::new(Generation::default());
        let bumps = generation.clone();
        let thread = std::thread::Builder::new()
            .name("journal-sqlite-writer".into())
            .spawn(move || writer_loop(writer, jobs, bumps))
            .map_err(StoreError::internal)?;
        let (readers, reader_threads) = if connections.is_empty() {
            (None, Vec::new())
        } else {
            let (sender, jobs) = std::sync::mpsc::channel::<ReadJob>();
            let jobs = Arc::new(Mutex::new(jobs));
            let threads = connections
                .into_iter()
                .enumerate()
                .map(|(i, conn)| {
                    let jobs = jobs.clone();
                    std::thread::Builder::new()
                        .name(format!("journal-sqlite-reader-{i}"))
                        .spawn(move || reader_loop(conn, jobs))
                })
                .collect::<std::io::Result<Vec<_>>>()
                .map_err(StoreError::internal)?;
            (Some(sender), threads)
        };
        Ok(SqliteStore {
            pool: Arc::new(Pool {
                writer: Some(sender),
                writer_thread: Some(thread),
                generation,
                auth: Cached::default(),
                feed: Cached::default(),
                author_pages: Cached::default(),
                feed_refill: tokio::sync::Mutex::new(()),
                readers,
                reader_threads,
            }),
        })
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        let Some(readers) = &self.pool.readers else {
            return self.write(f).await;
        };
        let (tx, rx) = tokio::sync::oneshot::channel::<StoreResult<T>>();
        let job: ReadJob = Box::new(move |conn| {
            let _ = tx.send(f(conn).map_err(map_err));
        });
        readers
            .send(job)
            .map_err(|_| StoreError::internal("the SQLite reader threads have stopped"))?;
        rx.await
            .map_err(|_| StoreError::internal("an SQLite read failed without an answer"))?
    }

    /// Runs `f` on the writer thread in its own savepoint; resolves once the batch it
    /// ran in has committed.
    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        let (tx, rx) = tokio::sync::oneshot::channel::<StoreResult<T>>();
        let job: Job = Box::new(move |conn| {
            let result = match conn {
                Ok(conn) => in_savepoint(conn, f).map_err(map_err),
                Err(why) => Err(StoreError::unavailable(format!(
                    "cannot begin a write: {why}"
                ))),
            };
            Box::new(move |commit_failure: Option<&str>| {
                let outcome = match (result, commit_failure) {
                    (Err(e), _) => Err(e),
                    (Ok(_), Some(why)) => {
                        Err(StoreError::unavailable(format!("commit failed: {why}")))
                    }
                    (Ok(value), None) => Ok(value),
                };
                let _ = tx.send(outcome);
            })
        });
        self.pool
            .writer
            .as_ref()
            .and_then(|w| w.send(job).ok())
            .ok_or_else(|| StoreError::internal("the SQLite writer thread has stopped"))?;
        rx.await
            .map_err(|_| StoreError::internal("the SQLite writer thread dropped a job"))?
    }

    /// Runs `PRAGMA integrity_check` and returns its verdict (`ok` when healthy).
    pub async fn integrity_check(&self) -> StoreResult<String> {
        self.write(|c| c.query_row("PRAGMA integrity_check", [], |r| r.get(0)))
            .await
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn ping(&self) -> StoreResult<()> {
        self.read(|c| c.query_row("SELECT 1", [], |_| Ok(()))).await
    }

    async fn jwt_secret(&self, candidate: &[u8]) -> StoreResult<Vec<u8>> {
        let encoded = base64::engine::general_purpose::STANDARD.encode(candidate);
        let stored: String = self
            .write(move |c| {
                c.execute(
                    "INSERT OR IGNORE INTO settings (key, value) VALUES ('jwt_secret', ?1)",
                    [&encoded],
                )?;
                c.query_row(
                    "SELECT value FROM settings WHERE key = 'jwt_secret'",
                    [],
                    |r| r.get(0),
                )
            })
            .await?;
        base64::engine::general_purpose::STANDARD
            .decode(stored)
            .map_err(StoreError::internal)
    }

    async fn insert_user(&self, user: &UserRecord) -> StoreResult<()> {
        let u = user.clone();
        self.write(move |c| {
            c.prepare_cached(
                "INSERT INTO users (id, email, full_name, nickname, password_hash, profile_pic, role,
                                    is_private, password_changed_at, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            )?
            .execute(params![
                u.profile.id.to_string(),
                u.profile.email,
                u.profile.full_name,
                u.profile.nickname,
                u.password_hash,
                u.profile.profile_pic,
                u.profile.role.as_str(),
                u.profile.is_private,
                u.password_changed_at.as_millis(),
                u.created_at.as_millis(),
            ])
            .map(|_| ())
        })
        .await
    }

    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        let email = email.to_owned();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM users WHERE email = ?1"
            ))?
            .query_row([email], user_from_row)
            .optional()
        })
        .await
    }

    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        let id = id.to_string();
        self.read(move |c| {
            c.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"))?
                .query_row([id], user_from_row)
                .optional()
        })
        .await
    }

    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        let generation = self.pool.generation.current();
        let key = (*id, token_id.to_owned());
        if let Some(state) = self.pool.auth.get(&key, generation) {
            return Ok(state);
        }
        let (id, jti) = (id.to_string(), token_id.to_owned());
        let state = self
            .read(move |c| {
                c.prepare_cached(
                    "SELECT role, password_changed_at,
                        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?2)
                 FROM users WHERE id = ?1",
                )?
                .query_row([id, jti], |r| {
                    Ok(AuthState {
                        role: role_col(r, 0)?,
                        password_changed_at: Timestamp::from_millis(r.get(1)?),
                        revoked: r.get(2)?,
                    })
                })
                .optional()
            })
            .await?;
        self.pool.auth.put(key, state, generation);
        Ok(state)
    }

    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        let id = id.to_string();
        let full_name = changes.full_name.as_ref().map(|v| v.as_ref().to_owned());
        let nickname = changes.nickname.as_ref().map(|v| v.as_ref().to_owned());
        let email = changes.email.as_ref().map(|v| v.as_ref().to_owned());
        let pic = changes.profile_pic.as_ref().map(|v| v.as_ref().to_owned());
        let private = changes.is_private;
        self.write(move |c| {
            c.prepare_cached(&format!(
                "UPDATE users SET
                    full_name   = COALESCE(?1, full_name),
                    nickname    = COALESCE(?2, nickname),
                    email       = COALESCE(?3, email),
                    profile_pic = COALESCE(?4, profile_pic),
                    is_private  = COALESCE(?5, is_private),
                    updated_at  = ?6
                 WHERE id = ?7
                 RETURNING {USER_COLUMNS}"
            ))?
            .query_row(
                params![
                    full_name,
                    nickname,
                    email,
                    pic,
                    private,
                    now.as_millis(),
                    id
                ],
                profile_from_row,
            )
            .optional()
        })
        .await
    }

    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
    ) -> StoreResult<bool> {
        let (id, hash) = (id.to_string(), hash.to_owned());
        self.write(move |c| {
            c.execute(
                "UPDATE users SET password_hash = ?1, password_changed_at = ?2, updated_at = ?2 WHERE id = ?3",
                params![hash, changed_at.as_millis(), id],
            )
            .map(|n| n == 1)
        })
        .await
    }

    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        let email = email.to_owned();
        self.write(move |c| {
            c.execute(
                "UPDATE users SET role = ?1 WHERE email = ?2",
                params![role.as_str(), email],
            )
            .map(|n| n == 1)
        })
        .await
    }

    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        let id = id.to_string();
        // Each write job runs in its own savepoint, so these statements are atomic.
        self.write(move |c| {
            // Deleting the entries explicitly (rather than by cascade) keeps the full-text
            // index in step through its trigger.
            c.execute("DELETE FROM entries WHERE author_id = ?1", [&id])?;
            let n = c.execute("DELETE FROM users WHERE id = ?1", [&id])?;
            Ok(n == 1)
        })
        .await
    }

    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        let jti = token_id.to_owned();
        let now = Timestamp::now().as_millis();
        self.write(move |c| {
            c.execute("DELETE FROM revoked_tokens WHERE expires_at < ?1", [now])?;
            c.execute(
                "INSERT OR IGNORE INTO revoked_tokens (jti, expires_at) VALUES (?1, ?2)",
                params![jti, expires_at.as_millis()],
            )?;
            Ok(())
        })
        .await
    }

    async fn insert_entry(&self, entry: &Entry) -> StoreResult<()> {
        let e = entry.clone();
        self.write(move |c| insert_entry_row(c, &e)).await
    }

    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        let entries = entries.to_vec();
        self.write(move |c| {
            for e in &entries {
                insert_entry_row(c, e)?;
            }
            Ok(())
        })
        .await
    }

    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        let id = id.to_string();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS}, u.is_private
                 FROM entries e JOIN users u ON u.id = e.author_id
                 WHERE e.id = ?1"
            ))?
            .query_row([id], |r| {
                Ok(StoredEntry {
                    entry: entry_from_row(r)?,
                    author_private: r.get(8)?,
                })
            })
            .optional()
        })
        .await
    }

    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Entry>> {
        let id = id.to_string();
        let title = changes.title.as_ref().map(|v| v.as_ref().to_owned());
        let content = changes.content.as_ref().map(|v| v.as_ref().to_owned());
        let public = changes.is_public;
        self.write(move |c| {
            c.prepare_cached(&format!(
                "UPDATE entries SET
                    title      = COALESCE(?1, title),
                    content    = COALESCE(?2, content),
                    is_public  = COALESCE(?3, is_public),
                    updated_at = ?4
                 WHERE id = ?5
                 RETURNING {ENTRY_COLUMNS_BARE}"
            ))?
            .query_row(
                params![title, content, public, now.as_millis(), id],
                entry_from_row,
            )
            .optional()
        })
        .await
    }

    async fn delete_entry(&self, id: &EntryId) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |c| {
            c.execute("DELETE FROM entries WHERE id = ?1", [id])
                .map(|n| n == 1)
        })
        .await
    }

    async fn entries_by_author(
        &self,
        author: &UserId,
        visibility: Visibility,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let public_only = visibility == Visibility::PublicOnly;
        let generation = self.pool.generation.current();
        let page_key = first_pages(page).map(|(n, limit)| (*author, public_only, n, limit));
        if let Some(cached) = page_key.and_then(|k| self.pool.author_pages.get(&k, generation)) {
            return Ok(cached);
        }
        let author = author.to_string();
        let cursor = page
            .after()
            .map(|c| (c.created_at().as_millis(), c.id().to_string()));
        let result = self.read(move |c| {
            let (filter, total) = if public_only {
                (
                    "e.author_id = ?1 AND e.is_public = 1",
                    "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = ?1), 0)",
                )
            } else {
                (
                    "e.author_id = ?1",
                    "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = ?1), 0)",
                )
            };
            match &cursor {
                None => paged(
                    c,
                    page,
                    (total, &[&author]),
                    (
                        &format!(
                            "FROM entries e WHERE {filter}
                             ORDER BY e.created_at DESC, e.id DESC "
                        ),
                        &[&author],
                    ),
                ),
                Some((ms, id)) => paged(
                    c,
                    page,
                    (total, &[&author]),
                    (
                        &format!(
                            "FROM entries e
                             WHERE {filter} AND (e.created_at, e.id) < (?2, ?3)
                             ORDER BY e.created_at DESC, e.id DESC "
                        ),
                        &[&author, ms, id],
                    ),
                ),
            }
        })
        .await?;
        if let Some(k) = page_key {
            self.pool.author_pages.put(k, result.clone(), generation);
        }
        Ok(result)
    }

    async fn public_entries(&self, page: PageRequest) -> StoreResult<Page<Entry>> {
        let generation = self.pool.generation.current();
        let page_key = first_pages(page);
        if let Some(cached) = page_key.and_then(|k| self.pool.feed.get(&k, generation)) {
            return Ok(cached);
        }
        // One refill at a time: when the cache empties under load, the first request
        // reads the page and the others wait for it instead of all reading it at once.
        let _refill = match page_key {
            Some(_) => Some(self.pool.feed_refill.lock().await),
            None => None,
        };
        let generation = self.pool.generation.current();
        if let Some(cached) = page_key.and_then(|k| self.pool.feed.get(&k, generation)) {
            return Ok(cached);
        }
        let cursor = page
            .after()
            .map(|c| (c.created_at().as_millis(), c.id().to_string()));
        let result = self
            .read(move |c| {
                let count = "SELECT n FROM feed_count WHERE id = 0";
                match &cursor {
                    None => paged(
                        c,
                        page,
                        (count, &[]),
                        (
                            "FROM entries e JOIN users u ON u.id = e.author_id
                                 WHERE e.is_public = 1 AND u.is_private = 0
                                 ORDER BY e.created_at DESC, e.id DESC ",
                            &[],
                        ),
                    ),
                    Some((ms, id)) => paged(
                        c,
                        page,
                        (count, &[]),
                        (
                            "FROM entries e JOIN users u ON u.id = e.author_id
                                 WHERE e.is_public = 1 AND u.is_private = 0
                                   AND (e.created_at, e.id) < (?1, ?2)
                                 ORDER BY e.created_at DESC, e.id DESC ",
                            &[ms, id],
                        ),
                    ),
                }
            })
            .await?;
        if let Some(k) = page_key {
            self.pool.feed.put(k, result.clone(), generation);
        }
        Ok(result)
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        let after = after.map(|id| id.to_string()).unwrap_or_default();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {USER_COLUMNS} FROM users WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?
            .query_map(params![after, limit], user_from_row)?
            .collect()
        })
        .await
    }

    async fn entries_after(&self, after: Option<&EntryId>, limit: u32) -> StoreResult<Vec<Entry>> {
        let after = after.map(|id| id.to_string()).unwrap_or_default();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id > ?1 ORDER BY e.id LIMIT ?2"
            ))?
            .query_map(params![after, limit], entry_from_row)?
            .collect()
        })
        .await
    }

    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        let now = Timestamp::now().as_millis();
        self.read(move |c| {
            c.prepare_cached("SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= ?1")?
                .query_map([now], |r| {
                    Ok((r.get(0)?, Timestamp::from_millis(r.get(1)?)))
                })?
                .collect()
        })
        .await
    }

    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let expression = fts_expression(author, query);
        let author = author.to_string();
        self.read(move |c| in_read_transaction(c, |c| ranked_page(c, &expression, &author, page)))
            .await
    }
}
