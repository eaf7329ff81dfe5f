//! Lists: pages and cursors cover a list exactly once, newest first, and concurrent
//! writers lose nothing.

use std::sync::Arc;

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::{futures_join, page};
use journal_core::Error;
use journal_core::domain::PageRequest;

async fn pages_cover_the_list_exactly_once_newest_first(b: Backend) {
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    for i in 0..25 {
        j.create_entry(&me, &entry(&format!("entry {i:02}"), "word", i % 2 == 0))
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    for p in 1..=3 {
        let got = j
            .user_entries(&me, me.user_id(), page(p, 10))
            .await
            .unwrap();
        assert_eq!(got.total, 25);
        assert_eq!(got.items.len(), if p == 3 { 5 } else { 10 }, "{}", b.name);
        assert_eq!(got.has_next(), p < 3);
        assert_eq!(got.has_prev(), p > 1);
        seen.extend(got.items.into_iter().map(|e| e.title));
    }
    let expected: Vec<String> = (0..25).rev().map(|i| format!("entry {i:02}")).collect();
    assert_eq!(seen, expected, "{}", b.name);
    let empty = j
        .user_entries(&me, me.user_id(), page(4, 10))
        .await
        .unwrap();
    assert!(empty.items.is_empty());
    assert_eq!(empty.total, 25);
    let all = j
        .user_entries(&me, me.user_id(), page(1, 100))
        .await
        .unwrap();
    assert_eq!(all.items.len(), 25);
    let feed = j.public_entries(page(2, 5)).await.unwrap();
    assert_eq!(feed.total, 13);
    assert_eq!(feed.items.len(), 5);
    assert_eq!(feed.items[0].title, "entry 14");
    let searched = j.search(&me, "word", page(3, 10)).await.unwrap();
    assert_eq!((searched.total, searched.items.len()), (25, 5));
}
on_every_backend!(pages_cover_the_list_exactly_once_newest_first);

async fn concurrent_entry_creation_loses_nothing(b: Backend) {
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let me = Arc::new(me);
    let writers = (0..16).map(|w| {
        let (j, me) = (j.clone(), me.clone());
        tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in 0..10 {
                let e = j
                    .create_entry(&me, &entry(&format!("w{w} e{i}"), "body", false))
                    .await
                    .unwrap();
                ids.push(e.id);
            }
            ids
        })
    });
    let created: Vec<_> = futures_join(writers).await.into_iter().flatten().collect();
    assert_eq!(created.len(), 160);
    let listed = j
        .user_entries(&me, me.user_id(), page(1, 100))
        .await
        .unwrap();
    assert_eq!(listed.total, 160, "{}", b.name);
    for id in &created {
        assert!(j.entry(&me, id).await.is_ok());
    }
}
on_every_backend!(concurrent_entry_creation_loses_nothing);

async fn following_cursors_walks_the_same_list_as_page_numbers(b: Backend) {
    use journal_core::Cursor;
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    // Several entries share a millisecond: the id breaks the tie, as in ORDER BY.
    let mut imported = Vec::new();
    for i in 0..23 {
        imported.push(journal_core::ImportedEntry {
            id: None,
            request: entry(&format!("e{i:02}"), "", i % 3 != 0),
            created_at: journal_core::Timestamp::from_millis(1_700_000_000_000 + (i / 4) * 1000),
            updated_at: None,
            author_name: None,
            revisions: Vec::new(),
            deleted_at: None,
        });
    }
    j.import_entries(&me, imported).await.unwrap();

    let list = |which: &'static str, p: PageRequest| {
        let (j, me, other) = (j.clone(), me.clone(), other.clone());
        async move {
            match which {
                "own" => j.user_entries(&me, me.user_id(), p).await.unwrap(),
                "others' view" => j.user_entries(&other, me.user_id(), p).await.unwrap(),
                _ => j.public_entries(p).await.unwrap(),
            }
        }
    };
    for name in ["own", "others' view", "feed"] {
        let mut by_number = Vec::new();
        let mut by_cursor = Vec::new();
        let mut cursor = None;
        for n in 1..=5 {
            let numbered = list(name, page(n, 5)).await;
            by_number.extend(numbered.items.iter().map(|e| e.id));
            let followed = list(name, page(n, 5).continuing(cursor)).await;
            assert_eq!(followed.total, numbered.total, "{} {name}", b.name);
            cursor = followed
                .items
                .last()
                .map(|e| Cursor::new(e.created_at, e.id));
            by_cursor.extend(followed.items.iter().map(|e| e.id));
        }
        assert!(!by_number.is_empty());
        assert_eq!(by_cursor, by_number, "{} {name}", b.name);
    }
    let parsed = Cursor::parse(
        &Cursor::new(
            journal_core::Timestamp::from_millis(5),
            journal_core::EntryId::generate(),
        )
        .to_string(),
    );
    assert!(parsed.is_ok());
    assert!(Cursor::parse("garbage").is_err());
    let id = journal_core::EntryId::generate();
    // Entries may be dated from 1900 (imports), so their cursors are too.
    assert!(Cursor::parse(&format!("-1_{id}")).is_ok(), "1969");
    assert!(
        Cursor::parse(&format!("-2208988800001_{id}")).is_err(),
        "before 1900"
    );
    assert!(
        Cursor::parse(&format!("99999999999999999_{id}")).is_err(),
        "after 9999"
    );
    assert!(matches!(
        j.search(&me, "e01", page(1, 5).continuing(parsed.ok()))
            .await,
        Err(Error::Validation(_))
    ));
}
on_every_backend!(following_cursors_walks_the_same_list_as_page_numbers);

