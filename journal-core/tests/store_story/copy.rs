//! Copying a whole journal from one store to another, empty one.

use crate::common::{Backend, entry, journal, user};
use crate::page;
use bytes::Bytes;
use journal_core::api::{LoginRequest, UpdateEntryRequest};
use journal_core::{Error, Role, TokenRejection, UploadRequest};

/// The source is a SQLite file; the targets are the other backends.
async fn a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens(target: Backend) {
    let source_dir = tempfile::tempdir().unwrap();
    let source = journal_core::store::open(&format!(
        "sqlite:{}",
        source_dir.path().join("src.db").display()
    ))
    .await
    .unwrap();
    let options = journal_core::JournalOptions {
        attachments: journal_core::AttachmentOptions {
            place: journal_core::AttachmentPlace::Folder(source_dir.path().join("files")),
            ..Default::default()
        },
        ..Default::default()
    };
    let j = journal_core::Journal::with_store(source.clone(), options)
        .await
        .unwrap();
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
    // History, the trash and attachments go too: nothing a person wrote stays behind.
    for text in ["second thoughts", "third thoughts"] {
        let change = UpdateEntryRequest {
            content: Some(text.into()),
            ..Default::default()
        };
        j.update_entry(&alice, &made[3].id, &change).await.unwrap();
    }
    j.delete_entry(&alice, &made[4].id).await.unwrap();
    let binned = made.remove(4);
    let photo = j
        .upload_attachment(
            &alice,
            &UploadRequest {
                name: Some("notes.txt".into()),
                entry_id: Some(made[3].id),
                declared_size: None,
            },
            futures_util::stream::iter([Ok(Bytes::from_static(b"plain words\n"))]),
        )
        .await
        .unwrap();
    made[3] = j.entry(&alice, &made[3].id).await.unwrap();
    let history = j
        .revisions(&alice, &made[3].id, page(1, 10))
        .await
        .unwrap()
        .items;
    let trash = j.trash(&alice, page(1, 10)).await.unwrap().items;

    let report = journal_core::store::copy_all(source.as_ref(), target.store.as_ref())
        .await
        .unwrap();
    assert_eq!(
        (
            report.users,
            report.entries,
            report.trashed,
            report.revisions,
            report.attachments,
            report.revoked_tokens
        ),
        (2, 24, 1, 27, 1, 1),
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
            .revisions(&alice2, &made[3].id, page(1, 10))
            .await
            .unwrap()
            .items,
        history,
        "{}: the history, ids, numbers and times kept",
        target.name
    );
    assert_eq!(history.len(), 3);
    let copied_trash = copied.trash(&alice2, page(1, 10)).await.unwrap().items;
    assert_eq!(copied_trash, trash, "{}: the trash kept", target.name);
    assert_eq!(copied_trash[0].entry.id, binned.id);
    let row = target
        .store
        .attachment(&photo.id)
        .await
        .unwrap()
        .expect("the attachment's row is copied");
    assert_eq!(row.attachment, photo, "{}", target.name);
    assert_eq!(
        copied
            .search(&alice2, "lake", page(1, 5))
            .await
            .unwrap()
            .total,
        23,
        "the search index holds the live entries as they are now"
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
