//! `journal_rank(entries_fts)`: how well an entry matches a search, as an FTS5
//! auxiliary function.
//!
//! FTS5's own `bm25` divides each match's score by the entry's length, which it reads
//! from the index's `docsize` table, one B-tree lookup per match. A heavy user's matches
//! are spread over the whole table (entries are numbered in the order they were
//! written, by every user), so for a heavy user those lookups cost several times more
//! than finding the matches (docs/PERFORMANCE.md). This function scores
//! with what the match has already loaded: how often each word of the query occurs,
//! title and tag occurrences counting twice, saturating as in BM25 (k1 = 1.2), each word
//! weighted by its inverse document frequency when the query has more than one (the
//! author's entries that use it, against every entry in the index, as the terms carry
//! their author: the rarer word of a query still weighs more). It is
//! BM25 without length normalisation (b = 0): a long entry that keeps coming back to a
//! word is not marked down for its length.
//!
//! The score is positive; higher is better. Rusqlite has no safe binding for FTS5's
//! extension API, so this module has `unsafe` code (as has `file_sync.rs`). Every
//! pointer it follows is one FTS5 hands to it for the duration of the call.

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::{Connection, ffi};

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// A title or tag occurrence counts this many content occurrences (column 0 is the
/// title, 1 the content, 2 the tags).
const TITLE_WEIGHT: f64 = 2.0;
/// The content's column.
const CONTENT: c_int = 1;

/// Registers `journal_rank` on this connection's FTS5 module.
pub(super) fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: `handle` is this open connection's pointer, used only during this call.
    let api = unsafe { fts5_api(conn.handle()) }?;
    // SAFETY: `api` was just returned by FTS5 for this connection and lives as long as
    // it; the name is a NUL-terminated literal, copied by FTS5; the function pointer is
    // a plain `extern "C"` function with no user data to free.
    let rc = unsafe {
        match (*api).xCreateFunction {
            Some(create) => create(
                api,
                c"journal_rank".as_ptr(),
                ptr::null_mut(),
                Some(journal_rank),
                None,
            ),
            None => ffi::SQLITE_MISUSE,
        }
    };
    check(rc)
}

/// An FTS5 API call's result code as a `Result`, for the auxiliary function's `?`.
fn ok(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The same, as rusqlite's error, for registration.
fn check(rc: c_int) -> rusqlite::Result<()> {
    ok(rc).map_err(|rc| {
        rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some("registering journal_rank with FTS5".into()),
        )
    })
}

/// The connection's `fts5_api`, obtained as SQLite documents: `SELECT fts5(?1)` with a
/// pointer bound under the type "fts5_api_ptr".
///
/// # Safety
/// `db` must be an open connection, not used by another thread during the call.
unsafe fn fts5_api(db: *mut ffi::sqlite3) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    // SAFETY: the SQL is NUL-terminated; once prepared, `stmt` is finalized on every
    // path; `api` outlives the statement's single step, which is when FTS5 writes
    // through it.
    unsafe {
        check(ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        ))?;
        let mut rc = ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&raw mut api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_step(stmt);
            if rc == ffi::SQLITE_ROW || rc == ffi::SQLITE_DONE {
                rc = ffi::SQLITE_OK;
            }
        }
        ffi::sqlite3_finalize(stmt);
        check(rc)?;
    }
    if api.is_null() {
        return Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(ffi::SQLITE_ERROR),
            Some("this SQLite has no FTS5".into()),
        ));
    }
    Ok(api)
}

/// Per-query state, kept by FTS5 between the rows of one query: each phrase's weight
/// and a buffer for its frequencies in the current row.
struct Query {
    idf: Vec<f64>,
    freq: Vec<f64>,
}

unsafe extern "C" fn drop_query(p: *mut c_void) {
    // SAFETY: FTS5 calls this once, with the pointer made by `Box::into_raw` in
    // `query_state`.
    drop(unsafe { Box::from_raw(p.cast::<Query>()) });
}

/// Counts the rows `xQueryPhrase` visits.
unsafe extern "C" fn count_row(
    _api: *const ffi::Fts5ExtensionApi,
    _fts: *mut ffi::Fts5Context,
    count: *mut c_void,
) -> c_int {
    // SAFETY: `count` is the `&mut i64` passed to `xQueryPhrase` in `query_state`.
    unsafe { *count.cast::<i64>() += 1 };
    ffi::SQLITE_OK
}

