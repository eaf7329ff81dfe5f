//! Search through bursts of writes, shared batches and merges; scoped to its author;
//! words no index expects.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::{page, titles};
use journal_core::api::{LoginRequest, UpdateEntryRequest};
use journal_core::{EntryId, UserId};

/// Searches stay exact through bursts of concurrent writes and the pauses between them:
/// on SQLite each burst's commits leave index segments that the writer merges while
/// idle (`fts_merge.rs`), so a search may run before, during or after those merges.
async fn search_stays_exact_through_bursts_of_writes_and_the_merges_after(backend: Backend) {
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
on_every_backend!(
    search_stays_exact_through_bursts_of_writes_and_the_merges_after,
    multi_thread
);

/// Creates, updates and deletes sent at once share write batches (SQLite indexes a
/// batch's new entries for search just before it commits): each search still finds
/// exactly the entries whose text holds the word now, then and after the merges.
async fn search_stays_exact_when_creates_updates_and_deletes_share_a_batch(backend: Backend) {
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
on_every_backend!(
    search_stays_exact_when_creates_updates_and_deletes_share_a_batch,
    multi_thread
);

/// Two accounts whose ids differ only in their first bytes (PostgreSQL's search index
/// scopes words by the last bytes of the author's id, see its migration 9) each find
/// their own entries only, and exact totals, searched one after the other or at once.
async fn authors_whose_ids_share_their_last_bytes_find_only_their_own_entries(backend: Backend) {
    use journal_core::store::UserRecord;

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
                    found
                        .items
                        .iter()
                        .all(|e| e.title.starts_with(owner) && e.author_id == *caller.user_id()),
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
on_every_backend!(
    authors_whose_ids_share_their_last_bytes_find_only_their_own_entries,
    multi_thread
);

/// Words no index expects: one of 2,040 characters (about the longest PostgreSQL's
/// `tsvector` keeps) is stored and found by its beginning, a word with a character the
/// database splits it on (`H₂O`) is found as written, not as its pieces anywhere in an
/// entry, and one with a letter that folds to punctuation (`donʼt`) is found.
async fn long_and_split_words_are_stored_and_found_as_written(backend: Backend) {
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
on_every_backend!(long_and_split_words_are_stored_and_found_as_written);

/// A search's pages, walked by number, are its matches in rank order, each once, with
/// the same total on every page (and on the page past the end): the entry that uses the
/// word most comes first, equal ranks the latest first. Unfiltered, and with a filter
/// (on PostgreSQL, a filtered search is read on its own, ranked in a subquery).
async fn a_search_pages_through_every_match_in_rank_order(backend: Backend) {
    use journal_core::filter::{FilterParams, Tag};
    use journal_core::{EntryFilter, api::CreateEntryRequest};
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let mut made = Vec::new();
    for k in 0..14u32 {
        let uses = 1 + (k % 3) as usize;
        let body = format!("note {k}: {}and some other words", "plum ".repeat(uses));
        let new = CreateEntryRequest {
            tags: Some(vec![if k % 2 == 0 { "even" } else { "odd" }.into()]),
            date: Some(format!("2024-01-{:02}T08:00:00Z", k + 1)),
            ..entry(&format!("n{k}"), &body, false)
        };
        let id = j.create_entry(&ann, &new).await.expect("create").id;
        made.push((uses, k, id));
    }
    j.create_entry(&ann, &entry("other", "no such word", false))
        .await
        .unwrap();
    let even = EntryFilter::default().with_tag(Tag::parse("even").unwrap());
    let unfiltered = EntryFilter::parse(&FilterParams::from_pairs(std::iter::empty())).unwrap();
    for (filter, keep) in [(&unfiltered, None), (&even, Some(0))] {
        // Most uses first, then the latest date.
        let mut want: Vec<_> = made
            .iter()
            .filter(|(_, k, _)| keep.is_none_or(|parity| k % 2 == parity))
            .collect();
        want.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let want: Vec<EntryId> = want.iter().map(|(_, _, id)| *id).collect();
        let mut walked = Vec::new();
        for number in 1..=4 {
            let found = j
                .search_matching(&ann, "plum", filter, page(number, 4))
                .await
                .unwrap();
            assert_eq!(found.total, want.len() as u64, "page {number}, {keep:?}");
            walked.extend(found.items.iter().map(|e| e.id));
        }
        assert_eq!(walked, want, "{} {keep:?}", backend.name);
        let past = j
            .search_matching(&ann, "plum", filter, page(9, 4))
            .await
            .unwrap();
        assert!(past.items.is_empty());
        assert_eq!(past.total, want.len() as u64);
    }
}
on_every_backend!(a_search_pages_through_every_match_in_rank_order);
