//! The SQLite file's schema over time: files half-migrated by older builds are
//! repaired, and files from newer builds are refused with a message that says so.

use journal_core::api::{CreateEntryRequest, RegisterRequest};
use journal_core::{Journal, JournalOptions, PageRequest};

/// Opens the journal on the SQLite file at `path`.
async fn open(path: &std::path::Path) -> journal_core::Result<Journal> {
    Journal::open(
        &format!("sqlite:{}", path.display()),
        JournalOptions::default(),
    )
    .await
}

/// A file with one user and one entry, written by this build and closed again.
async fn written_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("journal.db");
    let journal = open(&path).await.expect("open");
    let id = journal
        .register(&RegisterRequest {
            full_name: Some("Ada Lovelace".into()),
            nickname: Some("ada".into()),
            email: Some("ada@example.com".into()),
            password: Some("analytical engine".into()),
            ..Default::default()
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
                ..Default::default()
            },
        )
        .await
        .expect("create");
    drop(journal);
    path
}

/// A file as an older build at schema `version` left it, holding what [`written_file`]
/// holds: a fresh file migrated to `version` (`migrate_to`), with the users and entries
/// of a file this build wrote copied in. For versions from 8 on, whose `users` and
/// `entries` have this build's columns.
async fn older_file(dir: &std::path::Path, version: usize) -> std::path::PathBuf {
    let written = dir.join("written");
    std::fs::create_dir(&written).unwrap();
    let written = written_file(&written).await;
    let path = dir.join("older.db");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    journal_core::store::sqlite::migrate_to(&mut conn, version).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS written", [written.to_str().unwrap()])
        .unwrap();
    // The older file's columns of `entries` (a later version adds some).
    let columns = entry_columns(&conn);
    conn.execute_batch(&format!(
        "INSERT INTO users SELECT * FROM written.users;
         INSERT INTO entries ({columns}) SELECT {columns} FROM written.entries;
         DETACH DATABASE written;"
    ))
    .unwrap();
    path
}

/// The columns of `entries` in the file `conn` has open, for an `INSERT … SELECT` from
/// a file of another version.
fn entry_columns(conn: &rusqlite::Connection) -> String {
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('entries')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    columns.join(", ")
}

/// The schema version this build writes.
const NEWEST: i64 = 21;

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
    let journal = open(&path).await.expect("a half-migrated file opens");
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
    assert_eq!(user_version(&path), NEWEST, "and on to the newest version");
    // Step 4, run again, put back the trigger that indexes an entry at once; step 12
    // puts back the one that leaves it to its batch.
    let trigger: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE name = 'entries_fts_insert'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(trigger.contains("fts_pending"), "{trigger}");
}

/// Every step's `-- applied when:` query (listed from `migrations/` by build.rs) finds
/// its own work: a current file whose version says 0 is recorded step by step, not
/// migrated again, which would fail on the first `CREATE TABLE users`.
#[tokio::test]
async fn every_step_finds_its_work_in_a_current_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 0)
        .unwrap();
    let journal = open(&path)
        .await
        .expect("a current file recorded as version 0 opens");
    let listed = journal
        .public_entries(PageRequest::default())
        .await
        .unwrap();
    assert_eq!(listed.total, 1, "its entry is still there");
    drop(journal);
    assert_eq!(user_version(&path), NEWEST);
}

