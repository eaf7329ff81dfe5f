//! History and the trash, told once for every backend: every change records a
//! revision whose state can be read back (across the snapshots the store keeps), a
//! stale `If-Match` changes nothing, only the author reads history, a restore is a new
//! revision, and a deleted entry leaves every list and search until it comes back whole
//! or is purged with its history.

use std::time::Duration;

use journal_core::api::UpdateEntryRequest;
use journal_core::store::SNAPSHOT_EVERY;
use journal_core::{EditedVia, Error, RevisionId};

use super::common::{Backend, entry, journal, on_every_backend, user};
use super::page;

fn text_of(n: u32) -> String {
    // A long text with one word changed per revision: the stored deltas are small, and
    // rebuilding any revision must still give back every word.
    let mut words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    words[(n as usize * 7) % 400] = format!("edit{n}");
    words.join(" ")
}

async fn history_and_trash_hold_on_every_backend(backend: Backend) {
    println!("history story on {}", backend.name);
    let store = backend.store.clone();
    let j = journal(store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;

    let mut create = entry("Day", &text_of(1), true);
    create.tags = Some(vec!["garden".into()]);
    create.starred = Some(true);
    let made = j.create_entry(&ann, &create).await.unwrap();
    assert_eq!(made.revision, 1);

    // Past two snapshots, each save naming the revision it was made from.
    let last = 2 * SNAPSHOT_EVERY + 5;
    let mut ids = vec![made.revision_id];
    for n in 2..=last {
        let change = UpdateEntryRequest {
            content: Some(text_of(n)),
            ..Default::default()
        };
        let saved = j
            .update_entry_if(&ann, &made.id, &change, ids.last().copied())
            .await
            .unwrap();
        assert_eq!(saved.revision, n);
        ids.push(saved.revision_id);
    }

    // A save from an old revision is refused and changes nothing.
    let stale = UpdateEntryRequest {
        content: Some("overwrites".into()),
        ..Default::default()
    };
    let refused = j
        .update_entry_if(&ann, &made.id, &stale, Some(ids[0]))
        .await;
    match refused {
        Err(Error::Stale {
            revision,
            revision_id,
        }) => {
            assert_eq!(revision, last);
            assert_eq!(revision_id, ids[last as usize - 1].to_string());
        }
        other => panic!("a stale If-Match: {other:?}"),
    }
    let now = j.entry(&ann, &made.id).await.unwrap();
    assert_eq!((now.revision, now.content.clone()), (last, text_of(last)));
    // So is a delete.
    let refused = j
        .delete_entry_if(&ann, &made.id, Some(RevisionId::generate()))
        .await;
    assert!(matches!(refused, Err(Error::Stale { .. })), "{refused:?}");

    // A change to what the entry already is makes no revision.
    let same = UpdateEntryRequest {
        content: Some(text_of(last)),
        ..Default::default()
    };
    assert_eq!(
        j.update_entry(&ann, &made.id, &same)
            .await
            .unwrap()
            .revision,
        last
    );

    // Every revision reads back whole, newest first, each naming its parent.
    let mut seen = Vec::new();
    for p in 1.. {
        let revisions = j.revisions(&ann, &made.id, page(p, 20)).await.unwrap();
        assert_eq!(revisions.total, u64::from(last));
        if revisions.items.is_empty() {
            break;
        }
        seen.extend(revisions.items);
    }
    assert_eq!(seen.len(), last as usize);
    for (i, r) in seen.iter().enumerate() {
        let n = last - i as u32;
        assert_eq!(r.revision, n);
        assert_eq!(r.content, text_of(n), "revision {n}");
        assert_eq!(r.id, ids[n as usize - 1]);
        assert_eq!(r.parent_id, (n > 1).then(|| ids[n as usize - 2]));
        assert_eq!(
            (r.title.as_str(), r.is_public, r.starred),
            ("Day", true, true)
        );
        assert_eq!(r.tags, vec!["garden".to_owned()]);
        assert_eq!(r.edited_via, EditedVia::Login);
    }
    for n in [
        1,
        SNAPSHOT_EVERY,
        SNAPSHOT_EVERY + 1,
        SNAPSHOT_EVERY + 2,
        last,
    ] {
        let one = j.revision(&ann, &made.id, n).await.unwrap();
        assert_eq!(one.content, text_of(n));
    }
    assert!(matches!(
        j.revision(&ann, &made.id, last + 1).await,
        Err(Error::NotFound { .. })
    ));

    // Only the author reads history, even of a public entry.
    assert!(matches!(
        j.revisions(&bob, &made.id, page(1, 10)).await,
        Err(Error::Forbidden(_))
    ));
    let private = j
        .create_entry(&ann, &entry("Secret", "x", false))
        .await
        .unwrap();
    assert!(matches!(
        j.revision(&bob, &private.id, 1).await,
        Err(Error::NotFound { .. })
    ));

    // Restoring revision 1 is a new revision with its state; nothing between is lost.
    let hidden = UpdateEntryRequest {
        is_public: Some(false),
        tags: Some(vec![]),
        ..Default::default()
    };
    j.update_entry(&ann, &made.id, &hidden).await.unwrap();
    let restored = j.restore_revision(&ann, &made.id, 1, None).await.unwrap();
    assert_eq!(restored.revision, last + 2);
    assert_eq!(restored.content, text_of(1));
    assert!(restored.is_public);
    assert_eq!(restored.tags, vec!["garden".to_owned()]);
    assert_eq!(
        j.revisions(&ann, &made.id, page(1, 1)).await.unwrap().total,
        u64::from(last + 2)
    );

    // The trash: gone from the entry, lists, feed and search at once.
    j.delete_entry(&ann, &made.id).await.unwrap();
    assert!(matches!(
        j.entry(&ann, &made.id).await,
        Err(Error::NotFound { .. })
    ));
    let own = j
        .user_entries(&ann, ann.user_id(), page(1, 50))
        .await
        .unwrap();
    assert!(own.items.iter().all(|e| e.id != made.id));
    let feed = j.public_entries(page(1, 50)).await.unwrap();
    assert!(feed.items.iter().all(|e| e.id != made.id));
    let found = j.search(&ann, "edit1", page(1, 50)).await.unwrap();
    assert!(found.items.iter().all(|e| e.id != made.id));
    let trash = j.trash(&ann, page(1, 10)).await.unwrap();
    assert_eq!(trash.total, 1);
    assert_eq!(trash.items[0].entry, restored);
    assert_eq!(j.trash(&bob, page(1, 10)).await.unwrap().total, 0);
    // Not someone else's to restore or purge.
    assert!(matches!(
        j.untrash(&bob, &made.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        j.purge(&bob, &made.id).await,
        Err(Error::NotFound { .. })
    ));

    // Back whole: tags, star, date, visibility and history.
    let back = j.untrash(&ann, &made.id).await.unwrap();
    assert_eq!(back, restored);
    assert_eq!(j.entry(&ann, &made.id).await.unwrap(), restored);
    let feed = j.public_entries(page(1, 50)).await.unwrap();
    assert!(feed.items.iter().any(|e| e.id == made.id));
    assert_eq!(
        j.revisions(&ann, &made.id, page(1, 1)).await.unwrap().total,
        u64::from(last + 2)
    );

    // Purged: the entry and its history, for good.
    j.delete_entry(&ann, &made.id).await.unwrap();
    j.purge(&ann, &made.id).await.unwrap();
    assert_eq!(j.trash(&ann, page(1, 10)).await.unwrap().total, 0);
    assert_eq!(
        store.revisions(&made.id, page(1, 10)).await.unwrap().total,
        0
    );
    assert!(matches!(
        j.untrash(&ann, &made.id).await,
        Err(Error::NotFound { .. })
    ));

    // Past its days in the trash, an entry is purged by the sweep, and only then.
    j.delete_entry(&ann, &private.id).await.unwrap();
    assert_eq!(
        j.purge_expired_trash(Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(j.purge_expired_trash(Duration::ZERO).await.unwrap(), 1);
    assert_eq!(
        store
            .revisions(&private.id, page(1, 10))
            .await
            .unwrap()
            .total,
        0
    );

    // Deleting an account deletes its trash and history with it.
    let kept = j
        .create_entry(&bob, &entry("Bob's", "b", false))
        .await
        .unwrap();
    let binned = j
        .create_entry(&bob, &entry("Bob's bin", "b", false))
        .await
        .unwrap();
    j.delete_entry(&bob, &binned.id).await.unwrap();
    assert!(store.delete_user(bob.user_id()).await.unwrap());
    assert_eq!(
        store.revisions(&kept.id, page(1, 10)).await.unwrap().total,
        0
    );
    assert_eq!(
        store
            .revisions(&binned.id, page(1, 10))
            .await
            .unwrap()
            .total,
        0
    );
    assert_eq!(
        store.trash(bob.user_id(), page(1, 10)).await.unwrap().total,
        0
    );
}
on_every_backend!(history_and_trash_hold_on_every_backend);

/// Pruning keeps the first and current revisions and the latest ones asked for, and
/// every kept revision still reads back whole, though the deltas it was stored against
/// are gone.
async fn pruning_history_keeps_what_it_should_and_every_kept_text_whole(backend: Backend) {
    println!("pruning story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let made = j
        .create_entry(&ann, &entry("Long", &text_of(1), false))
        .await
        .unwrap();
    let last = SNAPSHOT_EVERY + 20;
    for n in 2..=last {
        let change = UpdateEntryRequest {
            content: Some(text_of(n)),
            ..Default::default()
        };
        j.update_entry(&ann, &made.id, &change).await.unwrap();
    }
    let untouched = j
        .create_entry(&ann, &entry("Once", "one", false))
        .await
        .unwrap();
    let keep = journal_core::store::HistoryKeep {
        revisions: Some(5),
        days: None,
    };
    assert_eq!(j.prune_history(&keep).await.unwrap(), u64::from(last - 6));
    assert_eq!(
        j.prune_history(&keep).await.unwrap(),
        0,
        "nothing left to prune"
    );
    let mut kept = Vec::new();
    for p in 1..=2 {
        kept.extend(j.revisions(&ann, &made.id, page(p, 5)).await.unwrap().items);
    }
    let numbers: Vec<u32> = kept.iter().map(|r| r.revision).collect();
    let mut want: Vec<u32> = (last - 4..=last).rev().collect();
    want.push(1);
    assert_eq!(numbers, want);
    for r in &kept {
        assert_eq!(r.content, text_of(r.revision), "revision {}", r.revision);
    }
    // Saving goes on from the kept history.
    let change = UpdateEntryRequest {
        content: Some(text_of(last + 1)),
        ..Default::default()
    };
    j.update_entry(&ann, &made.id, &change).await.unwrap();
    assert_eq!(
        j.revision(&ann, &made.id, last + 1).await.unwrap().content,
        text_of(last + 1)
    );
    assert_eq!(
        j.revisions(&ann, &untouched.id, page(1, 5))
            .await
            .unwrap()
            .total,
        1
    );
    // By age: everything but the first and current is older than no days at all.
    let by_age = journal_core::store::HistoryKeep {
        revisions: None,
        days: Some(1),
    };
    assert_eq!(
        j.prune_history(&by_age).await.unwrap(),
        0,
        "all younger than a day"
    );
}
on_every_backend!(pruning_history_keeps_what_it_should_and_every_kept_text_whole);
