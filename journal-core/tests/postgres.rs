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
