//! The PostgreSQL schema: versioned migrations, recorded in `journal_migrations` and
//! applied at connect under an advisory lock, so several servers may start at once.

use deadpool_postgres::{Pool, Transaction};

use super::errors::{map_pg, map_pool};
use crate::domain::Email;
use crate::error::StoreResult;

/// Key of the advisory lock that serialises migrations across processes.
const MIGRATION_LOCK: i64 = 0x006a_6f75_726e_616c; // "journal"

/// Schema migrations, applied in order and recorded in `journal_migrations`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_initial.sql"),
    include_str!("migrations/002_list_counts.sql"),
    include_str!("migrations/003_last_token.sql"),
    // E-mail addresses in the form new ones are compared in: see `after_sql`.
    "",
    include_str!("migrations/005_tags_starred_date.sql"),
    include_str!("migrations/006_accounts.sql"),
    include_str!("migrations/007_feed_total.sql"),
    include_str!("migrations/008_search_pending_list.sql"),
    include_str!("migrations/009_search_by_author.sql"),
    include_str!("migrations/010_search_query_ascii.sql"),
    include_str!("migrations/011_security_events.sql"),
    include_str!("migrations/012_search_every_script_and_tags.sql"),
];

/// Work a migration does in Rust after its SQL, by version.
async fn after_sql(version: usize, tx: &Transaction<'_>) -> StoreResult<()> {
    if version != 4 {
        return Ok(());
    }
    // As SQLite's migration 6: every address as Email::normalize writes it; where two
    // accounts' addresses normalise alike, the newer keeps its own and it is logged.
    let users = tx
        .query("SELECT id, email FROM users ORDER BY created_at, id", &[])
        .await
        .map_err(map_pg)?;
    for row in users {
        let (id, email): (uuid::Uuid, String) = (row.get(0), row.get(1));
        let normal = Email::normalize(&email);
        if normal == email {
            continue;
        }
        let changed = tx
            .execute(
                "UPDATE users SET email = $1 WHERE id = $2
                 AND NOT EXISTS (SELECT 1 FROM users WHERE email = $1)",
                &[&normal, &id],
            )
            .await
            .map_err(map_pg)?;
        if changed == 0 {
            tracing::warn!(user = %id, "e-mail address collides with another account's once normalised; left as it was");
        }
    }
    Ok(())
}

/// Brings the database (and `schema`, created if missing) up to the newest schema, in
/// one transaction.
pub(super) async fn migrate(pool: &Pool, schema: Option<&str>) -> StoreResult<()> {
    migrate_up_to(pool, schema, MIGRATIONS.len()).await
}

/// Brings the database at `url` (and the schema it names, created if missing) to schema
/// version `version` exactly, as the build that wrote that version left it (one past it
/// is left as it is), for tests of upgrades from older builds: they write rows in that
/// version's shape, then open the store, which applies the rest.
#[doc(hidden)]
pub async fn migrate_to(url: &str, version: usize) -> StoreResult<()> {
    let (db, schema) = super::pool::Db::new(url, 1)?;
    migrate_up_to(db.pool(), schema.as_deref(), version).await
}

/// Applies the migrations not yet recorded, up to `target`, in one transaction.
async fn migrate_up_to(pool: &Pool, schema: Option<&str>, target: usize) -> StoreResult<()> {
    let mut client = pool.get().await.map_err(map_pool)?;
    let tx = client.transaction().await.map_err(map_pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(map_pg)?;
    // A migration may rewrite every row: no per-statement limit here.
    tx.batch_execute("SET LOCAL statement_timeout = 0")
        .await
        .map_err(map_pg)?;
    if let Some(schema) = schema {
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
            .await
            .map_err(map_pg)?;
    }
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS journal_migrations (
             version    integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await
    .map_err(map_pg)?;
    let done: i32 = tx
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM journal_migrations",
            &[],
        )
        .await
        .map_err(map_pg)?
        .get(0);
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .take(target)
        .skip(done as usize)
    {
        tx.batch_execute(sql).await.map_err(map_pg)?;
        after_sql(i + 1, &tx).await?;
        tx.execute(
            "INSERT INTO journal_migrations (version) VALUES ($1)",
            &[&(i as i32 + 1)],
        )
        .await
        .map_err(map_pg)?;
    }
    tx.commit().await.map_err(map_pg)
}

#[cfg(test)]
mod tests {
    /// Migration 12 splits text for the index by the core's rule: its runs are those of
    /// the core's table of characters.
    #[test]
    fn the_index_functions_use_the_cores_table_of_run_characters() {
        let sql = include_str!("migrations/012_search_every_script_and_tags.sql");
        let class = crate::domain::run_class();
        assert_eq!(sql.matches(&class).count(), 6, "{class}");
        let cap = crate::domain::MAX_RUN_CHARS_INDEXED.to_string();
        assert_eq!(sql.matches(&format!("left(m[1], {cap})")).count(), 2);
        assert_eq!(sql.matches(&format!("off + at < {cap} ")).count(), 1);
        assert_eq!(sql.matches(&format!("off + at <= {cap})")).count(), 1);
    }
}
