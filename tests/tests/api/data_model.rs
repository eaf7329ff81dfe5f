//! Tags, starred and the date an entry is about: the fields on every route, the list
//! filters (`from`, `to`, `tag`, `starred`, `day`, `tz`), their 400s, the order by date,
//! the tags endpoint, and visibility under filters.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{Api, User, assert_error, body, header, on_every_database};

on_every_database!(
    entries_carry_tags_starred_and_a_date_on_every_route,
    bad_tags_and_dates_are_400_naming_the_field_and_change_nothing,
    lists_are_ordered_by_date_and_their_cursors_follow_it,
    filters_keep_exactly_the_matching_entries_with_totals_and_links,
    on_this_day_reads_the_day_in_the_time_zone_given,
    bad_filter_values_are_400_naming_the_parameter,
    filters_never_reveal_an_entry_or_a_tag_the_caller_may_not_see,
    search_takes_the_same_filters,
);

/// Creates an entry with these fields and returns it.
async fn write(api: &Api, user: &User, fields: Value) -> Value {
    let mut body_json = json!({ "content": "some text", "isPublic": false });
    for (k, v) in fields.as_object().unwrap() {
        body_json[k] = v.clone();
    }
    let response = api
        .post("/api/journal-entries", Some(&user.token), body_json.clone())
        .await;
    assert_eq!(response.status(), StatusCode::CREATED, "create {body_json}");
    body(response).await
}

/// The titles of a list response, in order, with its total.
async fn titles(api: &Api, path: &str, user: Option<&User>) -> (Vec<String>, String) {
    let response = api.get(path, user.map(|u| u.token.as_str())).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let total = header(&response, "x-total-count");
    let list = body(response).await;
    let titles = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect();
    (titles, total)
}

async fn entries_carry_tags_starred_and_a_date_on_every_route(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;

    let plain = write(&api, &ada, json!({ "title": "plain" })).await;
    assert_eq!(plain["tags"], json!([]));
    assert_eq!(plain["starred"], false);
    assert_eq!(
        plain["date"], plain["createdAt"],
        "date defaults to createdAt"
    );

    let rich = write(
        &api,
        &ada,
        json!({ "title": "rich", "tags": ["Work", "work", "cafe\u{301}", "to-do_2"],
                "starred": true, "date": "2020-05-01T10:00:00+02:00" }),
    )
    .await;
    assert_eq!(
        rich["tags"],
        json!(["café", "to-do_2", "work"]),
        "lower-case NFC, unique, sorted"
    );
    assert_eq!(rich["starred"], true);
    assert_eq!(rich["date"], "2020-05-01T08:00:00.000Z");
    assert_ne!(rich["date"], rich["createdAt"]);

    let id = rich["_id"].as_str().unwrap();
    let fetched = body(
        api.get(&format!("/api/journal-entries/{id}"), Some(&ada.token))
            .await,
    )
    .await;
    assert_eq!(fetched, rich, "GET returns what POST did");

    let updated = api
        .put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "tags": ["Home"], "starred": false, "date": "2019-12-31T23:00:00Z" }),
        )
        .await;
    assert_eq!(updated.status(), StatusCode::OK);
    let updated = body(updated).await;
    assert_eq!(updated["tags"], json!(["home"]));
    assert_eq!(updated["starred"], false);
    assert_eq!(updated["date"], "2019-12-31T23:00:00.000Z");
    assert_eq!(updated["title"], "rich", "untouched fields stay");

    // Only starred changes: tags and date stay.
    let starred = body(
        api.put(
            &format!("/api/journal-entries/{id}"),
            Some(&ada.token),
            json!({ "starred": true }),
        )
        .await,
    )
    .await;
    assert_eq!(starred["tags"], json!(["home"]));
    assert_eq!(starred["date"], "2019-12-31T23:00:00.000Z");

    let imported = api
        .post(
            "/api/journal-entries/import",
            Some(&ada.token),
            json!({ "entries": [
                { "title": "old", "createdAt": "2015-03-01T12:00:00Z", "tags": ["Past"], "starred": true },
                { "title": "dated", "createdAt": "2015-03-01T12:00:00Z", "date": "2010-01-01T00:00:00Z" }
            ] }),
        )
        .await;
    assert_eq!(imported.status(), StatusCode::CREATED);
    let imported = body(imported).await;
    assert_eq!(imported["entries"][0]["tags"], json!(["past"]));
    assert_eq!(imported["entries"][0]["starred"], true);
    assert_eq!(
        imported["entries"][0]["date"], "2015-03-01T12:00:00.000Z",
        "date defaults to createdAt"
    );
    assert_eq!(imported["entries"][1]["date"], "2010-01-01T00:00:00.000Z");

    // The list shows the same fields.
    let list = body(
        api.get(
            &format!("/api/user/{}/journal-entries?limit=10", ada.id),
            Some(&ada.token),
        )
        .await,
    )
    .await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["_id"] == id)
        .unwrap();
    assert_eq!(*listed, starred);
}

