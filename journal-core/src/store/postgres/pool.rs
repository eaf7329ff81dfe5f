//! The connection pool: our own URL parameters, connect and pool timeouts, and the
//! one-statement helpers every method uses.

use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, QueueMode, RecyclingMethod, Runtime,
};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::errors::{map_pg, map_pool};
use super::tls::TlsSettings;
use crate::error::{StoreError, StoreResult};

/// Connections in the pool when the caller does not say.
pub const DEFAULT_POOL_SIZE: usize = 16;

/// Longest wait for a new connection to the database.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest a sent request may go unacknowledged by the database's host (Linux's
/// `TCP_USER_TIMEOUT`): a partition fails the connection instead of hanging it.
const UNANSWERED_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest a statement may run on the database.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest a request waits for a free connection in the pool.
const POOL_WAIT_TIMEOUT: Duration = Duration::from_secs(4);
/// The pool's name in the metrics' `pool` label.
const POOL: &str = "postgres";

/// A pool of connections to one database.
#[derive(Clone)]
pub(super) struct Db {
    pool: Pool,
    /// How cancel requests reach the database, as connections do.
    tls: tokio_postgres_rustls::MakeRustlsConnect,
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

impl Db {
    /// A pool of `size` connections to `url`, and the schema the URL names. Connects
    /// lazily: the caller's first query tells whether the database answers.
    pub(super) fn new(url: &str, size: usize) -> StoreResult<(Db, Option<String>)> {
        let (url, extras) = split_params(url)?;
        let schema = extras.schema;
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::internal(format!("invalid PostgreSQL URL: {e}")))?;
        // A database that stops answering (a network partition: no reset, no reply)
        // must fail requests within seconds, not hang them as long as it lasts: a
        // connect timeout for new connections, TCP keepalives for idle ones, and a
        // TCP user timeout for one waiting on a reply. The server also gives each
        // statement a time limit, so none holds a connection for long.
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10))
            .keepalives_interval(Duration::from_secs(2))
            .keepalives_retries(2)
            .tcp_user_timeout(UNANSWERED_TIMEOUT);
        // No JIT: every statement here runs in about a millisecond, and compiling one
        // costs far more. PostgreSQL compiles when a plan's estimated cost is high,
        // and an estimate can be far off (a day filter's ranges are guessed at
        // thousands of rows each, for one or two): the page then took many times longer.
        let mut options = format!(
            "-c statement_timeout={} -c jit=off",
            STATEMENT_TIMEOUT.as_millis()
        );
        if let Some(schema) = &schema {
            options.push_str(&format!(" -c search_path={schema},public"));
        }
        if let Some(given) = config.get_options() {
            options = format!("{given} {options}");
        }
        config.options(options);
        config.ssl_mode(extras.tls.ssl_mode());
        let tls = extras.tls.connector()?;
        let manager = Manager::from_config(
            config,
            tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        // The connection used last is the next one out (last in, first out), not the
        // one idle longest: the few connections that a steady load needs then serve it
        // all, and their backends stay warm, scheduled and in the CPUs' caches, while
        // the rest wait for a burst. Handed out in turn, every request woke a backend
        // that had been idle longest, on cores it shares with the server.
        let pool = Pool::builder(manager)
            .max_size(size.max(1))
            .queue_mode(QueueMode::Lifo)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(StoreError::internal)?;
        Ok((Db { pool, tls }, schema))
    }

    /// The pool itself (for migrations).
    pub(super) fn pool(&self) -> &Pool {
        &self.pool
    }

    /// A connection from the pool; the wait is recorded for the metrics.
    pub(super) async fn client(&self) -> StoreResult<Object> {
        let since = std::time::Instant::now();
        let client = self.pool.get().await.map_err(map_pool);
        crate::metrics::waited(POOL, since.elapsed());
        client
    }

    /// The pool as it is now (for the metrics).
    pub(super) fn state(&self) -> crate::metrics::PoolState {
        let status = self.pool.status();
        crate::metrics::PoolState {
            name: POOL,
            size: status.size,
            idle: status.available,
            waiting: status.waiting,
        }
    }

    /// A connection from the pool whose statement is cancelled on the database if the
    /// request stops waiting for it (see [`Guarded`]).
    pub(super) async fn guarded_client(&self) -> StoreResult<Guarded> {
        Ok(Guarded {
            client: Some(self.client().await?),
            tls: self.tls.clone(),
        })
    }

    /// Runs one cached prepared statement that returns at most one row.
    pub(super) async fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> StoreResult<Option<Row>> {
        let client = self.client().await?;
        let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
        client.query_opt(&stmt, params).await.map_err(map_pg)
    }

    /// Runs one cached prepared statement and returns its rows.
    pub(super) async fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> StoreResult<Vec<Row>> {
        let client = self.client().await?;
        let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
        client.query(&stmt, params).await.map_err(map_pg)
    }

    /// Runs one cached prepared statement; true when it changed exactly one row.
    pub(super) async fn execute_one(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> StoreResult<bool> {
        let client = self.client().await?;
        let stmt = client.prepare_cached(sql).await.map_err(map_pg)?;
        Ok(client.execute(&stmt, params).await.map_err(map_pg)? == 1)
    }
}

