//! The HTTP layer: unknown paths, wrong methods, bodies, limits, CORS, status, OpenAPI.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::{Api, SqliteDb, assert_error, body, header, keys, unique_email};

fn api() -> (SqliteDb, Api) {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    (db, api)
}

#[tokio::test]
async fn an_unknown_path_is_404_with_the_error_body() {
    let (_db, api) = api();
    // Paths outside /api are the web app's (tests/api/web_app.rs).
    for path in ["/api", "/api/nothing", "/api/user/profile/password/extra"] {
        assert_error(api.get(path, None).await, 404, "Not Found").await;
    }
}

#[tokio::test]
async fn a_wrong_method_on_a_known_path_is_405_with_allow() {
    let (_db, api) = api();
    for (method, path, allow) in [
        (Method::GET, "/api/user/register", "POST"),
        (Method::GET, "/api/user/login", "POST"),
        (Method::GET, "/api/user/logout", "POST"),
        (Method::POST, "/api/user/profile/", "GET, PUT, DELETE"),
        (Method::PATCH, "/api/user/profile", "GET, PUT, DELETE"),
        (Method::GET, "/api/user/profile/password", "PUT"),
        (Method::GET, "/api/journal-entries", "POST"),
        (
            Method::POST,
            "/api/journal-entries/some-id",
            "GET, PUT, DELETE",
        ),
        (Method::DELETE, "/api/user/some-id/journal-entries", "GET"),
        (Method::POST, "/api/public/journal-entries", "GET"),
        (Method::PUT, "/api/search/journal-entries", "GET"),
        (Method::POST, "/api/status", "GET"),
        (Method::DELETE, "/api/openapi.json", "GET"),
    ] {
        let response = api.send(method.clone(), path, None, None).await;
        assert_eq!(header(&response, "allow"), allow, "{method} {path}");
        assert_error(response, 405, "Method Not Allowed").await;
    }
}

#[tokio::test]
async fn malformed_json_is_400() {
    let (_db, api) = api();
    let response = api
        .http
        .post(api.url("/api/user/register"))
        .header("content-type", "application/json")
        .body("{\"email\": ")
        .send()
        .await
        .unwrap();
    let message = assert_error(response, 400, "Bad Request").await;
    assert!(message.contains("JSON"), "{message}");
}

#[tokio::test]
async fn a_body_not_declared_as_json_is_415() {
    let (_db, api) = api();
    let body = json!({ "email": "a@example.com", "password": "whatever it is" }).to_string();
    let without = api
        .http
        .post(api.url("/api/user/login"))
        .body(body.clone())
        .send()
        .await
        .unwrap();
    let message = assert_error(without, 415, "Unsupported Media Type").await;
    assert!(message.contains("application/json"), "{message}");
    let text = api
        .http
        .post(api.url("/api/user/login"))
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_error(text, 415, "Unsupported Media Type").await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--max-body", "1KiB"]);
    let big = json!({ "email": unique_email("big"), "password": "x".repeat(2000),
                      "fullName": "Big", "nickname": "big" });
    let response = api.post("/api/user/register", None, big).await;
    let message = assert_error(response, 413, "Payload Too Large").await;
    assert!(message.contains("1024"), "{message}");

    // Sent in chunks without Content-Length, the limit still holds.
    let head = format!(
        "POST /api/user/register HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        api.server.addr
    );
    let chunk = format!("100\r\n{}\r\n", "x".repeat(256));
    let mut request = head.into_bytes();
    for _ in 0..8 {
        request.extend_from_slice(chunk.as_bytes());
    }
    request.extend_from_slice(b"0\r\n\r\n");
    let answer = raw_exchange(api.server.addr, &request).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"Payload Too Large\""), "{answer}");
}

/// Sends raw bytes and reads the whole answer (the request asks to close).
async fn raw_exchange(addr: std::net::SocketAddr, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The server may answer and close before reading everything; ignore write errors.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stream.read_to_end(&mut answer),
    )
    .await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn status_answers_ok_with_the_version() {
    let (_db, api) = api();
    let response = api.get("/api/status", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = body(response).await;
    assert_eq!(keys(&body), ["database", "status", "version"]);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
    assert!(body["version"].as_str().is_some_and(|v| !v.is_empty()));
}

#[tokio::test]
async fn openapi_lists_every_route_with_its_methods_and_the_error_schema() {
    let (_db, api) = api();
    let response = api.get("/api/openapi.json", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let doc = body(response).await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for (path, methods) in [
        ("/api/user/register", &["post"][..]),
        ("/api/user/login", &["post"]),
        ("/api/user/logout", &["post"]),
        ("/api/user/profile", &["get", "put", "delete"]),
        ("/api/user/profile/password", &["put"]),
        ("/api/journal-entries", &["post"]),
        ("/api/journal-entries/import", &["post"]),
        ("/api/journal-entries/{id}", &["get", "put", "delete"]),
        ("/api/user/{id}/journal-entries", &["get"]),
        ("/api/public/journal-entries", &["get"]),
        ("/api/search/journal-entries", &["get"]),
        ("/api/status", &["get"]),
        ("/api/openapi.json", &["get"]),
    ] {
        let item = &doc["paths"][path];
        assert!(item.is_object(), "{path} is missing");
        for method in methods {
            assert!(item[method].is_object(), "{method} {path} is missing");
        }
    }
    let error = &doc["components"]["schemas"]["Error"];
    assert_eq!(error["required"], json!(["statusCode", "error", "message"]));
    for schema in ["Entry", "Profile"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema}");
    }
    assert!(doc["components"]["headers"]["X-Total-Count"].is_object());
    assert!(doc["components"]["headers"]["Link"].is_object());
}

#[tokio::test]
async fn login_and_register_are_rate_limited_per_address_with_retry_after() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--auth-rate-limit", "2"]);
    let attempt = json!({ "email": unique_email("nobody"), "password": "not the passphrase" });
    for _ in 0..2 {
        let response = api.post("/api/user/login", None, attempt.clone()).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let limited = api.post("/api/user/login", None, attempt.clone()).await;
    let retry_after: u64 = header(&limited, "retry-after")
        .parse()
        .expect("Retry-After is a number of seconds");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert_error(limited, 429, "Too Many Requests").await;
    // Register counts against the same address.
    let register = api
        .post(
            "/api/user/register",
            None,
            json!({ "fullName": "A", "nickname": "a", "email": unique_email("a"),
                    "password": "a long passphrase" }),
        )
        .await;
    assert_error(register, 429, "Too Many Requests").await;
    // Other routes are not limited.
    for _ in 0..3 {
        let response = api.get("/api/public/journal-entries", None).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn cors_is_off_by_default() {
    let (_db, api) = api();
    let response = api
        .http
        .get(api.url("/api/public/journal-entries"))
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "access-control-allow-origin"), "");
}

#[tokio::test]
async fn cors_allows_the_configured_origin_and_its_preflight() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--cors-origin", "https://app.example.com"]);
    let response = api
        .http
        .get(api.url("/api/public/journal-entries"))
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        header(&response, "access-control-allow-origin"),
        "https://app.example.com"
    );
    assert!(header(&response, "access-control-expose-headers").contains("x-total-count"));

    let preflight = api
        .http
        .request(Method::OPTIONS, api.url("/api/journal-entries"))
        .header("origin", "https://app.example.com")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), StatusCode::OK);
    assert!(header(&preflight, "access-control-allow-methods").contains("POST"));

    let other = api
        .http
        .get(api.url("/api/public/journal-entries"))
        .header("origin", "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_error(other, 403, "Forbidden").await;
}
