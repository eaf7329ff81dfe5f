//! Journals written by older builds: opened by this one, with every entry intact.

use crate::common::{entry, journal, user};
use crate::page;
use journal_core::EntryFilter;
use journal_core::api::{UpdateEntryRequest, UpdateProfileRequest};

/// Undoes SQLite's migrations 13 (the security log), 8 (accounts) and 7 (tags, starred,
/// date): the schema of the build before tags.
const SQLITE_BEFORE_TAGS: &str = "
    DROP TABLE security_events;
    DROP TABLE access_tokens; DROP TABLE recovery_codes; DROP TABLE invites;
    DROP TRIGGER entries_counts_insert; DROP TRIGGER entries_counts_delete;
    DROP TRIGGER entries_counts_update; DROP TRIGGER users_counts_visibility;
    CREATE TRIGGER entries_counts_insert AFTER INSERT ON entries BEGIN
        UPDATE author_counts SET entries = entries + 1, public = public + new.is_public
            WHERE author_id = new.author_id;
        UPDATE feed_count SET n = n + 1 WHERE new.is_public = 1
            AND (SELECT is_private FROM users WHERE id = new.author_id) = 0;
    END;
    CREATE TRIGGER entries_counts_delete AFTER DELETE ON entries BEGIN
        UPDATE author_counts SET entries = entries - 1, public = public - old.is_public
            WHERE author_id = old.author_id;
        UPDATE feed_count SET n = n - 1 WHERE old.is_public = 1
            AND (SELECT is_private FROM users WHERE id = old.author_id) = 0;
    END;
    CREATE TRIGGER entries_counts_update AFTER UPDATE OF is_public ON entries
        WHEN old.is_public <> new.is_public BEGIN
        UPDATE author_counts SET public = public + new.is_public - old.is_public
            WHERE author_id = new.author_id;
        UPDATE feed_count SET n = n + new.is_public - old.is_public
            WHERE (SELECT is_private FROM users WHERE id = new.author_id) = 0;
    END;
    CREATE TRIGGER users_counts_privacy AFTER UPDATE OF is_private ON users
        WHEN old.is_private <> new.is_private BEGIN
        UPDATE feed_count SET n = n + (CASE WHEN new.is_private = 0 THEN 1 ELSE -1 END)
            * (SELECT public FROM author_counts WHERE author_id = new.id);
    END;
    ALTER TABLE users DROP COLUMN disabled; ALTER TABLE users DROP COLUMN totp_secret;
    ALTER TABLE users DROP COLUMN totp_pending; ALTER TABLE users DROP COLUMN totp_last_step;
    DROP TRIGGER entry_tags_insert; DROP TRIGGER entry_tags_delete;
    DROP TRIGGER entry_tags_update; DROP TABLE entry_tags;
    DROP INDEX entries_author_date; DROP INDEX entries_author_public_date;
    DROP INDEX entries_public_date; DROP INDEX entries_author_starred_date;
    ALTER TABLE entries DROP COLUMN date; ALTER TABLE entries DROP COLUMN starred;
    ALTER TABLE entries DROP COLUMN tags;
    CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
    CREATE INDEX entries_author_public_created
        ON entries (author_id, is_public, created_at DESC, id DESC);
    CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public = 1;
    PRAGMA user_version = 6;";

/// Undoes PostgreSQL's migrations 11 (the security log), 9 (search by author), 8 (the
/// search index's pending list), 7 (the feed total's deltas), 6 (accounts) and 5 (tags,
/// starred, date): the schema of the build before tags.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
const POSTGRES_BEFORE_TAGS: &str = "
    DROP TABLE security_events;
    CREATE INDEX entries_search ON entries USING gin (search);
    DROP INDEX entries_search_by_author; DROP FUNCTION journal_scoped_query(uuid, tsquery);
    DROP FUNCTION journal_scoped_words(uuid, tsvector); DROP FUNCTION journal_search_query(text);
    DROP FUNCTION journal_search_query_unicode(text);
    DROP TRIGGER users_feed_visibility ON users; DROP TRIGGER users_feed_delete ON users;
    DROP FUNCTION journal_feed_author(); DROP TABLE feed_total; DROP TABLE feed_total_deltas;
    CREATE OR REPLACE FUNCTION journal_count_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            UPDATE author_counts
                SET entries = entries + 1, public = public + NEW.is_public::int
                WHERE author_id = NEW.author_id;
        ELSIF TG_OP = 'DELETE' THEN
            UPDATE author_counts
                SET entries = entries - 1, public = public - OLD.is_public::int
                WHERE author_id = OLD.author_id;
        ELSE
            UPDATE author_counts
                SET public = public + NEW.is_public::int - OLD.is_public::int
                WHERE author_id = NEW.author_id;
        END IF;
        RETURN NULL;
    END $$;
    DROP TABLE invites; DROP TABLE recovery_codes; DROP TABLE access_tokens;
    ALTER TABLE users DROP COLUMN disabled, DROP COLUMN totp_secret, DROP COLUMN totp_pending,
        DROP COLUMN totp_last_step;
    DROP TRIGGER entries_tags_insert ON entries; DROP TRIGGER entries_tags_update ON entries;
    DROP FUNCTION journal_entry_tags(); DROP TABLE entry_tags;
    DROP INDEX entries_author_date, entries_author_public_date, entries_public_date,
               entries_author_starred_date;
    ALTER TABLE entries DROP COLUMN date, DROP COLUMN starred, DROP COLUMN tags;
    CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
    CREATE INDEX entries_author_public_created ON entries (author_id, created_at DESC, id DESC)
        WHERE is_public;
    CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public;
    DELETE FROM journal_migrations WHERE version >= 5;";

