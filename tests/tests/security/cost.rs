//! What one request may cost: the costliest anonymous and signed-in requests found so
//! far, each sent to a server holding 100,000 entries, must stay within the budgets in
//! docs/SECURITY.md, in CPU time (the server's, and on PostgreSQL its backends' too),
//! read from `/proc` before and after, as `bench/run` does.

use std::time::Duration;

use journal_core::{Entry, EntryId, Timestamp, UserId};
use reqwest::StatusCode;

use crate::support::{Api, SqliteDb, User, header};

/// Entries in the database, half of them the signed-in user's.
const ENTRIES: i64 = 100_000;
/// An anonymous request's budget, CPU.
const ANONYMOUS: Duration = Duration::from_millis(50);
/// A signed-in request's budget, CPU.
const SIGNED_IN: Duration = Duration::from_millis(250);
/// Each request is sent this many times, and its cost is the mean: `/proc` counts in
/// clock ticks (10 ms).
const ROUNDS: u32 = 10;
/// Minutes between entries: 100,000 of them span about three years.
const SPACING_MS: i64 = 15 * 60 * 1000;

/// The seeded entries' shape, the same on both backends (the PostgreSQL seed writes
/// these rules in SQL): three in ten public, one in twenty starred and one in twenty
/// about the garden, one in seven tagged `common`; the others say the same in English
/// and Japanese, so every pair of [`JAPANESE`] is in nearly all of them.
fn is_public(i: i64) -> bool {
    i % 10 < 3
}
fn is_starred(i: i64) -> bool {
    i % 20 == 7
}
fn tags(i: i64) -> Vec<String> {
    match (i % 7, i % 100) {
        (0, _) => vec!["common".into()],
        (_, 3) => vec!["rare".into()],
        _ => Vec::new(),
    }
}
fn content(i: i64) -> &'static str {
    if i % 20 == 0 {
        "a quiet morning in the garden with coffee"
    } else {
        concat!(
            "a long day at work and a walk home by the river ",
            "今日は仕事の長い一日で川沿いを歩いて帰った"
        )
    }
}

/// The Japanese of the seeded entries: a search for a run of it looks up its pairs.
const JAPANESE: &str = "今日は仕事の長い一日で川沿いを歩いて帰った";

