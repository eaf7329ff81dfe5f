//! Limits: body size (declared and streamed), picture size, page size, and methods a
//! path does not serve.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::hostile::{assert_refused, profile, raw_exchange, raw_status};
use crate::support::{Api, assert_error, on_every_database};

on_every_database!(
    a_body_over_max_body_is_413_by_its_declared_length,
    a_streamed_body_over_max_body_is_413_before_it_is_all_sent,
    a_profile_picture_over_512_kib_is_400_and_not_stored,
    a_page_over_100_entries_is_400,
    a_method_a_path_does_not_serve_is_405_with_allow,
);

async fn a_body_over_max_body_is_413_by_its_declared_length(db: &str) {
    let api = Api::start_with(db, &["--max-body", "64KiB"]);
    let user = api.user("big").await;
    let big = json!({ "title": "big", "content": "x".repeat(70_000) });
    let response = api
        .post("/api/journal-entries", Some(&user.token), big)
        .await;
    let message = assert_error(response, 413, "Payload Too Large").await;
    assert!(message.contains("65536"), "{message}");
    // A Content-Length far beyond memory, with no body behind it: answered at once.
    let request = format!(
        "POST /api/journal-entries HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 1099511627776\r\nConnection: close\r\n\r\n",
        api.server.addr, user.token
    );
    let answer = raw_exchange(api.server.addr, request.as_bytes()).await;
    assert_eq!(raw_status(&answer), 413, "{answer}");
    assert!(answer.contains("\"Payload Too Large\""), "{answer}");
    // Before authentication too: a body to login is limited the same way.
    let request = format!(
        "POST /api/user/login HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 1099511627776\r\nConnection: close\r\n\r\n",
        api.server.addr
    );
    let answer = raw_exchange(api.server.addr, request.as_bytes()).await;
    assert_eq!(raw_status(&answer), 413, "{answer}");
}

async fn a_streamed_body_over_max_body_is_413_before_it_is_all_sent(db: &str) {
    let api = Api::start_with(db, &["--max-body", "64KiB"]);
    let user = api.user("streamer").await;
    let stream = tokio::net::TcpStream::connect(api.server.addr)
        .await
        .unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST /api/journal-entries HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        api.server.addr, user.token
    );
    // Up to 256 MiB in 64 KiB chunks, never finished: the server must answer without
    // reading it all.
    const TOTAL: usize = 256 * 1024 * 1024;
    let sender = tokio::spawn(async move {
        let mut sent = 0usize;
        if writer.write_all(head.as_bytes()).await.is_err() {
            return sent;
        }
        if writer.write_all(b"b\r\n{\"title\": \"\r\n").await.is_err() {
            return sent;
        }
        let chunk = format!("10000\r\n{}\r\n", "x".repeat(0x10000));
        while sent < TOTAL {
            if writer.write_all(chunk.as_bytes()).await.is_err() {
                break;
            }
            sent += 0x10000;
        }
        sent
    });
    let mut answer = vec![0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(20), reader.read(&mut answer))
        .await
        .expect("the server answers while the body is still streaming")
        .expect("read the answer");
    let answer = String::from_utf8_lossy(&answer[..read]).into_owned();
    assert_eq!(raw_status(&answer), 413, "{answer}");
    assert!(answer.contains("Payload Too Large"), "{answer}");
    drop(reader);
    let sent = tokio::time::timeout(Duration::from_secs(20), sender)
        .await
        .expect("the server stops reading: the sender gives up")
        .expect("sender task");
    assert!(sent < TOTAL, "the server read the whole {sent} bytes");
    // And nothing was created.
    let list = api
        .get(
            &format!("/api/user/{}/journal-entries", user.id),
            Some(&user.token),
        )
        .await;
    assert_eq!(list.headers()["x-total-count"], "0");
}

/// A PNG data URI of `bytes` decoded bytes.
fn png_of(bytes: usize) -> String {
    let mut data = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    data.resize(bytes, 0);
    format!("data:image/png;base64,{}", STANDARD.encode(&data))
}