/// A journal written by the build before tags, stars and dates opens with every entry
/// intact and dated when it was created, in the same order, and takes tags from then on.
/// `url` is `file` on SQLite, or `pg` (a fresh schema) on PostgreSQL.
async fn upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(
    url: String,
    pg: Option<String>,
    file: &std::path::Path,
) {
    println!("upgrade on {url}");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let entries: Vec<_> = (0..12)
        .map(|i| journal_core::api::ImportEntryRequest {
            title: Some(format!("entry {i}")),
            content: Some(format!("written on day {i}")),
            is_public: Some(i % 3 == 0),
            created_at: Some(format!("2021-0{}-1{}T08:00:00Z", 1 + i % 9, i % 10)),
            ..Default::default()
        })
        .collect();
    let written = j
        .import(&ann, &journal_core::api::ImportEntriesRequest { entries })
        .await
        .unwrap();
    drop((j, store));
    match &pg {
        None => rusqlite::Connection::open(&file)
            .unwrap()
            .execute_batch(SQLITE_BEFORE_TAGS)
            .unwrap(),
        #[cfg(feature = "postgres")]
        Some(pg) => {
            let (base, schema) = pg.split_once("?schema=").unwrap();
            let (client, conn) = tokio_postgres::connect(base, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            client
                .batch_execute(&format!(
                    "SET search_path TO \"{schema}\"; {POSTGRES_BEFORE_TAGS}"
                ))
                .await
                .unwrap();
        }
        #[cfg(not(feature = "postgres"))]
        Some(_) => unreachable!(),
    }

    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let listed = j
        .user_entries(&ann, ann.user_id(), page(1, 100))
        .await
        .unwrap();
    assert_eq!(listed.total, 12);
    let mut expected = written.clone();
    expected.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    assert_eq!(listed.items, expected, "every entry intact, newest first");
    for e in &listed.items {
        assert_eq!(e.date, e.created_at);
        assert!(e.tags.is_empty() && !e.starred);
    }
    // Tags and filters work on the upgraded journal.
    let first = &written[0];
    j.update_entry(
        &ann,
        &first.id,
        &UpdateEntryRequest {
            tags: Some(vec!["Old".into()]),
            starred: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let tagged = j
        .user_entries_matching(
            &ann,
            ann.user_id(),
            &EntryFilter::default().with_tag(journal_core::Tag::parse("old").unwrap()),
            page(1, 10),
        )
        .await
        .unwrap();
    assert_eq!(tagged.total, 1);
    assert_eq!(tagged.items[0].id, first.id);
    assert_eq!(j.tags(&ann).await.unwrap()[0].count, 1);
}

mod upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created {
    #[tokio::test]
    async fn sqlite_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("journal.db");
        let url = format!("sqlite:{}", file.display());
        super::upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(
            url, None, &file,
        )
        .await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        let pg = crate::common::postgres_url();
        super::upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(
            pg.clone(),
            Some(pg),
            std::path::Path::new(""),
        )
        .await;
    }
}

/// A journal written before the counters existed gets them computed by the migration
/// that adds them, and (on SQLite) its search index rebuilt with author-scoped terms:
/// the schema is wound back to that version by hand, then reopened.
/// `url` is `file` on SQLite, or `pg` (a fresh schema) on PostgreSQL.
async fn upgrading_counts_totals_and_reindexes_what_is_already_there(
    url: String,
    pg: Option<String>,
    file: &std::path::Path,
) {
    println!("upgrade on {url}");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (ben, _) = user(&j, "ben@example.com", "ben").await;
    for i in 0..5 {
        j.create_entry(&ann, &entry("a", "Gardening notes", i % 2 == 0))
            .await
            .unwrap();
        j.create_entry(&ben, &entry("b", "gardening too", true))
            .await
            .unwrap();
    }
    j.update_profile(
        &ben,
        &UpdateProfileRequest {
            is_private: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    drop((j, store));

    match pg {
        None => {
            // Migration 4 undone (the index of migration 2: the author as a column
            // of its own), then migration 3.
            let conn = rusqlite::Connection::open(&file).unwrap();
            conn.execute_batch(SQLITE_BEFORE_TAGS).unwrap();
            conn.execute_batch(
                "DROP TRIGGER entries_fts_insert; DROP TRIGGER entries_fts_delete;
                 DROP TRIGGER entries_fts_update; DROP TABLE entries_fts;
                 ALTER TABLE entries ADD COLUMN fts_author TEXT
                     GENERATED ALWAYS AS ('a' || replace(author_id, '-', '')) VIRTUAL;
                 CREATE VIRTUAL TABLE entries_fts USING fts5 (
                     title, content, fts_author,
                     content = 'entries', content_rowid = 'seq',
                     tokenize = 'unicode61 remove_diacritics 2');
                 INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');
                 CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
                     INSERT INTO entries_fts (rowid, title, content, fts_author)
                     VALUES (new.seq, new.title, new.content, new.fts_author);
                 END;
                 CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
                     INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
                     VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
                 END;
                 CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
                     INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
                     VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
                     INSERT INTO entries_fts (rowid, title, content, fts_author)
                     VALUES (new.seq, new.title, new.content, new.fts_author);
                 END;
                 DROP TRIGGER users_counts_insert; DROP TRIGGER entries_counts_insert;
                 DROP TRIGGER entries_counts_delete; DROP TRIGGER entries_counts_update;
                 DROP TRIGGER users_counts_privacy;
                 DROP TABLE author_counts; DROP TABLE feed_count;
                 ALTER TABLE users DROP COLUMN last_token_at;
                 PRAGMA user_version = 2;",
            )
            .unwrap();
        }
        #[cfg(feature = "postgres")]
        Some(pg) => {
            let (base, schema) = pg
                .split_once("?schema=")
                .or_else(|| pg.split_once("&schema="))
                .unwrap();
            let (client, conn) = tokio_postgres::connect(base, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            client
                .batch_execute(&format!(
                    "SET search_path TO \"{schema}\"; {POSTGRES_BEFORE_TAGS}
                     DROP TABLE author_counts;
                     DROP TRIGGER users_counts ON users;
                     DROP TRIGGER entries_counts ON entries;
                     DROP TRIGGER entries_counts_public ON entries;
                     DROP FUNCTION journal_count_user(); DROP FUNCTION journal_count_entry();
                     ALTER TABLE users DROP COLUMN last_token_at;
                     DELETE FROM journal_migrations WHERE version >= 2;"
                ))
                .await
                .unwrap();
        }
        #[cfg(not(feature = "postgres"))]
        Some(_) => unreachable!(),
    }

    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let own = j
        .user_entries(&ann, ann.user_id(), page(1, 2))
        .await
        .unwrap();
    assert_eq!(own.total, 5);
    let seen = j
        .user_entries(&ben, ann.user_id(), page(1, 2))
        .await
        .unwrap();
    assert_eq!(seen.total, 3);
    assert_eq!(j.public_entries(page(1, 2)).await.unwrap().total, 3);
    assert_eq!(
        j.user_entries(&ben, ben.user_id(), page(1, 2))
            .await
            .unwrap()
            .total,
        5
    );
    // Every entry written before is found by its author's search, and only by theirs.
    let found = j.search(&ann, "GARDEN", page(1, 10)).await.unwrap();
    assert_eq!(found.total, 5);
    assert!(found.items.iter().all(|e| e.author_id == *ann.user_id()));
    assert_eq!(j.search(&ben, "too", page(1, 10)).await.unwrap().total, 5);
    assert_eq!(j.search(&ann, "too", page(1, 10)).await.unwrap().total, 0);
    // And both are kept from there on.
    j.create_entry(&ann, &entry("c", "garden party", true))
        .await
        .unwrap();
    assert_eq!(j.public_entries(page(1, 2)).await.unwrap().total, 4);
    assert_eq!(
        j.search(&ann, "garden", page(1, 10)).await.unwrap().total,
        6
    );
}

mod upgrading_counts_totals_and_reindexes_what_is_already_there {
    #[tokio::test]
    async fn sqlite_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("journal.db");
        let url = format!("sqlite:{}", file.display());
        super::upgrading_counts_totals_and_reindexes_what_is_already_there(url, None, &file).await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        let pg = crate::common::postgres_url();
        super::upgrading_counts_totals_and_reindexes_what_is_already_there(
            pg.clone(),
            Some(pg),
            std::path::Path::new(""),
        )
        .await;
    }
}
