//! Accounts and tokens: forged, expired and malformed tokens, one account per e-mail
//! address under concurrent registrations, and logins that fail alike.

use crate::common::{Backend, journal, on_every_backend, user};
use crate::{SECRET, futures_join, validation};
use base64::Engine as _;
use journal_core::{Error, Journal, JournalOptions, JwtSecret, TokenRejection};

fn forge(claims: serde_json::Value, secret: &[u8]) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(secret),
    )
    .unwrap()
}

#[tokio::test]
async fn tokens_are_refused_when_forged_expired_or_malformed() {
    let store = journal_core::store::open("sqlite::memory:").await.unwrap();
    let j = Journal::with_store(
        store,
        JournalOptions {
            jwt_secret: Some(JwtSecret::new(SECRET).unwrap()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (me, token) = user(&j, "me@example.com", "me").await;
    let sub = me.user_id().to_string();
    let now = chrono::Utc::now().timestamp();
    let jti = uuid::Uuid::now_v7().to_string();
    let b64 = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let payload = serde_json::json!({"sub": sub, "iat": now, "exp": now + 3600, "jti": jti});

    let cases: Vec<(&str, String, TokenRejection)> = vec![
        (
            "valid shape, our key",
            forge(payload.clone(), SECRET),
            TokenRejection::Invalid,
        ),
        (
            "another key",
            forge(payload.clone(), b"another secret that is long enough!!"),
            TokenRejection::Invalid,
        ),
        (
            "alg none",
            format!(
                "{}.{}.",
                b64(serde_json::json!({"alg": "none", "typ": "JWT"})),
                b64(payload.clone())
            ),
            TokenRejection::Invalid,
        ),
        (
            "expired",
            forge(
                serde_json::json!({"sub": sub, "iat": now - 7200, "exp": now - 3600, "jti": jti}),
                SECRET,
            ),
            TokenRejection::Expired,
        ),
        (
            "issued in the future",
            forge(
                serde_json::json!({"sub": sub, "iat": now + 3600, "exp": now + 7200, "jti": jti}),
                SECRET,
            ),
            TokenRejection::NotYetValid,
        ),
        (
            "not before in the future",
            forge(
                serde_json::json!({"sub": sub, "iat": now, "nbf": now + 3600, "exp": now + 7200, "jti": jti}),
                SECRET,
            ),
            TokenRejection::NotYetValid,
        ),
        (
            "missing sub",
            forge(
                serde_json::json!({"iat": now, "exp": now + 60, "jti": jti}),
                SECRET,
            ),
            TokenRejection::Invalid,
        ),
        (
            "unknown user",
            forge(
                serde_json::json!({"sub": uuid::Uuid::now_v7().to_string(), "iat": now, "exp": now + 60, "jti": jti}),
                SECRET,
            ),
            TokenRejection::UnknownUser,
        ),
        (
            "trailing garbage",
            format!("{token}garbage"),
            TokenRejection::Invalid,
        ),
        ("huge", "a".repeat(1 << 20), TokenRejection::Invalid),
        ("empty", String::new(), TokenRejection::Invalid),
    ];
    for (name, token, expected) in cases {
        let result = j.authenticate(&token).await;
        // A correctly signed token with a fresh jti is fine; the first case checks that
        // our own forging helper is sound, so that the other refusals mean something.
        if name == "valid shape, our key" {
            assert!(result.is_ok(), "{name}: {result:?}");
            continue;
        }
        match result {
            Err(Error::Unauthenticated(why)) => assert_eq!(why, expected, "{name}"),
            other => panic!("{name}: expected {expected:?}, got {other:?}"),
        }
    }
    assert!(j.authenticate(&token).await.is_ok());
}

async fn concurrent_registrations_of_one_email_yield_exactly_one_account(b: Backend) {
    let j = journal(b.store.clone()).await;
    let attempts = (0..8).map(|i| {
        let j = j.clone();
        tokio::spawn(async move {
            j.register(&crate::common::register_request(
                if i % 2 == 0 {
                    "race@example.com"
                } else {
                    "RACE@example.com"
                },
                &format!("racer{i}"),
            ))
            .await
        })
    });
    let results = futures_join(attempts).await;
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let conflicts = results
        .iter()
        .filter(|r| matches!(r, Err(Error::Conflict(_))))
        .count();
    assert_eq!((ok, conflicts), (1, 7), "{}: {results:?}", b.name);
}
on_every_backend!(concurrent_registrations_of_one_email_yield_exactly_one_account);

#[tokio::test]
async fn login_takes_the_same_path_for_unknown_email_and_wrong_password() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    user(&j, "me@example.com", "me").await;
    let attempt = |email: &str, password: &str| journal_core::api::LoginRequest {
        email: Some(email.into()),
        password: Some(password.into()),
        ..Default::default()
    };
    let unknown = j
        .login(&attempt("ghost@example.com", "whatever123"))
        .await
        .unwrap_err();
    let wrong = j
        .login(&attempt("me@example.com", "whatever123"))
        .await
        .unwrap_err();
    let huge = j
        .login(&attempt("me@example.com", &"x".repeat(1 << 20)))
        .await
        .unwrap_err();
    for e in [&unknown, &wrong, &huge] {
        assert!(matches!(e, Error::InvalidCredentials));
        assert_eq!(e.to_string(), "Invalid credentials.");
    }
    let (f, _) = validation(j.login(&journal_core::api::LoginRequest::default()).await);
    assert_eq!(f, "email");
}
