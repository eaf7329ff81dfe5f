//! Journals written by older builds: opened by this one, with every entry intact.
//!
//! Each test makes the older build's database from the migrations themselves: a fresh
//! database taken to that build's schema version (`migrate_to`), rows written in that
//! version's shape, then the store opened as usual, which applies the rest.

use journal_core::api::UpdateEntryRequest;
use journal_core::{Entry, EntryFilter, EntryId, Timestamp, UserId};

use crate::common::{entry, journal};
use crate::page;

/// A user as an older build stored it.
struct OldUser {
    id: &'static str,
    email: &'static str,
    nickname: &'static str,
    is_private: bool,
}

impl OldUser {
    fn id(&self) -> UserId {
        self.id.parse().expect("a user id")
    }
}

/// An entry as an older build stored it (created and last changed at `created_at`).
struct OldEntry {
    id: String,
    author: &'static OldUser,
    title: String,
    content: String,
    is_public: bool,
    created_at: i64,
}

impl OldEntry {
    /// The entry this build reads back: dated when it was created, no tags, no star.
    fn as_read_now(&self) -> Entry {
        Entry {
            id: self.id.parse::<EntryId>().expect("an entry id"),
            title: self.title.clone(),
            content: self.content.clone(),
            is_public: self.is_public,
            tags: Vec::new(),
            starred: false,
            date: Timestamp::from_millis(self.created_at),
            author_id: self.author.id(),
            author_name: self.author.nickname.into(),
            created_at: Timestamp::from_millis(self.created_at),
            updated_at: Timestamp::from_millis(self.created_at),
            revision: 1,
            revision_id: journal_core::RevisionId::default(),
        }
    }
}

/// When the older build's users were made.
const USERS_CREATED: i64 = 1_600_000_000_000;

/// The database an older build wrote: a SQLite file, or a fresh PostgreSQL schema.
enum Old {
    Sqlite {
        _dir: tempfile::TempDir,
        file: std::path::PathBuf,
    },
    Postgres {
        url: String,
    },
}

impl Old {
    fn sqlite() -> Old {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("journal.db");
        Old::Sqlite { _dir: dir, file }
    }

    fn postgres() -> Old {
        Old::Postgres {
            url: crate::common::postgres_url(),
        }
    }

    fn url(&self) -> String {
        match self {
            Old::Sqlite { file, .. } => format!("sqlite:{}", file.display()),
            Old::Postgres { url } => url.clone(),
        }
    }

    /// Migrates a fresh database to schema version `sqlite` or `postgres` (by backend)
    /// and writes `users` and `entries` there, in the shape both backends' tables had
    /// from their first version until tags (SQLite's 7, PostgreSQL's 5).
    async fn write(
        &self,
        sqlite: usize,
        postgres: usize,
        users: &[&OldUser],
        entries: &[OldEntry],
    ) {
        match self {
            Old::Sqlite { file, .. } => {
                let mut conn = rusqlite::Connection::open(file).unwrap();
                journal_core::store::sqlite::migrate_to(&mut conn, sqlite).unwrap();
                for u in users {
                    conn.execute(
                        "INSERT INTO users (id, email, full_name, nickname, password_hash,
                                            is_private, password_changed_at, created_at,
                                            updated_at)
                         VALUES (?1, ?2, ?3, ?4, 'none', ?5, ?6, ?6, ?6)",
                        rusqlite::params![
                            u.id,
                            u.email,
                            format!("{} Example", u.nickname),
                            u.nickname,
                            u.is_private,
                            USERS_CREATED
                        ],
                    )
                    .unwrap();
                }
                for e in entries {
                    conn.execute(
                        "INSERT INTO entries (id, author_id, author_name, title, content,
                                              is_public, created_at, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                        rusqlite::params![
                            e.id,
                            e.author.id,
                            e.author.nickname,
                            e.title,
                            e.content,
                            e.is_public,
                            e.created_at
                        ],
                    )
                    .unwrap();
                }
            }
            Old::Postgres { url } => {
                journal_core::store::postgres::migrate_to(url, postgres)
                    .await
                    .unwrap();
                let (base, schema) = url
                    .split_once("?schema=")
                    .or_else(|| url.split_once("&schema="))
                    .unwrap();
                let (client, conn) = tokio_postgres::connect(base, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                client
                    .batch_execute(&format!("SET search_path TO \"{schema}\", public"))
                    .await
                    .unwrap();
                for u in users {
                    client
                        .execute(
                            "INSERT INTO users (id, email, full_name, nickname, password_hash,
                                                is_private, password_changed_at, created_at,
                                                updated_at)
                             VALUES ($1::text::uuid, $2, $3, $4, 'none', $5,
                                     to_timestamp($6::bigint / 1000.0),
                                     to_timestamp($6::bigint / 1000.0),
                                     to_timestamp($6::bigint / 1000.0))",
                            &[
                                &u.id,
                                &u.email,
                                &format!("{} Example", u.nickname),
                                &u.nickname,
                                &u.is_private,
                                &USERS_CREATED,
                            ],
                        )
                        .await
                        .unwrap();
                }
                for e in entries {
                    client
                        .execute(
                            "INSERT INTO entries (id, author_id, author_name, title, content,
                                                  is_public, created_at, updated_at)
                             VALUES ($1::text::uuid, $2::text::uuid, $3, $4, $5, $6,
                                     to_timestamp($7::bigint / 1000.0),
                                     to_timestamp($7::bigint / 1000.0))",
                            &[
                                &e.id,
                                &e.author.id,
                                &e.author.nickname,
                                &e.title,
                                &e.content,
                                &e.is_public,
                                &e.created_at,
                            ],
                        )
                        .await
                        .unwrap();
                }
            }
        }
    }
}

