//! The render cache's memo, through its public API: bodies equal to a fresh rendering,
//! never one of items that changed, and most of it kept when more pages are read in
//! turn than fit (the case of many users each reading their own list).

use journal_core::store::KeptPage;
use journal_core::{Entry, EntryId, Timestamp, UserId};
use journal_server::entry_attachments::EntryAttachment;
use journal_server::render_cache::RenderedPages;

/// Page `number` of size `limit`, one the caches keep.
fn kept(number: u32, limit: u32) -> KeptPage {
    KeptPage::Kept { number, limit }
}

/// A first page of `n` entries by `author`, each with `content_len` bytes of content.
fn page(author: UserId, n: usize, content_len: usize) -> Vec<Entry> {
    (0..n)
        .map(|i| Entry {
            id: EntryId::generate(),
            title: format!("Entry {i}"),
            content: "x".repeat(content_len),
            is_public: i % 3 == 0,
            tags: vec!["garden".into()],
            starred: false,
            date: Timestamp::from_millis(1_700_000_000_000 + i as i64),
            author_id: author,
            author_name: "writer".into(),
            created_at: Timestamp::from_millis(1_700_000_000_000 + i as i64),
            updated_at: Timestamp::from_millis(1_700_000_000_000 + i as i64),
            revision: 1,
            revision_id: journal_core::RevisionId::generate(),
        })
        .collect()
}

/// First pages of `authors` new authors, each of `n` entries of `content_len` bytes.
fn authors_first_pages(authors: usize, n: usize, content_len: usize) -> Vec<(UserId, Vec<Entry>)> {
    (0..authors)
        .map(|_| {
            let a = UserId::generate();
            (a, page(a, n, content_len))
        })
        .collect()
}

/// Reads every page once, in turn, `rounds` times; the share of the last round's reads
/// answered from the memo. Every body must be the JSON array of its page's items.
fn reuse_in_turn(memo: &RenderedPages, pages: &[(UserId, Vec<Entry>)], rounds: usize) -> f64 {
    let mut before = memo.counts();
    for _ in 0..rounds {
        before = memo.counts();
        for (author, items) in pages {
            let body = memo.body(Some(*author), kept(1, 10), items, &[]).body;
            let parsed: Vec<serde_json::Value> = serde_json::from_slice(&body).unwrap();
            assert_eq!(parsed.len(), items.len());
            assert_eq!(parsed[0]["_id"], items[0].id.to_string());
        }
    }
    let after = memo.counts();
    (after.hits - before.hits) as f64 / pages.len() as f64
}

#[test]
fn pages_that_fit_are_all_reused() {
    let memo = RenderedPages::default();
    let pages = authors_first_pages(100, 10, 200);
    assert_eq!(reuse_in_turn(&memo, &pages, 2), 1.0);
}

#[test]
fn more_large_pages_in_turn_than_fit_keep_most_of_the_memo_in_use() {
    // About 26 KB each by the memo's measure: some 300 fit in its bytes, not 1,000.
    let memo = RenderedPages::default();
    let pages = authors_first_pages(1000, 10, 1000);
    let reused = reuse_in_turn(&memo, &pages, 3);
    // Emptying the memo when full, or dropping the least recently used page, reuses
    // none of them; keeping three quarters of it reuses about a quarter.
    assert!(reused >= 0.15, "reused {reused}");
    assert!(reused < 1.0, "all reused: the pages were meant not to fit");
}

#[test]
fn more_small_pages_in_turn_than_slots_keep_most_of_the_memo_in_use() {
    let memo = RenderedPages::default();
    let pages = authors_first_pages(1500, 2, 20);
    let reused = reuse_in_turn(&memo, &pages, 3);
    assert!(reused >= 0.4, "reused {reused}");
    assert!(reused < 1.0, "all reused: the pages were meant not to fit");
}