/// The query's state, computed on its first row.
///
/// # Safety
/// `api` and `fts` are the arguments FTS5 passed to the auxiliary function.
unsafe fn query_state(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<*mut Query, c_int> {
    let (Some(get), Some(set), Some(phrases)) =
        (api.xGetAuxdata, api.xSetAuxdata, api.xPhraseCount)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: FTS5 keeps what we set below for this query and returns it unchanged.
    let existing = unsafe { get(fts, 0) }.cast::<Query>();
    if !existing.is_null() {
        return Ok(existing);
    }
    // SAFETY: `fts` is the live context of this call.
    let n = usize::try_from(unsafe { phrases(fts) }).unwrap_or(0);
    let mut idf = vec![1.0; n];
    // One word needs no weight: it would scale every score alike. Counting a word's
    // entries means walking its postings a second time, so only queries of several
    // words pay for it.
    if n > 1 {
        let (Some(rows), Some(query_phrase)) = (api.xRowCount, api.xQueryPhrase) else {
            return Err(ffi::SQLITE_MISUSE);
        };
        let mut total: i64 = 0;
        // SAFETY: `total` outlives the call.
        ok(unsafe { rows(fts, &mut total) })?;
        for (i, weight) in idf.iter_mut().enumerate() {
            let mut hits: i64 = 0;
            // SAFETY: `i` is below the phrase count; `hits` outlives the call, which
            // runs `count_row` synchronously.
            ok(unsafe {
                query_phrase(
                    fts,
                    i as c_int,
                    (&raw mut hits).cast::<c_void>(),
                    Some(count_row),
                )
            })?;
            // BM25's idf, floored as FTS5's bm25 floors it: a word in most entries
            // still counts a little.
            let (total, hits) = (total as f64, hits as f64);
            let idf = ((total - hits + 0.5) / (hits + 0.5)).ln();
            *weight = if idf > 0.0 { idf } else { 1e-6 };
        }
    }
    let state = Box::into_raw(Box::new(Query {
        idf,
        freq: vec![0.0; n],
    }));
    // SAFETY: FTS5 takes ownership of `state` and frees it with `drop_query`, also when
    // this call fails.
    ok(unsafe { set(fts, state.cast::<c_void>(), Some(drop_query)) })?;
    Ok(state)
}

/// The auxiliary function itself. See the module documentation for the formula.
unsafe extern "C" fn journal_rank(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n_args: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API table and context for the duration of the call.
    let result = unsafe { score(&*api, fts) };
    match result {
        // SAFETY: `ctx` is this call's result context.
        Ok(score) => unsafe { ffi::sqlite3_result_double(ctx, score) },
        Err(rc) => unsafe { ffi::sqlite3_result_error_code(ctx, rc) },
    }
}

/// # Safety
/// `api` and `fts` are the arguments FTS5 passed to the auxiliary function.
unsafe fn score(api: &ffi::Fts5ExtensionApi, fts: *mut ffi::Fts5Context) -> Result<f64, c_int> {
    let (Some(inst_count), Some(inst)) = (api.xInstCount, api.xInst) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: the state belongs to this query and no other reference to it is live.
    let query = unsafe { &mut *query_state(api, fts)? };
    query.freq.fill(0.0);
    let mut count: c_int = 0;
    // SAFETY: `count` outlives the call.
    ok(unsafe { inst_count(fts, &mut count) })?;
    for i in 0..count {
        let (mut phrase, mut column, mut offset): (c_int, c_int, c_int) = (0, 0, 0);
        // SAFETY: `i` is below the instance count; the out-pointers outlive the call.
        ok(unsafe { inst(fts, i, &mut phrase, &mut column, &mut offset) })?;
        if let Some(f) = usize::try_from(phrase)
            .ok()
            .and_then(|p| query.freq.get_mut(p))
        {
            *f += if column == CONTENT { 1.0 } else { TITLE_WEIGHT };
        }
    }
    Ok(query
        .idf
        .iter()
        .zip(&query.freq)
        .map(|(idf, f)| idf * f * (K1 + 1.0) / (f + K1))
        .sum())
}