#[tokio::test]
async fn a_file_from_a_newer_build_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let Err(e) = open(&path).await else {
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

#[tokio::test]
async fn stored_addresses_are_normalised_and_a_colliding_one_still_logs_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    // Two accounts an older build kept apart: ada@example.com, and the same in
    // full-width letters (stored lower-cased only).
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, full_name, nickname, password_hash, role,
                                is_private, password_changed_at, created_at, updated_at)
             SELECT '0195f0e0-0000-7000-8000-000000000001', '\u{ff41}\u{ff44}\u{ff41}@example.com',
                    full_name, 'ada2', password_hash, role, is_private,
                    password_changed_at, created_at + 1, updated_at
             FROM users WHERE email = 'ada@example.com';
             INSERT INTO users (id, email, full_name, nickname, password_hash, role,
                                is_private, password_changed_at, created_at, updated_at)
             SELECT '0195f0e0-0000-7000-8000-000000000002', '\u{ff42}ob@example.com',
                    full_name, 'bob', password_hash, role, is_private,
                    password_changed_at, created_at + 2, updated_at
             FROM users WHERE email = 'ada@example.com';
             PRAGMA user_version = 5;",
        )
        .unwrap();
    }
    let journal = open(&path).await.expect("opens");
    let login = |email: &str| {
        let request = journal_core::api::LoginRequest {
            email: Some(email.to_owned()),
            password: Some("analytical engine".into()),
            ..Default::default()
        };
        let journal = journal.clone();
        async move { journal.login(&request).await }
    };
    // bob's full-width b is stored as b now, and found either way.
    assert!(login("bob@example.com").await.is_ok());
    assert!(login("\u{ff42}ob@example.com").await.is_ok());
    // The full-width ada kept her address, and still logs in with it.
    let theirs = journal
        .authenticate(&login("\u{ff41}\u{ff44}\u{ff41}@example.com").await.unwrap())
        .await
        .unwrap();
    let ours = journal
        .authenticate(&login("ada@example.com").await.unwrap())
        .await
        .unwrap();
    assert_ne!(theirs.user_id(), ours.user_id());
    drop(journal);
    assert_eq!(user_version(&path), NEWEST);
}

/// The search index's merge settings, as the file holds them.
fn fts_config(path: &std::path::Path, key: &str) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT v FROM entries_fts_config WHERE k = ?1",
            [key],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test]
async fn the_search_index_merges_a_little_per_commit_before_it_merges_all_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = written_file(dir.path()).await;
    let (gradual, all_at_once) = (
        fts_config(&path, "automerge"),
        fts_config(&path, "crisismerge"),
    );
    // Equal, every merge is done at once inside one commit, and every write queued
    // behind it waits for the whole merge (migration 10).
    assert_eq!(gradual, 16);
    assert!(
        all_at_once > gradual,
        "crisismerge {all_at_once} must be above automerge {gradual}"
    );

    // A file migrated to 9 by an earlier build gets the setting when it next opens.
    let older = dir.path().join("older.db");
    journal_core::store::sqlite::migrate_to(&mut rusqlite::Connection::open(&older).unwrap(), 9)
        .unwrap();
    assert_eq!(fts_config(&older, "automerge"), 16);
    let journal = open(&older).await.expect("open");
    drop(journal);
    assert_eq!(user_version(&older), NEWEST);
    assert_eq!(fts_config(&older, "crisismerge"), 64);
}

