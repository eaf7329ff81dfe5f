//! The PostgreSQL store: many stateless servers on one shared database.
//!
//! Everything a server needs to answer is in the database (users, entries, revoked token
//! ids, password-change times, the JWT secret), so any instance can serve any request.
//! Migrations run at connect under an advisory lock, so servers may start together.
//!
//! The URL is a libpq-style URL (`postgres://user:password@host:port/db?sslmode=disable`)
//! with one addition: `schema=NAME` keeps the journal's tables in their own schema
//! (created if missing), which lets several journals, or test runs, share a database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{IsolationLevel, Row};

use super::postgres_tls::TlsSettings;

use super::{AuthState, EMAIL_CONSTRAINT, Store, StoredEntry, UserRecord, Visibility};
use crate::domain::{EntryId, PageRequest, Role, SearchQuery, Timestamp, UserId};
use crate::error::{StoreError, StoreResult};
use crate::input::{EntryChanges, ProfileChanges};
use crate::model::{Entry, Page, Profile};

/// Connections in the pool when the caller does not say.
pub const DEFAULT_POOL_SIZE: usize = 16;

/// Key of the advisory lock that serialises migrations across processes.
const MIGRATION_LOCK: i64 = 0x006a_6f75_726e_616c; // "journal"

/// Schema migrations, applied in order and recorded in `journal_migrations`.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;

-- Text as the full-text index sees it: accents and case folded, and every run of
-- characters other than letters and digits turned into one space, so that words split
-- exactly as the search query's words do (and as SQLite's unicode61 tokenizer splits).
-- unaccent() is only STABLE (it reads its dictionary by name); naming the dictionary
-- makes it safe to declare IMMUTABLE, which a generated column requires.
CREATE FUNCTION journal_unaccent(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
CREATE FUNCTION journal_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT regexp_replace(lower(journal_unaccent($1)), '[^[:alnum:]]+', ' ', 'g') $$;

CREATE TABLE users (
    id                  uuid PRIMARY KEY,
    email               text NOT NULL CONSTRAINT users_email_key UNIQUE,
    full_name           text NOT NULL,
    nickname            text NOT NULL,
    password_hash       text NOT NULL,
    profile_pic         text NOT NULL DEFAULT '',
    role                text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    is_private          boolean NOT NULL DEFAULT false,
    password_changed_at timestamptz NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);

CREATE TABLE entries (
    id          uuid PRIMARY KEY,
    author_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    author_name text NOT NULL,
    title       text NOT NULL,
    content     text NOT NULL,
    is_public   boolean NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    search      tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', journal_fold(title)), 'A') ||
                    setweight(to_tsvector('simple', journal_fold(content)), 'B')
                ) STORED
);
-- An author's own list, newest first.
CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_created ON entries (author_id, created_at DESC, id DESC) WHERE is_public;
-- The public feed.
CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public;
-- Full-text search.
CREATE INDEX entries_search ON entries USING gin (search);

