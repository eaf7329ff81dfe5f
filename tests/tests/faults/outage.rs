//! PostgreSQL goes away and comes back. A TCP proxy inside the test stands between the
//! server and PostgreSQL; stopping it cuts every connection and refuses new ones, as a
//! database restart or a network failure would.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use journal_tests::TestServer;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::support::{assert_error_body, client, user_token};

/// A loopback TCP proxy to `target` that can be stopped and started again on its port.
struct Proxy {
    port: u16,
    target: SocketAddr,
    accept: Option<JoinHandle<()>>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
    /// While set, bytes are held instead of forwarded, and no connection closes: a
    /// network partition, as the server sees it.
    partitioned: Arc<AtomicBool>,
}

impl Proxy {
    async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let mut proxy = Proxy {
            port,
            target,
            accept: None,
            connections: Arc::default(),
            partitioned: Arc::default(),
        };
        proxy.serve(listener);
        proxy
    }

    fn serve(&mut self, listener: TcpListener) {
        let (target, connections) = (self.target, self.connections.clone());
        let partitioned = self.partitioned.clone();
        self.accept = Some(tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let partitioned = partitioned.clone();
                let task = tokio::spawn(async move {
                    if let Ok(outbound) = TcpStream::connect(target).await {
                        let (in_read, in_write) = inbound.into_split();
                        let (out_read, out_write) = outbound.into_split();
                        tokio::join!(
                            forward(in_read, out_write, partitioned.clone()),
                            forward(out_read, in_write, partitioned),
                        );
                    }
                });
                connections.lock().expect("lock").push(task);
            }
        }));
    }

    /// Holds every byte from now on, closing nothing.
    fn partition(&self) {
        self.partitioned.store(true, Ordering::SeqCst);
    }

    /// Delivers the held bytes and forwards again.
    fn heal(&self) {
        self.partitioned.store(false, Ordering::SeqCst);
    }

    /// Closes the listening port and every proxied connection.
    async fn stop(&mut self) {
        if let Some(accept) = self.accept.take() {
            accept.abort();
            let _ = accept.await;
        }
        let tasks: Vec<_> = self.connections.lock().expect("lock").drain(..).collect();
        for task in tasks {
            task.abort();
            let _ = task.await;
        }
    }

    /// Listens on the same port again.
    async fn restart(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", self.port)).await {
                Ok(listener) => break listener,
                Err(e) if Instant::now() < deadline => {
                    eprintln!("rebinding the proxy port {}: {e}", self.port);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot listen on port {} again: {e}", self.port),
            }
        };
        self.serve(listener);
    }
}

/// Copies `from` to `to`, holding the bytes while `partitioned` is set.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    partitioned: Arc<AtomicBool>,
) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while partitioned.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// The `host:port` of a `postgres://user@host:port/db?…` URL, and the URL with another
/// address in its place.
fn split_address(url: &str) -> (String, impl Fn(&str) -> String + '_) {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let start = url[scheme_end..]
        .find('@')
        .map_or(scheme_end, |i| scheme_end + i + 1);
    let end = url[start..]
        .find(['/', '?'])
        .map_or(url.len(), |i| start + i);
    let address = url[start..end].to_owned();
    (address, move |other: &str| {
        format!("{}{other}{}", &url[..start], &url[end..])
    })
}

/// A server on PostgreSQL (a fresh schema) through a proxy the test controls.
async fn proxied_server() -> (Proxy, TestServer) {
    let url = journal_tests::postgres_url();
    let (address, with_address) = split_address(&url);
    let address = if address.contains(':') {
        address
    } else {
        format!("{address}:5432")
    };
    let target = tokio::net::lookup_host(address.as_str())
        .await
        .expect("resolve the PostgreSQL address")
        .next()
        .expect("an address for PostgreSQL");
    let proxy = Proxy::start(target).await;
    let proxied = with_address(&format!("127.0.0.1:{}", proxy.port));
    let server = TestServer::start(&proxied, &[]);
    (proxy, server)
}

