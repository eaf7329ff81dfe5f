//! PostgreSQL-only behaviour: connection settings from the URL, TLS, clear errors.

#![cfg(feature = "postgres")]

mod common;

use journal_core::store::postgres::PostgresStore;

#[tokio::test]
async fn sslmode_decides_whether_the_connection_is_encrypted() {
    let Some(url) = common::postgres_url("sslmode_decides_encryption") else {
        return;
    };
    let encrypted = PostgresStore::connect(&format!("{url}&sslmode=require"))
        .await
        .expect("sslmode=require");
    assert!(
        encrypted.tls_in_use().await.unwrap(),
        "sslmode=require encrypts"
    );
    let plain = PostgresStore::connect(&format!("{url}&sslmode=disable"))
        .await
        .expect("sslmode=disable");
    assert!(
        !plain.tls_in_use().await.unwrap(),
        "sslmode=disable does not"
    );
}

#[tokio::test]
async fn verify_full_refuses_a_certificate_no_root_vouches_for() {
    let Some(url) = common::postgres_url("verify_full_refuses") else {
        return;
    };
    // This machine's server has a self-signed certificate: verification must fail, and
    // say so, rather than connect unauthenticated.
    let err = PostgresStore::connect(&format!("{url}&sslmode=verify-full"))
        .await
        .err()
        .expect("refused");
    let text = format!("{err:?}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
}

#[tokio::test]
async fn bad_urls_and_unreachable_servers_are_clear_errors() {
    let Some(url) = common::postgres_url("bad_urls") else {
        return;
    };
    let bad_mode = PostgresStore::connect(&format!("{url}&sslmode=sometimes"))
        .await
        .err()
        .expect("refused");
    assert!(
        bad_mode.to_string().contains("sslmode=sometimes"),
        "{bad_mode}"
    );
    let bad_schema = PostgresStore::connect(&format!("{url}&schema=Robert'); DROP"))
        .await
        .err()
        .expect("refused");
    assert!(
        bad_schema.to_string().contains("schema name"),
        "{bad_schema}"
    );
    // Port 1 on loopback: nothing listens there.
    let down = PostgresStore::connect("postgres://postgres@127.0.0.1:1/test")
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(down, journal_core::StoreError::Unavailable(_)),
        "{down:?}"
    );
    let wrong_db =
        PostgresStore::connect("postgres://postgres@127.0.0.1:5432/no_such_database_here")
            .await
            .err()
            .expect("refused");
    assert!(
        format!("{wrong_db:?}").contains("no_such_database_here"),
        "{wrong_db:?}"
    );
}

/// Token checks that arrive together share one statement (`coalesce.rs`): each still
/// gets its own answer, a logout is seen by every check asked after it, and checks
/// whose callers give up midway leave none of the others waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn token_checks_asked_at_once_each_get_their_own_answer() {
    use std::sync::Arc;
    use std::time::Duration;

    let Some(url) = common::postgres_url("token_checks_asked_at_once") else {
        return;
    };
    let store = Arc::new(PostgresStore::connect(&url).await.expect("connect"));
    let j = Arc::new(common::journal(store.clone()).await);
    let mut tokens = Vec::new();
    for i in 0..12 {
        let (caller, token) =
            common::user(&j, &format!("u{i}@example.com"), &format!("user{i}")).await;
        let revoked = i % 3 == 0;
        if revoked {
            j.logout(&caller).await.expect("logout");
        }
        tokens.push((token, revoked));
    }
    let tokens = Arc::new(tokens);

    for round in 0..20 {
        let mut checks = tokio::task::JoinSet::new();
        for k in 0..48 {
            let (j, tokens) = (j.clone(), tokens.clone());
            checks.spawn(async move {
                let (token, revoked) = &tokens[(k * 7 + round) % tokens.len()];
                if k % 5 == 0 {
                    // A caller who gives up: dropped while waiting, or while sending.
                    let _ = tokio::time::timeout(Duration::from_micros(50), j.authenticate(token))
                        .await;
                    return;
                }
                let answer = j.authenticate(token).await;
                assert_eq!(
                    answer.is_ok(),
                    !revoked,
                    "token {k} of round {round}: {answer:?}"
                );
            });
        }
        tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(done) = checks.join_next().await {
                done.expect("check");
            }
        })
        .await
        .expect("no check is left waiting");
    }

    // Logouts under load: the check asked right after is refused, every time.
    let load = {
        let (j, tokens) = (j.clone(), tokens.clone());
        tokio::spawn(async move {
            loop {
                let mut checks = tokio::task::JoinSet::new();
                for (token, _) in tokens.iter().filter(|(_, revoked)| !revoked) {
                    let (j, token) = (j.clone(), token.clone());
                    checks.spawn(async move { j.authenticate(&token).await.is_ok() });
                }
                while let Some(done) = checks.join_next().await {
                    assert!(done.expect("check"), "a live token was refused");
                }
            }
        })
    };
    for n in 0..20 {
        let (caller, token) =
            common::user(&j, &format!("leaver{n}@example.com"), &format!("leaver{n}")).await;
        j.logout(&caller).await.expect("logout");
        assert!(
            j.authenticate(&token).await.is_err(),
            "a token logged out before the check is refused"
        );
    }
    load.abort();

    let shared = journal_core::store::Store::cache_counts(store.as_ref())
        .into_iter()
        .find(|(name, _)| *name == "sharedTokenChecks")
        .expect("counted")
        .1;
    assert!(
        shared.hits > 0 && shared.misses > 0,
        "checks asked at once shared statements: {shared:?}"
    );
}
