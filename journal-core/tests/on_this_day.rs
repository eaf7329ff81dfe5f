//! "On this day" (`day=MM-DD`) keeps what `EntryFilter::matches` keeps, in every zone,
//! at both ends of the dates an entry can have: the first hours of 1900 (a local
//! 31 December 1899 west of UTC) and a day from now (a local next year east of UTC).

mod common;

use common::{Backend, journal, on_every_backend, user};
use journal_core::api::{ImportEntriesRequest, ImportEntryRequest};
use journal_core::filter::FilterParams;
use journal_core::{EntryFilter, PageRequest};

const ZONES: [&str; 12] = [
    "-12:00",
    "-09:30",
    "-05:00",
    "+00:00",
    "+05:45",
    "+14:00",
    "America/Los_Angeles",
    "America/St_Johns",
    "Pacific/Pago_Pago",
    "Pacific/Kiritimati",
    "Pacific/Auckland",
    "Asia/Kolkata",
];
const DAYS: [&str; 6] = ["12-31", "01-01", "02-28", "02-29", "03-01", "06-15"];

/// A small deterministic generator, so a failure names a filter that fails again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Instants around the edges of local days: the first hours of 1900, New Year and the
/// end of February in some years, and the hours up to a day from now.
fn dates() -> Vec<String> {
    let mut dates: Vec<String> = (0..15)
        .map(|h| format!("1900-01-01T{h:02}:30:00Z"))
        .collect();
    for year in [1900, 1901, 1904, 1999, 2000, 2023, 2024] {
        for (day, hour) in [
            ("12-31", 1),
            ("12-31", 11),
            ("12-31", 23),
            ("01-01", 0),
            ("01-01", 13),
            ("02-28", 22),
            ("02-29", 12),
            ("03-01", 2),
            ("06-15", 10),
        ] {
            let date = format!("{year}-{day}T{hour:02}:15:00Z");
            if chrono::DateTime::parse_from_rfc3339(&date).is_ok() {
                dates.push(date);
            }
        }
    }
    let now = chrono::Utc::now();
    for hours in [-30i64, -12, -1, 6, 20] {
        dates.push((now + chrono::Duration::hours(hours)).to_rfc3339());
    }
    dates
}

fn filter_params(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let mut pairs = vec![
        ("day", DAYS[rng.below(DAYS.len())].to_owned()),
        ("tz", ZONES[rng.below(ZONES.len())].to_owned()),
    ];
    let years = [1899, 1900, 1901, 1950, 2000, 2024];
    match rng.below(4) {
        0 => {}
        1 => pairs.push(("from", format!("{}-12-31", years[rng.below(3)]))),
        2 => pairs.push(("to", format!("{}-01-01", years[1 + rng.below(5)]))),
        _ => {
            pairs.push(("from", "1900-01-01T03:00:00Z".to_owned()));
            pairs.push(("to", format!("{}-12-31", years[2 + rng.below(4)])));
        }
    }
    pairs
}

async fn on_this_day_keeps_what_the_filter_says_in_every_zone_and_year(backend: Backend) {
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let entries = dates()
        .into_iter()
        .enumerate()
        .map(|(i, date)| ImportEntryRequest {
            title: format!("entry {i}").into(),
            is_public: Some(true),
            created_at: Some("2024-01-01T00:00:00Z".into()),
            date: Some(date),
            ..Default::default()
        })
        .collect();
    j.import(&ann, &ImportEntriesRequest { entries })
        .await
        .unwrap();
    let all = j
        .user_entries(
            &ann,
            ann.user_id(),
            PageRequest::new(Some(1), Some(100)).unwrap(),
        )
        .await
        .unwrap()
        .items;

    let mut rng = Rng(0x5eed_1900);
    let mut checked_edges = 0;
    for _ in 0..300 {
        let pairs = filter_params(&mut rng);
        let params = FilterParams::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
        let Ok(filter) = EntryFilter::parse(&params) else {
            continue; // `from` after `to`
        };
        let expected: Vec<_> = all.iter().filter(|e| filter.matches(e)).cloned().collect();
        checked_edges += expected
            .iter()
            .filter(|e| e.date.to_string().starts_with("1900-01-01T"))
            .count();
        let page = PageRequest::new(Some(1), Some(100)).unwrap();
        let own = j
            .user_entries_matching(&ann, ann.user_id(), &filter, page)
            .await
            .unwrap();
        let titles = |entries: &[journal_core::Entry]| -> Vec<String> {
            entries
                .iter()
                .map(|e| format!("{} {}", e.title, e.date))
                .collect()
        };
        assert_eq!(
            titles(&own.items),
            titles(&expected),
            "{}: {pairs:?}",
            backend.name
        );
        assert_eq!(own.total, expected.len() as u64, "{pairs:?}");
        let feed = j.public_entries_matching(&filter, page).await.unwrap();
        assert_eq!(
            titles(&feed.items),
            titles(&expected),
            "{}: {pairs:?} in the feed",
            backend.name
        );
    }
    // The first hours of 1900 were kept by some filters: the edge was tried.
    assert!(checked_edges > 0, "no filter kept an entry of 1900-01-01");
    println!("on this day on {}: ok", backend.name);
}
on_every_backend!(on_this_day_keeps_what_the_filter_says_in_every_zone_and_year);