async fn bad_tags_and_dates_are_400_naming_the_field_and_change_nothing(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let too_many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    for (fields, field) in [
        (json!({ "tags": ["two words"] }), "tags"),
        (json!({ "tags": ["#hash"] }), "tags"),
        (json!({ "tags": [""] }), "tags"),
        (json!({ "tags": ["x".repeat(51)] }), "tags"),
        (json!({ "tags": too_many }), "tags"),
        (json!({ "date": "yesterday" }), "date"),
        (json!({ "date": "1899-12-31T00:00:00Z" }), "date"),
        (json!({ "date": "2999-01-01T00:00:00Z" }), "date"),
    ] {
        let mut request = json!({ "title": "bad" });
        for (k, v) in fields.as_object().unwrap() {
            request[k] = v.clone();
        }
        let response = api
            .post("/api/journal-entries", Some(&ada.token), request)
            .await;
        let message = assert_error(response, 400, "Bad Request").await;
        assert!(message.contains(field), "{fields}: {message}");
    }
    // Wrong JSON types are 400 too, never a 500.
    for request in [
        json!({ "title": "bad", "tags": "work" }),
        json!({ "title": "bad", "starred": "yes" }),
        json!({ "title": "bad", "date": 12 }),
    ] {
        let response = api
            .post("/api/journal-entries", Some(&ada.token), request)
            .await;
        assert_error(response, 400, "Bad Request").await;
    }
    let (_, total) = titles(
        &api,
        &format!("/api/user/{}/journal-entries", ada.id),
        Some(&ada),
    )
    .await;
    assert_eq!(total, "0", "nothing was created");

    let good = write(&api, &ada, json!({ "title": "good", "tags": ["keep"] })).await;
    let path = format!("/api/journal-entries/{}", good["_id"].as_str().unwrap());
    let response = api
        .put(
            &path,
            Some(&ada.token),
            json!({ "tags": ["a b"], "title": "changed" }),
        )
        .await;
    assert_error(response, 400, "Bad Request").await;
    let after = body(api.get(&path, Some(&ada.token)).await).await;
    assert_eq!(after, good, "a refused update changes nothing");
}

async fn lists_are_ordered_by_date_and_their_cursors_follow_it(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    // Written in one order, dated in another.
    for (title, date) in [
        ("c", "2022-03-01T00:00:00Z"),
        ("a", "2022-01-01T00:00:00Z"),
        ("e", "2022-05-01T00:00:00Z"),
        ("b", "2022-02-01T00:00:00Z"),
        ("d", "2022-04-01T00:00:00Z"),
    ] {
        write(
            &api,
            &ada,
            json!({ "title": title, "date": date, "isPublic": true }),
        )
        .await;
    }
    let base = format!("/api/user/{}/journal-entries", ada.id);
    let (all, _) = titles(&api, &base, Some(&ada)).await;
    assert_eq!(all, ["e", "d", "c", "b", "a"]);
    let (feed, _) = titles(&api, "/api/public/journal-entries", None).await;
    assert_eq!(feed, ["e", "d", "c", "b", "a"]);

    // Follow the Link cursors two at a time.
    let mut seen = Vec::new();
    let mut next = Some(format!("{base}?limit=2"));
    while let Some(path) = next {
        let response = api.get(&path, Some(&ada.token)).await;
        let link = header(&response, "link");
        let list = body(response).await;
        seen.extend(
            list.as_array()
                .unwrap()
                .iter()
                .map(|e| e["title"].as_str().unwrap().to_owned()),
        );
        next = link
            .split(", ")
            .find(|l| l.ends_with("rel=\"next\""))
            .map(|l| l[1..l.find('>').unwrap()].to_owned());
    }
    assert_eq!(seen, ["e", "d", "c", "b", "a"]);
}

