//! The first pages of lists kept in memory: served while nothing is written, and each
//! write shows in them at once.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::{cache_count, page, sqlite_url};
use journal_core::Journal;
use journal_core::api::UpdateEntryRequest;

/// With nothing written, a cached page and a token's state are served from memory for
/// as long as they are asked, not read again every so often: the writer looks for
/// other processes' writes instead of letting values expire.
#[tokio::test]
async fn a_quiet_journal_keeps_serving_its_cached_pages() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "quiet.db");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (me, token) = user(&j, "me@example.com", "me").await;
    j.create_entry(&me, &entry("kept", "", true)).await.unwrap();
    let caches = ["authStates", "authorPages", "feedPages"];
    let misses = || cache_count(store.as_ref(), &caches, |c| c.misses);
    let read = async || {
        j.authenticate(&token).await.unwrap();
        let own = j.user_entries(&me, me.user_id(), page(1, 10)).await;
        assert_eq!(own.unwrap().items[0].title, "kept");
        assert_eq!(j.public_entries(page(1, 10)).await.unwrap().total, 1);
    };
    read().await;
    let before = misses();
    for _ in 0..3 {
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        read().await;
    }
    assert_eq!(misses(), before, "read again though nothing was written");
}

/// A new entry is put in its place in its author's cached first pages (newest date
/// first, then highest id) for the author and, when public, for others, with the total
/// one more and the pages after the first moved along. Checked after every create
/// against a journal opened afresh on the same file, whose cache is empty, with dates
/// before, among, equal to and after the entries already there.
#[tokio::test]
async fn a_new_entry_takes_its_place_in_the_cached_first_pages() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "carry.db");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    let (me_id, other_id) = (*me.user_id(), *other.user_id());
    // Each view's pages, for the author and for another user, in pages of 3 (pages 1
    // and 2) and of 10.
    let views = async |j: &Journal, me: &journal_core::Caller, other: &journal_core::Caller| {
        let mut all = Vec::new();
        for who in [me, other] {
            for (n, limit) in [(1, 3), (2, 3), (1, 10)] {
                all.push(j.user_entries(who, &me_id, page(n, limit)).await.unwrap());
            }
        }
        all
    };
    let fresh_views = async || {
        let fresh = journal(journal_core::store::open(&url).await.unwrap()).await;
        let (fresh_me, fresh_other) = (
            fresh.local_caller(&me_id).await.unwrap(),
            fresh.local_caller(&other_id).await.unwrap(),
        );
        views(&fresh, &fresh_me, &fresh_other).await
    };
    let hits = || cache_count(store.as_ref(), &["authorPages"], |c| c.hits);
    let soon = (chrono::Utc::now() + chrono::Duration::hours(1))
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    let dates = [
        None,
        Some("2020-05-01T10:00:00.000Z"),
        Some("2020-05-01T10:00:00.000Z"),
        Some(soon.as_str()),
        Some("2019-12-31T23:59:59.999Z"),
        None,
        Some("2020-05-01T10:00:00.000Z"),
        Some("2024-02-29T12:00:00.000Z"),
    ];
    let mut hits_after_creates = 0;
    for n in 0..24 {
        views(&j, &me, &other).await; // the first pages are cached now
        let mut new = entry(&format!("e{n}"), "", n % 3 != 1);
        new.date = dates[n % dates.len()].map(str::to_owned);
        j.create_entry(&me, &new).await.unwrap();
        let before = hits();
        let seen = views(&j, &me, &other).await;
        hits_after_creates += hits() - before;
        assert_eq!(seen, fresh_views().await, "after e{n} ({:?})", new.date);
    }
    // The first pages were served from memory after every create: the author's two
    // and others' two (with the entry when public, as they were when private).
    assert!(hits_after_creates >= 4 * 24, "{hits_after_creates} hits");

    // Creates at once, which may share a commit: still every view as the file has it.
    let j = std::sync::Arc::new(j);
    views(&j, &me, &other).await;
    let mut creates = tokio::task::JoinSet::new();
    for n in 0..12 {
        let (j, me) = (j.clone(), me.clone());
        creates.spawn(async move {
            let new = entry(&format!("burst {n}"), "", n % 2 == 0);
            j.create_entry(&me, &new).await.unwrap();
        });
    }
    creates.join_all().await;
    assert_eq!(
        views(&j, &me, &other).await,
        fresh_views().await,
        "after the burst"
    );
}

/// The first pages of every list are cached in memory; a write must still show in each
/// of them at once, for the author, for others and in the public feed.
async fn lists_show_every_write_at_once_though_their_first_pages_are_cached(b: Backend) {
    println!("lists on {}", b.name);
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    let titles = |p: journal_core::Page<journal_core::Entry>| {
        p.items.into_iter().map(|e| e.title).collect::<Vec<_>>()
    };
    // Each list's page 1 (read twice: the second read may come from a cache).
    let lists = async || {
        let mut all = Vec::new();
        for _ in 0..2 {
            all = vec![
                titles(
                    j.user_entries(&me, me.user_id(), page(1, 10))
                        .await
                        .unwrap(),
                ),
                titles(
                    j.user_entries(&other, me.user_id(), page(1, 10))
                        .await
                        .unwrap(),
                ),
                titles(j.public_entries(page(1, 10)).await.unwrap()),
            ];
        }
        all
    };
    let none: Vec<&str> = Vec::new();
    assert_eq!(lists().await, [none.clone(), none.clone(), none.clone()]);

    let one = j.create_entry(&me, &entry("one", "", true)).await.unwrap();
    assert_eq!(lists().await, [vec!["one"], vec!["one"], vec!["one"]]);
    let two = j.create_entry(&me, &entry("two", "", false)).await.unwrap();
    assert_eq!(
        lists().await,
        [vec!["two", "one"], vec!["one"], vec!["one"]]
    );

    let hide = UpdateEntryRequest {
        title: Some("uno".into()),
        is_public: Some(false),
        ..Default::default()
    };
    j.update_entry(&me, &one.id, &hide).await.unwrap();
    assert_eq!(
        lists().await,
        [vec!["two", "uno"], none.clone(), none.clone()]
    );
    let show = UpdateEntryRequest {
        is_public: Some(true),
        ..Default::default()
    };
    j.update_entry(&me, &two.id, &show).await.unwrap();
    assert_eq!(
        lists().await,
        [vec!["two", "uno"], vec!["two"], vec!["two"]]
    );

    j.delete_entry(&me, &two.id).await.unwrap();
    assert_eq!(lists().await, [vec!["uno"], none.clone(), none.clone()]);
}
on_every_backend!(lists_show_every_write_at_once_though_their_first_pages_are_cached);
