//! SIGTERM under load: the request in flight finishes, the server exits cleanly, and every
//! acknowledged write is there after the restart.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use journal_tests::TestServer;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::support::{
    SqliteDb, assert_all_present, assert_integrity_ok, client, join_writers, signal, spawn_writers,
    user_token,
};

async fn sigterm_under_load(database_url: &str) {
    let http = client();
    let mut server = TestServer::start(database_url, &[]);
    let token = user_token(&http, &server, "shutdown").await;

    let stop = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(8, 0, &server.base_url, &token, &stop);
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A request surely in flight at the signal: its body is only half sent.
    let body =
        r#"{"title":"in flight at SIGTERM","content":"sent in two halves","isPublic":false}"#;
    let (first, second) = body.split_at(body.len() / 2);
    let mut slow = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /api/journal-entries HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    slow.write_all(head.as_bytes()).await.expect("send head");
    slow.write_all(first.as_bytes()).await.expect("send half");
    tokio::time::sleep(Duration::from_millis(100)).await;

    signal(server.pid(), "TERM");
    tokio::time::sleep(Duration::from_millis(300)).await;
    slow.write_all(second.as_bytes())
        .await
        .expect("send the rest");
    let mut answer = String::new();
    slow.read_to_string(&mut answer)
        .await
        .expect("read the answer");
    assert!(
        answer.starts_with("HTTP/1.1 201"),
        "the request in flight at SIGTERM did not finish: {answer}"
    );
    let id = answer
        .split("\"_id\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the answer carries the entry's _id")
        .to_owned();

    stop.store(true, Ordering::Relaxed);
    let mut acked = join_writers(writers).await;
    let status = server
        .wait_exit(Duration::from_secs(35))
        .expect("the server exits after SIGTERM");
    assert!(status.success(), "exit status after SIGTERM: {status}");

    acked.push(crate::support::Acked {
        id,
        title: "in flight at SIGTERM".into(),
        content: "sent in two halves".into(),
        is_public: false,
    });
    let server = TestServer::start(database_url, &[]);
    assert_all_present(&http, &server, &token, &acked).await;
    eprintln!("{} acknowledged entries after SIGTERM", acked.len());
    server.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_sigterm_finishes_requests_in_flight_and_loses_nothing() {
    let db = SqliteDb::new();
    sigterm_under_load(&db.url).await;
    assert_integrity_ok(&db.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn postgres_sigterm_finishes_requests_in_flight_and_loses_nothing() {
    let url = journal_tests::postgres_url();
    sigterm_under_load(&url).await;
}