async fn a_profile_picture_over_512_kib_is_400_and_not_stored(db: &str) {
    let api = Api::start(db);
    let user = api.user("pictured").await;
    let at_limit = png_of(512 * 1024);
    let response = api
        .put(
            "/api/user/profile",
            Some(&user.token),
            json!({ "profilePic": at_limit }),
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(profile(&api, &user).await["profilePic"], at_limit.as_str());

    for over in [png_of(512 * 1024 + 1), png_of(700 * 1024)] {
        let response = api
            .put(
                "/api/user/profile",
                Some(&user.token),
                json!({ "profilePic": over }),
            )
            .await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(message.starts_with("profilePic"), "{message}");
    }
    // Not an image type, or not a data URI: 400 too.
    for bad in [
        format!(
            "data:image/svg+xml;base64,{}",
            STANDARD.encode(b"<svg onload=alert(1)>")
        ),
        format!(
            "data:text/html;base64,{}",
            STANDARD.encode(b"<script>alert(1)</script>")
        ),
        "javascript:alert(1)".to_owned(),
        "https://evil.example.com/pixel.png".to_owned(),
    ] {
        let response = api
            .put(
                "/api/user/profile",
                Some(&user.token),
                json!({ "profilePic": bad }),
            )
            .await;
        assert_refused(response, &bad).await;
    }
    assert_eq!(profile(&api, &user).await["profilePic"], at_limit.as_str());
}

async fn a_page_over_100_entries_is_400(db: &str) {
    let api = Api::start(db);
    let user = api.user("pager").await;
    for list in [
        format!("/api/user/{}/journal-entries", user.id),
        "/api/public/journal-entries".to_owned(),
        "/api/search/journal-entries?q=x".to_owned(),
    ] {
        let sep = if list.contains('?') { '&' } else { '?' };
        let ok = api
            .get(&format!("{list}{sep}limit=100"), Some(&user.token))
            .await;
        assert_eq!(ok.status().as_u16(), 200, "{list}");
        for limit in ["101", "1000", "4294967296"] {
            let response = api
                .get(&format!("{list}{sep}limit={limit}"), Some(&user.token))
                .await;
            let message = assert_error(response, 400, "Bad Request").await;
            assert!(message.contains("limit"), "{message}");
        }
    }
}

async fn a_method_a_path_does_not_serve_is_405_with_allow(db: &str) {
    let api = Api::start(db);
    let user = api.user("methods").await;
    let paths = [
        ("/api/user/register", "POST"),
        ("/api/user/login", "POST"),
        ("/api/user/profile", "GET, PUT, DELETE"),
        ("/api/user/profile/password", "PUT"),
        ("/api/journal-entries", "POST"),
        ("/api/journal-entries/some-id", "GET, PUT, DELETE"),
        ("/api/public/journal-entries", "GET"),
        ("/api/search/journal-entries", "GET"),
        ("/api/status", "GET"),
    ];
    for (path, allow) in paths {
        for method in [
            "TRACE", "OPTIONS", "PATCH", "BREW", "PROPFIND", "HEAD-ISH", "CONNECT",
        ] {
            let request = format!(
                "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
                 Content-Length: 0\r\nConnection: close\r\n\r\n",
                api.server.addr, user.token
            );
            let answer = raw_exchange(api.server.addr, request.as_bytes()).await;
            let status = raw_status(&answer);
            assert_eq!(status, 405, "{method} {path}: {answer}");
            let allow_line = format!("allow: {allow}\r\n");
            assert!(
                answer
                    .to_ascii_lowercase()
                    .contains(&allow_line.to_ascii_lowercase()),
                "{method} {path}: {answer}"
            );
            assert!(
                answer.contains("\"Method Not Allowed\""),
                "{method} {path}: {answer}"
            );
            // TRACE must not echo the request (and its token) back.
            assert!(
                !answer.contains(&user.token),
                "{method} {path} echoed the token"
            );
        }
    }
    // An undeclared method on an unknown path is 404, as for any method.
    let request = format!(
        "TRACE /api/nothing HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        api.server.addr
    );
    let answer = raw_exchange(api.server.addr, request.as_bytes()).await;
    assert_eq!(raw_status(&answer), 404, "{answer}");
}
