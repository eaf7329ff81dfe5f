//! Forged, stale and malformed tokens. The server runs with a known `--jwt-secret`, so
//! these tests can sign tokens exactly as the server would and change one thing at a
//! time: every variant is 401 with the error body, never 500.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::hostile::raw_exchange;
use crate::support::{Api, User, assert_error, on_every_database};

const SECRET: &str = "attack-tests-secret-0123456789abcdef-0123456789";

on_every_database!(
    a_token_re_signed_with_the_real_secret_works,
    tokens_with_another_algorithm_or_key_are_401,
    tokens_outside_their_time_are_401,
    tokens_without_a_usable_subject_or_id_are_401,
    a_token_of_a_deleted_user_is_401,
    a_revoked_token_stays_revoked_even_re_signed,
    a_token_from_before_a_password_change_is_401_even_re_dated,
    tokens_with_trailing_garbage_are_401,
    huge_authorization_headers_are_refused_without_a_server_error,
);

fn start(db: &str) -> Api {
    Api::start_with(db, &["--jwt-secret", SECRET])
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The claims of a token the server issued.
fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT has a payload");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url payload"))
        .expect("JSON claims")
}

fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// A token with exactly this header and these claims, signed by HMAC-SHA256 with `key`
/// whatever the header says.
fn hmac_token(header: &Value, claims: &Value, key: &[u8]) -> String {
    let message = format!("{}.{}", b64(header), b64(claims));
    let signature = jsonwebtoken::crypto::sign(
        message.as_bytes(),
        &EncodingKey::from_secret(key),
        Algorithm::HS256,
    )
    .expect("HMAC signing works");
    format!("{message}.{signature}")
}

/// `claims` signed as the server signs (HS256 with the real secret).
fn signed(claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .expect("encode")
}

async fn assert_401(api: &Api, token: &str, what: &str) {
    let response = api.get("/api/user/profile", Some(token)).await;
    assert_eq!(response.status().as_u16(), 401, "{what}");
    assert_error(response, 401, "Unauthorized").await;
}

async fn assert_works(api: &Api, token: &str, what: &str) {
    let response = api.get("/api/user/profile", Some(token)).await;
    assert_eq!(response.status().as_u16(), 200, "{what}");
}

/// A fresh UUIDv7-shaped id for now, as the server makes its `jti`s.
fn uuid_v7_now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{:08x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        ms >> 16,
        ms & 0xffff,
        nanos & 0xfff,
        (nanos >> 12) & 0xfff,
        u64::from(nanos) * 7919
    )
}

async fn a_token_re_signed_with_the_real_secret_works(db: &str) {
    // The control: without this, every 401 below could be for the wrong reason.
    let api = start(db);
    let user = api.user("control").await;
    let claims = claims_of(&user.token);
    assert_works(&api, &signed(&claims), "the same claims, re-signed").await;
    let mut fresh = claims.clone();
    fresh["jti"] = json!(uuid_v7_now());
    assert_works(&api, &signed(&fresh), "a fresh jti").await;
}

async fn tokens_with_another_algorithm_or_key_are_401(db: &str) {
    let api = start(db);
    let user = api.user("alg").await;
    let claims = claims_of(&user.token);

    // alg: none, with and without the final dot, in several spellings.
    for alg in ["none", "None", "NONE", "nOnE"] {
        let header = json!({ "alg": alg, "typ": "JWT" });
        let unsigned = format!("{}.{}.", b64(&header), b64(&claims));
        assert_401(&api, &unsigned, &format!("alg {alg}")).await;
        assert_401(
            &api,
            unsigned.trim_end_matches('.'),
            &format!("alg {alg}, two parts"),
        )
        .await;
    }
    // HS256 with another key.
    let other = hmac_token(
        &json!({ "alg": "HS256", "typ": "JWT" }),
        &claims,
        b"another-secret-that-is-long-enough-0123456789",
    );
    assert_401(&api, &other, "HS256 with another key").await;
    // RS256/HS256 confusion: the header says RS256, the signature is an HMAC keyed with
    // public-key bytes (and, for good measure, with the real secret).
    let public_key = b"-----BEGIN PUBLIC KEY-----\n\
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n\
        -----END PUBLIC KEY-----\n";
    for alg in ["RS256", "ES256", "PS256", "EdDSA", "HS384", "HS512"] {
        let header = json!({ "alg": alg, "typ": "JWT" });
        let confused = hmac_token(&header, &claims, public_key);
        assert_401(
            &api,
            &confused,
            &format!("{alg} header, HMAC with a public key"),
        )
        .await;
        let real_key = hmac_token(&header, &claims, SECRET.as_bytes());
        assert_401(
            &api,
            &real_key,
            &format!("{alg} header, HMAC with the secret"),
        )
        .await;
    }
    // Header tricks: an embedded key, a key id pointing elsewhere, a critical extension.
    for header in [
        json!({ "alg": "HS256", "jwk": { "kty": "oct", "k": "AAAA" } }),
        json!({ "alg": "HS256", "kid": "../../../../dev/null" }),
        json!({ "alg": "HS256", "jku": "https://evil.example.com/keys" }),
    ] {
        let token = hmac_token(&header, &claims, b"");
        assert_401(&api, &token, &format!("{header}")).await;
    }
}

