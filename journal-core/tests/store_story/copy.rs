//! Copying a whole journal from one store to another, empty one.

use crate::common::{Backend, entry, journal, user};
use crate::page;
use journal_core::api::LoginRequest;
use journal_core::{Error, Role, TokenRejection};

/// The source is a SQLite file; the targets are the other backends.
async fn a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens(target: Backend) {
    let source_dir = tempfile::tempdir().unwrap();
    let source = journal_core::store::open(&format!(
        "sqlite:{}",
        source_dir.path().join("src.db").display()
    ))
    .await
    .unwrap();
    let j = journal(source.clone()).await;
    let (alice, alice_token) = user(&j, "alice@example.com", "alice").await;
    let (bob, bob_token) = user(&j, "bob@example.com", "bob").await;
    j.set_role("bob@example.com", Role::Admin).await.unwrap();
    let mut made = Vec::new();
    for i in 0..25 {
        made.push(
            j.create_entry(
                &alice,
                &entry(&format!("entry {i}"), "lake words", i % 3 == 0),
            )
            .await
            .unwrap(),
        );
    }
    j.logout(&bob).await.unwrap();

    let report = journal_core::store::copy_all(source.as_ref(), target.store.as_ref())
        .await
        .unwrap();
    assert_eq!(
        (report.users, report.entries, report.revoked_tokens),
        (2, 25, 1),
        "{}",
        target.name
    );
    let copied = journal(target.store.clone()).await;
    let alice2 = copied
        .authenticate(&alice_token)
        .await
        .expect("token issued before the move works");
    assert!(matches!(
        copied.authenticate(&bob_token).await,
        Err(Error::Unauthenticated(TokenRejection::Revoked))
    ));
    let listed = copied
        .user_entries(&alice2, alice.user_id(), page(1, 100))
        .await
        .unwrap();
    let mut expected = made.clone();
    expected.reverse();
    assert_eq!(
        listed.items, expected,
        "{}: entries, ids and dates kept",
        target.name
    );
    assert_eq!(
        copied
            .search(&alice2, "lake", page(1, 5))
            .await
            .unwrap()
            .total,
        25
    );
    copied
        .login(&LoginRequest {
            email: Some("bob@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .expect("password hashes copied");
    assert_eq!(
        copied
            .profile(&copied.local_caller(bob.user_id()).await.unwrap())
            .await
            .unwrap()
            .role,
        Role::Admin
    );
    let again = journal_core::store::copy_all(source.as_ref(), target.store.as_ref()).await;
    assert!(
        matches!(again, Err(journal_core::store::CopyError::TargetNotEmpty)),
        "{}",
        target.name
    );
}

mod a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens {
    use crate::common::Backend;

    #[tokio::test]
    async fn sqlite_memory() {
        super::a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens(
            Backend::sqlite_memory().await,
        )
        .await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        super::a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens(
            Backend::postgres().await,
        )
        .await;
    }
}