CREATE TABLE revoked_tokens (
    jti        text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_tokens_expires ON revoked_tokens (expires_at);

CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
"#,
    // List totals kept by triggers, so `X-Total-Count` is a key lookup instead of a
    // `count(*)` over the list. One row per author: concurrent writers on several
    // servers queue only behind writes by the same author. The public feed's total is
    // summed from these rows at read time (one row per user, not per entry) rather than
    // kept in one global row that every public write in the cluster would queue on.
    r#"
-- Writers of an older server would otherwise slip past the backfill below.
LOCK TABLE entries IN SHARE MODE;
CREATE TABLE author_counts (
    author_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    entries   bigint NOT NULL DEFAULT 0,
    public    bigint NOT NULL DEFAULT 0
);
INSERT INTO author_counts (author_id, entries, public)
    SELECT u.id, count(e.id), count(e.id) FILTER (WHERE e.is_public)
    FROM users u LEFT JOIN entries e ON e.author_id = u.id GROUP BY u.id;

CREATE FUNCTION journal_count_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO author_counts (author_id) VALUES (NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER users_counts AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION journal_count_user();

CREATE FUNCTION journal_count_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE author_counts
            SET entries = entries + 1, public = public + NEW.is_public::int
            WHERE author_id = NEW.author_id;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE author_counts
            SET entries = entries - 1, public = public - OLD.is_public::int
            WHERE author_id = OLD.author_id;
    ELSE
        UPDATE author_counts
            SET public = public + NEW.is_public::int - OLD.is_public::int
            WHERE author_id = NEW.author_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_counts AFTER INSERT OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION journal_count_entry();
CREATE TRIGGER entries_counts_public AFTER UPDATE OF is_public ON entries
    FOR EACH ROW WHEN (OLD.is_public IS DISTINCT FROM NEW.is_public)
    EXECUTE FUNCTION journal_count_entry();
"#,
];

const ENTRY_COLUMNS: &str =
    "e.id, e.title, e.content, e.is_public, e.author_id, e.author_name, e.created_at, e.updated_at";
const ENTRY_COLUMNS_BARE: &str =
    "id, title, content, is_public, author_id, author_name, created_at, updated_at";
const USER_COLUMNS: &str = "id, full_name, nickname, email, profile_pic, role, is_private, \
                            password_hash, password_changed_at, created_at";

/// A journal stored in PostgreSQL.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    /// The public feed's first pages, each with the snapshot it was read in.
    feed: Arc<Mutex<FeedPages>>,
}

/// Feed pages by page number and size, each with the snapshot it was read in.
type FeedPages = HashMap<(u32, u32), (String, Page<Entry>)>;

/// Feed pages kept in memory: only the first ones are hot.
const FEED_CACHED_PAGES: u32 = 10;

/// The database's current snapshot: which transactions' writes are visible. Two equal
/// snapshots see exactly the same data, whichever server asks: every write, by any
/// server, runs in a transaction with an id that shows in the snapshot while it runs
/// and leaves it changed when it ends. Read-only transactions get no id and change
/// nothing.
const SNAPSHOT: &str = "SELECT pg_current_snapshot()::text";

fn ts(t: Timestamp) -> DateTime<Utc> {
    t.to_datetime()
}

fn from_ts(t: DateTime<Utc>) -> Timestamp {
    Timestamp::from_millis(t.timestamp_millis())
}

fn map_pg(e: tokio_postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        if *db.code() == SqlState::UNIQUE_VIOLATION && db.constraint() == Some(EMAIL_CONSTRAINT) {
            return StoreError::Conflict {
                constraint: EMAIL_CONSTRAINT,
            };
        }
        let code = db.code().code();
        // Connection exceptions, shutdown, resource exhaustion, read-only standby.
        if code.starts_with("08")
            || code.starts_with("53")
            || code.starts_with("57P")
            || *db.code() == SqlState::READ_ONLY_SQL_TRANSACTION
        {
            return StoreError::unavailable(e);
        }
        return StoreError::internal(e);
    }
    // No database error: the connection itself failed or closed.
    StoreError::unavailable(e)
}

fn map_pool(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => map_pg(e),
        PoolError::Timeout(_) | PoolError::Closed => StoreError::unavailable(e),
        other => StoreError::internal(other.to_string()),
    }
}

fn entry_from_row(row: &Row) -> Entry {
    Entry {
        id: EntryId::from_uuid(row.get(0)),
        title: row.get(1),
        content: row.get(2),
        is_public: row.get(3),
        author_id: UserId::from_uuid(row.get(4)),
        author_name: row.get(5),
        created_at: from_ts(row.get(6)),
        updated_at: from_ts(row.get(7)),
    }
}

fn role_of(text: &str) -> StoreResult<Role> {
    text.parse()
        .map_err(|_| StoreError::internal(format!("unknown role {text:?} in users")))
}

fn profile_from_row(row: &Row) -> StoreResult<Profile> {
    Ok(Profile {
        id: UserId::from_uuid(row.get(0)),
        full_name: row.get(1),
        nickname: row.get(2),
        email: row.get(3),
        profile_pic: row.get(4),
        role: role_of(row.get(5))?,
        is_private: row.get(6),
    })
}

