//! Clients that stall: half-sent headers, half-sent bodies, idle keep-alive
//! connections. Each holds little memory, and every one is closed within the timeouts.

use std::time::{Duration, Instant};

use journal_tests::TestServer;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::SqliteDb;

/// The server's resident memory, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// What a stalling client sent before it stopped.
fn stalled_request(i: usize, addr: std::net::SocketAddr) -> Vec<u8> {
    match i % 3 {
        // Headers that never end.
        0 => format!("POST /api/user/register HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").into_bytes(),
        // A body of 1 MiB declared, most of it sent, the rest never.
        1 => {
            let mut bytes = format!(
                "POST /api/user/register HTTP/1.1\r\nHost: {addr}\r\n\
                 Content-Type: application/json\r\nContent-Length: 1048000\r\n\r\n\
                 {{\"fullName\":\""
            )
            .into_bytes();
            bytes.extend(std::iter::repeat_n(b'a', 900_000));
            bytes
        }
        // A finished request on a keep-alive connection, then silence.
        _ => {
            format!("GET /api/public/journal-entries HTTP/1.1\r\nHost: {addr}\r\n\r\n").into_bytes()
        }
    }
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_connections_hold_little_memory_and_are_all_closed_in_time() {
    const CONNECTIONS: usize = 256;
    let db = SqliteDb::new();
    let server = TestServer::start(
        &db.url,
        &[
            "--header-timeout",
            "3s",
            "--body-timeout",
            "3s",
            "--idle-timeout",
            "5s",
        ],
    );
    // Warm up: the first requests allocate what every later one reuses.
    let http = crate::support::client();
    for _ in 0..20 {
        let _ = http
            .get(server.url("/api/public/journal-entries"))
            .send()
            .await;
    }
    let before = rss_mib(server.pid());
    let started = Instant::now();
    let mut streams = Vec::new();
    for i in 0..CONNECTIONS {
        let mut stream = TcpStream::connect(server.addr).await.expect("connect");
        stream
            .write_all(&stalled_request(i, server.addr))
            .await
            .expect("send the first part");
        streams.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let during = rss_mib(server.pid());
    assert!(
        during - before < 64.0,
        "{CONNECTIONS} stalled connections took {:.0} MiB (from {before:.0} to {during:.0})",
        during - before
    );
    // Every connection is closed by the server: a read ends (after any answer, such as
    // 408 or the keep-alive request's 200) within the timeouts, with margin.
    let deadline = started + Duration::from_secs(20);
    for (i, mut stream) in streams.into_iter().enumerate() {
        let mut sink = vec![0u8; 64 * 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, stream.read(&mut sink)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(_)) => continue,
                Err(_) => panic!("connection {i} (kind {}) still open after 20 s", i % 3),
            }
        }
    }
    // And the server still serves.
    let response = http
        .get(server.url("/api/public/journal-entries"))
        .send()
        .await
        .expect("served after the stalls");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
}
