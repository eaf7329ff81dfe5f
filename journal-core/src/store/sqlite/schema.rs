//! The SQLite schema: versioned migrations, recorded in `PRAGMA user_version`.
//!
//! Each migration is a file in `migrations/`, applied in order once. Superseded steps
//! stay: a file written by an older build upgrades through every step in between.
//!
//! Several processes may open one file at once (two servers, a server and the CLI, or
//! three `journal` commands on a new file). Each migration therefore runs in its own
//! `BEGIN IMMEDIATE` transaction, which takes the write lock *before* the version is
//! read, and commits together with its version bump: whoever comes second sees the
//! new version and skips the step.

use rusqlite::{Connection, TransactionBehavior, params};

use crate::domain::Email;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: include_str!("migrations/001_initial.sql"),
        applied: |c| table_exists(c, "users"),
    },
    Migration {
        sql: include_str!("migrations/002_fts_author_column.sql"),
        // 4 replaces what 2 made, so a file past 4 shows no trace of 2.
        applied: |c| Ok(fts_sql(c)?.contains("fts_author") || fts_sql(c)?.contains("contentless")),
    },
    Migration {
        sql: include_str!("migrations/003_list_counts.sql"),
        applied: |c| table_exists(c, "author_counts"),
    },
    Migration {
        sql: include_str!("migrations/004_author_scoped_terms.sql"),
        applied: |c| Ok(fts_sql(c)?.contains("contentless")),
    },
    Migration {
        sql: include_str!("migrations/005_last_token.sql"),
        applied: |c| column_exists(c, "users", "last_token_at"),
    },
    Migration {
        // E-mail addresses in the form new ones are compared in (Email::normalize).
        sql: "",
        applied: |_| Ok(false),
    },
    Migration {
        sql: include_str!("migrations/007_tags_starred_date.sql"),
        applied: |c| table_exists(c, "entry_tags"),
    },
    Migration {
        sql: include_str!("migrations/008_accounts.sql"),
        applied: |c| table_exists(c, "access_tokens"),
    },
    Migration {
        sql: include_str!("migrations/009_fts_merge_policy.sql"),
        applied: |c| {
            any_row(
                c,
                "SELECT 1 FROM entries_fts_config WHERE k = 'automerge' AND v = 16",
            )
        },
    },
    Migration {
        sql: include_str!("migrations/010_fts_crisis_merge.sql"),
        applied: |c| {
            any_row(
                c,
                "SELECT 1 FROM entries_fts_config WHERE k = 'crisismerge' AND v = 64",
            )
        },
    },
    Migration {
        sql: include_str!("migrations/011_author_public_partial.sql"),
        applied: |c| {
            any_row(
                c,
                "SELECT 1 FROM sqlite_schema
                 WHERE name = 'entries_author_public_date' AND sql LIKE '%WHERE is_public = 1'",
            )
        },
    },
    Migration {
        sql: include_str!("migrations/012_search_index_per_batch.sql"),
        // The trigger, not the table: repairing a file whose version lagged (above)
        // can run migration 4 again, which puts back the trigger that indexes at once.
        applied: |c| {
            any_row(
                c,
                "SELECT 1 FROM sqlite_schema
                 WHERE name = 'entries_fts_insert' AND sql LIKE '%fts_pending%'",
            )
        },
    },
    Migration {
        sql: include_str!("migrations/013_security_events.sql"),
        applied: |c| table_exists(c, "security_events"),
    },
    Migration {
        sql: include_str!("migrations/014_search_every_script_and_tags.sql"),
        applied: |c| {
            any_row(
                c,
                "SELECT 1 FROM sqlite_schema
                 WHERE name = 'entries_fts_update' AND sql LIKE '%new.tags%'",
            )
        },
    },
];

/// Work a migration does in Rust after its SQL, by version.
fn after_sql(version: usize, conn: &Connection) -> rusqlite::Result<()> {
    match version {
        6 => normalize_emails(conn),
        _ => Ok(()),
    }
}

/// Stores every address as [`Email::normalize`] writes it, so look-alike addresses
/// compare equal. Where two accounts' addresses normalise alike, the newer keeps its
/// address as it was (it still logs in with it typed as before, see
/// `Email::lookup_keys`) and the collision is logged for the operator to settle.
fn normalize_emails(conn: &Connection) -> rusqlite::Result<()> {
    let users: Vec<(String, String)> = conn
        .prepare("SELECT id, email FROM users ORDER BY created_at, id")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, email) in users {
        let normal = Email::normalize(&email);
        if normal == email {
            continue;
        }
        let changed = conn.execute(
            "UPDATE users SET email = ?1 WHERE id = ?2
             AND NOT EXISTS (SELECT 1 FROM users WHERE email = ?1)",
            params![normal, id],
        )?;
        if changed == 0 {
            tracing::warn!(user = %id, "e-mail address collides with another account's once normalised; left as it was");
        }
    }
    Ok(())
}

