//! List totals (`X-Total-Count`), kept as counters by the stores: equal to what a client
//! can page through, after every kind of write and under concurrent writers.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::page;
use journal_core::api::{UpdateEntryRequest, UpdateProfileRequest};
use journal_core::{EntryId, Error, UserId};

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
async fn list_totals_match_the_lists_after_every_kind_of_write(backend: Backend) {
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
on_every_backend!(list_totals_match_the_lists_after_every_kind_of_write);

/// The feed's total is kept from many writers at once (on PostgreSQL, as deltas
/// appended beside each write and folded now and then): entries written by several
/// authors concurrently, while one of them turns their profile private and public
/// again and again, leave a total equal to the entries a client can page through,
/// before and after the deltas are folded.
async fn the_feed_total_stays_exact_under_concurrent_writes_and_privacy_changes(backend: Backend) {
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
on_every_backend!(the_feed_total_stays_exact_under_concurrent_writes_and_privacy_changes);
