//! The SQLite file's schema over time: files half-migrated by older builds are
//! repaired, and files from newer builds are refused with a message that says so.

use journal_core::api::{CreateEntryRequest, RegisterRequest};
use journal_core::{Journal, JournalOptions, PageRequest};

/// A file with one user and one entry, written by this build and closed again.
async fn written_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("journal.db");
    let journal = Journal::open(
        &format!("sqlite:{}", path.display()),
        JournalOptions::default(),
    )
    .await
    .expect("open");
    let id = journal
        .register(&RegisterRequest {
            full_name: Some("Ada Lovelace".into()),
            nickname: Some("ada".into()),
            email: Some("ada@example.com".into()),
            password: Some("analytical engine".into()),
        })
        .await
        .expect("register");
    let ada = journal.local_caller(&id).await.expect("caller");
    journal
        .create_entry(
            &ada,
            &CreateEntryRequest {
                title: Some("Notes on the engine".into()),
                content: Some("It weaves algebraic patterns.".into()),
                is_public: Some(true),
            },
        )
        .await
        .expect("create");
    drop(journal);
    path
}

fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

#[tokio::test]
async fn a_file_whose_version_lags_its_tables_is_repaired_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    // What two builds before the migration lock could leave: a process that read an
    // old version re-ran step 2 after another had finished step 4, and recorded 2.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(include_str!(
            "../src/store/sqlite/migrations/002_fts_author_column.sql"
        ))
        .unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
    }
    let journal = Journal::open(
        &format!("sqlite:{}", path.display()),
        JournalOptions::default(),
    )
    .await
    .expect("a half-migrated file opens");
    let ada = journal
        .find_or_register_local_owner("Ada Lovelace", "ada", "ada@example.com")
        .await
        .unwrap();
    let ada = journal.local_caller(&ada).await.unwrap();
    let found = journal
        .search(&ada, "algebra", PageRequest::default())
        .await
        .unwrap();
    assert_eq!(found.total, 1, "search works after the repair");
    let listed = journal
        .public_entries(PageRequest::default())
        .await
        .unwrap();
    assert_eq!(listed.total, 1);
    drop(journal);
    assert_eq!(user_version(&path), 5, "and on to the newest version");
}

#[tokio::test]
async fn a_file_from_a_newer_build_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let Err(e) = Journal::open(
        &format!("sqlite:{}", path.display()),
        JournalOptions::default(),
    )
    .await
    else {
        panic!("a newer file opened");
    };
    let message = format!("{e:#}");
    let chain = std::iter::successors(std::error::Error::source(&e), |e| e.source())
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(": ");
    let all = format!("{message}: {chain}");
    assert!(all.contains("newer"), "{all}");
    assert!(!all.contains("CREATE"), "no SQL in the message: {all}");
    assert_eq!(user_version(&path), 99, "untouched");
}
