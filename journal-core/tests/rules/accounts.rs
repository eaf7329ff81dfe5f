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

/// Web sessions: a recent sign-in starts one; each refresh gives a new login token and
/// a new refresh token, and the one used never works again: presented a second time it
/// ends the whole session and revokes the login token the session last issued. A
/// sign-out, a password change and "sign out everywhere" end sessions too.
async fn web_sessions_rotate_and_a_reused_refresh_token_ends_the_session(b: Backend) {
    use journal_core::api::ChangePasswordRequest;
    use journal_core::{ClientInfo, TokenRejection};
    let j = journal(b.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let client = ClientInfo::local();
    let ended = |r: journal_core::Result<(String, journal_core::SessionRefresh)>| {
        matches!(r, Err(Error::Unauthenticated(TokenRejection::SessionEnded)))
    };

    let first = j.start_session(&ann).await.unwrap();
    let (token, second) = j
        .refresh_session(&first.refresh_token, &client)
        .await
        .unwrap();
    assert_ne!(first.refresh_token, second.refresh_token);
    assert_eq!(
        first.expires_at, second.expires_at,
        "the limit counts from the sign-in"
    );
    let caller = j.authenticate(&token).await.unwrap();
    assert_eq!(caller.user_id(), ann.user_id());
    let (token, third) = j
        .refresh_session(&second.refresh_token, &client)
        .await
        .unwrap();
    assert!(j.authenticate(&token).await.is_ok());

    // The second token again: a copy was taken. The session ends, its latest login
    // token is revoked, and the current refresh token no longer works either.
    assert!(
        ended(j.refresh_session(&second.refresh_token, &client).await),
        "{}",
        b.name
    );
    assert!(matches!(
        j.authenticate(&token).await,
        Err(Error::Unauthenticated(TokenRejection::Revoked))
    ));
    assert!(ended(
        j.refresh_session(&third.refresh_token, &client).await
    ));
    assert!(ended(j.refresh_session("made-up", &client).await));

    // A sign-out ends the session.
    let (ann, _) = user_again(&j, "ann@example.com").await;
    let session = j.start_session(&ann).await.unwrap();
    j.end_session(&session.refresh_token).await.unwrap();
    assert!(ended(
        j.refresh_session(&session.refresh_token, &client).await
    ));

    // A password change voids the sessions begun before it.
    let session = j.start_session(&ann).await.unwrap();
    j.change_password(
        &ann,
        &ChangePasswordRequest {
            password: Some("correct horse battery".into()),
            new_password: Some("a brand new passphrase".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(
        ended(j.refresh_session(&session.refresh_token, &client).await),
        "{}",
        b.name
    );

    // Everywhere: every session and every login token until now.
    let login = |password: &'static str| {
        let j = j.clone();
        async move {
            j.login(&journal_core::api::LoginRequest {
                email: Some("ann@example.com".into()),
                password: Some(password.into()),
                ..Default::default()
            })
            .await
            .unwrap()
        }
    };
    let phone = j
        .authenticate(&login("a brand new passphrase").await)
        .await
        .unwrap();
    let laptop_token = login("a brand new passphrase").await;
    let laptop = j.authenticate(&laptop_token).await.unwrap();
    let session = j.start_session(&laptop).await.unwrap();
    j.sign_out_everywhere(&phone).await.unwrap();
    assert!(j.authenticate(&laptop_token).await.is_err(), "{}", b.name);
    assert!(ended(
        j.refresh_session(&session.refresh_token, &client).await
    ));
    let events = j
        .security_events(
            &j.authenticate(&login("a brand new passphrase").await)
                .await
                .unwrap(),
            crate::page(1, 50),
        )
        .await
        .unwrap();
    let kinds: Vec<_> = events.items.iter().map(|e| e.kind.as_str()).collect();
    assert!(
        kinds.contains(&"session_reused") && kinds.contains(&"signed_out_everywhere"),
        "{kinds:?}"
    );
}
on_every_backend!(web_sessions_rotate_and_a_reused_refresh_token_ends_the_session);

/// A session starts only from a recent sign-in, never from a personal access token,
/// and ends at its limit however often it is refreshed.
async fn a_web_session_needs_a_recent_sign_in_and_ends_at_its_limit(b: Backend) {
    use journal_core::{ClientInfo, TokenRejection};
    let options = JournalOptions {
        recent_login: std::time::Duration::from_secs(60),
        session_max: std::time::Duration::from_millis(1500),
        ..JournalOptions::default()
    };
    let j = Journal::with_store(b.store.clone(), options).await.unwrap();
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let session = j.start_session(&ann).await.unwrap();
    let (_, next) = j
        .refresh_session(&session.refresh_token, &ClientInfo::local())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    assert!(
        matches!(
            j.refresh_session(&next.refresh_token, &ClientInfo::local())
                .await,
            Err(Error::Unauthenticated(TokenRejection::SessionEnded))
        ),
        "{}",
        b.name
    );

    let strict = Journal::with_store(
        b.store.clone(),
        JournalOptions {
            recent_login: std::time::Duration::ZERO,
            ..JournalOptions::default()
        },
    )
    .await
    .unwrap();
    let (bob, _) = user(&strict, "bob@example.com", "bob").await;
    assert!(matches!(
        strict.start_session(&bob).await,
        Err(Error::RecentLoginRequired(_))
    ));
}
on_every_backend!(a_web_session_needs_a_recent_sign_in_and_ends_at_its_limit);

/// Logs in again as an existing user of `common::user`.
async fn user_again(j: &Journal, email: &str) -> (journal_core::Caller, String) {
    let token = j
        .login(&journal_core::api::LoginRequest {
            email: Some(email.into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    (j.authenticate(&token).await.unwrap(), token)
}

/// A login token a session renewed is new, but its sign-in is the session's: once that
/// is older than the recent-login window, the renewed token neither confirms the owner
/// nor starts another session.
async fn a_renewed_token_is_not_a_recent_sign_in(b: Backend) {
    use journal_core::ClientInfo;
    use journal_core::api::CreateAccessTokenRequest;
    let options = JournalOptions {
        recent_login: std::time::Duration::from_millis(800),
        ..JournalOptions::default()
    };
    let j = Journal::with_store(b.store.clone(), options).await.unwrap();
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let session = j.start_session(&ann).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(900)).await;
    let (token, _) = j
        .refresh_session(&session.refresh_token, &ClientInfo::local())
        .await
        .unwrap();
    let renewed = j.authenticate(&token).await.unwrap();
    assert!(
        matches!(
            j.start_session(&renewed).await,
            Err(Error::RecentLoginRequired(_))
        ),
        "{}",
        b.name
    );
    let request = CreateAccessTokenRequest {
        name: Some("script".into()),
        ..Default::default()
    };
    assert!(
        matches!(
            j.create_access_token(&renewed, &request).await,
            Err(Error::RecentLoginRequired(_))
        ),
        "{}",
        b.name
    );
}
on_every_backend!(a_renewed_token_is_not_a_recent_sign_in);

/// Sessions are bounded: an account keeps its newest 50 (the oldest ends), and a
/// session its newest 20 used refresh tokens (an older one is merely unknown).
async fn sessions_and_their_used_tokens_are_bounded(b: Backend) {
    use journal_core::store::{SESSIONS_PER_USER, USED_SESSION_TOKENS_KEPT};
    use journal_core::{ClientInfo, TokenRejection};
    let j = journal(b.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let client = ClientInfo::local();
    let mut sessions = Vec::new();
    for _ in 0..=SESSIONS_PER_USER {
        sessions.push(j.start_session(&ann).await.unwrap());
    }
    let ended = |r: &journal_core::Result<(String, journal_core::SessionRefresh)>| {
        matches!(r, Err(Error::Unauthenticated(TokenRejection::SessionEnded)))
    };
    assert!(
        ended(&j.refresh_session(&sessions[0].refresh_token, &client).await),
        "{}",
        b.name
    );
    let (_, mut current) = j
        .refresh_session(&sessions[1].refresh_token, &client)
        .await
        .unwrap();
    let first_used = sessions[1].refresh_token.clone();
    for _ in 0..USED_SESSION_TOKENS_KEPT {
        // Refreshes come hours apart; a few milliseconds keep their order unambiguous
        // here (the oldest used token is the one pruned).
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        current = j
            .refresh_session(&current.refresh_token, &client)
            .await
            .unwrap()
            .1;
    }
    // The oldest used token was pruned: refused, but the session lives on.
    assert!(ended(&j.refresh_session(&first_used, &client).await));
    assert!(
        j.refresh_session(&current.refresh_token, &client)
            .await
            .is_ok(),
        "{}",
        b.name
    );
}
on_every_backend!(sessions_and_their_used_tokens_are_bounded);
