//! Pages after a `Link` cursor, through every kind of write.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::{page, titles};
use journal_core::PageRequest;
use journal_core::api::UpdateEntryRequest;

/// The page after a `Link` cursor continues the list exactly where the page that gave
/// the cursor ended, whatever was written in between: served from memory when it
/// continues a kept first page and nothing was written (PostgreSQL's page caches), read
/// afresh otherwise. Own list, another reader's view and the feed.
async fn pages_after_a_cursor_continue_the_list_through_every_write(backend: Backend) {
    use journal_core::Cursor;

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
on_every_backend!(pages_after_a_cursor_continue_the_list_through_every_write);
