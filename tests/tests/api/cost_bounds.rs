//! What bounds a list's cost: filtered totals counted only up to a cap (and said to be
//! a lower bound past it), and statements stopped at their request class's limit.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, header, on_every_database};

on_every_database!(
    a_filtered_total_past_the_cap_is_a_lower_bound_and_the_pages_go_on,
    a_statement_past_the_anonymous_limit_is_stopped_but_a_signed_in_one_runs,
);

/// More public entries than a filtered list counts.
const ENTRIES: usize = 2_100;

async fn import_public_entries(api: &Api, user: &User, n: usize, tags: &[String]) {
    let entries: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "title": format!("entry {i}"),
                "isPublic": true,
                "tags": tags,
                "createdAt": "2024-01-01T00:00:00Z",
                "date": format!("2024-{:02}-{:02}T{:02}:{:02}:00Z", 1 + i % 12, 1 + i % 28, i % 24, i % 60),
            })
        })
        .collect();
    for batch in entries.chunks(700) {
        let response = api
            .post(
                "/api/journal-entries/import",
                Some(&user.token),
                json!({ "entries": batch }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
}

async fn a_filtered_total_past_the_cap_is_a_lower_bound_and_the_pages_go_on(db: &str) {
    let api = Api::start_with(db, &["--max-body", "1MiB"]);
    let ada = api.user("ada").await;
    import_public_entries(&api, &ada, ENTRIES, &[]).await;

    // Unfiltered: the counters, exact.
    let all = api.get("/api/public/journal-entries", None).await;
    assert_eq!(header(&all, "x-total-count"), ENTRIES.to_string());
    assert_eq!(header(&all, "x-total-count-exact"), "true");

    // Filtered, matching every entry: counted up to the cap, a lower bound.
    let deepest = "/api/public/journal-entries?starred=false&page=100&limit=20";
    let last_by_number = api.get(deepest, None).await;
    assert_eq!(last_by_number.status(), StatusCode::OK);
    assert_eq!(
        header(&last_by_number, "x-total-count"),
        journal_core::COUNT_CAP.to_string()
    );
    assert_eq!(header(&last_by_number, "x-total-count-exact"), "false");
    // The list goes on past the count: the next page is linked, by cursor.
    let link = header(&last_by_number, "link");
    let next = link
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .unwrap_or_else(|| panic!("no next link past a lower-bound total: {link}"));
    let next = next.trim_start_matches('<').split('>').next().unwrap();
    assert!(next.contains("after="), "{next}");
    let after = api.get(next, None).await;
    assert_eq!(after.status(), StatusCode::OK);
    assert_eq!(body(after).await.as_array().unwrap().len(), 20);

    // A filter under the cap is counted exactly.
    let none = api
        .get("/api/public/journal-entries?starred=true", None)
        .await;
    assert_eq!(header(&none, "x-total-count"), "0");
    assert_eq!(header(&none, "x-total-count-exact"), "true");
    let own = api
        .get(
            &format!("/api/user/{}/journal-entries?from=2024-12-01", ada.id),
            Some(&ada.token),
        )
        .await;
    let december = (0..ENTRIES).filter(|i| i % 12 == 11).count();
    assert_eq!(header(&own, "x-total-count"), december.to_string());
    assert_eq!(header(&own, "x-total-count-exact"), "true");
}

async fn a_statement_past_the_anonymous_limit_is_stopped_but_a_signed_in_one_runs(db: &str) {
    // An anonymous statement may run a millisecond: checking nineteen tags of each of
    // two thousand entries, to find that none has the twentieth, takes longer on
    // either backend.
    let api = Api::start_with(
        db,
        &[
            "--max-body",
            "1MiB",
            "--query-timeout-anonymous",
            "1ms",
            "--query-timeout",
            "30s",
        ],
    );
    let ada = api.user("ada").await;
    let tags: Vec<String> = (0..20).map(|i| format!("t{i:02}")).collect();
    import_public_entries(&api, &ada, ENTRIES, &tags[..19]).await;
    let filter: String = tags.iter().map(|t| format!("tag={t}&")).collect();

    let anonymous = api
        .get(&format!("/api/public/journal-entries?{filter}"), None)
        .await;
    assert_error(anonymous, 503, "Service Unavailable").await;
    // The feed reads no token, so one sent along does not buy the longer limit.
    let with_token = api
        .get(
            &format!("/api/public/journal-entries?{filter}"),
            Some(&ada.token),
        )
        .await;
    assert_error(with_token, 503, "Service Unavailable").await;
    let own = format!("/api/user/{}/journal-entries?{filter}", ada.id);
    let forged = api.get(&own, Some("not-a-token")).await;
    assert_error(forged, 401, "Unauthorized").await;
    let signed_in = api.get(&own, Some(&ada.token)).await;
    let total = header(&signed_in, "x-total-count");
    assert_eq!(
        signed_in.status(),
        StatusCode::OK,
        "{}",
        body(signed_in).await
    );
    assert_eq!(total, "0");
    // The nineteen tags every entry has keep them all.
    let present: String = tags[..19].iter().map(|t| format!("tag={t}&")).collect();
    let all = api
        .get(
            &format!("/api/user/{}/journal-entries?{present}", ada.id),
            Some(&ada.token),
        )
        .await;
    assert_eq!(header(&all, "x-total-count-exact"), "false");
    assert_eq!(body(all).await.as_array().unwrap().len(), 10);
    // Nothing of the stopped statements is left running: the next request is served.
    let status = api.get("/api/status", None).await;
    assert_eq!(status.status(), StatusCode::OK);
}