/// The `CREATE` statement of an index, as the file holds it.
fn index_sql(path: &std::path::Path, name: &str) -> String {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT sql FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test]
async fn others_view_of_an_author_keeps_its_entries_through_the_move_to_a_public_only_index() {
    let dir = tempfile::tempdir().unwrap();
    // A file as migration 10 left it: the index of others' view held every entry.
    let path = older_file(dir.path(), 10).await;
    assert!(
        !index_sql(&path, "entries_author_public_date").contains("WHERE"),
        "{}",
        index_sql(&path, "entries_author_public_date")
    );
    let journal = open(&path).await.expect("open");
    assert_eq!(user_version(&path), NEWEST);
    assert!(
        index_sql(&path, "entries_author_public_date").ends_with("WHERE is_public = 1"),
        "{}",
        index_sql(&path, "entries_author_public_date")
    );
    let ada_id = journal
        .find_or_register_local_owner("Ada Lovelace", "ada", "ada@example.com")
        .await
        .unwrap();
    let ada = journal.local_caller(&ada_id).await.unwrap();
    for (title, public) in [("Private musings", false), ("A public note", true)] {
        journal
            .create_entry(
                &ada,
                &CreateEntryRequest {
                    title: Some(title.into()),
                    content: Some("Written after the upgrade.".into()),
                    is_public: Some(public),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
    }
    let bob = journal
        .register(&RegisterRequest {
            full_name: Some("Bob Babbage".into()),
            nickname: Some("bob".into()),
            email: Some("bob@example.com".into()),
            password: Some("difference engine".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let bob = journal.local_caller(&bob).await.unwrap();
    let theirs = journal
        .user_entries(&bob, &ada_id, PageRequest::default())
        .await
        .unwrap();
    let titles: Vec<&str> = theirs.items.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(titles, ["A public note", "Notes on the engine"]);
    assert_eq!(theirs.total, 2);
    let own = journal
        .user_entries(&ada, &ada_id, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(own.total, 3, "the author still sees every entry");
}

#[tokio::test]
async fn a_file_from_before_the_security_log_gains_it_and_its_accounts_log_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = older_file(dir.path(), 12).await;
    let journal = open(&path).await.expect("open");
    assert_eq!(user_version(&path), NEWEST);
    journal
        .login(&journal_core::api::LoginRequest {
            email: Some("ada@example.com".into()),
            password: Some("analytical engine".into()),
            ..Default::default()
        })
        .await
        .expect("login");
    let id = journal
        .find_or_register_local_owner("Ada Lovelace", "ada", "ada@example.com")
        .await
        .unwrap();
    let ada = journal.local_caller(&id).await.unwrap();
    let log = journal
        .security_events(&ada, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(log.items.len(), 1, "{log:?}");
    assert_eq!(log.items[0].kind, journal_core::SecurityEventKind::Login);
}

/// The rest, as another process applies them.
const FROM_8: &[&str] = &[
    include_str!("../src/store/sqlite/migrations/008_accounts.sql"),
    include_str!("../src/store/sqlite/migrations/009_fts_merge_policy.sql"),
    include_str!("../src/store/sqlite/migrations/010_fts_crisis_merge.sql"),
    include_str!("../src/store/sqlite/migrations/011_author_public_partial.sql"),
    include_str!("../src/store/sqlite/migrations/012_search_index_per_batch.sql"),
    include_str!("../src/store/sqlite/migrations/013_security_events.sql"),
    include_str!("../src/store/sqlite/migrations/014_search_every_script_and_tags.sql"),
    include_str!("../src/store/sqlite/migrations/015_revisions_and_trash.sql"),
    include_str!("../src/store/sqlite/migrations/016_revisions_by_entry.sql"),
    include_str!("../src/store/sqlite/migrations/017_attachments.sql"),
    include_str!("../src/store/sqlite/migrations/018_import_same_text.sql"),
    include_str!("../src/store/sqlite/migrations/019_change_feed.sql"),
];

/// A store that opens a file while another process is migrating it waits for that
/// process, then writes. Its connections used to read the schema before the other
/// process finished: SQLite then failed the first insert into `entries` with "no such
/// table" once the other process had added columns (three `journal` commands on a new
/// file hit it about once in 500).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_opened_while_another_process_migrates_the_file_writes_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    // Another process (with the SQL functions the migrations call) left it at version 7.
    let mut other = rusqlite::Connection::open(&path).unwrap();
    other.pragma_update(None, "journal_mode", "WAL").unwrap();
    journal_core::store::sqlite::migrate_to(&mut other, 7).unwrap();
    // The other process wrote the secret and the owner too: the store's first write is
    // then its entry, the statement that failed.
    other
        .execute_batch(
            "INSERT INTO settings (key, value) VALUES ('jwt_secret',
                 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==');
             INSERT INTO users (id, email, full_name, nickname, password_hash,
                                password_changed_at, created_at, updated_at)
             VALUES ('0b7e7c3c-5d0a-4c1e-9f55-3f1e2b9a6d10', 'ada@localhost', 'Ada', 'ada',
                     'none', 0, 0, 0);",
        )
        .unwrap();
    // The other process takes the write lock for its next migrations...
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let opening = tokio::spawn({
        let path = path.clone();
        async move {
            let journal = open(&path).await.expect("open");
            let id = journal
                .find_or_register_local_owner("Ada", "ada", "ada@localhost")
                .await
                .expect("owner");
            let ada = journal.local_caller(&id).await.expect("caller");
            journal
                .create_entry(
                    &ada,
                    &CreateEntryRequest {
                        title: Some("First".into()),
                        content: Some("written while the file was new".into()),
                        ..Default::default()
                    },
                )
                .await
                .map(|_| ())
        }
    });
    // ...while this store reads the file at version 7 and waits for the lock.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    for sql in FROM_8 {
        other.execute_batch(sql).unwrap();
    }
    other
        .execute_batch(&format!("PRAGMA user_version = {NEWEST}; COMMIT;"))
        .unwrap();
    opening.await.unwrap().expect("the first write");
    assert_eq!(user_version(&path), NEWEST);
}

/// Migration 16 moves revisions into a table clustered by entry: an older file's
/// history (a snapshot and the deltas after it) reads back the same, and the entry
/// still takes edits.
#[tokio::test]
async fn a_file_from_before_revisions_by_entry_keeps_its_history() {
    use journal_core::api::UpdateEntryRequest;
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("written.db");
    let journal = open(&written).await.unwrap();
    let id = journal
        .find_or_register_local_owner("Ada", "ada", "ada@localhost")
        .await
        .unwrap();
    let ada = journal.local_caller(&id).await.unwrap();
    let text = "It weaves algebraic patterns, as the loom weaves flowers and leaves.";
    let entry = journal
        .create_entry(
            &ada,
            &CreateEntryRequest {
                title: Some("Notes".into()),
                content: Some(text.into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    for word in ["figures", "numbers"] {
        journal
            .update_entry(
                &ada,
                &entry.id,
                &UpdateEntryRequest {
                    content: Some(text.replace("patterns", word)),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
    }
    let before = journal
        .revisions(&ada, &entry.id, PageRequest::default())
        .await
        .unwrap();
    drop(journal);

    let path = dir.path().join("older.db");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    journal_core::store::sqlite::migrate_to(&mut conn, 15).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS written", [written.to_str().unwrap()])
        .unwrap();
    let columns = "id, entry_id, author_id, parent_id, revision, edited_at, via, state, content, \
                   keep_prefix, keep_suffix";
    let entry_columns = entry_columns(&conn);
    conn.execute_batch(&format!(
        "INSERT INTO users SELECT * FROM written.users;
         INSERT INTO entries ({entry_columns}) SELECT {entry_columns} FROM written.entries;
         INSERT INTO entry_revisions ({columns}) SELECT {columns} FROM written.entry_revisions;
         DETACH DATABASE written;"
    ))
    .unwrap();
    drop(conn);

    let journal = open(&path).await.unwrap();
    assert_eq!(user_version(&path), NEWEST);
    let after = journal
        .revisions(&ada, &entry.id, PageRequest::default())
        .await
        .unwrap();
    assert_eq!(after.total, 3);
    assert_eq!(
        serde_json::to_value(&after.items).unwrap(),
        serde_json::to_value(&before.items).unwrap()
    );
    assert!(after.items[0].content.contains("numbers"), "{after:?}");
    let edited = journal
        .update_entry(
            &ada,
            &entry.id,
            &UpdateEntryRequest {
                content: Some("Fourth.".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(edited.revision, 4);
}

/// Migration 18 keys every entry's text for imports: an entry written before it is
/// found by an import of the same text and date, and skipped.
#[tokio::test]
async fn an_entry_from_before_the_text_key_is_found_by_an_import() {
    let dir = tempfile::tempdir().unwrap();
    let path = older_file(dir.path(), 17).await;
    let journal = open(&path).await.expect("open");
    assert_eq!(user_version(&path), NEWEST);
    let ada_id = journal
        .find_or_register_local_owner("Ada Lovelace", "ada", "ada@example.com")
        .await
        .unwrap();
    let ada = journal.local_caller(&ada_id).await.unwrap();
    let listed = journal
        .user_entries(&ada, &ada_id, PageRequest::default())
        .await
        .unwrap();
    let entry = &listed.items[0];
    let again = journal_core::ImportedEntry::new(
        None,
        CreateEntryRequest {
            title: Some(entry.title.clone()),
            content: Some(format!("{}\n", entry.content)),
            ..Default::default()
        },
        entry.date,
        None,
        None,
    );
    let report = journal.import_entries(&ada, vec![again]).await.unwrap();
    assert_eq!((report.created.len(), report.skipped), (0, 1));
}

/// Migration 19 numbers what a file holds for the change feed: every author's entries
/// and trash, each once, in pages of one that lose none; a write after it comes last.
#[tokio::test]
async fn entries_from_before_the_change_feed_are_all_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("written.db");
    let journal = open(&written).await.unwrap();
    let mut authors = Vec::new();
    for name in ["ada", "bea"] {
        let id = journal
            .find_or_register_local_owner(name, name, &format!("{name}@localhost"))
            .await
            .unwrap();
        let caller = journal.local_caller(&id).await.unwrap();
        let mut ids = Vec::new();
        for n in 0..4 {
            let made = journal
                .create_entry(
                    &caller,
                    &CreateEntryRequest {
                        title: Some(format!("{name} {n}")),
                        content: Some("text".into()),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            ids.push(made.id);
        }
        journal.delete_entry(&caller, &ids[1]).await.unwrap();
        authors.push((id, ids));
    }
    drop(journal);

    let path = dir.path().join("older.db");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    journal_core::store::sqlite::migrate_to(&mut conn, 18).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS written", [written.to_str().unwrap()])
        .unwrap();
    let columns = "id, entry_id, author_id, parent_id, revision, edited_at, via, state, content, \
                   keep_prefix, keep_suffix";
    let entry_columns = entry_columns(&conn);
    conn.execute_batch(&format!(
        "INSERT INTO users SELECT * FROM written.users;
         INSERT INTO entries ({entry_columns}) SELECT {entry_columns} FROM written.entries;
         INSERT INTO trashed_entries (id, author_id, deleted_at, entry)
             SELECT id, author_id, deleted_at, entry FROM written.trashed_entries;
         INSERT INTO entry_revisions ({columns}) SELECT {columns} FROM written.entry_revisions;
         DETACH DATABASE written;"
    ))
    .unwrap();
    drop(conn);

    let journal = open(&path).await.unwrap();
    assert_eq!(user_version(&path), NEWEST);
    for (id, ids) in &authors {
        let caller = journal.local_caller(id).await.unwrap();
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = journal.changes(&caller, cursor.as_ref(), 1).await.unwrap();
            for change in &page.changes {
                assert_eq!(change.revisions.len(), 1, "{change:?}");
                let trashed = matches!(change.state, journal_core::ChangeState::Trashed { .. });
                seen.push((change.id, trashed));
            }
            cursor = Some(page.cursor);
            if !page.more {
                break;
            }
        }
        let expected = vec![
            (ids[0], false),
            (ids[2], false),
            (ids[3], false),
            (ids[1], true),
        ];
        assert_eq!(seen, expected, "live entries first, then the trash");
        let again = journal.untrash(&caller, &ids[1]).await.unwrap();
        let page = journal.changes(&caller, cursor.as_ref(), 10).await.unwrap();
        assert_eq!(page.changes.len(), 1);
        assert_eq!(page.changes[0].id, again.id);
    }
}
