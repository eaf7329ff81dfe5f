//! The change feed `journal sync` reads, told once for every backend: each changed
//! entry once, in the order of its last change, in its state now (live, trashed,
//! purged) with the revisions made since the sync began; pages that resume where they
//! stopped; only the caller's own entries; and a cursor of another database, or ahead
//! of this one, refused.

use std::time::Duration;

use journal_core::api::UpdateEntryRequest;
use journal_core::domain::SyncCursor;
use journal_core::store::{FEED_PAGE_BYTES, FEED_REVISIONS_PER_CHANGE};
use journal_core::{Caller, ChangePage, ChangeState, EntryId, Error, Journal};

use super::common::{Backend, entry, journal, on_every_backend, user};

/// Every page of `caller`'s feed from `since` to the end, `limit` at a time.
async fn read_all(
    j: &Journal,
    caller: &Caller,
    since: Option<SyncCursor>,
    limit: u32,
) -> (Vec<ChangePage>, SyncCursor) {
    let mut pages = Vec::new();
    let mut cursor = since;
    loop {
        let page = j.changes(caller, cursor.as_ref(), limit).await.unwrap();
        cursor = Some(page.cursor.clone());
        let more = page.more;
        pages.push(page);
        if !more {
            return (pages, cursor.unwrap());
        }
    }
}

fn ids_and_states(page: &ChangePage) -> Vec<(EntryId, &'static str)> {
    page.changes
        .iter()
        .map(|c| {
            let state = match c.state {
                ChangeState::Live { .. } => "live",
                ChangeState::Trashed { .. } => "trashed",
                ChangeState::Purged { .. } => "purged",
            };
            (c.id, state)
        })
        .collect()
}

fn revision_numbers(page: &ChangePage, id: &EntryId) -> Vec<u32> {
    page.changes
        .iter()
        .filter(|c| c.id == *id)
        .flat_map(|c| c.revisions.iter().map(|r| r.revision))
        .collect()
}

fn edit(content: &str) -> UpdateEntryRequest {
    UpdateEntryRequest {
        content: Some(content.into()),
        ..Default::default()
    }
}

