//! Prometheus metrics (`--metrics-bind`): requests counted by route template and
//! status, their time, the pools and the caches, on an address of their own; made-up
//! paths add no labels; the API's address never serves them; a Prometheus client's
//! parser reads them.

use std::collections::BTreeSet;

use journal_tests::TestServer;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::{Api, SqliteDb, body, on_every_database};

/// The metrics' text, scraped from `api`'s metrics address.
async fn scrape(api: &Api) -> String {
    let url = api
        .server
        .metrics_url
        .as_deref()
        .expect("started with --metrics-bind");
    let answer = api.http.get(url).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let kind = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    answer.text().await.unwrap()
}

/// The value of the sample named `name` whose labels include every one of `labels`
/// (`route="/api/status"`), summed over the samples that match.
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    let mut found = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let (series_name, series_labels) = series.split_once('{').unwrap_or((series, ""));
        if series_name == name && labels.iter().all(|l| series_labels.contains(l)) {
            *found.get_or_insert(0.0) += value.parse::<f64>().unwrap();
        }
    }
    found
}

/// Every value the label `label` takes in `text`'s samples named `name`.
fn label_values(text: &str, name: &str, label: &str) -> BTreeSet<String> {
    let prefix = format!("{label}=\"");
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .filter_map(|l| {
            let start = l.find(&prefix)? + prefix.len();
            let end = start + l[start..].find('"')?;
            Some(l[start..end].to_owned())
        })
        .collect()
}