async fn status_of(http: &reqwest::Client, server: &TestServer) -> StatusCode {
    http.get(server.url("/api/status"))
        .send()
        .await
        .expect("the server answers /api/status")
        .status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn postgres_going_away_is_503_and_coming_back_needs_no_restart() {
    let (mut proxy, mut server) = proxied_server().await;
    let http = client();
    let token = user_token(&http, &server, "outage").await;
    let created: Value = http
        .post(server.url("/api/journal-entries"))
        .bearer_auth(&token)
        .json(&json!({ "title": "before the outage", "content": "still here after" }))
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("entry");
    let entry_path = format!(
        "/api/journal-entries/{}",
        created["_id"].as_str().expect("_id")
    );

    proxy.stop().await;

    let started = Instant::now();
    assert_error_body(
        http.get(server.url("/api/status"))
            .send()
            .await
            .expect("status"),
        503,
        "Service Unavailable",
    )
    .await;
    assert_error_body(
        http.get(server.url(&entry_path))
            .bearer_auth(&token)
            .send()
            .await
            .expect("read"),
        503,
        "Service Unavailable",
    )
    .await;
    assert_error_body(
        http.post(server.url("/api/journal-entries"))
            .bearer_auth(&token)
            .json(&json!({ "title": "during the outage" }))
            .send()
            .await
            .expect("create"),
        503,
        "Service Unavailable",
    )
    .await;
    assert_error_body(
        http.get(server.url("/api/public/journal-entries"))
            .send()
            .await
            .expect("public list"),
        503,
        "Service Unavailable",
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "answers during the outage took {:?}",
        started.elapsed()
    );
    assert!(
        server.wait_exit(Duration::from_millis(10)).is_none(),
        "the server exited during the outage"
    );

    proxy.restart().await;

    let deadline = Instant::now() + Duration::from_secs(20);
    while status_of(&http, &server).await != StatusCode::OK {
        assert!(
            Instant::now() < deadline,
            "/api/status is not 200 20 s after PostgreSQL came back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let entry: Value = http
        .get(server.url(&entry_path))
        .bearer_auth(&token)
        .send()
        .await
        .expect("read after")
        .json()
        .await
        .expect("entry after");
    assert_eq!(entry["content"], "still here after");
    let response = http
        .post(server.url("/api/journal-entries"))
        .bearer_auth(&token)
        .json(&json!({ "title": "after the outage" }))
        .send()
        .await
        .expect("create after");
    assert_eq!(response.status(), StatusCode::CREATED);
    proxy.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn a_partition_from_postgres_is_503_within_seconds_and_heals_without_a_restart() {
    let (mut proxy, server) = proxied_server().await;
    let http = client();
    let token = user_token(&http, &server, "partition").await;

    proxy.partition();
    for path in [
        "/api/status",
        "/api/public/journal-entries",
        "/api/user/profile/",
    ] {
        let started = Instant::now();
        let response = http
            .get(server.url(path))
            .bearer_auth(&token)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .expect("an answer during the partition");
        assert_error_body(response, 503, "Service Unavailable").await;
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "{path} answered after {:?}",
            started.elapsed()
        );
    }

    proxy.heal();
    let deadline = Instant::now() + Duration::from_secs(20);
    while status_of(&http, &server).await != StatusCode::OK {
        assert!(
            Instant::now() < deadline,
            "not healed 20 s after the partition"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let response = http
        .get(server.url("/api/user/profile/"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("profile after");
    assert_eq!(response.status(), StatusCode::OK);
    proxy.stop().await;
}

#[test]
fn the_address_of_a_postgres_url_is_replaced() {
    let url = "postgres://postgres@127.0.0.1:5432/test?schema=e2e_1";
    let (address, with) = split_address(url);
    assert_eq!(address, "127.0.0.1:5432");
    assert_eq!(
        with("127.0.0.1:6000"),
        "postgres://postgres@127.0.0.1:6000/test?schema=e2e_1"
    );
    let (address, _) = split_address("postgres://localhost/db");
    assert_eq!(address, "localhost");
}