async fn the_change_feed_holds_on_every_backend(backend: Backend) {
    println!("change feed story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;

    // A new account's feed is empty, and its cursor works.
    let (pages, empty) = read_all(&j, &ann, None, 100).await;
    assert!(pages[0].changes.is_empty());
    assert_eq!(empty.position(), 0);

    let a = j
        .create_entry(&ann, &entry("A", "one", false))
        .await
        .unwrap();
    let b = j
        .create_entry(&ann, &entry("B", "two", true))
        .await
        .unwrap();
    let c = j
        .create_entry(&ann, &entry("C", "three", false))
        .await
        .unwrap();
    let x = j
        .create_entry(&bob, &entry("X", "bob's", true))
        .await
        .unwrap();

    // From the beginning: Ann's three entries in the order they were made, each with
    // its first revision; nothing of Bob's.
    let (pages, first) = read_all(&j, &ann, Some(empty.clone()), 100).await;
    assert_eq!(pages.len(), 1);
    assert_eq!(
        ids_and_states(&pages[0]),
        vec![(a.id, "live"), (b.id, "live"), (c.id, "live")]
    );
    assert_eq!(revision_numbers(&pages[0], &a.id), vec![1]);
    let ChangeState::Live { entry: got } = &pages[0].changes[0].state else {
        panic!("A is live");
    };
    assert_eq!(got, &a);
    assert_eq!(pages[0].changes[0].revisions[0].id, a.revision_id);
    let (bobs, _) = read_all(&j, &bob, None, 100).await;
    assert_eq!(ids_and_states(&bobs[0]), vec![(x.id, "live")]);

    // Pages of one: the same changes, resumed where each page stopped.
    let (pages, by_one) = read_all(&j, &ann, None, 1).await;
    let paged: Vec<_> = pages.iter().flat_map(ids_and_states).collect();
    assert_eq!(paged, vec![(a.id, "live"), (b.id, "live"), (c.id, "live")]);
    assert_eq!(by_one.position(), first.position());

    // Nothing new: an empty page, the cursor where it was.
    let (pages, same) = read_all(&j, &ann, Some(first.clone()), 100).await;
    assert!(pages[0].changes.is_empty());
    assert_eq!(same.position(), first.position());

    // Edits, a delete, a purge and a new entry: each changed entry once, in the order
    // of its last change, with only the revisions made since.
    j.update_entry(&ann, &a.id, &edit("one, edited"))
        .await
        .unwrap();
    j.update_entry(&ann, &a.id, &edit("one, edited again"))
        .await
        .unwrap();
    j.delete_entry(&ann, &b.id).await.unwrap();
    j.delete_entry(&ann, &c.id).await.unwrap();
    j.purge(&ann, &c.id).await.unwrap();
    let d = j
        .create_entry(&ann, &entry("D", "four", false))
        .await
        .unwrap();
    let (pages, second) = read_all(&j, &ann, Some(first.clone()), 100).await;
    assert_eq!(
        ids_and_states(&pages[0]),
        vec![
            (a.id, "live"),
            (b.id, "trashed"),
            (c.id, "purged"),
            (d.id, "live")
        ]
    );
    assert_eq!(revision_numbers(&pages[0], &a.id), vec![2, 3]);
    assert!(revision_numbers(&pages[0], &c.id).is_empty());
    match &pages[0].changes[1].state {
        ChangeState::Trashed { entry, .. } => assert_eq!(entry.title, "B"),
        other => panic!("B is in the trash: {other:?}"),
    }
    assert!(second.position() > first.position());

    // An entry written again while a sync reads page after page moves past the page
    // it was on; it comes later with every revision made since the sync began.
    let page = j.changes(&ann, None, 1).await.unwrap();
    assert!(page.more);
    j.update_entry(&ann, &a.id, &edit("one, the fourth"))
        .await
        .unwrap();
    let (rest, _) = read_all(&j, &ann, Some(page.cursor.clone()), 1).await;
    let later: Vec<u32> = rest
        .iter()
        .flat_map(|p| revision_numbers(p, &a.id))
        .collect();
    assert_eq!(later, vec![1, 2, 3, 4], "A again, with its whole history");

    // Restored from the trash: live again.
    j.untrash(&ann, &b.id).await.unwrap();
    let (pages, _) = read_all(&j, &ann, Some(second.clone()), 100).await;
    assert_eq!(
        ids_and_states(&pages[0]),
        vec![(a.id, "live"), (b.id, "live")]
    );

    // The trash's own purge leaves tombstones too.
    j.delete_entry(&ann, &d.id).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(j.purge_expired_trash(Duration::ZERO).await.unwrap(), 1);
    let (pages, _) = read_all(&j, &ann, Some(second.clone()), 100).await;
    let states = ids_and_states(&pages[0]);
    assert_eq!(states.last(), Some(&(d.id, "purged")), "{states:?}");

    // A cursor of another database, or ahead of this one, is refused: start over.
    let other = SyncCursor::new("0123456789abcdef0123456789abcdef", 0, 1);
    let ahead = SyncCursor::new(second.epoch(), 0, second.position() + 1_000);
    for cursor in [other, ahead] {
        let refused = j.changes(&ann, Some(&cursor), 100).await;
        assert!(matches!(refused, Err(Error::Conflict(_))), "{refused:?}");
    }
    // Bob's cursor is his: with it, Ann reads her own changes, never his.
    let (bob_pages, bob_cursor) = read_all(&j, &bob, None, 100).await;
    assert_eq!(bob_pages[0].changes.len(), 1);
    if let Ok(page) = j.changes(&ann, Some(&bob_cursor), 100).await {
        assert!(page.changes.iter().all(|c| c.id != x.id));
    }

    // A page holds 1 to 100 changes.
    for limit in [0, 101] {
        let refused = j.changes(&ann, None, limit).await;
        assert!(matches!(refused, Err(Error::Validation(_))), "{refused:?}");
    }

    // Past the sync lease the purges are forgotten: a cursor from before one is refused
    // (the replica starts over), a cursor after them and a fresh start read on.
    let (_, now) = read_all(&j, &ann, None, 100).await;
    assert_eq!(j.forget_purges(Duration::from_secs(3600)).await.unwrap(), 0);
    tokio::time::sleep(Duration::from_millis(5)).await;
    let forgotten = j.forget_purges(Duration::ZERO).await.unwrap();
    assert!(forgotten >= 2, "{forgotten}");
    let refused = j.changes(&ann, Some(&second), 100).await;
    assert!(matches!(refused, Err(Error::Conflict(_))), "{refused:?}");
    assert!(j.changes(&ann, Some(&now), 100).await.is_ok());
    let (pages, _) = read_all(&j, &ann, None, 100).await;
    let states: Vec<_> = pages.iter().flat_map(ids_and_states).collect();
    assert!(states.iter().all(|(_, s)| *s != "purged"), "{states:?}");
    assert!(states.contains(&(a.id, "live")), "{states:?}");
    // Bob purged nothing: his cursor still reads.
    assert!(j.changes(&bob, Some(&bob_cursor), 100).await.is_ok());
}
on_every_backend!(the_change_feed_holds_on_every_backend);

/// Whatever an account holds, a page's size is bounded: an entry edited more often
/// than a page carries comes with its newest revisions (its older ones stay on the
/// server, as a pruned history), and a page ends early past its bytes of text.
async fn a_page_of_the_feed_is_bounded_on_every_backend(backend: Backend) {
    println!("change feed bounds on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let edited = j
        .create_entry(&ann, &entry("Often", "0", false))
        .await
        .unwrap();
    let edits = FEED_REVISIONS_PER_CHANGE + 5;
    for n in 1..edits {
        j.update_entry(&ann, &edited.id, &edit(&n.to_string()))
            .await
            .unwrap();
    }
    let page = j.changes(&ann, None, 100).await.unwrap();
    let numbers = revision_numbers(&page, &edited.id);
    let newest: Vec<u32> = (edits - FEED_REVISIONS_PER_CHANGE + 1..=edits).collect();
    assert_eq!(numbers, newest);

    // Entries of 100,000 characters: each change carries two whole texts (the entry
    // and its revision), so a page of 100 would be 20 MB; it ends at about 8 MiB.
    let long = "x".repeat(100_000);
    let count = 60;
    for n in 0..count {
        j.create_entry(&ann, &entry(&format!("Long {n}"), &long, false))
            .await
            .unwrap();
    }
    let (pages, _) = read_all(&j, &ann, None, 100).await;
    let largest = pages
        .iter()
        .map(|p| serde_json::to_vec(p).unwrap().len())
        .max()
        .unwrap();
    assert!(pages.len() >= 2, "{} pages", pages.len());
    assert!(largest <= FEED_PAGE_BYTES + 300_000, "{largest} bytes");
    let all: usize = pages.iter().map(|p| p.changes.len()).sum();
    assert_eq!(all, count + 1, "every change, over the pages");
}
on_every_backend!(a_page_of_the_feed_is_bounded_on_every_backend);