async fn requests_are_counted_by_route_template_with_the_pools_and_caches(url: &str) {
    let api = Api::start_with(url, &["--metrics-bind", "127.0.0.1:0"]);
    let user = api.user("metered").await;
    let mut ids = Vec::new();
    for title in ["one", "two"] {
        let entry = api.entry(&user, title, false).await;
        ids.push(entry["_id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        let read = api
            .get(&format!("/api/journal-entries/{id}"), Some(&user.token))
            .await;
        assert_eq!(read.status(), StatusCode::OK);
    }
    let stranger = api
        .get(&format!("/api/journal-entries/{}", ids[0]), None)
        .await;
    assert_eq!(stranger.status(), StatusCode::UNAUTHORIZED);
    let list = api
        .get(
            &format!("/api/user/{}/journal-entries", user.id),
            Some(&user.token),
        )
        .await;
    assert_eq!(body(list).await.as_array().unwrap().len(), 2);
    let searched = api
        .get("/api/search/journal-entries?q=one", Some(&user.token))
        .await;
    assert_eq!(searched.status(), StatusCode::OK);
    // The CLI reads the profile with a trailing slash, which the route takes too.
    for path in ["/api/user/profile", "/api/user/profile/"] {
        let profile = api.get(path, Some(&user.token)).await;
        assert_eq!(profile.status(), StatusCode::OK, "{path}");
    }

    let text = scrape(&api).await;
    let requests = "journal_http_requests_total";
    let entry = r#"route="/api/journal-entries/{id}""#;
    assert_eq!(
        sample(
            &text,
            requests,
            &[r#"method="GET""#, entry, r#"status="200""#]
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, requests, &[entry, r#"status="401""#]),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            requests,
            &[
                r#"method="POST""#,
                r#"route="/api/user/register""#,
                r#"status="201""#
            ]
        ),
        Some(1.0),
        "{text}"
    );
    // Never the path as sent: no id, no query string.
    assert!(!text.contains(&ids[0]), "{text}");
    assert!(!text.contains("q=one"));
    let timed = "journal_http_request_duration_seconds_count";
    assert_eq!(sample(&text, timed, &[r#"method="GET""#, entry]), Some(3.0));
    assert_eq!(
        sample(
            &text,
            "journal_http_request_duration_seconds_bucket",
            &[entry, r#"le="+Inf""#]
        ),
        Some(3.0)
    );
    assert_eq!(
        sample(&text, "journal_http_requests_in_flight", &[]),
        Some(0.0)
    );
    assert_eq!(
        sample(
            &text,
            requests,
            &[r#"route="/api/user/profile""#, r#"status="200""#]
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(sample(&text, requests, &[r#"route="unmatched""#]), None);

    // The pools, as they are at the scrape, and the waits for them.
    let pools = label_values(&text, "journal_db_pool_connections", "pool");
    if url.starts_with("sqlite:") {
        let expected: BTreeSet<String> = ["sqlite-reader", "sqlite-searcher", "sqlite-writer"]
            .map(String::from)
            .into();
        assert_eq!(pools, expected, "{text}");
        assert_eq!(
            sample(
                &text,
                "journal_db_pool_connections",
                &[r#"pool="sqlite-writer""#]
            ),
            Some(1.0)
        );
        // Each create committed in a batch of its own (the requests came one by one).
        let batches = sample(&text, "journal_sqlite_write_batch_size_count", &[]).unwrap();
        assert!(batches >= 2.0, "{text}");
    } else {
        assert_eq!(pools, BTreeSet::from(["postgres".to_owned()]), "{text}");
        let size = sample(
            &text,
            "journal_db_pool_connections",
            &[r#"pool="postgres""#],
        )
        .unwrap();
        let idle = sample(&text, "journal_db_pool_idle", &[r#"pool="postgres""#]).unwrap();
        assert!(size >= 1.0 && idle <= size, "{text}");
    }
    // At rest: nobody waits, and every connection is idle.
    for pool in &pools {
        let label = format!("pool=\"{pool}\"");
        let size = sample(&text, "journal_db_pool_connections", &[&label]).unwrap();
        let idle = sample(&text, "journal_db_pool_idle", &[&label]).unwrap();
        assert_eq!(idle, size, "{pool} at rest: {text}");
        assert_eq!(
            sample(&text, "journal_db_pool_waiting", &[&label]),
            Some(0.0),
            "{pool}"
        );
    }
    let waits = sample(&text, "journal_db_pool_wait_seconds_count", &[]).unwrap();
    assert!(
        waits >= 5.0,
        "every read and write waited for a connection: {text}"
    );

    // The caches' counts, as /api/admin/stats shows them, and the rendered bodies'.
    let caches = label_values(&text, "journal_cache_hits_total", "cache");
    assert!(caches.contains("renderedBodies"), "{caches:?}");
    assert!(caches.len() >= 3, "{caches:?}");
    for cache in &caches {
        let label = format!("cache=\"{cache}\"");
        assert!(
            sample(&text, "journal_cache_misses_total", &[&label]).is_some(),
            "{cache}"
        );
    }
}

on_every_database!(requests_are_counted_by_route_template_with_the_pools_and_caches);

/// Whatever paths and methods a stranger makes up, the labels stay the API's own
/// templates, `unmatched`, `web` and the methods' few names: a scrape stays small.
#[tokio::test]
async fn made_up_paths_and_methods_add_no_labels() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--metrics-bind", "127.0.0.1:0"]);
    let methods = [Method::GET, Method::POST, Method::PATCH];
    for i in 0..150 {
        let path = match i % 5 {
            0 => format!("/api/made-up-{i}"),
            1 => format!("/api/journal-entries/{i}/and/more"),
            2 if i % 2 == 0 => format!("/page-{i}"),
            2 => format!("/api/%75ser/{i}/"),
            3 => format!("/api/journal-entries/{i}"),
            _ => format!("/api/user/{i}/journal-entries?x={i}"),
        };
        let method = methods[i % methods.len()].clone();
        let answer = api
            .http
            .request(method, api.url(&path))
            .send()
            .await
            .unwrap();
        assert!(!answer.status().is_server_error(), "{path}");
    }
    let custom = Method::from_bytes(b"BREW").unwrap();
    api.http
        .request(custom, api.url("/api/status"))
        .send()
        .await
        .unwrap();

    let text = scrape(&api).await;
    let routes = label_values(&text, "journal_http_requests_total", "route");
    let served: BTreeSet<String> = documented_paths(&api).await;
    for route in &routes {
        assert!(
            served.contains(route) || route == "unmatched" || route == "web",
            "{route} is no template"
        );
    }
    assert!(routes.len() <= 6, "{routes:?}");
    let methods = label_values(&text, "journal_http_requests_total", "method");
    assert_eq!(
        methods,
        ["GET", "POST", "other"].map(String::from).into(),
        "PATCH and BREW are `other`"
    );
    let series = text.lines().filter(|l| !l.starts_with('#')).count();
    assert!(series < 400, "{series} series after 151 made-up requests");
}

/// The paths of the OpenAPI document, as its templates write them.
async fn documented_paths(api: &Api) -> BTreeSet<String> {
    let doc = body(api.get("/api/openapi.json", None).await).await;
    doc["paths"].as_object().unwrap().keys().cloned().collect()
}

/// The API's address has no metrics, whatever the flags; the metrics' address serves
/// nothing else; without the flag nothing listens for them.
#[tokio::test]
async fn the_apis_address_never_serves_the_metrics() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--metrics-bind", "127.0.0.1:0"]);
    api.get("/api/status", None).await;
    for path in ["/metrics", "/api/metrics"] {
        let answer = api.get(path, None).await;
        let text = answer.text().await.unwrap();
        assert!(!text.contains("journal_http"), "{path}: {text}");
    }
    let metrics = api.server.metrics_url.clone().unwrap();
    let elsewhere = metrics.replace("/metrics", "/api/status");
    let answer = api.http.get(&elsewhere).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::NOT_FOUND);
    let error = body(answer).await;
    assert_eq!(error["statusCode"], 404);
    let posted = api
        .http
        .post(&metrics)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::NOT_FOUND);

    let plain = TestServer::start(&db.url.replace(".db", "-2.db"), &[]);
    assert!(plain.metrics_url.is_none());
}

/// Python's `prometheus_client`, the reference client library, parses the whole text:
/// every family with its type, and the request counter's value as written.
#[tokio::test]
#[cfg_attr(
    not(prometheus_tests),
    ignore = "needs Python's prometheus_client: set JOURNAL_TEST_PROMETHEUS_PYTHON (docs/TESTING.md)"
)]
async fn a_prometheus_client_library_parses_the_metrics() {
    let db = SqliteDb::new();
    let api = Api::start_with(&db.url, &["--metrics-bind", "127.0.0.1:0"]);
    let user = api.user("parsed").await;
    api.entry(&user, "parsed", true).await;
    for _ in 0..3 {
        api.get("/api/public/journal-entries", None).await;
    }
    let text = scrape(&api).await;
    let python = std::env::var("JOURNAL_TEST_PROMETHEUS_PYTHON").unwrap_or_else(|_| {
        panic!("JOURNAL_TEST_PROMETHEUS_PYTHON names no Python with prometheus_client")
    });
    let script = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    families[family.name] = {
        "type": family.type,
        "samples": [[s.name, s.labels, s.value] for s in family.samples],
    }
print(json.dumps(families))
"#;
    let mut child = std::process::Command::new(&python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let families: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kind = |name: &str| families[name]["type"].as_str().map(str::to_owned);
    // The parser names a counter's family without `_total`.
    assert_eq!(kind("journal_http_requests").as_deref(), Some("counter"));
    assert_eq!(
        kind("journal_http_request_duration_seconds").as_deref(),
        Some("histogram")
    );
    assert_eq!(
        kind("journal_http_requests_in_flight").as_deref(),
        Some("gauge")
    );
    assert_eq!(
        kind("journal_db_pool_connections").as_deref(),
        Some("gauge")
    );
    assert_eq!(
        kind("journal_db_pool_wait_seconds").as_deref(),
        Some("histogram")
    );
    assert_eq!(kind("journal_cache_hits").as_deref(), Some("counter"));
    assert_eq!(
        kind("journal_sqlite_write_batch_size").as_deref(),
        Some("histogram")
    );
    let feed = families["journal_http_requests"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s[1]["route"] == "/api/public/journal-entries")
        .cloned()
        .unwrap_or_else(|| panic!("no feed requests: {families}"));
    assert_eq!(feed[0], "journal_http_requests_total");
    assert_eq!(feed[1]["status"], "200");
    assert_eq!(feed[2], 3.0);
}
