//! The baselines every figure is compared with, measured in the same run:
//!
//! - `json`: a bare warp 0.4 endpoint answering a 36-byte JSON object;
//! - `sqlite`: a minimal warp endpoint reading 10 rows from a 100,000-row SQLite table
//!   through `spawn_blocking` on a pool of 4 rusqlite connections;
//! - `inserts`: the raw SQLite insert rate, one row per transaction, with
//!   `synchronous=FULL` (or NORMAL), no HTTP.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use journal_bench::TextGen;
use rand::SeedableRng;
use rusqlite::{Connection, params};
use serde::Serialize;
use warp::Filter;

#[derive(Parser, Debug)]
struct Args {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand, Debug)]
enum Mode {
    /// A bare warp endpoint answering a 36-byte JSON object at /.
    Json {
        #[arg(long, default_value = "127.0.0.1:0")]
        bind: SocketAddr,
    },
    /// warp + 4 rusqlite connections: 10 rows, newest first, of one author, as JSON.
    Sqlite {
        #[arg(long, default_value = "127.0.0.1:0")]
        bind: SocketAddr,
        /// The table's file; created with 100,000 rows if missing.
        #[arg(long)]
        db: PathBuf,
    },
    /// Inserts one row per transaction for some seconds and prints the rate as JSON.
    Inserts {
        /// A scratch file (replaced).
        #[arg(long)]
        db: PathBuf,
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// FULL or NORMAL.
        #[arg(long, default_value = "FULL")]
        synchronous: String,
    },
}

const ROWS: usize = 100_000;
const AUTHORS: i64 = 1_000;

#[derive(Serialize)]
struct Row {
    #[serde(rename = "_id")]
    id: i64,
    title: String,
    content: String,
    #[serde(rename = "createdAt")]
    created_at: i64,
}

fn create_table(path: &Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut conn = Connection::open(&tmp)?;
    conn.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE items (id INTEGER PRIMARY KEY, author INTEGER NOT NULL,
             title TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL);
         CREATE INDEX items_author ON items (author, created_at DESC);",
    )?;
    let text = TextGen::new();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let tx = conn.transaction()?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO items (author, title, content, created_at) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for i in 0..ROWS {
            stmt.execute(params![
                i as i64 % AUTHORS,
                text.title(&mut rng),
                text.content(&mut rng),
                i as i64
            ])?;
        }
    }
    tx.commit()?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    drop(conn);
    std::fs::rename(&tmp, path)?;
    Ok(())
}

struct Pool {
    conns: Vec<Mutex<Connection>>,
    next: AtomicUsize,
}

fn ten_rows(pool: &Pool) -> Result<Vec<Row>, rusqlite::Error> {
    let i = pool.next.fetch_add(1, Ordering::Relaxed) % pool.conns.len();
    let conn = pool.conns[i].lock().unwrap_or_else(|p| p.into_inner());
    let mut stmt = conn.prepare_cached(
        "SELECT id, title, content, created_at FROM items
         WHERE author = ?1 ORDER BY created_at DESC LIMIT 10",
    )?;
    stmt.query_map([7i64], |r| {
        Ok(Row {
            id: r.get(0)?,
            title: r.get(1)?,
            content: r.get(2)?,
            created_at: r.get(3)?,
        })
    })?
    .collect()
}

async fn serve<F>(bind: SocketAddr, routes: F) -> Result<()>
where
    F: Filter + Clone + Send + Sync + 'static,
    F::Extract: warp::Reply,
{
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("failed to bind {bind}"))?;
    println!("listening on http://{}", listener.local_addr()?);
    warp::serve(routes).incoming(listener).run().await;
    Ok(())
}

fn inserts(db: &Path, seconds: f64, synchronous: &str) -> Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let conn = Connection::open(db)?;
    conn.execute_batch("PRAGMA journal_mode=WAL")?;
    conn.pragma_update(None, "synchronous", synchronous)?;
    conn.execute_batch(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, author INTEGER NOT NULL,
             title TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL)",
    )?;
    let text = TextGen::new();
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let mut stmt = conn.prepare(
        "INSERT INTO items (author, title, content, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let began = Instant::now();
    let mut n = 0u64;
    while began.elapsed() < Duration::from_secs_f64(seconds) {
        // Autocommit: one transaction, one commit (and one fsync with FULL) per row.
        stmt.execute(params![
            7,
            text.title(&mut rng),
            text.content(&mut rng),
            n as i64
        ])?;
        n += 1;
    }
    let secs = began.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({ "synchronous": synchronous, "inserts": n, "seconds": secs, "per_sec": n as f64 / secs })
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    match Args::parse().mode {
        Mode::Json { bind } => {
            let routes = warp::path::end().map(|| {
                // Exactly 36 bytes, the size of the issue's reference endpoint.
                warp::reply::with_header(
                    r#"{"status":"ok","version":"0.1.0-00"}"#,
                    "content-type",
                    "application/json",
                )
            });
            serve(bind, routes).await
        }
        Mode::Sqlite { bind, db } => {
            create_table(&db)?;
            let conns = (0..4)
                .map(|_| {
                    let c = Connection::open_with_flags(
                        &db,
                        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                    )?;
                    Ok(Mutex::new(c))
                })
                .collect::<Result<Vec<_>>>()?;
            let pool = Arc::new(Pool {
                conns,
                next: AtomicUsize::new(0),
            });
            let routes = warp::path::end()
                .and(warp::any().map(move || pool.clone()))
                .and_then(|pool: Arc<Pool>| async move {
                    match tokio::task::spawn_blocking(move || ten_rows(&pool)).await {
                        Ok(Ok(rows)) => Ok(warp::reply::json(&rows)),
                        _ => Err(warp::reject::not_found()),
                    }
                });
            serve(bind, routes).await
        }
        Mode::Inserts {
            db,
            seconds,
            synchronous,
        } => inserts(&db, seconds, &synchronous),
    }
}