async fn tokens_outside_their_time_are_401(db: &str) {
    let api = start(db);
    let user = api.user("time").await;
    let claims = claims_of(&user.token);
    let t = now();
    let cases = [
        ("expired an hour ago", json!({ "exp": t - 3600 })),
        ("expired a minute ago", json!({ "exp": t - 60 })),
        ("exp 0", json!({ "exp": 0 })),
        ("exp negative", json!({ "exp": -1 })),
        ("not valid for an hour (nbf)", json!({ "nbf": t + 3600 })),
        ("issued an hour from now (iat)", json!({ "iat": t + 3600 })),
        (
            "issued in the far future",
            json!({ "iat": i64::MAX / 2, "exp": i64::MAX / 2 }),
        ),
        ("exp as a string", json!({ "exp": "never" })),
        ("exp as a float", json!({ "exp": 1e300 })),
        ("iat as a string", json!({ "iat": "now" })),
    ];
    for (what, change) in cases {
        let mut forged = claims.clone();
        for (key, value) in change.as_object().unwrap() {
            forged[key] = value.clone();
        }
        assert_401(&api, &signed(&forged), what).await;
    }
    let mut no_exp = claims.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    assert_401(&api, &signed(&no_exp), "no exp").await;
}

async fn tokens_without_a_usable_subject_or_id_are_401(db: &str) {
    let api = start(db);
    let user = api.user("sub").await;
    let claims = claims_of(&user.token);
    for key in ["sub", "jti"] {
        let mut forged = claims.clone();
        forged.as_object_mut().unwrap().remove(key);
        assert_401(&api, &signed(&forged), &format!("no {key}")).await;
    }
    for (key, value) in [
        ("sub", json!("")),
        ("sub", json!(null)),
        ("sub", json!(42)),
        ("sub", json!([user.id.clone()])),
        ("sub", json!("admin")),
        ("sub", json!("' OR 1=1 --")),
        ("sub", json!("00000000-0000-0000-0000-000000000000")),
        ("sub", json!(format!("{}\u{0}", user.id))),
        ("jti", json!("")),
        ("jti", json!("not-a-uuid")),
        // A random (version 4) id carries no time.
        ("jti", json!("2f1c0c1e-7d2b-4f5e-9a8b-0c1d2e3f4a5b")),
        ("jti", json!({ "$ne": null })),
    ] {
        let mut forged = claims.clone();
        forged[key] = value.clone();
        assert_401(&api, &signed(&forged), &format!("{key} = {value}")).await;
    }
    // Claims that are not an object at all.
    for body in [json!([]), json!("x"), json!(null), json!(1)] {
        let token = hmac_token(&json!({ "alg": "HS256" }), &body, SECRET.as_bytes());
        assert_401(&api, &token, &format!("claims {body}")).await;
    }
}

async fn a_token_of_a_deleted_user_is_401(db: &str) {
    let api = start(db);
    let user = api.user("gone").await;
    let claims = claims_of(&user.token);
    let deleted = api.delete("/api/user/profile", Some(&user.token)).await;
    assert_eq!(deleted.status().as_u16(), 200);
    assert_401(&api, &user.token, "the deleted user's own token").await;
    let mut forged = claims.clone();
    forged["jti"] = json!(uuid_v7_now());
    forged["iat"] = json!(now());
    assert_401(&api, &signed(&forged), "a fresh token for the deleted user").await;
}

async fn a_revoked_token_stays_revoked_even_re_signed(db: &str) {
    let api = start(db);
    let user = api.user("revoked").await;
    let claims = claims_of(&user.token);
    let logout = api
        .post("/api/user/logout", Some(&user.token), json!({}))
        .await;
    assert_eq!(logout.status().as_u16(), 200);
    assert_401(&api, &user.token, "the logged-out token").await;
    // The same jti with a later expiry and a new signature is still the revoked token.
    let mut forged = claims.clone();
    forged["exp"] = json!(now() + 365 * 24 * 3600);
    forged["iat"] = json!(now());
    assert_401(&api, &signed(&forged), "the revoked jti, re-signed").await;
    // Logging out again with it is 401 too (not 500).
    let again = api
        .post("/api/user/logout", Some(&user.token), json!({}))
        .await;
    assert_error(again, 401, "Unauthorized").await;
}

