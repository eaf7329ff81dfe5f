//! A journal on a SQLite file: reopened, and written by another process.

use crate::common::{entry, journal, user};
use crate::{page, sqlite_url};
use journal_core::{Journal, JournalOptions};

#[tokio::test]
async fn a_restarted_journal_on_the_same_file_keeps_users_entries_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "j.db");
    let (token, id) = {
        let j = Journal::open(&url, JournalOptions::default())
            .await
            .unwrap();
        let (me, token) = user(&j, "me@example.com", "me").await;
        (
            token,
            j.create_entry(&me, &entry("kept", "", false))
                .await
                .unwrap()
                .id,
        )
    };
    let j = Journal::open(&url, JournalOptions::default())
        .await
        .unwrap();
    let me = j
        .authenticate(&token)
        .await
        .expect("token still valid after restart");
    assert_eq!(j.entry(&me, &id).await.unwrap().title, "kept");
}

#[tokio::test]
async fn writes_by_another_process_on_the_same_file_are_seen_within_a_moment() {
    // Two stores on one file stand for journal-server and the CLI on its database. Each
    // sees its own writes at once; the other's once its writer has looked for them
    // (every tenth of a second), well within the half second waited here.
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "shared.db");
    let server = journal(journal_core::store::open(&url).await.unwrap()).await;
    let cli = journal(journal_core::store::open(&url).await.unwrap()).await;
    let (me, token) = user(&server, "me@example.com", "me").await;
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 0);
    server.authenticate(&token).await.unwrap();

    let cli_me = cli.local_caller(me.user_id()).await.unwrap();
    cli.create_entry(&cli_me, &entry("from the cli", "", true))
        .await
        .unwrap();
    cli.set_role("me@example.com", journal_core::Role::Admin)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 1);
    assert_eq!(
        server.authenticate(&token).await.unwrap().role(),
        journal_core::Role::Admin
    );

    // Its own writes, the server sees at once, cached or not.
    server
        .create_entry(&me, &entry("from the server", "", true))
        .await
        .unwrap();
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 2);
    server
        .logout(&server.authenticate(&token).await.unwrap())
        .await
        .unwrap();
    assert!(server.authenticate(&token).await.is_err());
}