fn user_from_row(row: &Row) -> StoreResult<UserRecord> {
    Ok(UserRecord {
        profile: profile_from_row(row)?,
        password_hash: row.get(7),
        password_changed_at: from_ts(row.get(8)),
        created_at: from_ts(row.get(9)),
    })
}

/// Turns the query's words into a `to_tsquery` expression: each word a quoted prefix
/// lexeme, all required. The words hold only letters and digits; quoting them anyway
/// means nothing in them can ever be read as query syntax.
fn tsquery_expression(query: &SearchQuery) -> String {
    query
        .terms()
        .iter()
        .map(|t| format!("'{}':*", t.replace('\'', "''").replace('\\', "\\\\")))
        .collect::<Vec<_>>()
        .join(" & ")
}

/// Our own URL parameters, taken off before tokio-postgres parses the rest.
struct UrlExtras {
    schema: Option<String>,
    tls: TlsSettings,
}

/// Splits `schema=NAME`, `sslmode` and `sslrootcert` off a URL.
fn split_params(url: &str) -> StoreResult<(String, UrlExtras)> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut params: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let tls = TlsSettings::take_from(&mut params)?;
    let mut schema = None;
    params.retain(|pair| match pair.strip_prefix("schema=") {
        Some(name) => {
            schema = Some(name.to_owned());
            false
        }
        None => true,
    });
    if let Some(name) = &schema {
        let valid = !name.is_empty()
            && name.len() <= 63
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(StoreError::internal(format!(
                "schema name {name:?} must be 1 to 63 of a-z, 0-9 and _, not starting with a digit"
            )));
        }
    }
    let url = if params.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", params.join("&"))
    };
    Ok((url, UrlExtras { schema, tls }))
}

impl PostgresStore {
    /// Connects with the default pool size and applies migrations.
    pub async fn connect(url: &str) -> StoreResult<PostgresStore> {
        Self::connect_with(url, DEFAULT_POOL_SIZE).await
    }

    /// Connects with a pool of `pool_size` connections and applies migrations. A
    /// database that cannot be reached, or refuses the credentials, is an error here,
    /// not at the first request.
    pub async fn connect_with(url: &str, pool_size: usize) -> StoreResult<PostgresStore> {
        let (url, extras) = split_params(url)?;
        let schema = extras.schema;
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::internal(format!("invalid PostgreSQL URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        if let Some(schema) = &schema {
            config.options(format!("-c search_path={schema},public"));
        }
        config.ssl_mode(extras.tls.ssl_mode());
        let manager = Manager::from_config(
            config,
            extras.tls.connector()?,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(5)))
            .recycle_timeout(Some(Duration::from_secs(5)))
            .build()
            .map_err(StoreError::internal)?;
        let store = PostgresStore {
            pool,
            feed: Arc::default(),
        };
        store.migrate(schema.as_deref()).await?;
        Ok(store)
    }

    async fn migrate(&self, schema: Option<&str>) -> StoreResult<()> {
        let mut client = self.pool.get().await.map_err(map_pool)?;
        let tx = client.transaction().await.map_err(map_pg)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
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
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(done as usize) {
            tx.batch_execute(sql).await.map_err(map_pg)?;
            tx.execute(
                "INSERT INTO journal_migrations (version) VALUES ($1)",
                &[&(i as i32 + 1)],
            )
            .await
            .map_err(map_pg)?;
        }
        tx.commit().await.map_err(map_pg)
    }

    /// True when this store's connections to the server are encrypted.
    pub async fn tls_in_use(&self) -> StoreResult<bool> {
        let client = self.client().await?;
        let row = client
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await
            .map_err(map_pg)?;
        Ok(row.get(0))
    }

    async fn client(&self) -> StoreResult<deadpool_postgres::Object> {
        self.pool.get().await.map_err(map_pool)
    }

    /// Runs one cached prepared statement that returns at most one row.
    async fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> StoreResult<Option<Row>> {
        let client = self.client().await?;
        let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
        client.query_opt(&stmt, params).await.map_err(map_pg)
    }

