//! Search: words and prefixes without regard to case or accents, ranking, and pages of
//! matches.

use crate::common::{Backend, entry, journal, on_every_backend, user};
use crate::page;
use journal_core::Error;
use journal_core::api::UpdateEntryRequest;
use journal_core::domain::SearchQuery;

async fn search_matches_words_and_prefixes_without_regard_to_case_or_accents(b: Backend) {
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    let cafe = j
        .create_entry(
            &me,
            &entry("Café morning", "Espresso at the CAFÉ near the river", false),
        )
        .await
        .unwrap();
    let lake = j
        .create_entry(&me, &entry("Lake", "walked to the lake; café closed", true))
        .await
        .unwrap();
    j.create_entry(&me, &entry("Nothing", "unrelated words here", false))
        .await
        .unwrap();
    j.create_entry(&other, &entry("Cafe too", "cafe cafe cafe", true))
        .await
        .unwrap();

    let q = |text: &'static str| {
        let j = j.clone();
        let me = me.clone();
        async move { j.search(&me, text, page(1, 10)).await.unwrap() }
    };
    // Case and accents fold both ways; only the caller's entries come back.
    for text in ["cafe", "CAFÉ", "Cafe", "caf"] {
        let found = q(text).await;
        assert_eq!(found.total, 2, "{} {text}", b.name);
        assert!(found.items.iter().all(|e| e.author_id == *me.user_id()));
    }
    // Ranking: the entry with the word in its title and twice in content comes first.
    assert_eq!(q("cafe").await.items[0].id, cafe.id, "{}", b.name);
    // Every word must match.
    assert_eq!(q("cafe river").await.total, 1);
    assert_eq!(q("lake walked").await.items[0].id, lake.id);
    // Whole words and prefixes only, not infixes.
    assert_eq!(q("afe").await.total, 0);
    // Hostile strings are searched as text and never fail.
    for hostile in [
        "\"",
        "*",
        "OR",
        "-",
        "%",
        "'; DROP TABLE entries; --",
        "cafe OR 1=1",
        "NEAR(",
        "title:cafe",
        "😀",
        "a\"b*c(d)e",
        "^cafe",
        "cafe*",
        "(",
        "AND",
        "NOT cafe",
        "\\",
        "{x}",
        &"w".repeat(10_000),
    ] {
        let found = j.search(&me, hostile, page(1, 10)).await;
        assert!(
            found.is_ok(),
            "{} {:?}: {:?}",
            b.name,
            &hostile[..hostile.len().min(40)],
            found.err()
        );
    }
    assert_eq!(q("'; DROP TABLE entries; --").await.total, 0);
    assert_eq!(
        q("cafe:river").await.total,
        1,
        "punctuation only separates words"
    );
    assert_eq!(
        q("title:cafe").await.total,
        0,
        "no column filters: `title` is a word too"
    );
    assert!(matches!(
        j.search(&me, "   ", page(1, 10)).await,
        Err(Error::Validation(_))
    ));

    // Updates and deletes reach the index.
    j.update_entry(
        &me,
        &lake.id,
        &UpdateEntryRequest {
            content: Some("swam in the pond".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(q("lake").await.total, 1, "the title still says Lake");
    assert_eq!(q("pond").await.total, 1);
    assert_eq!(q("closed").await.total, 0);
    j.delete_entry(&me, &cafe.id).await.unwrap();
    assert_eq!(q("espresso").await.total, 0);
    assert_eq!(q("cafe").await.total, 0);
}
on_every_backend!(search_matches_words_and_prefixes_without_regard_to_case_or_accents);

#[test]
fn search_queries_keep_only_words() {
    let q = SearchQuery::parse("Hello, \"World\"* -x OR 😀 hello").unwrap();
    assert_eq!(q.terms(), ["hello", "world", "x", "or"]);
    assert!(SearchQuery::parse("😀 ***").unwrap().is_empty());
    assert!(SearchQuery::parse("").is_err());
}

/// The more often an entry uses the searched words, the higher it ranks, however long
/// it is: a journal entry that keeps coming back to a subject is about it (see
/// docs/ARCHITECTURE.md, "Search"). Every word of the query counts.
async fn search_ranks_entries_that_use_the_words_more_often_first(b: Backend) {
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "ranks@example.com", "ranks").await;
    let filler = "and then the day went on as days do ".repeat(20);
    let create = |title: &str, content: String| {
        let (j, me) = (j.clone(), me.clone());
        let title = title.to_owned();
        async move {
            j.create_entry(&me, &entry(&title, &content, false))
                .await
                .unwrap()
                .id
        }
    };
    let once_short = create("Monday", "rain in the garden".into()).await;
    let thrice_long = create(
        "Tuesday",
        format!("garden in the morning, {filler} garden at noon, garden at dusk"),
    )
    .await;
    let twice = create("Wednesday", "garden chores, then garden tea".into()).await;
    let both_words = create("Thursday", "rain on the garden all day, rain".into()).await;

    let ids = |text: &'static str| {
        let (j, me) = (j.clone(), me.clone());
        async move {
            let found = j.search(&me, text, page(1, 10)).await.unwrap();
            found.items.into_iter().map(|e| e.id).collect::<Vec<_>>()
        }
    };
    // The two entries that use it once come last, newest first.
    assert_eq!(
        ids("garden").await,
        [thrice_long, twice, both_words, once_short],
        "{}",
        b.name
    );
    // Both words must occur; the entry using them most comes first.
    assert_eq!(
        ids("garden rain").await,
        [both_words, once_short],
        "{}",
        b.name
    );
}
on_every_backend!(search_ranks_entries_that_use_the_words_more_often_first);

/// Search pages walk every match exactly once, best first, also past the point where
/// the store trims its candidates (more than 1,024 matches).
async fn search_pages_cover_every_match_once_best_first(b: Backend) {
    use journal_core::api::{ImportEntriesRequest, ImportEntryRequest};
    let j = journal(b.store.clone()).await;
    let (me, _) = user(&j, "many@example.com", "many").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    for (who, title_word) in [(&me, true), (&me, false), (&other, true)] {
        let entries = (0..600)
            .map(|i| ImportEntryRequest {
                title: Some(if title_word {
                    format!("apple note {i}")
                } else {
                    format!("plain note {i}")
                }),
                content: Some(if title_word {
                    "plain text here".into()
                } else {
                    "apple text here".into()
                }),
                created_at: Some(format!("2024-01-01T00:{:02}:{:02}Z", i / 60, i % 60)),
                ..Default::default()
            })
            .collect();
        j.import(who, &ImportEntriesRequest { entries })
            .await
            .unwrap();
    }
    let mut walked = Vec::new();
    for n in 1.. {
        let got = j.search(&me, "apple", page(n, 70)).await.unwrap();
        assert_eq!(got.total, 1200, "{}", b.name);
        if got.items.is_empty() {
            break;
        }
        walked.extend(got.items);
    }
    assert_eq!(walked.len(), 1200, "{}", b.name);
    let unique: std::collections::HashSet<_> = walked.iter().map(|e| e.id).collect();
    assert_eq!(unique.len(), 1200, "{}: a match was shown twice", b.name);
    assert!(walked.iter().all(|e| e.author_id == *me.user_id()));
    // A match in the title weighs more than one in the content.
    let first_content_match = walked
        .iter()
        .position(|e| e.title.starts_with("plain"))
        .unwrap();
    assert_eq!(first_content_match, 600, "{}", b.name);
}
on_every_backend!(search_pages_cover_every_match_once_best_first);
