//! SIGKILL while 8 clients create entries, several times over: every entry answered with
//! 201 is there after the restart, with its exact content.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use journal_tests::TestServer;

use crate::support::{
    SqliteDb, assert_all_present, assert_integrity_ok, client, join_writers, spawn_writers,
    user_token,
};

const CLIENTS: usize = 8;
const ROUNDS: usize = 4;

/// Runs the rounds on `database_url` and returns how many entries were acknowledged.
async fn kill_9_while_writing(database_url: &str) -> usize {
    let http = client();
    let mut server = TestServer::start(database_url, &[]);
    let token = user_token(&http, &server, "crash").await;
    let mut acked = Vec::new();
    for round in 0..ROUNDS {
        let stop = Arc::new(AtomicBool::new(false));
        let writers = spawn_writers(CLIENTS, round, &server.base_url, &token, &stop);
        // A different moment in each round: 250 ms to 700 ms of writing.
        tokio::time::sleep(Duration::from_millis(250 + 150 * round as u64)).await;
        server.kill();
        stop.store(true, Ordering::Relaxed);
        let written = join_writers(writers).await;
        assert!(
            !written.is_empty(),
            "round {round}: no write was acknowledged before the kill"
        );
        acked.extend(written);

        server = TestServer::start(database_url, &[]);
        assert_all_present(&http, &server, &token, &acked).await;
    }
    server.kill();
    acked.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_keeps_every_acknowledged_entry_through_repeated_kill_9() {
    let db = SqliteDb::new();
    let acked = kill_9_while_writing(&db.url).await;
    eprintln!("sqlite: {acked} acknowledged entries survived {ROUNDS} kills");
    assert_integrity_ok(&db.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn postgres_keeps_every_acknowledged_entry_through_repeated_kill_9() {
    let url = journal_tests::postgres_url();
    let acked = kill_9_while_writing(&url).await;
    eprintln!("postgres: {acked} acknowledged entries survived {ROUNDS} kills");
}
