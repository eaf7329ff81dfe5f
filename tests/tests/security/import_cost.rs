//! What re-importing costs when every entry shares one minute. An import skips an
//! entry its author has already (the same trimmed title and content, dated in the same
//! minute); that was checked against each entry of the minute in turn, so an import of
//! thousands of one-minute entries, sent twice, held the server (and SQLite's one
//! writer) for time in their square: 5,000 took 5.5 s of CPU, 100,000 would take half
//! an hour. Measured in the server's CPU (and its PostgreSQL backends'), as a ratio to
//! the same import with its entries a minute apart, sent in the same run.

use reqwest::StatusCode;
use serde_json::json;

use crate::cost::{clock_ticks_per_second, connect, cpu_ticks};
use crate::support::{Api, SqliteDb, User, body};

/// Entries in each import: quadratic work would take seconds, linear work a tenth.
const ENTRIES: usize = 4_000;
/// How many times dearer the one-minute re-import may be: it was about 40.
const MOST: f64 = 3.0;

#[tokio::test]
async fn reimporting_entries_of_one_minute_costs_what_spread_entries_cost_on_sqlite() {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    compare(&api, None).await;
}

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn reimporting_entries_of_one_minute_costs_what_spread_entries_cost_on_postgres() {
    // The backends serving this server are found by the name they connect with.
    let app = format!("journal-import-cost-{}", std::process::id());
    let url = format!("{}&application_name={app}", journal_tests::postgres_url());
    let api = Api::start(&url);
    let db = connect(&url).await;
    compare(&api, Some((&db, &app))).await;
}

async fn compare(api: &Api, postgres: Option<(&tokio_postgres::Client, &str)>) {
    let spread = api.user("spread").await;
    let packed = api.user("packed").await;
    let spread_cost = twice(api, &spread, postgres, |i| {
        format!(
            "2024-01-{:02}T{:02}:{:02}:00.000Z",
            1 + i / 1440,
            i / 60 % 24,
            i % 60
        )
    })
    .await;
    let packed_cost = twice(api, &packed, postgres, |i| {
        format!("2024-01-01T09:30:{:02}.{:03}Z", i % 60, i % 1000)
    })
    .await;
    let ratio = packed_cost as f64 / spread_cost.max(1) as f64;
    let ms = |ticks: u64| ticks * 1000 / clock_ticks_per_second();
    println!(
        "re-import of {ENTRIES} entries: one minute {} ms CPU, a minute apart {} ms, ratio {ratio:.2}",
        ms(packed_cost),
        ms(spread_cost)
    );
    assert!(
        ratio <= MOST,
        "re-importing {ENTRIES} entries of one minute cost {} ms of CPU, {ratio:.1}× the \
         {} ms of the same entries a minute apart",
        ms(packed_cost),
        ms(spread_cost)
    );
}

/// Imports `ENTRIES` entries without ids, dated by `date`, then the same file again
/// (every entry skipped); the CPU ticks of the second import.
async fn twice(
    api: &Api,
    user: &User,
    postgres: Option<(&tokio_postgres::Client, &str)>,
    date: impl Fn(usize) -> String,
) -> u64 {
    let entries: Vec<_> = (0..ENTRIES)
        .map(|i| {
            json!({"title": format!("Day {i}"), "content": "the same words ".repeat(20),
                   "createdAt": date(i)})
        })
        .collect();
    let file = json!({ "entries": entries }).to_string();
    let send = || async {
        let response = api
            .http
            .post(api.url("/api/journal-entries/import?format=json"))
            .bearer_auth(&user.token)
            .header("content-type", "application/octet-stream")
            .body(file.clone())
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), StatusCode::CREATED);
        body(response).await
    };
    assert_eq!(send().await["imported"], ENTRIES);
    let before = cpu_ticks(api, postgres).await;
    let again = send().await;
    let spent = cpu_ticks(api, postgres).await - before;
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["skipped"], ENTRIES, "{again}");
    spent
}
