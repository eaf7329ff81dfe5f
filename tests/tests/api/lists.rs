//! Lists: a user's entries, the public feed and search; paging and its headers.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Api, assert_error, body, header, ids, on_every_database};

on_every_database!(
    a_users_own_list_has_every_entry_newest_first_with_paging_headers,
    another_users_list_shows_only_their_public_entries,
    a_private_profiles_list_is_403_to_others_and_200_to_its_owner,
    an_unknown_or_malformed_user_id_is_404,
    a_users_list_without_a_token_is_401,
    a_bad_page_or_limit_is_400_naming_the_allowed_range,
    the_public_list_needs_no_token_and_hides_private_entries_and_profiles,
    search_finds_only_the_callers_matching_entries,
    search_without_q_or_with_an_empty_q_is_400,
    search_without_a_token_is_401,
    search_finds_a_run_of_chinese_japanese_or_thai_and_tags,
);

async fn a_users_own_list_has_every_entry_newest_first_with_paging_headers(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let mut created = Vec::new();
    for (i, public) in [true, false, true, false, true].into_iter().enumerate() {
        let entry = api.entry(&ada, &format!("entry {i}"), public).await;
        created.push(entry["_id"].as_str().unwrap().to_owned());
    }
    created.reverse();
    let base = format!("/api/user/{}/journal-entries", ada.id);

    let all = api.get(&base, Some(&ada.token)).await;
    assert_eq!(all.status(), StatusCode::OK);
    assert_eq!(header(&all, "x-total-count"), "5");
    assert_eq!(header(&all, "link"), "");
    assert_eq!(ids(&body(all).await), created);

    let middle = api
        .get(&format!("{base}?page=2&limit=2"), Some(&ada.token))
        .await;
    assert_eq!(middle.status(), StatusCode::OK);
    assert_eq!(header(&middle, "x-total-count"), "5");
    let link = header(&middle, "link");
    assert!(
        link.contains(&format!("<{base}?page=1&limit=2>; rel=\"prev\"")),
        "{link}"
    );
    // The next link continues after this page's last entry (a keyset cursor), and
    // following it gives exactly what ?page=3 gives.
    let next = link
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .and_then(|l| l.strip_prefix('<'))
        .and_then(|l| l.split_once('>'))
        .map(|(url, _)| url.to_owned())
        .unwrap_or_else(|| panic!("no next link in {link}"));
    assert!(
        next.starts_with(&format!("{base}?page=3&limit=2&after=")),
        "{next}"
    );
    assert_eq!(ids(&body(middle).await), created[2..4]);
    let followed = api.get(&next, Some(&ada.token)).await;
    assert_eq!(header(&followed, "x-total-count"), "5");
    assert_eq!(ids(&body(followed).await), created[4..]);

    let last = api
        .get(&format!("{base}?page=3&limit=2"), Some(&ada.token))
        .await;
    let link = header(&last, "link");
    assert!(
        link.contains("rel=\"prev\"") && !link.contains("rel=\"next\""),
        "{link}"
    );
    assert_eq!(ids(&body(last).await), created[4..]);

    let past_the_end = api
        .get(&format!("{base}?page=9&limit=2"), Some(&ada.token))
        .await;
    assert_eq!(past_the_end.status(), StatusCode::OK);
    assert_eq!(header(&past_the_end, "x-total-count"), "5");
    assert_eq!(body(past_the_end).await, json!([]));
}

async fn another_users_list_shows_only_their_public_entries(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let public = api.entry(&ada, "open", true).await;
    api.entry(&ada, "closed", false).await;
    let response = api
        .get(
            &format!("/api/user/{}/journal-entries", ada.id),
            Some(&bob.token),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "x-total-count"), "1");
    assert_eq!(body(response).await, json!([public]));
}

async fn a_private_profiles_list_is_403_to_others_and_200_to_its_owner(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    api.entry(&ada, "open", true).await;
    api.put(
        "/api/user/profile/",
        Some(&ada.token),
        json!({ "isPrivate": true }),
    )
    .await;
    let path = format!("/api/user/{}/journal-entries", ada.id);
    assert_error(api.get(&path, Some(&bob.token)).await, 403, "Forbidden").await;
    let own = api.get(&path, Some(&ada.token)).await;
    assert_eq!(own.status(), StatusCode::OK);
    assert_eq!(header(&own, "x-total-count"), "1");
}

async fn an_unknown_or_malformed_user_id_is_404(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for id in ["0198a1b2-0000-7000-8000-000000000000", "someone"] {
        let response = api
            .get(&format!("/api/user/{id}/journal-entries"), Some(&ada.token))
            .await;
        assert_error(response, 404, "Not Found").await;
    }
}

async fn a_users_list_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let response = api
        .get(&format!("/api/user/{}/journal-entries", ada.id), None)
        .await;
    assert_error(response, 401, "Unauthorized").await;
}