async fn filters_keep_exactly_the_matching_entries_with_totals_and_links(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for (title, date, tags, starred) in [
        ("jan-work", "2023-01-15T09:00:00Z", json!(["work"]), false),
        (
            "feb-work-home",
            "2023-02-15T09:00:00Z",
            json!(["work", "home"]),
            true,
        ),
        ("mar-home", "2023-03-15T09:00:00Z", json!(["home"]), false),
        ("apr-none", "2023-04-15T09:00:00Z", json!([]), true),
        ("may-work", "2023-05-15T23:30:00Z", json!(["work"]), false),
    ] {
        write(
            &api,
            &ada,
            json!({ "title": title, "date": date, "tags": tags, "starred": starred }),
        )
        .await;
    }
    let base = format!("/api/user/{}/journal-entries", ada.id);
    for (query, expected) in [
        ("tag=work", vec!["may-work", "feb-work-home", "jan-work"]),
        ("tag=WORK&tag=home", vec!["feb-work-home"]),
        ("tag=nothing", vec![]),
        ("starred=true", vec!["apr-none", "feb-work-home"]),
        ("starred=false", vec!["may-work", "mar-home", "jan-work"]),
        (
            "from=2023-02-15&to=2023-03-15",
            vec!["mar-home", "feb-work-home"],
        ),
        (
            "from=2023-02-15T09:00:00Z&to=2023-02-15T09:00:00Z",
            vec!["feb-work-home"],
        ),
        ("from=2023-03-16", vec!["may-work", "apr-none"]),
        ("to=2023-01-31", vec!["jan-work"]),
        // 23:30 UTC on the 15th is the 16th in Paris.
        ("from=2023-05-16&tz=Europe/Paris", vec!["may-work"]),
        ("from=2023-05-16&tz=%2B02:00", vec!["may-work"]),
        ("from=2023-05-16", vec![]),
        ("tag=work&starred=false&from=2023-02-01", vec!["may-work"]),
    ] {
        let (got, total) = titles(&api, &format!("{base}?{query}"), Some(&ada)).await;
        assert_eq!(got, expected, "{query}");
        assert_eq!(
            total,
            expected.len().to_string(),
            "X-Total-Count of {query}"
        );
    }
    // Paging keeps the filter: the Link to the next page carries it.
    let response = api
        .get(&format!("{base}?tag=work&limit=1"), Some(&ada.token))
        .await;
    assert_eq!(header(&response, "x-total-count"), "3");
    let link = header(&response, "link");
    assert!(
        link.contains("tag=work") && link.contains("after="),
        "{link}"
    );
    let next = link
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .map(|l| l[1..l.find('>').unwrap()].to_owned())
        .unwrap();
    let (second, _) = titles(&api, &next, Some(&ada)).await;
    assert_eq!(second, ["feb-work-home"]);
    let (page3, _) = titles(&api, &format!("{base}?tag=work&limit=1&page=3"), Some(&ada)).await;
    assert_eq!(page3, ["jan-work"]);

    // The caller's tags, most used first, then by name.
    let tags = body(api.get("/api/user/tags", Some(&ada.token)).await).await;
    assert_eq!(
        tags,
        json!([{ "tag": "work", "count": 3 }, { "tag": "home", "count": 2 }])
    );
    assert_error(api.get("/api/user/tags", None).await, 401, "Unauthorized").await;
}

async fn on_this_day_reads_the_day_in_the_time_zone_given(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for (title, date) in [
        ("2019", "2019-07-04T12:00:00Z"),
        ("2021-late", "2021-07-04T23:30:00Z"), // the 5th in Tokyo, the 4th in UTC
        ("2022-early", "2022-07-04T02:00:00Z"), // the 3rd in New York, the 4th in Tokyo
        ("other", "2022-07-05T12:00:00Z"),
        ("leap", "2020-02-29T12:00:00Z"),
    ] {
        write(&api, &ada, json!({ "title": title, "date": date })).await;
    }
    let base = format!("/api/user/{}/journal-entries", ada.id);
    for (query, expected) in [
        ("day=07-04", vec!["2022-early", "2021-late", "2019"]),
        ("day=07-04&tz=Asia/Tokyo", vec!["2022-early", "2019"]),
        ("day=07-05&tz=Asia/Tokyo", vec!["other", "2021-late"]),
        ("day=07-04&tz=America/New_York", vec!["2021-late", "2019"]),
        ("day=07-04&tz=-05:00", vec!["2021-late", "2019"]),
        ("day=02-29", vec!["leap"]),
        ("day=07-04&from=2020-01-01", vec!["2022-early", "2021-late"]),
    ] {
        let (got, total) = titles(&api, &format!("{base}?{query}"), Some(&ada)).await;
        assert_eq!(got, expected, "{query}");
        assert_eq!(total, expected.len().to_string(), "{query}");
    }
}

async fn bad_filter_values_are_400_naming_the_parameter(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let lists = [
        format!("/api/user/{}/journal-entries?", ada.id),
        "/api/public/journal-entries?".to_owned(),
        "/api/search/journal-entries?q=word&".to_owned(),
    ];
    for list in &lists {
        for (query, param) in [
            ("from=yesterday", "from"),
            ("to=2023-02-30", "to"),
            ("from=1800-01-01", "from"),
            ("from=2023-02-02&to=2023-02-01", "from"),
            ("tag=two%20words", "tag"),
            ("tag=", "tag"),
            ("starred=yes", "starred"),
            ("day=13-01", "day"),
            ("day=7-4", "day"),
            ("tz=Mars/Olympus", "tz"),
            ("tz=%2B15:00", "tz"),
        ] {
            let response = api.get(&format!("{list}{query}"), Some(&ada.token)).await;
            let message = assert_error(response, 400, "Bad Request").await;
            assert!(message.starts_with(param), "{list}{query}: {message}");
        }
    }
}