#[test]
fn a_page_whose_items_changed_is_rendered_afresh() {
    let memo = RenderedPages::default();
    let author = UserId::generate();
    let mut items = page(author, 3, 50);
    let first = memo.body(Some(author), kept(1, 10), &items, &[]).body;
    assert_eq!(
        memo.body(Some(author), kept(1, 10), &items, &[]).body,
        first
    );
    items[1].title = "Renamed".into();
    let second = memo.body(Some(author), kept(1, 10), &items, &[]).body;
    assert_ne!(second, first);
    assert!(
        std::str::from_utf8(&second)
            .unwrap()
            .contains("\"Renamed\"")
    );
    // Any field of any entry: each change is a page rendered afresh, with the change.
    let changes: [fn(&mut Entry); 6] = [
        |e| e.content.push('!'),
        |e| e.starred = !e.starred,
        |e| e.is_public = !e.is_public,
        |e| e.tags.push("zebra".into()),
        |e| e.date = Timestamp::from_millis(e.date.as_millis() + 1),
        |e| e.updated_at = Timestamp::from_millis(e.updated_at.as_millis() + 1),
    ];
    let mut last = second;
    for (n, change) in changes.iter().enumerate() {
        change(&mut items[2]);
        let body = memo.body(Some(author), kept(1, 10), &items, &[]).body;
        assert_ne!(body, last, "change {n} reused the body");
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let mut expected = serde_json::to_value(&items).unwrap();
        for entry in expected.as_array_mut().unwrap() {
            entry["attachments"] = serde_json::json!([]);
        }
        assert_eq!(json, expected, "change {n}");
        last = body;
    }
    // An attachment added, or its signed link renewed, is a page rendered afresh.
    let mut attachments = vec![Vec::new(); items.len()];
    attachments[0].push(EntryAttachment {
        id: journal_core::AttachmentId::generate(),
        name: "photo.jpg".into(),
        content_type: "image/jpeg".into(),
        size: 1234,
        url: "/api/attachments/x?reader=r&expires=1&sig=s".into(),
    });
    let with = memo
        .body(Some(author), kept(1, 10), &items, &attachments)
        .body;
    assert_ne!(with, last);
    assert!(std::str::from_utf8(&with).unwrap().contains("photo.jpg"));
    assert_eq!(
        memo.body(Some(author), kept(1, 10), &items, &attachments)
            .body,
        with
    );
    attachments[0][0].url = "/api/attachments/x?reader=r&expires=61&sig=t".into();
    let renewed = memo
        .body(Some(author), kept(1, 10), &items, &attachments)
        .body;
    assert!(
        std::str::from_utf8(&renewed)
            .unwrap()
            .contains("expires=61")
    );
    attachments[0].clear();
    assert_eq!(
        memo.body(Some(author), kept(1, 10), &items, &attachments)
            .body,
        last
    );
    // Another list, or another page size, with equal items is a slot of its own.
    let counts = memo.counts();
    memo.body(None, kept(1, 10), &items, &[]);
    memo.body(Some(author), kept(1, 20), &items, &[]);
    assert_eq!(memo.counts().hits, counts.hits);
}

#[test]
fn pages_read_again_and_again_stay_while_others_come_and_go() {
    let memo = RenderedPages::default();
    // The feed's first page and a few authors' own, read between every other page.
    let hot: Vec<(Option<UserId>, Vec<Entry>)> =
        std::iter::once((None, page(UserId::generate(), 10, 500)))
            .chain(
                authors_first_pages(7, 10, 500)
                    .into_iter()
                    .map(|(a, items)| (Some(a), items)),
            )
            .collect();
    let others = authors_first_pages(3000, 2, 20);
    for (list, items) in &hot {
        memo.body(*list, kept(1, 10), items, &[]);
    }
    for (n, (author, items)) in others.iter().enumerate() {
        memo.body(Some(*author), kept(1, 10), items, &[]);
        for (list, items) in &hot {
            let before = memo.counts();
            memo.body(*list, kept(1, 10), items, &[]);
            assert_eq!(
                memo.counts().hits,
                before.hits + 1,
                "a page read after every other was dropped after {n} others"
            );
        }
    }
}