async fn a_token_from_before_a_password_change_is_401_even_re_dated(db: &str) {
    let api = start(db);
    let user = api.user("changed").await;
    let old = user.token.clone();
    let claims = claims_of(&old);
    let change = api
        .put(
            "/api/user/profile/password",
            Some(&old),
            json!({ "password": user.password, "newPassword": "another long passphrase" }),
        )
        .await;
    assert_eq!(change.status().as_u16(), 200);
    assert_401(&api, &old, "a token from before the change").await;
    // The jti dates the token; a later iat in a re-signed copy does not help.
    let mut forged = claims.clone();
    forged["iat"] = json!(now() + 2);
    assert_401(&api, &signed(&forged), "re-dated iat").await;
    let fresh = api.login(&user.email, "another long passphrase").await;
    assert_works(&api, &fresh, "a token from after the change").await;
}

async fn tokens_with_trailing_garbage_are_401(db: &str) {
    let api = start(db);
    let user: User = api.user("garbage").await;
    let token = &user.token;
    for forged in [
        format!("{token}x"),
        format!("{token}="),
        format!("{token}."),
        format!("{token}.x"),
        format!("{token}.{token}"),
        format!("{token}%00"),
        format!("{token} {token}"),
        format!("x{token}"),
        token.replacen('.', "..", 1),
        token.replace('.', ""),
        token[..token.len() - 1].to_owned(),
        "...".to_owned(),
        ".".to_owned(),
    ] {
        let response = api
            .http
            .get(api.url("/api/user/profile"))
            .header("authorization", format!("Bearer {forged}"))
            .send()
            .await
            .unwrap();
        assert_error(response, 401, "Unauthorized").await;
    }
    // Another scheme, no scheme, the token twice with a comma.
    for value in [
        format!("Basic {token}"),
        token.clone(),
        format!("Bearer {token}, Bearer {token}"),
        format!("Bearer\t{token}x"),
    ] {
        let response = api
            .http
            .get(api.url("/api/user/profile"))
            .header("authorization", value)
            .send()
            .await
            .unwrap();
        assert_error(response, 401, "Unauthorized").await;
    }
    // Non-UTF-8 bytes in the header.
    let request = format!(
        "GET /api/user/profile HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer ",
        api.server.addr
    );
    let mut raw = request.into_bytes();
    raw.extend_from_slice(&[0xff, 0xfe, 0x80]);
    raw.extend_from_slice(token.as_bytes());
    raw.extend_from_slice(b"\r\nConnection: close\r\n\r\n");
    let answer = raw_exchange(api.server.addr, &raw).await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.contains("\"Unauthorized\""), "{answer}");
    // The real token still works after all that.
    assert_works(&api, token, "the untouched token").await;
}

async fn huge_authorization_headers_are_refused_without_a_server_error(db: &str) {
    let api = start(db);
    let user = api.user("huge").await;
    // Large, but within what the HTTP layer reads (64 KiB of headers): the application
    // refuses the token without parsing it.
    for size in [5_000, 32 * 1024] {
        let token = format!("{}.{}", user.token, "A".repeat(size));
        let response = api
            .http
            .get(api.url("/api/user/profile"))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await
            .unwrap();
        assert_error(response, 401, "Unauthorized").await;
    }
    // Over the HTTP layer's header buffer (64 KiB, a bound on each connection's memory):
    // hyper refuses it with 431 before any route sees it (a 4xx, no hash, no database,
    // no 500), and the server keeps answering.
    for size in [64 * 1024, 256 * 1024] {
        let token = format!("{}.{}", user.token, "A".repeat(size));
        let response = api
            .http
            .get(api.url("/api/user/profile"))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await;
        if let Ok(response) = response {
            assert_eq!(response.status().as_u16(), 431, "{size} bytes");
        }
    }
    let head = format!(
        "GET /api/user/profile HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\r\n",
        api.server.addr,
        "A".repeat(1_000_000)
    );
    let answer = raw_exchange(api.server.addr, head.as_bytes()).await;
    let status = crate::hostile::raw_status(&answer);
    assert!(
        status == 401 || status == 431 || (answer.is_empty()),
        "1 MB header: {}",
        &answer[..answer.len().min(300)]
    );
    assert_works(&api, &user.token, "the real token after the attack").await;
}