/// One step of the schema.
struct Migration {
    sql: &'static str,
    /// Whether the step's work is already in the file. Builds before the lock above
    /// could leave a file whose version lags its tables (two processes migrating at
    /// once: one re-ran an old step after the other had finished); such a step is
    /// recorded as done instead of run again.
    applied: fn(&Connection) -> rusqlite::Result<bool>,
}

/// Whether `query` (a constant `SELECT`) finds any row.
fn any_row(conn: &Connection, query: &str) -> rusqlite::Result<bool> {
    conn.query_row(&format!("SELECT EXISTS ({query})"), [], |r| r.get(0))
}

fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)",
        [name],
        |r| r.get(0),
    )
}

fn column_exists(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2)",
        [table, column],
        |r| r.get(0),
    )
}

/// The `CREATE` statement of the full-text index ('' when there is none).
fn fts_sql(conn: &Connection) -> rusqlite::Result<String> {
    conn.query_row(
        "SELECT coalesce((SELECT sql FROM sqlite_schema WHERE name = 'entries_fts'), '')",
        [],
        |r| r.get(0),
    )
}

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub(super) enum MigrationError {
    /// The file is from a newer build.
    #[error(
        "the database has schema version {found}, newer than this build knows ({known}); \
         use the newer build of journal that wrote it"
    )]
    TooNew { found: usize, known: usize },
    /// The file needs an upgrade, and this process may not write it.
    #[error(
        "the database has schema version {found} and must be upgraded once by a user who \
         may write it (open it once with journal as its owner)"
    )]
    NeedsWrite { found: usize },
    /// A step failed: SQLite's error, and how to recover.
    #[error(
        "could not upgrade the database from schema version {from} to {to}: {cause}; \
         nothing of this step was written. Restore the file from a backup, or keep it \
         aside and report the error"
    )]
    Step {
        from: usize,
        to: usize,
        cause: rusqlite::Error,
    },
    /// Reading the version, or taking the lock, failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

/// Brings the database up to the newest schema. The connection must have the store's
/// SQL functions registered (migrations call `journal_terms`) and a busy timeout, so
/// that a process waits while another migrates.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), MigrationError> {
    migrate_up_to(conn, MIGRATIONS.len())
}

/// Brings a database to schema version `version` exactly, as the build that wrote that
/// version left it (one past it is left as it is), for tests of upgrades from older
/// builds: they write rows in that version's shape, then open the store, which applies
/// the rest. Registers the store's SQL functions on `conn` first.
#[doc(hidden)]
pub fn migrate_to(
    conn: &mut Connection,
    version: usize,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    super::search::register_functions(conn)?;
    Ok(migrate_up_to(conn, version.min(MIGRATIONS.len()))?)
}

/// Applies the migrations up to `target` (at most `MIGRATIONS.len()`), each in its own
/// transaction.
fn migrate_up_to(conn: &mut Connection, target: usize) -> Result<(), MigrationError> {
    // Most opens find the file current: a read, no write lock.
    if version(conn)? == target {
        return Ok(());
    }
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let done = version(&tx)?;
        if done > MIGRATIONS.len() {
            return Err(MigrationError::TooNew {
                found: done,
                known: MIGRATIONS.len(),
            });
        }
        let Some(step) = MIGRATIONS.get(done).filter(|_| done < target) else {
            return Ok(());
        };
        let to = done + 1;
        let fail = |cause| MigrationError::Step {
            from: done,
            to,
            cause,
        };
        if (step.applied)(&tx).map_err(fail)? {
            tracing::warn!(
                version = to,
                "SQLite migration found already applied; recording it"
            );
        } else {
            // Some migrations rebuild an index over every entry (about a minute per
            // million entries): say so, or a server that is upgrading looks hung.
            tracing::info!(version = to, "applying SQLite migration");
            tx.execute_batch(step.sql).map_err(fail)?;
            after_sql(to, &tx).map_err(fail)?;
        }
        tx.pragma_update(None, "user_version", to).map_err(fail)?;
        tx.commit().map_err(fail)?;
        tracing::info!(version = to, "SQLite schema at version {to}");
    }
}

/// Checks that a database this process may only read has the newest schema (it cannot
/// be upgraded without writing).
pub(super) fn check_current(conn: &Connection) -> Result<(), MigrationError> {
    match version(conn)? {
        v if v == MIGRATIONS.len() => Ok(()),
        v if v > MIGRATIONS.len() => Err(MigrationError::TooNew {
            found: v,
            known: MIGRATIONS.len(),
        }),
        v => Err(MigrationError::NeedsWrite { found: v }),
    }
}

fn version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}