/// The anonymous reads: an author's public profile, their public entries and one
/// public entry. A private entry, an entry in the trash, a private profile and an
/// unknown id are all the same `NotFound`, and a profile made private again hides
/// everything at once.
async fn public_reads_show_only_public_entries_of_public_profiles(b: Backend) {
    use journal_core::api::UpdateProfileRequest;
    use journal_core::{EntryFilter, UserId};
    let j = journal(b.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (ben, _) = user(&j, "ben@example.com", "ben").await;
    let shown = j
        .create_entry(&ann, &entry("shown", "hello", true))
        .await
        .unwrap();
    let hidden = j
        .create_entry(&ann, &entry("hidden", "secret", false))
        .await
        .unwrap();
    let trashed = j
        .create_entry(&ann, &entry("trashed", "gone", true))
        .await
        .unwrap();
    j.delete_entry(&ann, &trashed.id).await.unwrap();
    j.create_entry(&ben, &entry("ben's", "other", true))
        .await
        .unwrap();

    let profile = j.public_profile(ann.user_id()).await.unwrap();
    assert_eq!(
        (profile.id, profile.nickname.as_str()),
        (*ann.user_id(), "ann")
    );
    let json = serde_json::to_value(&profile).unwrap();
    let mut keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["_id", "fullName", "nickname", "profilePic"],
        "no e-mail, role or flag"
    );

    let listed = j
        .public_author_entries(ann.user_id(), &EntryFilter::default(), page(1, 10))
        .await
        .unwrap();
    let titles: Vec<_> = listed.items.iter().map(|e| e.title.as_str()).collect();
    assert_eq!((titles, listed.total), (vec!["shown"], 1), "{}", b.name);
    assert_eq!(j.public_entry(&shown.id).await.unwrap().content, "hello");
    for id in [&hidden.id, &trashed.id] {
        assert!(
            matches!(
                j.public_entry(id).await,
                Err(Error::NotFound { kind: "entry" })
            ),
            "{}",
            b.name
        );
    }
    let unknown = UserId::generate();
    assert!(matches!(
        j.public_profile(&unknown).await,
        Err(Error::NotFound { .. })
    ));

    let private = UpdateProfileRequest {
        is_private: Some(true),
        ..Default::default()
    };
    j.update_profile(&ann, &private).await.unwrap();
    assert!(matches!(
        j.public_profile(ann.user_id()).await,
        Err(Error::NotFound { kind: "user" })
    ));
    assert!(matches!(
        j.public_author_entries(ann.user_id(), &EntryFilter::default(), page(1, 10))
            .await,
        Err(Error::NotFound { kind: "user" })
    ));
    assert!(matches!(
        j.public_entry(&shown.id).await,
        Err(Error::NotFound { kind: "entry" })
    ));
    // Ben's are untouched.
    assert_eq!(
        j.public_profile(ben.user_id()).await.unwrap().nickname,
        "ben"
    );
}
on_every_backend!(public_reads_show_only_public_entries_of_public_profiles);