    /// Runs one cached prepared statement; true when it changed exactly one row.
    async fn execute_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> StoreResult<bool> {
        let client = self.client().await?;
        let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
        Ok(client.execute(&stmt, params).await.map_err(map_pg)? == 1)
    }

    /// One page and the total, read from one snapshot so the two agree.
    async fn paged(
        &self,
        page: PageRequest,
        count: (&str, &[&(dyn ToSql + Sync)]),
        page_query: (&str, &[&(dyn ToSql + Sync)]),
    ) -> StoreResult<Page<Entry>> {
        Ok(self.read_page(page, count, page_query, false).await?.0)
    }

    /// [`Self::paged`], also returning the snapshot (see [`SNAPSHOT`]) it was read in.
    async fn paged_in_snapshot(
        &self,
        page: PageRequest,
        count: (&str, &[&(dyn ToSql + Sync)]),
        page_query: (&str, &[&(dyn ToSql + Sync)]),
    ) -> StoreResult<(Page<Entry>, String)> {
        let (page, snapshot) = self.read_page(page, count, page_query, true).await?;
        Ok((page, snapshot.unwrap_or_default()))
    }

    /// One page and its total in one read-only transaction; with `name_snapshot`, also
    /// the transaction's snapshot (one more statement, so only when it is wanted).
    async fn read_page(
        &self,
        page: PageRequest,
        (count_sql, count_args): (&str, &[&(dyn ToSql + Sync)]),
        (page_sql, args): (&str, &[&(dyn ToSql + Sync)]),
        name_snapshot: bool,
    ) -> StoreResult<(Page<Entry>, Option<String>)> {
        let mut client = self.client().await?;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(map_pg)?;
        // The first statement fixes the transaction's snapshot; this one names it.
        let snapshot = if name_snapshot {
            let stmt = tx.prepare_cached(SNAPSHOT).await.map_err(map_pg)?;
            Some(tx.query_one(&stmt, &[]).await.map_err(map_pg)?.get(0))
        } else {
            None
        };
        let count = tx.prepare_cached(count_sql).await.map_err(map_pg)?;
        let total: i64 = tx
            .query_one(&count, count_args)
            .await
            .map_err(map_pg)?
            .get(0);
        let limit = i64::from(page.limit());
        let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
        let mut all: Vec<&(dyn ToSql + Sync)> = args.to_vec();
        all.push(&limit);
        all.push(&offset);
        let stmt = tx.prepare_cached(page_sql).await.map_err(map_pg)?;
        let rows = tx.query(&stmt, &all).await.map_err(map_pg)?;
        tx.commit().await.map_err(map_pg)?;
        let page = Page {
            items: rows.iter().map(entry_from_row).collect(),
            total: u64::try_from(total).unwrap_or(0),
            page: page.page(),
            limit: page.limit(),
        };
        Ok((page, snapshot))
    }

    async fn insert_entries_tx(&self, entries: &[Entry]) -> StoreResult<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        let stmt = tx
            .prepare_cached(
                "INSERT INTO entries (id, author_id, author_name, title, content, is_public, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .await
            .map_err(map_pg)?;
        // By author: each insert locks its author's counter row until the commit, so
        // two batches that took the rows in different orders could deadlock.
        let mut by_author: Vec<&Entry> = entries.iter().collect();
        by_author.sort_by_key(|e| *e.author_id.as_uuid());
        for e in by_author {
            tx.execute(
                &stmt,
                &[
                    e.id.as_uuid(),
                    e.author_id.as_uuid(),
                    &e.author_name,
                    &e.title,
                    &e.content,
                    &e.is_public,
                    &ts(e.created_at),
                    &ts(e.updated_at),
                ],
            )
            .await
            .map_err(map_pg)?;
        }
        tx.commit().await.map_err(map_pg)
    }
}

