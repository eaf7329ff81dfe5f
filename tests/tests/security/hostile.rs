//! Shared helpers for the attack tests: raw HTTP exchanges and the "refused cleanly"
//! check.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::Response;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::support::{Api, User, keys};

/// Checks that a response is a clean 4xx: a client error (never 5xx) with
/// the JSON error body. Returns the status and the message.
pub async fn assert_refused(response: Response, what: &str) -> (u16, String) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let text = response.text().await.expect("body is readable");
    assert!(
        (400..500).contains(&status),
        "{what}: expected a 4xx, got {status}: {text}"
    );
    assert!(
        content_type.starts_with("application/json"),
        "{what}: content type {content_type}"
    );
    let body: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{what}: error body is not JSON ({e}): {text}"));
    assert_eq!(
        keys(&body),
        ["error", "message", "statusCode"],
        "{what}: {body}"
    );
    assert_eq!(body["statusCode"], status, "{what}: {body}");
    (status, body["message"].as_str().unwrap_or("").to_owned())
}

/// Checks that a response is not a server error; returns the status and body text.
pub async fn assert_no_server_error(response: Response, what: &str) -> (u16, String) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body is readable");
    assert!(status < 500, "{what}: got {status}: {text}");
    (status, text)
}

/// Sends raw bytes on a fresh connection and reads the answer until the server closes
/// or 10 s pass.
pub async fn raw_exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    // The server may answer and close before reading everything; ignore write errors.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status code of a raw HTTP answer (0 when there is none).
pub fn raw_status(answer: &str) -> u16 {
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A raw request with a JSON body given as bytes (which need not be UTF-8 or JSON).
pub fn raw_json_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> Vec<u8> {
    let auth = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         {auth}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// The caller's own entries, all pages, as the author sees them.
pub async fn own_entries(api: &Api, user: &User) -> Vec<Value> {
    let response = api
        .get(
            &format!("/api/user/{}/journal-entries?limit=100", user.id),
            Some(&user.token),
        )
        .await;
    assert_eq!(response.status().as_u16(), 200, "list own entries");
    let list: Value = response.json().await.expect("list is JSON");
    list.as_array().expect("list is an array").clone()
}

/// The caller's profile.
pub async fn profile(api: &Api, user: &User) -> Value {
    let response = api.get("/api/user/profile", Some(&user.token)).await;
    assert_eq!(response.status().as_u16(), 200, "read own profile");
    let body: Value = response.json().await.expect("profile is JSON");
    body["user"].clone()
}

/// True when `email` and `password` log in.
pub async fn can_log_in(api: &Api, email: &str, password: &str) -> bool {
    let response = api
        .post(
            "/api/user/login",
            None,
            serde_json::json!({ "email": email, "password": password }),
        )
        .await;
    response.status().as_u16() == 200
}