#[tokio::test]
async fn the_costliest_requests_stay_within_budget_on_sqlite() {
    let db = SqliteDb::new();
    let (ann, bob) = {
        let api = Api::start(&db.url);
        (api.user("ann").await, api.user("bob").await)
    };
    // Through the store's bulk path, in this process, while no server runs.
    let store = journal_core::store::open(&db.url).await.expect("open");
    let now = Timestamp::now().as_millis();
    let people = [(&ann, "ann"), (&bob, "bob")];
    for chunk in (0..ENTRIES).collect::<Vec<_>>().chunks(5_000) {
        let entries: Vec<Entry> = chunk
            .iter()
            .map(|&i| {
                let (user, name) = people[(i % 2) as usize];
                let at = Timestamp::from_millis(now - i * SPACING_MS);
                Entry {
                    id: EntryId::generate(),
                    title: format!("entry {i}"),
                    content: content(i).into(),
                    is_public: is_public(i),
                    tags: tags(i),
                    starred: is_starred(i),
                    date: at,
                    author_id: user.id.parse::<UserId>().expect("a user id"),
                    author_name: name.into(),
                    created_at: at,
                    updated_at: at,
                    revision: 1,
                    revision_id: journal_core::RevisionId::generate(),
                }
            })
            .collect();
        store.insert_entries(&entries).await.expect("seed");
    }
    drop(store);
    let api = Api::start(&db.url);
    probe_all(&api, &ann, None).await;
}

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn the_costliest_requests_stay_within_budget_on_postgres() {
    let url = journal_tests::postgres_url();
    // The backends serving this server are found by the name they connect with.
    let app = format!("journal-cost-{}", std::process::id());
    let url = format!("{url}&application_name={app}");
    let (ann, bob) = {
        let api = Api::start(&url);
        (api.user("ann").await, api.user("bob").await)
    };
    let db = connect(&url).await;
    // One statement, in the database: the store's bulk path takes minutes here.
    db.execute(
        "INSERT INTO entries (id, author_id, author_name, title, content, is_public,
             created_at, updated_at, date, starred, tags)
         SELECT gen_random_uuid(),
             CASE WHEN i % 2 = 0 THEN $1::text::uuid ELSE $2::text::uuid END,
             CASE WHEN i % 2 = 0 THEN 'ann' ELSE 'bob' END,
             'entry ' || i,
             CASE WHEN i % 20 = 0 THEN 'a quiet morning in the garden with coffee'
                  ELSE 'a long day at work and a walk home by the river '
                       || '今日は仕事の長い一日で川沿いを歩いて帰った' END,
             i % 10 < 3, at, at, at, i % 20 = 7,
             CASE WHEN i % 7 = 0 THEN ARRAY['common'] WHEN i % 100 = 3 THEN ARRAY['rare']
                  ELSE '{}'::text[] END
         FROM generate_series(0, $3::bigint - 1) i,
             LATERAL (SELECT now() - i * interval '15 minutes' AS at) d",
        &[&ann.id, &bob.id, &ENTRIES],
    )
    .await
    .expect("seed");
    db.batch_execute("VACUUM ANALYZE").await.expect("vacuum");
    let api = Api::start(&url);
    probe_all(&api, &ann, Some((&db, &app))).await;
    // A hundred thousand rows are worth giving back at once, not at the next CI run.
    drop(api);
    let schema = url
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("schema="))
        .expect("a schema parameter");
    db.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .await
        .expect("drop the schema");
}

pub(crate) async fn connect(url: &str) -> tokio_postgres::Client {
    let (base, query) = url.split_once('?').expect("a schema parameter");
    let schema = query
        .split('&')
        .find_map(|p| p.strip_prefix("schema="))
        .expect("a schema parameter");
    let (client, connection) = tokio_postgres::connect(base, tokio_postgres::NoTls)
        .await
        .expect("connect to PostgreSQL");
    tokio::spawn(connection);
    client
        .batch_execute(&format!("SET search_path = {schema}"))
        .await
        .expect("search path");
    client
}