#[async_trait]
impl Store for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn ping(&self) -> StoreResult<()> {
        let client = self.client().await?;
        client.simple_query("SELECT 1").await.map_err(map_pg)?;
        Ok(())
    }

    async fn jwt_secret(&self, candidate: &[u8]) -> StoreResult<Vec<u8>> {
        let encoded = base64::engine::general_purpose::STANDARD.encode(candidate);
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING",
                &[&encoded],
            )
            .await
            .map_err(map_pg)?;
        let stored: String = client
            .query_one("SELECT value FROM settings WHERE key = 'jwt_secret'", &[])
            .await
            .map_err(map_pg)?
            .get(0);
        base64::engine::general_purpose::STANDARD
            .decode(stored)
            .map_err(StoreError::internal)
    }

    async fn insert_user(&self, u: &UserRecord) -> StoreResult<()> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(
                "INSERT INTO users (id, email, full_name, nickname, password_hash, profile_pic, role,
                                    is_private, password_changed_at, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
            )
            .await
            .map_err(map_pg)?;
        client
            .execute(
                &stmt,
                &[
                    u.profile.id.as_uuid(),
                    &u.profile.email,
                    &u.profile.full_name,
                    &u.profile.nickname,
                    &u.password_hash,
                    &u.profile.profile_pic,
                    &u.profile.role.as_str(),
                    &u.profile.is_private,
                    &ts(u.password_changed_at),
                    &ts(u.created_at),
                ],
            )
            .await
            .map_err(map_pg)?;
        Ok(())
    }

    async fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRecord>> {
        let row = self
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE email = $1"),
                &[&email],
            )
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn user_by_id(&self, id: &UserId) -> StoreResult<Option<UserRecord>> {
        let row = self
            .query_opt(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1"),
                &[id.as_uuid()],
            )
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    async fn auth_state(&self, id: &UserId, token_id: &str) -> StoreResult<Option<AuthState>> {
        let Some(row) = self
            .query_opt(
                "SELECT role, password_changed_at,
                        EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $2)
                 FROM users WHERE id = $1",
                &[id.as_uuid(), &token_id],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(AuthState {
            role: role_of(row.get(0))?,
            password_changed_at: from_ts(row.get(1)),
            revoked: row.get(2),
        }))
    }

    async fn update_user(
        &self,
        id: &UserId,
        changes: &ProfileChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Profile>> {
        let row = self
            .query_opt(
                &format!(
                    "UPDATE users SET
                    full_name   = COALESCE($1, full_name),
                    nickname    = COALESCE($2, nickname),
                    email       = COALESCE($3, email),
                    profile_pic = COALESCE($4, profile_pic),
                    is_private  = COALESCE($5, is_private),
                    updated_at  = $6
                 WHERE id = $7
                 RETURNING {USER_COLUMNS}"
                ),
                &[
                    &changes.full_name.as_ref().map(|v| v.as_ref()),
                    &changes.nickname.as_ref().map(|v| v.as_ref()),
                    &changes.email.as_ref().map(|v| v.as_ref()),
                    &changes.profile_pic.as_ref().map(|v| v.as_ref()),
                    &changes.is_private,
                    &ts(now),
                    id.as_uuid(),
                ],
            )
            .await?;
        row.as_ref().map(profile_from_row).transpose()
    }

    async fn set_password(
        &self,
        id: &UserId,
        hash: &str,
        changed_at: Timestamp,
    ) -> StoreResult<bool> {
        self.execute_one(
            "UPDATE users SET password_hash = $1, password_changed_at = $2, updated_at = $2 WHERE id = $3",
            &[&hash, &ts(changed_at), id.as_uuid()],
        )
        .await
    }

    async fn set_role(&self, email: &str, role: Role) -> StoreResult<bool> {
        self.execute_one(
            "UPDATE users SET role = $1 WHERE email = $2",
            &[&role.as_str(), &email],
        )
        .await
    }

    async fn delete_user(&self, id: &UserId) -> StoreResult<bool> {
        self.execute_one("DELETE FROM users WHERE id = $1", &[id.as_uuid()])
            .await
    }

    async fn revoke_token(&self, token_id: &str, expires_at: Timestamp) -> StoreResult<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(map_pg)?;
        tx.execute("DELETE FROM revoked_tokens WHERE expires_at < now()", &[])
            .await
            .map_err(map_pg)?;
        tx.execute(
            "INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
            &[&token_id, &ts(expires_at)],
        )
        .await
        .map_err(map_pg)?;
        tx.commit().await.map_err(map_pg)
    }

    async fn insert_entry(&self, entry: &Entry) -> StoreResult<()> {
        self.insert_entries_tx(std::slice::from_ref(entry)).await
    }

    async fn insert_entries(&self, entries: &[Entry]) -> StoreResult<()> {
        self.insert_entries_tx(entries).await
    }

    async fn entry(&self, id: &EntryId) -> StoreResult<Option<StoredEntry>> {
        let row = self
            .query_opt(
                &format!(
                    "SELECT {ENTRY_COLUMNS}, u.is_private
                     FROM entries e JOIN users u ON u.id = e.author_id
                     WHERE e.id = $1"
                ),
                &[id.as_uuid()],
            )
            .await?;
        Ok(row.map(|r| StoredEntry {
            entry: entry_from_row(&r),
            author_private: r.get(8),
        }))
    }

    async fn update_entry(
        &self,
        id: &EntryId,
        changes: &EntryChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Entry>> {
        let row = self
            .query_opt(
                &format!(
                    "UPDATE entries SET
                    title      = COALESCE($1, title),
                    content    = COALESCE($2, content),
                    is_public  = COALESCE($3, is_public),
                    updated_at = $4
                 WHERE id = $5
                 RETURNING {ENTRY_COLUMNS_BARE}"
                ),
                &[
                    &changes.title.as_ref().map(|v| v.as_ref()),
                    &changes.content.as_ref().map(|v| v.as_ref()),
                    &changes.is_public,
                    &ts(now),
                    id.as_uuid(),
                ],
            )
            .await?;
        Ok(row.as_ref().map(entry_from_row))
    }

    async fn delete_entry(&self, id: &EntryId) -> StoreResult<bool> {
        self.execute_one("DELETE FROM entries WHERE id = $1", &[id.as_uuid()])
            .await
    }

    async fn entries_by_author(
        &self,
        author: &UserId,
        visibility: Visibility,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let filter = match visibility {
            Visibility::All => "e.author_id = $1",
            Visibility::PublicOnly => "e.author_id = $1 AND e.is_public",
        };
        let count = match visibility {
            Visibility::All => {
                "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = $1), 0)"
            }
            Visibility::PublicOnly => {
                "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = $1), 0)"
            }
        };
        match page.after() {
            None => {
                self.paged(
                    page,
                    (count, &[author.as_uuid()]),
                    (
                        &format!(
                            "SELECT {ENTRY_COLUMNS} FROM entries e WHERE {filter}
                             ORDER BY e.created_at DESC, e.id DESC LIMIT $2 OFFSET $3"
                        ),
                        &[author.as_uuid()],
                    ),
                )
                .await
            }
            Some(cursor) => {
                let at = ts(cursor.created_at());
                self.paged(
                    page,
                    (count, &[author.as_uuid()]),
                    (
                        &format!(
                            "SELECT {ENTRY_COLUMNS} FROM entries e
                             WHERE {filter} AND (e.created_at, e.id) < ($2, $3)
                             ORDER BY e.created_at DESC, e.id DESC LIMIT $4 OFFSET $5"
                        ),
                        &[author.as_uuid(), &at, cursor.id().as_uuid()],
                    ),
                )
                .await
            }
        }
    }

    async fn public_entries(&self, page: PageRequest) -> StoreResult<Page<Entry>> {
        let count = "SELECT coalesce(sum(a.public), 0)::bigint
                     FROM author_counts a JOIN users u ON u.id = a.author_id
                     WHERE NOT u.is_private";
        match page.after() {
            None => {
                // The first pages are read by everyone: kept in memory, and served while
                // the database's snapshot is the one they were read in, which costs one
                // trivial query instead of the page and its total. Exact with any
                // number of servers: no write anywhere can have happened in between.
                let key = (page.page(), page.limit());
                let cacheable = page.page() <= FEED_CACHED_PAGES;
                if cacheable {
                    let now: String = self
                        .query_opt(SNAPSHOT, &[])
                        .await?
                        .map(|row| row.get(0))
                        .unwrap_or_default();
                    let feed = self.feed.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some((_, hit)) = feed.get(&key).filter(|(at, _)| *at == now) {
                        return Ok(hit.clone());
                    }
                }
                let (result, snapshot) = self
                    .paged_in_snapshot(
                        page,
                        (count, &[]),
                        (
                            &format!(
                                "SELECT {ENTRY_COLUMNS} FROM entries e JOIN users u ON u.id = e.author_id
                                 WHERE e.is_public AND NOT u.is_private
                                 ORDER BY e.created_at DESC, e.id DESC LIMIT $1 OFFSET $2"
                            ),
                            &[],
                        ),
                    )
                    .await?;
                if cacheable {
                    let mut feed = self.feed.lock().unwrap_or_else(|p| p.into_inner());
                    // Page sizes are up to clients: bound what they can make us keep.
                    if feed.len() >= 4 * FEED_CACHED_PAGES as usize {
                        feed.clear();
                    }
                    feed.insert(key, (snapshot, result.clone()));
                }
                Ok(result)
            }
            Some(cursor) => {
                let at = ts(cursor.created_at());
                self.paged(
                    page,
                    (count, &[]),
                    (
                        &format!(
                            "SELECT {ENTRY_COLUMNS} FROM entries e JOIN users u ON u.id = e.author_id
                             WHERE e.is_public AND NOT u.is_private
                               AND (e.created_at, e.id) < ($1, $2)
                             ORDER BY e.created_at DESC, e.id DESC LIMIT $3 OFFSET $4"
                        ),
                        &[&at, cursor.id().as_uuid()],
                    ),
                )
                .await
            }
        }
    }

    async fn users_after(
        &self,
        after: Option<&UserId>,
        limit: u32,
    ) -> StoreResult<Vec<UserRecord>> {
        let client = self.client().await?;
        let after = after
            .map(|id| *id.as_uuid())
            .unwrap_or_else(uuid::Uuid::nil);
        let rows = client
            .query(
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after, &i64::from(limit)],
            )
            .await
            .map_err(map_pg)?;
        rows.iter().map(user_from_row).collect()
    }

    async fn entries_after(&self, after: Option<&EntryId>, limit: u32) -> StoreResult<Vec<Entry>> {
        let client = self.client().await?;
        let after = after
            .map(|id| *id.as_uuid())
            .unwrap_or_else(uuid::Uuid::nil);
        let rows = client
            .query(
                &format!(
                    "SELECT {ENTRY_COLUMNS} FROM entries e WHERE e.id > $1 ORDER BY e.id LIMIT $2"
                ),
                &[&after, &i64::from(limit)],
            )
            .await
            .map_err(map_pg)?;
        Ok(rows.iter().map(entry_from_row).collect())
    }

    async fn revoked_tokens(&self) -> StoreResult<Vec<(String, Timestamp)>> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT jti, expires_at FROM revoked_tokens WHERE expires_at >= now()",
                &[],
            )
            .await
            .map_err(map_pg)?;
        Ok(rows.iter().map(|r| (r.get(0), from_ts(r.get(1)))).collect())
    }

    async fn search(
        &self,
        author: &UserId,
        query: &SearchQuery,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let expression = tsquery_expression(query);
        let args: &[&(dyn ToSql + Sync)] = &[&expression, author.as_uuid()];
        self.paged(
            page,
            (
                "SELECT COUNT(*) FROM entries e
                 WHERE e.author_id = $2 AND e.search @@ to_tsquery('simple', journal_unaccent($1))",
                args,
            ),
            (
                &format!(
                    "SELECT {ENTRY_COLUMNS} FROM entries e, to_tsquery('simple', journal_unaccent($1)) q
                     WHERE e.author_id = $2 AND e.search @@ q
                     ORDER BY ts_rank(e.search, q) DESC, e.created_at DESC, e.id DESC
                     LIMIT $3 OFFSET $4"
                ),
                args,
            ),
        )
        .await
    }
}