/// A connection lent to one request's reads. Dropped before [`Guarded::done`] (the
/// request went past its deadline, its client left, or a statement ran past the
/// request's limit), it asks PostgreSQL to cancel whatever the connection is running,
/// and the connection is closed, never put back: PostgreSQL delivers a cancel as a
/// signal, which can land after the statement it was meant for, on the next one.
pub(super) struct Guarded {
    client: Option<Object>,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
}

impl Guarded {
    /// The request got its answer: the connection goes back as it is.
    pub(super) fn done(mut self) {
        drop(self.client.take());
    }
}

impl std::ops::Deref for Guarded {
    type Target = Object;

    fn deref(&self) -> &Object {
        self.client.as_ref().expect("taken only on done or drop")
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let cancel = client.cancel_token();
        let tls = self.tls.clone();
        runtime.spawn(async move {
            if let Err(e) = cancel.cancel_query(tls).await {
                tracing::debug!(error = %e, "could not cancel an abandoned statement");
            }
            drop(Object::take(client));
        });
    }
}

/// Runs `statement`, stopped with an error once it has run for the request's limit
/// (see [`crate::budget`]); the caller's [`Guarded`] then cancels it on the database.
pub(super) async fn within_limit<T>(
    statement: impl std::future::Future<Output = StoreResult<T>>,
) -> StoreResult<T> {
    match crate::budget::limit() {
        Some(limit) => tokio::time::timeout(limit, statement)
            .await
            .unwrap_or_else(|_| Err(StoreError::unavailable("the query ran past its time limit"))),
        None => statement.await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{QueryBudget, scope};

    /// A statement no other test sends, to find it among the database's sessions.
    const SLEEP: &str = "SELECT pg_sleep(30.4217)";

    async fn still_running(db: &Db) -> bool {
        let client = db.client().await.unwrap();
        let rows = client
            .query(
                "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query = $1",
                &[&SLEEP],
            )
            .await
            .unwrap();
        !rows.is_empty()
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn a_statement_past_its_request_limit_is_cancelled_on_the_database() {
        let url = std::env::var("JOURNAL_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .expect("this PostgreSQL test must run, but JOURNAL_TEST_POSTGRES_URL is not set");
        let (db, _) = Db::new(&url, 4).unwrap();
        let budget = QueryBudget::new(Duration::from_millis(200), Duration::from_secs(60));
        let answer = scope(budget, async {
            let client = db.guarded_client().await?;
            within_limit(async { client.simple_query(SLEEP).await.map_err(map_pg) }).await
        })
        .await;
        assert!(
            matches!(answer, Err(StoreError::Unavailable(_))),
            "{answer:?}"
        );
        let mut waited = Duration::ZERO;
        while still_running(&db).await {
            assert!(waited < Duration::from_secs(2), "the statement still runs");
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += Duration::from_millis(50);
        }
    }
}
