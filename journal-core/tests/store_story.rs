//! The storage story: every operation and rule of the core, told once and run against
//! every backend (SQLite file, SQLite in memory, PostgreSQL when configured). A backend
//! is done when this passes on it.

mod common;
#[path = "store_story/security_log.rs"]
mod security_log;

use common::{backends, entry, journal, user};
use journal_core::api::{
    ChangePasswordRequest, LoginRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::store::{Store, Visibility};
use journal_core::{EntryFilter, EntryId, Error, PageRequest, Role, TokenRejection, UserId};

fn page(page: i64, limit: i64) -> PageRequest {
    PageRequest::new(Some(page), Some(limit)).expect("valid page")
}

fn titles(entries: &[journal_core::Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.title.as_str()).collect()
}

#[tokio::test]
async fn the_storage_story_holds_on_every_backend() {
    for backend in backends("the_storage_story").await {
        println!("story on {}", backend.name);
        story(backend.store.clone()).await;
    }
}

#[tokio::test]
async fn the_security_log_story_holds_on_every_backend() {
    for backend in backends("the_security_log_story").await {
        println!("security log story on {}", backend.name);
        security_log::story(backend.store.clone()).await;
    }
}

async fn story(store: std::sync::Arc<dyn Store>) {
    let j = journal(store.clone()).await;

    // Accounts: registration, case-insensitive uniqueness, login.
    let (alice, alice_token) = user(&j, "Alice@Example.com ", "alice").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;
    let dup = j
        .register(&common::register_request("ALICE@example.COM", "again"))
        .await;
    assert!(
        matches!(dup, Err(Error::Conflict(_))),
        "duplicate email: {dup:?}"
    );
    let profile = j.profile(&alice).await.unwrap();
    assert_eq!(profile.email, "alice@example.com");
    assert_eq!(profile.role, Role::User);
    assert!(!profile.is_private);
    assert_eq!(profile.profile_pic, "");

    let wrong = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("wrong password!".into()),
            ..Default::default()
        })
        .await;
    let unknown = j
        .login(&LoginRequest {
            email: Some("nobody@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await;
    assert!(matches!(wrong, Err(Error::InvalidCredentials)));
    assert!(matches!(unknown, Err(Error::InvalidCredentials)));
    assert_eq!(
        wrong.unwrap_err().to_string(),
        unknown.unwrap_err().to_string()
    );

    // Profile updates, and the e-mail conflict on update.
    let updated = j
        .update_profile(
            &alice,
            &UpdateProfileRequest {
                nickname: Some("  ally ".into()),
                profile_pic: Some("data:image/png;base64,iVBORw0KGgo=".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.nickname, "ally");
    assert_eq!(updated.full_name, "alice Example");
    let taken = j
        .update_profile(
            &bob,
            &UpdateProfileRequest {
                email: Some("ALICE@example.com".into()),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(taken, Err(Error::Conflict(_))), "{taken:?}");

    // Entries: create, read, visibility.
    let private = j
        .create_entry(&alice, &entry("Private thoughts", "only mine", false))
        .await
        .unwrap();
    let public = j
        .create_entry(&alice, &entry("Public walk", "to the lake", true))
        .await
        .unwrap();
    assert_eq!(public.author_name, "ally");
    assert_eq!(public.author_id, *alice.user_id());
    assert_eq!(public.created_at, public.updated_at);
    assert_eq!(j.entry(&alice, &private.id).await.unwrap(), private);
    assert_eq!(j.entry(&bob, &public.id).await.unwrap(), public);
    assert!(matches!(
        j.entry(&bob, &private.id).await,
        Err(Error::NotFound { kind: "entry" })
    ));
    assert!(matches!(
        j.entry(&bob, &EntryId::generate()).await,
        Err(Error::NotFound { .. })
    ));

    // Only the author changes an entry: visible → Forbidden, invisible → NotFound.
    let change = UpdateEntryRequest {
        title: Some("hijacked".into()),
        ..Default::default()
    };
    assert!(matches!(
        j.update_entry(&bob, &public.id, &change).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.update_entry(&bob, &private.id, &change).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.delete_entry(&bob, &public.id).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.delete_entry(&bob, &private.id).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        j.entry(&alice, &public.id).await.unwrap(),
        public,
        "unchanged after refusals"
    );

    // The author updates only the fields sent.
    let edited = j
        .update_entry(
            &alice,
            &public.id,
            &UpdateEntryRequest {
                content: Some("to the lake and back".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(edited.title, "Public walk");
    assert_eq!(edited.content, "to the lake and back");
    assert!(edited.is_public);
    assert!(edited.updated_at >= public.updated_at);
    assert_eq!(edited.created_at, public.created_at);

    // Lists: own sees all, others see public only, newest first.
    let own = j
        .user_entries(&alice, alice.user_id(), page(1, 10))
        .await
        .unwrap();
    assert_eq!(titles(&own.items), ["Public walk", "Private thoughts"]);
    assert_eq!(own.total, 2);
    let seen = j
        .user_entries(&bob, alice.user_id(), page(1, 10))
        .await
        .unwrap();
    assert_eq!(titles(&seen.items), ["Public walk"]);
    assert_eq!(seen.total, 1);
    assert!(matches!(
        j.user_entries(&bob, &UserId::generate(), page(1, 10)).await,
        Err(Error::NotFound { kind: "user" })
    ));
    let feed = j.public_entries(page(1, 10)).await.unwrap();
    assert_eq!(titles(&feed.items), ["Public walk"]);

    // A private profile hides everything from others, public entries included.
    j.update_profile(
        &alice,
        &UpdateProfileRequest {
            is_private: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        j.user_entries(&bob, alice.user_id(), page(1, 10)).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        j.entry(&bob, &public.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.update_entry(&bob, &public.id, &change).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(j.public_entries(page(1, 10)).await.unwrap().total, 0);
    assert_eq!(
        j.user_entries(&alice, alice.user_id(), page(1, 10))
            .await
            .unwrap()
            .total,
        2
    );
    j.update_profile(
        &alice,
        &UpdateProfileRequest {
            is_private: Some(false),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    // Search: own entries only, prefixes, case.
    j.create_entry(&bob, &entry("Lake notes", "bob was at the lake too", true))
        .await
        .unwrap();
    let found = j.search(&alice, "LAK", page(1, 10)).await.unwrap();
    assert_eq!(titles(&found.items), ["Public walk"]);
    assert_eq!(
        j.search(&bob, "private", page(1, 10)).await.unwrap().total,
        0
    );
    // The index follows edits and deletes: old words stop matching, new ones start.
    let lake = j
        .create_entry(&bob, &entry("Pond", "ducks on the pond", false))
        .await
        .unwrap();
    j.update_entry(
        &bob,
        &lake.id,
        &UpdateEntryRequest {
            content: Some("geese on the pond".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(j.search(&bob, "ducks", page(1, 10)).await.unwrap().total, 0);
    assert_eq!(j.search(&bob, "geese", page(1, 10)).await.unwrap().total, 1);
    j.delete_entry(&bob, &lake.id).await.unwrap();
    assert_eq!(j.search(&bob, "geese", page(1, 10)).await.unwrap().total, 0);
    assert_eq!(j.search(&bob, "pond", page(1, 10)).await.unwrap().total, 0);

    // An admin may delete anyone's entry; promotion only through set_role.
    j.set_role("BOB@example.com", Role::Admin).await.unwrap();
    let bob_admin = j.local_caller(bob.user_id()).await.unwrap();
    assert_eq!(bob_admin.role(), Role::Admin);
    assert!(matches!(
        j.update_entry(&bob_admin, &public.id, &change).await,
        Err(Error::Forbidden(_))
    ));
    j.delete_entry(&bob_admin, &private.id).await.unwrap();
    assert!(matches!(
        j.entry(&alice, &private.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.set_role("ghost@example.com", Role::Admin).await,
        Err(Error::NotFound { .. })
    ));

    // Tokens: logout revokes one token only.
    let second = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    j.logout(&alice).await.unwrap();
    assert!(matches!(
        j.authenticate(&alice_token).await,
        Err(Error::Unauthenticated(TokenRejection::Revoked))
    ));
    let alice2 = j.authenticate(&second).await.unwrap();

    // Password change voids every older token; the new password logs in.
    let wrong_current = j
        .change_password(
            &alice2,
            &ChangePasswordRequest {
                password: Some("not my password".into()),
                new_password: Some("a brand new secret".into()),
                ..Default::default()
            },
        )
        .await;
    assert!(matches!(wrong_current, Err(Error::WrongPassword)));
    j.change_password(
        &alice2,
        &ChangePasswordRequest {
            password: Some("correct horse battery".into()),
            new_password: Some("a brand new secret".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        j.authenticate(&second).await,
        Err(Error::Unauthenticated(TokenRejection::Superseded))
    ));
    let third = j
        .login(&LoginRequest {
            email: Some("alice@example.com".into()),
            password: Some("a brand new secret".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let alice3 = j.authenticate(&third).await.unwrap();

    // Deleting the account deletes its entries and voids its tokens.
    let alice_id = *alice3.user_id();
    j.delete_account(&alice3, &Default::default())
        .await
        .unwrap();
    assert!(matches!(
        j.authenticate(&third).await,
        Err(Error::Unauthenticated(TokenRejection::UnknownUser))
    ));
    assert!(matches!(
        j.entry(&bob, &public.id).await,
        Err(Error::NotFound { .. })
    ));
    let leftover = store
        .entries_by_author(
            &alice_id,
            Visibility::All,
            &EntryFilter::default(),
            page(1, 10),
        )
        .await
        .unwrap();
    assert_eq!(leftover.total, 0);
    assert!(store.user_by_id(&alice_id).await.unwrap().is_none());

    // The stored secret is stable: a second journal over the store accepts old tokens.
    let bob_token = j
        .login(&LoginRequest {
            email: Some("bob@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let again = journal(store.clone()).await;
    assert_eq!(
        again.authenticate(&bob_token).await.unwrap().user_id(),
        bob.user_id()
    );
    store.ping().await.unwrap();
}

#[tokio::test]
async fn a_whole_journal_copies_to_an_empty_store_and_keeps_its_tokens() {
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

    for target in backends("copy_all").await {
        if target.name == "sqlite file" {
            continue;
        }
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
}

/// Every entry of a list, walked page by page: the truth a total must match.
async fn walk(
    j: &journal_core::Journal,
    caller: &journal_core::Caller,
    of: Option<&UserId>,
) -> (u64, usize) {
    let mut seen = 0;
    let mut total = None;
    for n in 1.. {
        let p = match of {
            Some(user) => j.user_entries(caller, user, page(n, 3)).await.unwrap(),
            None => j.public_entries(page(n, 3)).await.unwrap(),
        };
        total.get_or_insert(p.total);
        assert_eq!(Some(p.total), total, "the total moved during a quiet walk");
        if p.items.is_empty() {
            break;
        }
        seen += p.items.len();
    }
    (total.unwrap_or(0), seen)
}

/// The totals (`X-Total-Count`) are kept by the stores as counters, not counted per
/// request: after every kind of write, each must still equal the entries a client can
/// actually page through.
#[tokio::test]
async fn list_totals_match_the_lists_after_every_kind_of_write() {
    for backend in backends("list_totals").await {
        println!("totals on {}", backend.name);
        let j = journal(backend.store.clone()).await;
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let (ben, _) = user(&j, "ben@example.com", "ben").await;
        let (cal, _) = user(&j, "cal@example.com", "cal").await;
        let check = |step: &'static str| {
            let (j, ann, ben, cal) = (&j, &ann, &ben, &cal);
            async move {
                for (viewer, of) in [(ann, ann), (ben, ann), (ann, ben), (ben, ben), (ann, cal)] {
                    match j.user_entries(viewer, of.user_id(), page(1, 3)).await {
                        Ok(_) => {
                            let (total, seen) = walk(j, viewer, Some(of.user_id())).await;
                            assert_eq!(total, seen as u64, "{step}: list total");
                        }
                        Err(Error::Forbidden(_)) => {}
                        Err(e) => panic!("{step}: {e:?}"),
                    }
                }
                let (total, seen) = walk(j, ann, None).await;
                assert_eq!(total, seen as u64, "{step}: feed total");
                total
            }
        };
        let mut ids: Vec<(journal_core::Caller, EntryId)> = Vec::new();
        for i in 0..7 {
            for who in [&ann, &ben, &cal] {
                let e = j
                    .create_entry(who, &entry(&format!("note {i}"), "text", i % 2 == 0))
                    .await
                    .unwrap();
                ids.push((who.clone(), e.id));
            }
        }
        assert_eq!(check("created").await, 12);

        let flip = |public| UpdateEntryRequest {
            is_public: Some(public),
            ..Default::default()
        };
        j.update_entry(&ann, &ids[0].1, &flip(false)).await.unwrap();
        j.update_entry(&ann, &ids[3].1, &flip(true)).await.unwrap();
        j.update_entry(&ann, &ids[6].1, &flip(true)).await.unwrap(); // already public
        j.update_entry(
            &ann,
            &ids[6].1,
            &UpdateEntryRequest {
                title: Some("renamed".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert_eq!(check("visibility changed").await, 12);

        let privacy = |private| UpdateProfileRequest {
            is_private: Some(private),
            ..Default::default()
        };
        j.update_profile(&ben, &privacy(true)).await.unwrap();
        assert_eq!(check("ben private").await, 8);
        j.update_profile(&ben, &privacy(true)).await.unwrap(); // no change
        // A private author's writes must not move the feed now, nor when they are public again.
        let (_, ben_public) = ids
            .iter()
            .find(|(c, _)| c.user_id() == ben.user_id())
            .unwrap();
        j.delete_entry(&ben, ben_public).await.unwrap();
        j.create_entry(&ben, &entry("hidden", "text", true))
            .await
            .unwrap();
        assert_eq!(check("ben private, writing").await, 8);
        j.update_profile(&ben, &privacy(false)).await.unwrap();
        assert_eq!(check("ben public again").await, 12);

        for (who, id) in ids
            .iter()
            .filter(|(c, _)| c.user_id() == cal.user_id())
            .take(3)
        {
            j.delete_entry(who, id).await.unwrap();
        }
        let cal_left = check("cal deleted three").await;
        j.delete_account(&cal, &Default::default()).await.unwrap();
        let after = walk(&j, &ann, None).await;
        assert_eq!(after.0, after.1 as u64, "feed after an account deletion");
        assert!(after.0 < cal_left, "cal's public entries left the feed");

        let imported = j
            .import(
                &ann,
                &journal_core::api::ImportEntriesRequest {
                    entries: vec![journal_core::api::ImportEntryRequest {
                        title: Some("old".into()),
                        content: Some("from before".into()),
                        is_public: Some(true),
                        created_at: Some("2020-01-01T00:00:00Z".into()),
                        ..Default::default()
                    }],
                },
            )
            .await;
        imported.unwrap();
        let own = walk(&j, &ann, Some(ann.user_id())).await;
        assert_eq!(own.0, own.1 as u64, "after an import");
        assert_eq!(own.0, 8);
    }
}

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
#[tokio::test]
async fn upgrading_to_tags_and_dates_keeps_every_entry_dated_when_it_was_created() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("journal.db");
    let url = format!("sqlite:{}", file.display());
    let targets = std::iter::once((url.clone(), None)).chain(
        common::postgres_url("upgrading_to_tags_and_dates").map(|pg| (pg.clone(), Some(pg))),
    );
    for (url, pg) in targets {
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
}

/// A journal written before the counters existed gets them computed by the migration
/// that adds them, and (on SQLite) its search index rebuilt with author-scoped terms:
/// the schema is wound back to that version by hand, then reopened.
#[tokio::test]
async fn upgrading_counts_totals_and_reindexes_what_is_already_there() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("journal.db");
    let url = format!("sqlite:{}", file.display());
    let targets = std::iter::once((url.clone(), None)).chain(
        common::postgres_url("upgrading_counts_and_reindexes").map(|pg| (pg.clone(), Some(pg))),
    );
    for (url, pg) in targets {
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
}

/// Every filter, alone and combined, keeps exactly the entries `EntryFilter::matches`
/// keeps, in list order, on every backend: the owner's list, another user's view, the
/// feed, search, and the same lists walked by cursor.
#[tokio::test]
async fn filters_keep_what_the_filter_says_on_every_backend() {
    use journal_core::filter::{FilterParams, Tag};
    for backend in backends("filters_keep_what_the_filter_says").await {
        println!("filters on {}", backend.name);
        let j = journal(backend.store.clone()).await;
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let (ben, _) = user(&j, "ben@example.com", "ben").await;
        // Dates spread over years and hours, several on the same day and instant.
        let tag_sets = [
            vec![],
            vec!["work"],
            vec!["home"],
            vec!["work", "home"],
            vec!["trip"],
        ];
        let entries: Vec<_> = (0..60u32)
            .map(|i| journal_core::api::ImportEntryRequest {
                title: format!("entry {i}").into(),
                content: Some(
                    if i % 4 == 0 {
                        "garden words"
                    } else {
                        "other words"
                    }
                    .into(),
                ),
                is_public: Some(i % 3 != 0),
                created_at: Some("2024-01-01T00:00:00Z".into()),
                tags: Some(
                    tag_sets[(i % 5) as usize]
                        .iter()
                        .map(|t| t.to_string())
                        .collect(),
                ),
                starred: Some(i % 7 == 0),
                date: Some(format!(
                    "{}-{:02}-{:02}T{:02}:{:02}:00Z",
                    2015 + i % 9,
                    1 + i % 3 * 5,
                    1 + (i * 7) % 28,
                    (i * 5) % 24,
                    if i % 11 == 0 { 0 } else { i % 60 },
                )),
                ..Default::default()
            })
            .collect();
        j.import(&ann, &journal_core::api::ImportEntriesRequest { entries })
            .await
            .unwrap();
        let mut all = j
            .user_entries(&ann, ann.user_id(), page(1, 100))
            .await
            .unwrap()
            .items;
        assert_eq!(all.len(), 60);
        all.sort_by(|a, b| b.date.cmp(&a.date).then(b.id.cmp(&a.id)));

        let filters: Vec<Vec<(&str, &str)>> = vec![
            vec![("tag", "work")],
            vec![("tag", "work"), ("tag", "home")],
            vec![("starred", "true")],
            vec![("starred", "false"), ("tag", "home")],
            vec![("from", "2018-01-01"), ("to", "2020-06-30")],
            vec![("from", "2019-06-01T12:00:00Z")],
            vec![("to", "2016-12-31"), ("tz", "Pacific/Auckland")],
            vec![("day", "06-08")],
            vec![("day", "06-08"), ("tz", "America/Los_Angeles")],
            vec![("day", "11-15"), ("tag", "work"), ("from", "2017-01-01")],
            vec![("tag", "trip"), ("from", "2016-01-01"), ("starred", "true")],
            vec![("tag", "nothing")],
        ];
        for pairs in &filters {
            let filter =
                EntryFilter::parse(&FilterParams::from_pairs(pairs.iter().copied())).unwrap();
            let expected: Vec<_> = all.iter().filter(|e| filter.matches(e)).cloned().collect();
            let own = j
                .user_entries_matching(&ann, ann.user_id(), &filter, page(1, 100))
                .await
                .unwrap();
            assert_eq!(own.items, expected, "{pairs:?}");
            assert_eq!(own.total, expected.len() as u64, "{pairs:?}");

            // By cursor, three at a time.
            let mut walked = Vec::new();
            let mut request = page(1, 3);
            loop {
                let got = j
                    .user_entries_matching(&ann, ann.user_id(), &filter, request)
                    .await
                    .unwrap();
                assert_eq!(got.total, expected.len() as u64, "{pairs:?} by cursor");
                let Some(last) = got.items.last() else { break };
                request =
                    page(1, 3).continuing(Some(journal_core::Cursor::new(last.date, last.id)));
                walked.extend(got.items);
            }
            assert_eq!(walked, expected, "{pairs:?} walked by cursor");

            let public: Vec<_> = expected.iter().filter(|e| e.is_public).cloned().collect();
            let seen = j
                .user_entries_matching(&ben, ann.user_id(), &filter, page(1, 100))
                .await
                .unwrap();
            assert_eq!(seen.items, public, "{pairs:?} seen by another user");
            let feed = j
                .public_entries_matching(&filter, page(1, 100))
                .await
                .unwrap();
            assert_eq!(feed.items, public, "{pairs:?} in the feed");
            assert_eq!(feed.total, public.len() as u64);

            let found = j
                .search_matching(&ann, "garden", &filter, page(1, 100))
                .await
                .unwrap();
            let mut found_ids: Vec<_> = found.items.iter().map(|e| e.id).collect();
            let mut garden: Vec<_> = expected
                .iter()
                .filter(|e| e.content.starts_with("garden"))
                .map(|e| e.id)
                .collect();
            found_ids.sort();
            garden.sort();
            assert_eq!(found_ids, garden, "{pairs:?} in search");
            assert_eq!(found.total, garden.len() as u64);
        }

        // Tag counts follow every write: a retag, a redate, a delete.
        let counts = |tags: Vec<journal_core::TagCount>| -> Vec<(String, u64)> {
            tags.into_iter().map(|t| (t.tag, t.count)).collect()
        };
        assert_eq!(
            counts(j.tags(&ann).await.unwrap()),
            [
                ("home".into(), 24),
                ("work".into(), 24),
                ("trip".into(), 12)
            ]
        );
        let work = EntryFilter::default().with_tag(Tag::parse("work").unwrap());
        let first = all.iter().find(|e| work.matches(e)).unwrap().clone();
        j.update_entry(
            &ann,
            &first.id,
            &UpdateEntryRequest {
                tags: Some(vec!["trip".into()]),
                date: Some("1999-01-01T00:00:00Z".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let trip = EntryFilter::default().with_tag(Tag::parse("trip").unwrap());
        let trips = j
            .user_entries_matching(&ann, ann.user_id(), &trip, page(1, 100))
            .await
            .unwrap();
        assert_eq!(
            trips.items.last().unwrap().id,
            first.id,
            "retagged and redated"
        );
        j.delete_entry(&ann, &trips.items[0].id).await.unwrap();
        let after = counts(j.tags(&ann).await.unwrap());
        assert_eq!(after.iter().find(|(t, _)| t == "trip").unwrap().1, 12);
        assert_eq!(after.iter().find(|(t, _)| t == "work").unwrap().1, 23);
        assert!(counts(j.tags(&ben).await.unwrap()).is_empty());
    }
}

/// Every list a reader can see right after each kind of write: the writer's own list,
/// another user's view of it, the feed. With caches, one author's write must show at
/// once in what depends on it, and (SQLite) leave others' cached pages in memory.
#[tokio::test]
async fn cached_pages_follow_each_write_and_keep_what_it_did_not_touch() {
    for backend in backends("cached_pages").await {
        println!("caches on {}", backend.name);
        let store = backend.store.clone();
        let j = journal(store.clone()).await;
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let (ben, _) = user(&j, "ben@example.com", "ben").await;
        j.create_entry(&ann, &entry("ann 1", "text", true))
            .await
            .unwrap();
        let seen = |step: &'static str| {
            let (j, ann, ben) = (&j, &ann, &ben);
            async move {
                let own = j.user_entries(ben, ben.user_id(), page(1, 10)).await;
                let others = j.user_entries(ann, ben.user_id(), page(1, 10)).await;
                let feed = j.public_entries(page(1, 10)).await;
                let (own, others, feed) = (own.unwrap(), others.unwrap(), feed.unwrap());
                assert_eq!(own.total, own.items.len() as u64, "{step}");
                assert_eq!(others.total, others.items.len() as u64, "{step}");
                assert_eq!(feed.total, feed.items.len() as u64, "{step}");
                (
                    titles(&own.items).join(","),
                    titles(&others.items).join(","),
                    titles(&feed.items).join(","),
                )
            }
        };
        // Ann's own first page: read once to keep it; each later read of it should be
        // served from memory on SQLite, whatever Ben writes.
        let ann_page = || j.user_entries(&ann, ann.user_id(), page(1, 10));
        // PostgreSQL's page caches are exact across servers by the database's snapshot,
        // which any write changes: only SQLite's keep what a write did not touch.
        let scoped = backend.name.starts_with("sqlite");
        let hits = || {
            scoped.then_some(())?;
            store
                .cache_counts()
                .into_iter()
                .find(|(name, _)| *name == "authorPages")
                .map(|(_, c)| c.hits)
        };
        assert_eq!(ann_page().await.unwrap().items.len(), 1);
        assert_eq!(
            seen("start").await,
            (String::new(), String::new(), "ann 1".into())
        );

        let public = j
            .create_entry(&ben, &entry("ben public", "text", true))
            .await
            .unwrap();
        assert_eq!(
            seen("a public entry").await,
            (
                "ben public".into(),
                "ben public".into(),
                "ben public,ann 1".into()
            )
        );
        let before = hits();
        let private = j
            .create_entry(&ben, &entry("ben private", "text", false))
            .await
            .unwrap();
        if let Some(before) = before {
            ann_page().await.unwrap();
            assert_eq!(hits(), Some(before + 1), "Ben's write kept Ann's page");
        }
        assert_eq!(
            seen("a private entry").await,
            (
                "ben private,ben public".into(),
                "ben public".into(),
                "ben public,ann 1".into()
            )
        );
        let hide = UpdateEntryRequest {
            is_public: Some(false),
            ..Default::default()
        };
        j.update_entry(&ben, &public.id, &hide).await.unwrap();
        assert_eq!(
            seen("made private").await,
            (
                "ben private,ben public".into(),
                String::new(),
                "ann 1".into()
            )
        );
        let show = UpdateEntryRequest {
            is_public: Some(true),
            title: Some("ben shown".into()),
            ..Default::default()
        };
        j.update_entry(&ben, &private.id, &show).await.unwrap();
        assert_eq!(
            seen("made public").await,
            (
                "ben shown,ben public".into(),
                "ben shown".into(),
                "ben shown,ann 1".into()
            )
        );
        j.delete_entry(&ben, &private.id).await.unwrap();
        assert_eq!(
            seen("deleted").await,
            ("ben public".into(), String::new(), "ann 1".into())
        );
        // A login writes only Ben's account: Ann's page stays in memory.
        let before = hits();
        j.login(&journal_core::api::LoginRequest {
            email: Some("ben@example.com".into()),
            password: Some("correct horse battery".into()),
            ..Default::default()
        })
        .await
        .unwrap();
        if let Some(before) = before {
            ann_page().await.unwrap();
            assert_eq!(hits(), Some(before + 1), "Ben's login kept Ann's page");
        }
        // Ben's profile made private: his entries leave the feed at once.
        j.update_entry(&ben, &public.id, &show).await.unwrap();
        assert_eq!(seen("shown again").await.2, "ben shown,ann 1");
        let private_profile = UpdateProfileRequest {
            is_private: Some(true),
            ..Default::default()
        };
        j.update_profile(&ben, &private_profile).await.unwrap();
        let feed = j.public_entries(page(1, 10)).await.unwrap();
        assert_eq!(titles(&feed.items), ["ann 1"]);
        assert_eq!(feed.total, 1);
    }
}

/// A token is checked against its account on every request; SQLite keeps that check
/// in memory between writes. The account's own entries do not change it, so a user
/// who writes keeps their token checked from memory, while a logout or a new password
/// shows at once.
#[tokio::test]
async fn tokens_stay_checked_from_memory_through_their_users_entries_and_not_past_their_account() {
    for backend in backends("token_checks").await {
        println!("token checks on {}", backend.name);
        let store = backend.store.clone();
        let j = journal(store.clone()).await;
        let (ann, token) = user(&j, "ann@example.com", "ann").await;
        let scoped = backend.name.starts_with("sqlite");
        let hits = || {
            store
                .cache_counts()
                .into_iter()
                .find(|(name, _)| *name == "authStates")
                .map(|(_, c)| c.hits)
        };
        j.authenticate(&token).await.unwrap();
        for n in 0..3 {
            let before = hits();
            j.create_entry(&ann, &entry(&format!("entry {n}"), "text", n % 2 == 0))
                .await
                .unwrap();
            let again = j.authenticate(&token).await.unwrap();
            assert_eq!(again.user_id(), ann.user_id());
            if scoped {
                assert_eq!(
                    hits(),
                    before.map(|h| h + 1),
                    "Ann's own entry kept her token's check in memory"
                );
            }
        }
        let page = j
            .user_entries(&ann, ann.user_id(), page(1, 10))
            .await
            .unwrap();
        assert_eq!(page.total, 3, "her entries show at once all the same");

        // A second token, then a new password: both tokens stop at once.
        let login = |password: &'static str| {
            let j = &j;
            async move {
                j.login(&LoginRequest {
                    email: Some("ann@example.com".into()),
                    password: Some(password.into()),
                    ..Default::default()
                })
                .await
            }
        };
        let second = login("correct horse battery").await.unwrap();
        j.authenticate(&second).await.unwrap();
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
        for stale in [&token, &second] {
            assert!(
                matches!(
                    j.authenticate(stale).await,
                    Err(Error::Unauthenticated(TokenRejection::Superseded))
                ),
                "a token from before the new password is refused at once"
            );
        }
        let token = login("a brand new passphrase").await.unwrap();
        let ann = j.authenticate(&token).await.unwrap();
        j.logout(&ann).await.unwrap();
        assert!(
            matches!(
                j.authenticate(&token).await,
                Err(Error::Unauthenticated(TokenRejection::Revoked))
            ),
            "a logout holds at once"
        );
    }
}

/// A create names its author by their nickname at that moment, and SQLite keeps the
/// account it reads for that in memory between writes to the account: a writer's
/// creates read it once, and a new nickname or password shows at once.
#[tokio::test]
async fn creates_name_their_author_as_the_account_is_now_read_from_memory_between_its_changes() {
    for backend in backends("account_reads").await {
        println!("account reads on {}", backend.name);
        let store = backend.store.clone();
        let j = journal(store.clone()).await;
        let (ann, _token) = user(&j, "ann@example.com", "ann").await;
        let scoped = backend.name.starts_with("sqlite");
        let hits = || {
            store
                .cache_counts()
                .into_iter()
                .find(|(name, _)| *name == "users")
                .map_or(0, |(_, c)| c.hits)
        };
        let first = j
            .create_entry(&ann, &entry("first", "text", true))
            .await
            .unwrap();
        assert_eq!(first.author_name, "ann");
        let before = hits();
        let second = j
            .create_entry(&ann, &entry("second", "text", false))
            .await
            .unwrap();
        assert_eq!(second.author_name, "ann");
        if scoped {
            assert_eq!(
                hits(),
                before + 1,
                "her own entry left her account in memory"
            );
        }

        j.update_profile(
            &ann,
            &UpdateProfileRequest {
                nickname: Some("annie".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert_eq!(j.profile(&ann).await.unwrap().nickname, "annie");
        let third = j
            .create_entry(&ann, &entry("third", "text", true))
            .await
            .unwrap();
        assert_eq!(third.author_name, "annie", "the new nickname at once");
        let stored = j.entry(&ann, &third.id).await.unwrap();
        assert_eq!(stored.author_name, "annie");

        // The password check reads the account too: the new password counts at once,
        // the old one no more.
        let change = |old: &str, new: &str| ChangePasswordRequest {
            password: Some(old.into()),
            new_password: Some(new.into()),
            ..Default::default()
        };
        j.change_password(
            &ann,
            &change("correct horse battery", "a brand new passphrase"),
        )
        .await
        .unwrap();
        assert!(
            j.change_password(
                &ann,
                &change("correct horse battery", "yet another passphrase")
            )
            .await
            .is_err(),
            "the old password no longer counts"
        );
        j.change_password(
            &ann,
            &change("a brand new passphrase", "yet another passphrase"),
        )
        .await
        .unwrap();
    }
}

/// The feed's total is kept from many writers at once (on PostgreSQL, as deltas
/// appended beside each write and folded now and then): entries written by several
/// authors concurrently, while one of them turns their profile private and public
/// again and again, leave a total equal to the entries a client can page through,
/// before and after the deltas are folded.
#[tokio::test]
async fn the_feed_total_stays_exact_under_concurrent_writes_and_privacy_changes() {
    for backend in backends("feed_total_concurrent").await {
        println!("concurrent feed total on {}", backend.name);
        let j = journal(backend.store.clone()).await;
        let mut authors = Vec::new();
        for i in 0..4 {
            authors.push(
                user(&j, &format!("w{i}@example.com"), &format!("w{i}"))
                    .await
                    .0,
            );
        }
        let mut writers = tokio::task::JoinSet::new();
        for (i, author) in authors.iter().enumerate() {
            let (j, author) = (j.clone(), author.clone());
            writers.spawn(async move {
                for n in 0..15 {
                    let e = j
                        .create_entry(&author, &entry(&format!("w{i} {n}"), "text", n % 3 != 0))
                        .await
                        .unwrap();
                    if n % 5 == 4 {
                        j.delete_entry(&author, &e.id).await.unwrap();
                    }
                }
            });
        }
        let toggler = authors[0].clone();
        let toggles = {
            let j = j.clone();
            tokio::spawn(async move {
                for n in 0..20 {
                    let change = UpdateProfileRequest {
                        is_private: Some(n % 2 == 0),
                        ..Default::default()
                    };
                    j.update_profile(&toggler, &change).await.unwrap();
                }
            })
        };
        while let Some(done) = writers.join_next().await {
            done.unwrap();
        }
        toggles.await.unwrap();
        // 4 authors × 15 entries, 3 deleted each, 2 of every 3 public; the toggler
        // ends public.
        let (total, seen) = walk(&j, &authors[1], None).await;
        assert_eq!(total, seen as u64, "feed total before folding");
        assert_eq!(total, 4 * 8, "public entries kept: {total}");
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let (total, seen) = walk(&j, &authors[1], None).await;
        assert_eq!(total, seen as u64, "feed total after folding");
        assert_eq!(total, 4 * 8);
    }
}

/// Searches stay exact through bursts of concurrent writes and the pauses between them:
/// on SQLite each burst's commits leave index segments that the writer merges while
/// idle (`fts_merge.rs`), so a search may run before, during or after those merges.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_stays_exact_through_bursts_of_writes_and_the_merges_after() {
    for backend in backends("search_through_bursts").await {
        println!("bursts on {}", backend.name);
        let j = std::sync::Arc::new(journal(backend.store.clone()).await);
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let mut plums = Vec::new();
        for burst in 0..4 {
            let mut writes = tokio::task::JoinSet::new();
            for k in 0..60 {
                let (j, ann) = (j.clone(), ann.clone());
                writes.spawn(async move {
                    let word = if k % 4 == 0 { "plum" } else { "fig" };
                    let body = format!("burst {burst} note {k} about a {word} tree");
                    let new = entry(&format!("b{burst}k{k}"), &body, false);
                    (word, j.create_entry(&ann, &new).await.expect("create").id)
                });
            }
            while let Some(done) = writes.join_next().await {
                let (word, id) = done.expect("write");
                if word == "plum" {
                    plums.push(id);
                }
            }
            let found = j.search(&ann, "plum", page(1, 100)).await.unwrap();
            assert_eq!(found.total, plums.len() as u64, "right after burst {burst}");
            if burst % 2 == 1 {
                // A pause: the writer is idle and merges.
                tokio::time::sleep(std::time::Duration::from_millis(400)).await;
            }
        }
        // Half the plums go; the index forgets exactly those.
        for id in plums.drain(..plums.len() / 2) {
            j.delete_entry(&ann, &id).await.unwrap();
        }
        for _ in 0..2 {
            let found = j.search(&ann, "plum", page(1, 100)).await.unwrap();
            let mut got: Vec<EntryId> = found.items.iter().map(|e| e.id).collect();
            got.sort();
            let mut want = plums.clone();
            want.sort();
            assert_eq!(got, want, "after the deletes");
            assert_eq!(j.search(&ann, "fig", page(1, 1)).await.unwrap().total, 180);
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        }
    }
}

/// Creates, updates and deletes sent at once share write batches (SQLite indexes a
/// batch's new entries for search just before it commits): each search still finds
/// exactly the entries whose text holds the word now, then and after the merges.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_stays_exact_when_creates_updates_and_deletes_share_a_batch() {
    for backend in backends("search_mixed_batches").await {
        println!("mixed batches on {}", backend.name);
        let j = std::sync::Arc::new(journal(backend.store.clone()).await);
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let mut apples = Vec::new();
        for k in 0..40 {
            let new = entry(&format!("a{k}"), "an apple a day", k % 2 == 0);
            apples.push(j.create_entry(&ann, &new).await.unwrap().id);
        }
        let mut writes = tokio::task::JoinSet::new();
        for k in 0..40 {
            let (j, ann) = (j.clone(), ann.clone());
            writes.spawn(async move {
                let new = entry(&format!("p{k}"), "a pear on the table", k % 3 == 0);
                j.create_entry(&ann, &new).await.map(|_| ())
            });
        }
        for (k, id) in apples.iter().copied().enumerate().take(30) {
            let (j, ann) = (j.clone(), ann.clone());
            writes.spawn(async move {
                if k < 20 {
                    let change = UpdateEntryRequest {
                        content: Some(format!("a quince, once apple number {k}")),
                        ..Default::default()
                    };
                    j.update_entry(&ann, &id, &change).await.map(|_| ())
                } else {
                    j.delete_entry(&ann, &id).await
                }
            });
        }
        while let Some(done) = writes.join_next().await {
            done.expect("task").expect("write");
        }
        for pass in 0..2 {
            let count = |word: &'static str| {
                let (j, ann) = (j.clone(), ann.clone());
                async move { j.search(&ann, word, page(1, 1)).await.unwrap().total }
            };
            assert_eq!(count("pear").await, 40, "pass {pass}");
            assert_eq!(count("quince").await, 20, "pass {pass}");
            // Ten untouched, and the twenty updated still name an apple.
            assert_eq!(count("apple").await, 30, "pass {pass}");
            assert_eq!(count("day").await, 10, "pass {pass}");
            // A pause: the writer is idle and merges.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        }
    }
}

/// Two accounts whose ids differ only in their first bytes (PostgreSQL's search index
/// scopes words by the last bytes of the author's id, see its migration 9) each find
/// their own entries only, and exact totals, searched one after the other or at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn authors_whose_ids_share_their_last_bytes_find_only_their_own_entries() {
    use journal_core::store::UserRecord;

    for backend in backends("search_scope_shared").await {
        println!("shared scope on {}", backend.name);
        let store = backend.store.clone();
        let j = std::sync::Arc::new(journal(store.clone()).await);
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        // Bob: Ann's record under another e-mail, with an id that only differs from
        // hers in its first byte (and so the same password).
        let ann_record = store.user_by_id(ann.user_id()).await.unwrap().unwrap();
        let mut bytes = *ann.user_id().as_uuid().as_bytes();
        bytes[0] ^= 0x5a;
        let mut bob_record: UserRecord = ann_record.clone();
        bob_record.profile.id = UserId::from_uuid(uuid::Uuid::from_bytes(bytes));
        bob_record.profile.email = "bob@example.com".into();
        bob_record.profile.nickname = "bob".into();
        store.insert_user(&bob_record).await.unwrap();
        let token = j
            .login(&LoginRequest {
                email: Some("bob@example.com".into()),
                password: Some("correct horse battery".into()),
                ..Default::default()
            })
            .await
            .expect("bob logs in");
        let bob = j.authenticate(&token).await.unwrap();
        assert_ne!(bob.user_id(), ann.user_id());

        for k in 0..9 {
            let word = if k % 3 == 0 { "apple" } else { "apricot" };
            let new = entry(
                &format!("ann {k}"),
                &format!("ann's {word} tree"),
                k % 2 == 0,
            );
            j.create_entry(&ann, &new).await.unwrap();
        }
        for k in 0..5 {
            let new = entry(&format!("bob {k}"), "bob's apple pie", k % 2 == 0);
            j.create_entry(&bob, &new).await.unwrap();
        }
        // Each search: caller, words, expected total, and whose titles.
        let searches = [
            (ann.clone(), "apple", 3, "ann"),
            (ann.clone(), "apr", 6, "ann"),
            (ann.clone(), "pie", 0, "ann"),
            (bob.clone(), "apple", 5, "bob"),
            (bob.clone(), "apricot", 0, "bob"),
            (bob.clone(), "pie", 5, "bob"),
        ];
        let mut at_once = tokio::task::JoinSet::new();
        for round in 0..4 {
            for (caller, words, total, owner) in searches.clone() {
                let j = j.clone();
                at_once.spawn(async move {
                    let found = j.search(&caller, words, page(1, 20)).await.unwrap();
                    assert_eq!(
                        found.total, total,
                        "{owner} searching {words}, round {round}"
                    );
                    assert_eq!(found.items.len() as u64, total);
                    assert!(
                        found.items.iter().all(|e| e.title.starts_with(owner)
                            && e.author_id == *caller.user_id()),
                        "{owner} searching {words}: {:?}",
                        titles(&found.items)
                    );
                });
            }
            if round == 0 {
                // The first round one search at a time.
                while let Some(done) = at_once.join_next().await {
                    done.expect("search");
                }
            }
        }
        while let Some(done) = at_once.join_next().await {
            done.expect("search");
        }
    }
}

/// The page after a `Link` cursor continues the list exactly where the page that gave
/// the cursor ended, whatever was written in between: served from memory when it
/// continues a kept first page and nothing was written (PostgreSQL's page caches), read
/// afresh otherwise. Own list, another reader's view and the feed.
#[tokio::test]
async fn pages_after_a_cursor_continue_the_list_through_every_write() {
    use journal_core::Cursor;

    for backend in backends("cursor_pages").await {
        println!("cursor pages on {}", backend.name);
        let store = backend.store.clone();
        let j = journal(store.clone()).await;
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let (ben, _) = user(&j, "ben@example.com", "ben").await;
        let mut ids = Vec::new();
        for k in 0..25 {
            let new = entry(&format!("ann {k:02}"), "text", k % 5 != 0);
            ids.push(j.create_entry(&ann, &new).await.unwrap().id);
        }
        let after = |items: &[journal_core::Entry]| {
            let last = items.last().expect("a full page");
            page(1, 8).continuing(Some(Cursor::new(last.date, last.id)))
        };
        // The three lists: Ann's own, Ann's as Ben sees it, the feed.
        let read = |k: usize, p: PageRequest| {
            let (j, ann, ben) = (&j, &ann, &ben);
            async move {
                match k {
                    0 => j.user_entries(ann, ann.user_id(), p).await,
                    1 => j.user_entries(ben, ann.user_id(), p).await,
                    _ => j.public_entries(p).await,
                }
                .unwrap()
            }
        };
        let lists =
            |p: PageRequest| async move { [read(0, p).await, read(1, p).await, read(2, p).await] };
        let hits = || {
            store
                .cache_counts()
                .into_iter()
                .filter(|(name, _)| ["feedPages", "authorPages"].contains(name))
                .map(|(_, c)| c.hits)
                .sum::<u64>()
        };

        let first = lists(page(1, 8)).await;
        let second = lists(page(2, 8)).await;
        for (k, list) in first.iter().enumerate() {
            let next = read(k, after(&list.items)).await;
            assert_eq!(titles(&next.items), titles(&second[k].items), "list {k}");
            assert_eq!(next.total, second[k].total, "list {k}");
        }
        if backend.name == "postgres" {
            // Served from memory while nothing is written. Any write in the database
            // (another test's too) empties PostgreSQL's caches: a few tries.
            let mut from_memory = false;
            for _ in 0..50 {
                lists(page(1, 8)).await;
                lists(page(2, 8)).await;
                let before = hits();
                for (k, list) in first.iter().enumerate() {
                    read(k, after(&list.items)).await;
                }
                if hits() == before + 3 {
                    from_memory = true;
                    break;
                }
            }
            assert!(from_memory, "the second pages came from memory");
        }

        // A new entry on top, one of page 2 deleted, one of page 2 made private: the
        // pages after the old cursors are exactly what follows them now.
        j.create_entry(&ann, &entry("ann new", "text", true))
            .await
            .unwrap();
        j.delete_entry(&ann, &ids[14]).await.unwrap();
        let hide = UpdateEntryRequest {
            is_public: Some(false),
            ..Default::default()
        };
        j.update_entry(&ann, &ids[13], &hide).await.unwrap();
        for round in 0..2 {
            let now = lists(page(1, 100)).await;
            for (k, list) in first.iter().enumerate() {
                let next = read(k, after(&list.items)).await;
                let last = list.items.last().unwrap();
                let follows: Vec<&str> = now[k]
                    .items
                    .iter()
                    .filter(|e| (e.date, e.id) < (last.date, last.id))
                    .take(8)
                    .map(|e| e.title.as_str())
                    .collect();
                assert_eq!(titles(&next.items), follows, "list {k}, round {round}");
                assert_eq!(next.total, now[k].total, "list {k}, round {round}");
                assert!(!titles(&next.items).contains(&"ann 14"));
            }
            // The first pages kept anew, and their cursors followed.
            for (k, list) in lists(page(1, 8)).await.iter().enumerate() {
                let next = read(k, after(&list.items)).await;
                assert_eq!(next.items, read(k, page(2, 8)).await.items, "list {k}");
            }
        }
    }
}

/// Words no index expects: one of 2,040 characters (about the longest PostgreSQL's
/// `tsvector` keeps) is stored and found by its beginning, a word with a character the
/// database splits it on (`H₂O`) is found as written, not as its pieces anywhere in an
/// entry, and one with a letter that folds to punctuation (`donʼt`) is found.
#[tokio::test]
async fn long_and_split_words_are_stored_and_found_as_written() {
    for backend in backends("odd_words").await {
        println!("odd words on {}", backend.name);
        let j = journal(backend.store.clone()).await;
        let (ann, _) = user(&j, "ann@example.com", "ann").await;
        let long = "ab".repeat(1_020);
        let made = j
            .create_entry(&ann, &entry("long", &format!("a {long} word"), false))
            .await
            .expect("an entry with a 2,040-character word");
        let found = j.search(&ann, &long[..64], page(1, 10)).await.unwrap();
        assert_eq!(titles(&found.items), ["long"], "by its beginning");
        j.create_entry(&ann, &entry("water", "H₂O is water", false))
            .await
            .unwrap();
        j.create_entry(&ann, &entry("fruit", "have a nice orange", false))
            .await
            .unwrap();
        let found = j.search(&ann, "H₂O", page(1, 10)).await.unwrap();
        assert_eq!(titles(&found.items), ["water"]);
        assert_eq!(found.total, 1);
        // A letter that PostgreSQL's unaccent turns into an apostrophe.
        j.create_entry(&ann, &entry("apostrophe", "I donʼt know", false))
            .await
            .unwrap();
        let found = j
            .search(&ann, "donʼt", page(1, 10))
            .await
            .expect("no error");
        assert_eq!(titles(&found.items), ["apostrophe"]);
        j.delete_entry(&ann, &made.id).await.unwrap();
        assert_eq!(
            j.search(&ann, &long[..64], page(1, 10))
                .await
                .unwrap()
                .total,
            0
        );
    }
}