impl Old {
    /// Runs `sqlite` or `postgres` (by backend) on the older build's database, as that
    /// build would have: on SQLite with the store's SQL functions registered.
    async fn execute(&self, sqlite: &str, postgres: &str) {
        match self {
            Old::Sqlite { file, .. } => {
                let mut conn = rusqlite::Connection::open(file).unwrap();
                // Registers the functions; the schema is there already.
                journal_core::store::sqlite::migrate_to(&mut conn, 0).unwrap();
                conn.execute_batch(sqlite).unwrap();
            }
            Old::Postgres { url } => {
                let (base, schema) = url
                    .split_once("?schema=")
                    .or_else(|| url.split_once("&schema="))
                    .unwrap();
                let (client, conn) = tokio_postgres::connect(base, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                client
                    .batch_execute(&format!(
                        "SET search_path TO \"{schema}\", public; {postgres}"
                    ))
                    .await
                    .unwrap();
            }
        }
    }
}

static ANN: OldUser = OldUser {
    id: "0195f0e0-0000-7000-8000-00000000a001",
    email: "ann@example.com",
    nickname: "ann",
    is_private: false,
};

/// A private profile.
static BEN: OldUser = OldUser {
    id: "0195f0e0-0000-7000-8000-00000000b002",
    email: "ben@example.com",
    nickname: "ben",
    is_private: true,
};

/// The id of the `n`th entry an older build wrote.
fn old_entry_id(n: usize) -> String {
    format!("0195f0e1-0000-7000-8000-{n:012x}")
}

/// A journal written by the build before tags, stars and dates opens with every entry
/// intact and dated when it was created, in the same order, and takes tags from then on.
async fn upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(old: Old) {
    let written: Vec<_> = (0..12)
        .map(|i| OldEntry {
            id: old_entry_id(i),
            author: &ANN,
            title: format!("entry {i}"),
            content: format!("written on day {i}"),
            is_public: i % 3 == 0,
            created_at: chrono::DateTime::parse_from_rfc3339(&format!(
                "2021-0{}-1{}T08:00:00Z",
                1 + i % 9,
                i % 10
            ))
            .unwrap()
            .timestamp_millis(),
        })
        .collect();
    // The build before tags: SQLite's schema 6, PostgreSQL's 4.
    old.write(6, 4, &[&ANN], &written).await;

    let store = journal_core::store::open(&old.url()).await.unwrap();
    let j = journal(store.clone()).await;
    let ann = j.local_caller(&ANN.id()).await.unwrap();
    let listed = j
        .user_entries(&ann, ann.user_id(), page(1, 100))
        .await
        .unwrap();
    assert_eq!(listed.total, 12);
    let mut expected: Vec<Entry> = written.iter().map(OldEntry::as_read_now).collect();
    expected.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    // Each entry has one revision, made by the upgrade: itself as it was, its id a
    // UUIDv7 of when it was last changed.
    for e in &listed.items {
        assert_eq!(e.revision, 1);
        let uuid = e.revision_id.as_uuid();
        assert_eq!(uuid.get_version_num(), 7);
        let (secs, _) = uuid.get_timestamp().unwrap().to_unix();
        assert_eq!(secs as i64 * 1000, e.updated_at.as_millis() / 1000 * 1000);
        let first = store.revision(&e.id, 1).await.unwrap().unwrap();
        assert_eq!(
            (first.id, &first.title, &first.content),
            (e.revision_id, &e.title, &e.content)
        );
        assert_eq!(
            (first.is_public, first.date, first.parent_id),
            (e.is_public, e.date, None)
        );
    }
    let unrevised: Vec<Entry> = listed
        .items
        .iter()
        .cloned()
        .map(|e| Entry {
            revision_id: Default::default(),
            ..e
        })
        .collect();
    assert_eq!(unrevised, expected, "every entry intact, newest first");
    for e in &listed.items {
        assert_eq!(e.date, e.created_at);
        assert!(e.tags.is_empty() && !e.starred);
    }
    // Tags and filters work on the upgraded journal.
    let first = written[0].as_read_now();
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
    use super::Old;

    #[tokio::test]
    async fn sqlite_file() {
        super::upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(
            Old::sqlite(),
        )
        .await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        super::upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created(
            Old::postgres(),
        )
        .await;
    }
}

/// A journal written before the counters existed gets them computed by the migration
/// that adds them, and (on SQLite) its search index rebuilt with author-scoped terms.
async fn upgrading_counts_totals_and_reindexes_what_is_already_there(old: Old) {
    let mut written = Vec::new();
    for i in 0..5 {
        let at = USERS_CREATED + 1000 * i as i64;
        written.push(OldEntry {
            id: old_entry_id(2 * i),
            author: &ANN,
            title: "a".into(),
            content: "Gardening notes".into(),
            is_public: i % 2 == 0,
            created_at: at,
        });
        written.push(OldEntry {
            id: old_entry_id(2 * i + 1),
            author: &BEN,
            title: "b".into(),
            content: "gardening too".into(),
            is_public: true,
            created_at: at + 1,
        });
    }
    // The build before the counters: SQLite's schema 2 (the search index of migration
    // 2: the author as a column of its own), PostgreSQL's 1.
    old.write(2, 1, &[&ANN, &BEN], &written).await;

    let store = journal_core::store::open(&old.url()).await.unwrap();
    let j = journal(store.clone()).await;
    let ann = j.local_caller(&ANN.id()).await.unwrap();
    let ben = j.local_caller(&BEN.id()).await.unwrap();
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
    use super::Old;

    #[tokio::test]
    async fn sqlite_file() {
        super::upgrading_counts_totals_and_reindexes_what_is_already_there(Old::sqlite()).await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        super::upgrading_counts_totals_and_reindexes_what_is_already_there(Old::postgres()).await;
    }
}

/// A journal written before search knew scripts without spaces and tags: its entries
/// are indexed again, so they are found by a run inside their Chinese or Japanese text
/// and by their tags, and Latin words as before.
async fn upgrading_indexes_every_script_and_the_tags_already_there(old: Old) {
    let written = vec![
        OldEntry {
            id: old_entry_id(1),
            author: &ANN,
            title: "東京の朝".into(),
            content: "今日は静かな朝でした".into(),
            is_public: false,
            created_at: USERS_CREATED,
        },
        OldEntry {
            id: old_entry_id(2),
            author: &ANN,
            title: "Saturday".into(),
            content: "up at dawn in the garden".into(),
            is_public: false,
            created_at: USERS_CREATED + 1,
        },
    ];
    // The build before: SQLite's schema 13, PostgreSQL's 11 (the rows written in the
    // shape `write` knows, PostgreSQL's 4, then taken on to 11).
    old.write(13, 4, &[&ANN], &written).await;
    if let Old::Postgres { url } = &old {
        journal_core::store::postgres::migrate_to(url, 11)
            .await
            .unwrap();
    }
    let tagged = old_entry_id(2);
    // That build's index held each word whole, the Japanese sentence as one (without
    // its voicing marks), and no tags: its writer indexed the noted entries so before
    // each commit.
    let a = format!("a{}", ANN.id.replace('-', ""));
    let old_terms = [
        (format!("{a}東京の朝"), format!("{a}今日は静かな朝てした")),
        (
            format!("{a}saturday"),
            ["up", "at", "dawn", "in", "the", "garden"]
                .map(|w| format!("{a}{w}"))
                .join(" "),
        ),
    ];
    let index: String = old_terms
        .iter()
        .zip(&written)
        .map(|((title, content), e)| {
            format!(
                "INSERT INTO entries_fts (rowid, title, content)
                 SELECT seq, '{title}', '{content}' FROM entries WHERE id = '{}';",
                e.id
            )
        })
        .collect();
    old.execute(
        &format!(
            "UPDATE entries SET tags = 'hiking' WHERE id = '{tagged}';
             {index} DELETE FROM fts_pending;"
        ),
        &format!("UPDATE entries SET tags = '{{hiking}}' WHERE id = '{tagged}';"),
    )
    .await;

    let store = journal_core::store::open(&old.url()).await.unwrap();
    let j = journal(store.clone()).await;
    let ann = j.local_caller(&ANN.id()).await.unwrap();
    for (q, title) in [
        ("静か", "東京の朝"),
        ("東京", "東京の朝"),
        ("hiking", "Saturday"),
        ("garden", "Saturday"),
    ] {
        let found = j.search(&ann, q, page(1, 10)).await.unwrap();
        assert_eq!(crate::titles(&found.items), [title], "{q}");
    }
    // And kept so from there on.
    j.create_entry(&ann, &entry("静かな夜", "", false))
        .await
        .unwrap();
    assert_eq!(j.search(&ann, "静か", page(1, 10)).await.unwrap().total, 2);
}

mod upgrading_indexes_every_script_and_the_tags_already_there {
    use super::Old;

    #[tokio::test]
    async fn sqlite_file() {
        super::upgrading_indexes_every_script_and_the_tags_already_there(Old::sqlite()).await;
    }

    #[tokio::test]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
    )]
    async fn postgres() {
        super::upgrading_indexes_every_script_and_the_tags_already_there(Old::postgres()).await;
    }
}
