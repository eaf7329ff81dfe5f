//! Filters (tags, starred, dates) on every list, as `EntryFilter::matches` says.

use crate::common::{Backend, journal, on_every_backend, user};
use crate::page;
use journal_core::EntryFilter;
use journal_core::api::UpdateEntryRequest;

/// Every filter, alone and combined, keeps exactly the entries `EntryFilter::matches`
/// keeps, in list order, on every backend: the owner's list, another user's view, the
/// feed, search, and the same lists walked by cursor.
async fn filters_keep_what_the_filter_says_on_every_backend(backend: Backend) {
    use journal_core::filter::{FilterParams, Tag};
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
        let filter = EntryFilter::parse(&FilterParams::from_pairs(pairs.iter().copied())).unwrap();
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
            request = page(1, 3).continuing(Some(journal_core::Cursor::new(last.date, last.id)));
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
on_every_backend!(filters_keep_what_the_filter_says_on_every_backend);