/// Sends every probe and checks its cost; prints the figures for SECURITY.md.
async fn probe_all(api: &Api, ann: &User, postgres: Option<(&tokio_postgres::Client, &str)>) {
    let first = api
        .get("/api/public/journal-entries?starred=false", None)
        .await;
    let next = header(&first, "link");
    let after = next
        .split(['?', '&', '>'])
        .find(|p| p.starts_with("after="))
        .expect("a cursor in the first page's Link")
        .to_owned();
    let own = format!("/api/user/{}/journal-entries", ann.id);
    let twenty: String = (0..20).map(|i| format!("&tag=t{i}")).collect();
    let anonymous = [
        "/api/public/journal-entries?day=01-01&from=1900-01-01&to=2100-12-31".to_owned(),
        "/api/public/journal-entries?starred=false".to_owned(),
        "/api/public/journal-entries?tag=common".to_owned(),
        format!("/api/public/journal-entries?{after}&starred=false"),
        "/api/public/journal-entries?tag=common&limit=100&page=20".to_owned(),
        "/api/public/journal-entries?starred=true".to_owned(),
        "/api/public/journal-entries?limit=100&page=20".to_owned(),
    ];
    let signed_in = [
        format!("{own}?from=1950-01-01T00:00&tz=%2B14:00"),
        format!("/api/search/journal-entries?q=garden{twenty}"),
        "/api/search/journal-entries?q=garden&starred=false".to_owned(),
        format!("{own}?starred=false"),
        format!("{own}?tag=common&limit=100&page=20"),
        format!("{own}?day=01-01&from=1900-01-01&to=2100-12-31"),
    ];
    let mut over = Vec::new();
    for (paths, token, budget) in [
        (&anonymous[..], None, ANONYMOUS),
        (&signed_in[..], Some(ann.token.as_str()), SIGNED_IN),
    ] {
        for path in paths {
            let cost = cost_of(api, path, token, postgres).await;
            println!("{:>6.1} ms CPU  {path}", cost.as_secs_f64() * 1000.0);
            if cost > budget {
                over.push(format!("{path}: {cost:?}, over {budget:?}"));
            }
        }
    }
    // A search for runs of a script written without spaces costs no more than the
    // costliest search of words over the same entries: sixteen words (the most a query
    // keeps), each in nearly every entry. Against a run of 1,000 characters (999 pairs,
    // of which a query keeps 16) and single characters, each the prefix of the pairs it
    // begins, each in nearly every entry too.
    let words = "/api/search/journal-entries?q=a%20long%20day%20at%20work%20and%20walk%20\
                 home%20by%20the%20river%20entry%20wor%20wal%20hom%20riv";
    let long_run: String = JAPANESE.chars().cycle().take(1_000).collect();
    let mut singles: Vec<String> = Vec::new();
    for c in JAPANESE.chars().map(String::from) {
        if !singles.contains(&c) {
            singles.push(c);
        }
    }
    let token = Some(ann.token.as_str());
    let words_cost = cost_of(api, words, token, postgres).await;
    println!("{:>6.1} ms CPU  {words}", words_cost.as_secs_f64() * 1000.0);
    // What CPU time measures varies a little from run to run.
    let bound = words_cost.mul_f64(1.15) + Duration::from_millis(5);
    for path in [
        format!("/api/search/journal-entries?q={long_run}"),
        format!("/api/search/journal-entries?q={}", singles.join("%20")),
    ] {
        let cost = cost_of(api, &path, token, postgres).await;
        let shown: String = path.chars().take(80).collect();
        println!("{:>6.1} ms CPU  {shown}…", cost.as_secs_f64() * 1000.0);
        if cost > bound {
            over.push(format!(
                "{shown}…: {cost:?}, over the search of words' {words_cost:?}"
            ));
        }
    }
    assert!(over.is_empty(), "over budget: {over:#?}");
}

/// The mean CPU time of `path` over [`ROUNDS`] requests, after one to warm caches.
async fn cost_of(
    api: &Api,
    path: &str,
    token: Option<&str>,
    postgres: Option<(&tokio_postgres::Client, &str)>,
) -> Duration {
    let warm = api.get(path, token).await;
    assert_eq!(warm.status(), StatusCode::OK, "{path}");
    let before = cpu_ticks(api, postgres).await;
    for _ in 0..ROUNDS {
        let response = api.get(path, token).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.bytes().await.expect("the body");
    }
    let ticks = cpu_ticks(api, postgres).await - before;
    Duration::from_millis(ticks * 1000 / clock_ticks_per_second() / u64::from(ROUNDS))
}

/// The server's user and system time, plus its PostgreSQL backends', in clock ticks.
pub(crate) async fn cpu_ticks(api: &Api, postgres: Option<(&tokio_postgres::Client, &str)>) -> u64 {
    let mut pids = vec![api.server.pid()];
    if let Some((db, app)) = postgres {
        let rows = db
            .query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
                &[&app],
            )
            .await
            .expect("the server's backends");
        pids.extend(rows.iter().map(|r| r.get::<_, i32>(0) as u32));
    }
    pids.iter()
        .map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_else(|e| panic!("/proc/{pid}/stat (is PostgreSQL local?): {e}"));
            // The command may hold spaces: count fields after its closing parenthesis.
            let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 2..]
                .split(' ')
                .collect();
            fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
        })
        .sum()
}

pub(crate) fn clock_ticks_per_second() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}