async fn filters_never_reveal_an_entry_or_a_tag_the_caller_may_not_see(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let cy = api.user("cy").await;
    write(
        &api,
        &ada,
        json!({ "title": "ada public", "tags": ["shared"], "isPublic": true }),
    )
    .await;
    write(
        &api,
        &ada,
        json!({ "title": "ada private", "tags": ["shared", "secret"], "starred": true }),
    )
    .await;
    write(
        &api,
        &cy,
        json!({ "title": "cy public", "tags": ["shared"], "isPublic": true }),
    )
    .await;
    // cy's profile goes private: their public entries leave the feed.
    let response = api
        .put(
            "/api/user/profile",
            Some(&cy.token),
            json!({ "isPrivate": true }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);

    let ada_list = format!("/api/user/{}/journal-entries", ada.id);
    let (seen, total) = titles(&api, &format!("{ada_list}?tag=shared"), Some(&bob)).await;
    assert_eq!((seen, total.as_str()), (vec!["ada public".to_owned()], "1"));
    let (seen, total) = titles(&api, &format!("{ada_list}?tag=secret"), Some(&bob)).await;
    assert_eq!(
        (seen.len(), total.as_str()),
        (0, "0"),
        "a private entry's tag finds nothing"
    );
    let (seen, _) = titles(&api, &format!("{ada_list}?starred=true"), Some(&bob)).await;
    assert!(seen.is_empty());
    let (seen, _) = titles(&api, &format!("{ada_list}?tag=secret"), Some(&ada)).await;
    assert_eq!(seen, ["ada private"], "the author sees their own");

    let (feed, total) = titles(&api, "/api/public/journal-entries?tag=shared", None).await;
    assert_eq!((feed, total.as_str()), (vec!["ada public".to_owned()], "1"));
    let (feed, _) = titles(&api, "/api/public/journal-entries?tag=secret", None).await;
    assert!(feed.is_empty());
    let (feed, _) = titles(&api, "/api/public/journal-entries?starred=true", None).await;
    assert!(feed.is_empty());

    let cy_list = format!("/api/user/{}/journal-entries?tag=shared", cy.id);
    assert_error(api.get(&cy_list, Some(&bob.token)).await, 403, "Forbidden").await;

    // Tags are the caller's own.
    assert_eq!(
        body(api.get("/api/user/tags", Some(&bob.token)).await).await,
        json!([])
    );
    let ada_tags = body(api.get("/api/user/tags", Some(&ada.token)).await).await;
    assert_eq!(
        ada_tags,
        json!([{ "tag": "shared", "count": 2 }, { "tag": "secret", "count": 1 }])
    );
    // And search only ever searches the caller's own.
    let (found, _) = titles(
        &api,
        "/api/search/journal-entries?q=ada&tag=shared",
        Some(&bob),
    )
    .await;
    assert!(found.is_empty());
}

async fn search_takes_the_same_filters(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    for (title, tags, starred, date) in [
        (
            "garden plans",
            json!(["home"]),
            false,
            "2024-03-01T10:00:00Z",
        ),
        (
            "garden at work",
            json!(["work"]),
            true,
            "2024-04-01T10:00:00Z",
        ),
        (
            "garden party",
            json!(["home", "fun"]),
            true,
            "2024-05-01T10:00:00Z",
        ),
        ("kitchen", json!(["home"]), true, "2024-06-01T10:00:00Z"),
    ] {
        write(
            &api,
            &ada,
            json!({ "title": title, "tags": tags, "starred": starred, "date": date }),
        )
        .await;
    }
    let search = "/api/search/journal-entries?q=garden";
    let (all, total) = titles(&api, search, Some(&ada)).await;
    assert_eq!((all.len(), total.as_str()), (3, "3"));
    for (query, mut expected) in [
        ("&tag=home", vec!["garden party", "garden plans"]),
        ("&tag=home&tag=fun", vec!["garden party"]),
        ("&starred=true", vec!["garden party", "garden at work"]),
        ("&from=2024-04-01", vec!["garden party", "garden at work"]),
        ("&day=03-01", vec!["garden plans"]),
        ("&tag=nothing", vec![]),
    ] {
        let (mut got, total) = titles(&api, &format!("{search}{query}"), Some(&ada)).await;
        // Ranked: compare as sets.
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "{query}");
        assert_eq!(total, expected.len().to_string(), "{query}");
    }
    let response = api
        .get(&format!("{search}&tag=home&limit=1"), Some(&ada.token))
        .await;
    let link = header(&response, "link");
    assert!(
        link.contains("q=garden") && link.contains("tag=home"),
        "{link}"
    );
}