async fn a_bad_page_or_limit_is_400_naming_the_allowed_range(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let lists = [
        format!("/api/user/{}/journal-entries", ada.id),
        "/api/public/journal-entries".to_owned(),
        "/api/search/journal-entries?q=x".to_owned(),
    ];
    for list in &lists {
        let sep = if list.contains('?') { '&' } else { '?' };
        for (query, field, range) in [
            ("page=0", "page", "from 1"),
            ("page=-1", "page", "from 1"),
            ("page=two", "page", "from 1"),
            ("limit=0", "limit", "1 to 100"),
            ("limit=101", "limit", "1 to 100"),
            ("limit=ten", "limit", "1 to 100"),
        ] {
            let response = api
                .get(&format!("{list}{sep}{query}"), Some(&ada.token))
                .await;
            let message = assert_error(response, 400, "Bad Request").await;
            assert!(
                message.contains(field) && message.contains(range),
                "{list} {query}: {message}"
            );
        }
    }
}

async fn the_public_list_needs_no_token_and_hides_private_entries_and_profiles(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let shown = api.entry(&ada, "for everyone", true).await;
    let private_entry = api.entry(&ada, "for me", false).await;
    let private_profile = api.entry(&bob, "bob hides", true).await;
    api.put(
        "/api/user/profile/",
        Some(&bob.token),
        json!({ "isPrivate": true }),
    )
    .await;

    let response = api.get("/api/public/journal-entries?limit=100", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let total: u64 = header(&response, "x-total-count")
        .parse()
        .expect("X-Total-Count is a number");
    assert!(total >= 1);
    let listed = ids(&body(response).await);
    let id = |e: &serde_json::Value| e["_id"].as_str().unwrap().to_owned();
    assert!(listed.contains(&id(&shown)));
    assert!(!listed.contains(&id(&private_entry)));
    assert!(!listed.contains(&id(&private_profile)));
}

async fn search_finds_only_the_callers_matching_entries(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let hit = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Zebras at dawn", "content": "striped", "isPublic": true }),
        )
        .await;
    let hit = body(hit).await;
    api.entry(&ada, "nothing here", true).await;
    api.post(
        "/api/journal-entries",
        Some(&bob.token),
        json!({ "title": "Zebras too", "content": "bob's", "isPublic": true }),
    )
    .await;

    let response = api
        .get("/api/search/journal-entries?q=zEBRA", Some(&ada.token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "x-total-count"), "1");
    assert_eq!(body(response).await, json!([hit]));
}

async fn search_without_q_or_with_an_empty_q_is_400(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for path in [
        "/api/search/journal-entries",
        "/api/search/journal-entries?q=",
        "/api/search/journal-entries?q=%20%20",
    ] {
        let message = assert_error(api.get(path, Some(&ada.token)).await, 400, "Bad Request").await;
        assert!(message.contains('q'), "{path}: {message}");
    }
}

async fn search_without_a_token_is_401(db: &str) {
    let api = Api::start(db);
    let response = api.get("/api/search/journal-entries?q=x", None).await;
    assert_error(response, 401, "Unauthorized").await;
}

/// Text written without spaces is found by any run of two or more of its characters
/// (or one), in a title or a body; tags by their words; ranked with the rest.
async fn search_finds_a_run_of_chinese_japanese_or_thai_and_tags(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for (title, content, tags) in [
        ("日記", "今日は静かな朝でした", json!([])),
        ("東京の朝", "river walk", json!([])),
        ("ตลาด", "ราคาไม่แพง", json!([])),
        ("Saturday", "up at dawn", json!(["hiking"])),
        ("Notes", "meeting at 東京駅", json!([])),
    ] {
        let created = api
            .post(
                "/api/journal-entries",
                Some(&ada.token),
                json!({ "title": title, "content": content, "isPublic": false, "tags": tags }),
            )
            .await;
        assert_eq!(created.status(), StatusCode::CREATED, "{title}");
    }
    let titles = |response: serde_json::Value| -> Vec<String> {
        response
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["title"].as_str().unwrap().to_owned())
            .collect()
    };
    for (q, expected) in [
        // 静か, percent-encoded as a browser sends it.
        ("%E9%9D%99%E3%81%8B", vec!["日記"]),
        ("静かな朝", vec!["日記"]),
        ("朝", vec!["東京の朝", "日記"]),
        ("東京", vec!["東京の朝", "Notes"]),
        ("ไม่แพง", vec!["ตลาด"]),
        ("hiking", vec!["Saturday"]),
        ("river", vec!["東京の朝"]),
        ("静朝", vec![]),
    ] {
        let response = api
            .get(
                &format!("/api/search/journal-entries?q={q}"),
                Some(&ada.token),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{q}");
        assert_eq!(
            header(&response, "x-total-count"),
            expected.len().to_string()
        );
        let mut got = titles(body(response).await);
        let mut expected: Vec<String> = expected.into_iter().map(String::from).collect();
        if q == "朝" {
            // Both hold it once, in a title or a body: either order.
            got.sort();
            expected.sort();
        }
        assert_eq!(got, expected, "{q}");
    }
}
