//! The public feed through a cache: `Cache-Control: no-cache` with a strong `ETag`, a
//! 304 for a page that did not change, and a page that did (an entry made private, a
//! count moved by an entry on another page) answered in full to the old tag.

use reqwest::{Response, StatusCode};
use serde_json::json;

use crate::support::{Api, body, header, ids, on_every_database};

on_every_database!(
    an_entry_made_private_leaves_the_feed_for_a_client_revalidating_with_its_old_etag,
    a_change_on_another_page_changes_the_etag_of_the_first,
    filtered_and_cursor_pages_revalidate_too,
    a_signed_in_request_for_the_feed_is_still_no_store,
);

const FEED: &str = "/api/public/journal-entries";

/// GET `path` anonymously, with `If-None-Match: tag` when given.
async fn revalidate(api: &Api, path: &str, tag: Option<&str>) -> Response {
    let mut request = api.http.get(api.url(path));
    if let Some(tag) = tag {
        request = request.header("if-none-match", tag);
    }
    request.send().await.expect("request reaches the server")
}

/// The `ETag` of a 200, checked to be strong and quoted, with `no-cache`.
fn etag_of(response: &Response) -> String {
    assert_eq!(header(response, "cache-control"), "no-cache");
    let etag = header(response, "etag");
    assert!(
        etag.len() > 2 && etag.starts_with('"') && etag.ends_with('"'),
        "not a strong ETag: {etag:?}"
    );
    etag
}

async fn assert_not_modified(api: &Api, path: &str, etag: &str) {
    let response = revalidate(api, path, Some(etag)).await;
    assert_eq!(response.status(), StatusCode::NOT_MODIFIED, "{path}");
    assert_eq!(header(&response, "etag"), etag);
    assert_eq!(header(&response, "cache-control"), "no-cache");
    assert!(response.bytes().await.unwrap().is_empty());
}

async fn an_entry_made_private_leaves_the_feed_for_a_client_revalidating_with_its_old_etag(
    db: &str,
) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let kept = api.entry(&ada, "stays public", true).await;
    let secret = api.entry(&ada, "soon private", true).await;
    let secret_id = secret["_id"].as_str().unwrap().to_owned();

    let first = revalidate(&api, FEED, None).await;
    assert_eq!(first.status(), StatusCode::OK);
    let etag = etag_of(&first);
    assert!(ids(&body(first).await).contains(&secret_id));
    // Unchanged: a 304 without a body, as often as asked, also in a list of tags,
    // weakly compared, or as `*`.
    assert_not_modified(&api, FEED, &etag).await;
    assert_not_modified(&api, FEED, &etag).await;
    for header_value in [
        format!("\"other\", {etag}"),
        format!("W/{etag}"),
        "*".into(),
    ] {
        let response = revalidate(&api, FEED, Some(&header_value)).await;
        assert_eq!(
            response.status(),
            StatusCode::NOT_MODIFIED,
            "{header_value}"
        );
    }

    let made_private = api
        .put(
            &format!("/api/journal-entries/{secret_id}"),
            Some(&ada.token),
            json!({ "isPublic": false }),
        )
        .await;
    assert_eq!(made_private.status(), StatusCode::OK);

    let again = revalidate(&api, FEED, Some(&etag)).await;
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "the old page was revalidated"
    );
    let new_etag = etag_of(&again);
    assert_ne!(new_etag, etag);
    assert_eq!(header(&again, "x-total-count"), "1");
    let listed = ids(&body(again).await);
    assert_eq!(listed, [kept["_id"].as_str().unwrap()]);
    assert_not_modified(&api, FEED, &new_etag).await;
}

async fn a_change_on_another_page_changes_the_etag_of_the_first(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    api.entry(&ada, "newest", true).await;
    let page = format!("{FEED}?limit=1");
    let first = revalidate(&api, &page, None).await;
    let etag = etag_of(&first);
    let first_body = first.bytes().await.unwrap();

    // An old entry lands on a later page: page 1's entries are the same, its count
    // and its `next` link are not.
    let old = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "old", "content": "", "isPublic": true,
                    "date": "2001-01-01T00:00:00.000Z" }),
        )
        .await;
    assert_eq!(old.status(), StatusCode::CREATED);
    let again = revalidate(&api, &page, Some(&etag)).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(header(&again, "x-total-count"), "2");
    assert!(header(&again, "link").contains("rel=\"next\""));
    assert_ne!(etag_of(&again), etag);
    assert_eq!(again.bytes().await.unwrap(), first_body);
}

async fn filtered_and_cursor_pages_revalidate_too(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    let mut made = Vec::new();
    for title in ["one", "two", "three"] {
        let response = api
            .post(
                "/api/journal-entries",
                Some(&ada.token),
                json!({ "title": title, "content": "", "isPublic": true, "tags": ["walk"] }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        made.push(body(response).await["_id"].as_str().unwrap().to_owned());
    }
    let filtered = format!("{FEED}?tag=walk&limit=2");
    let response = revalidate(&api, &filtered, None).await;
    let etag = etag_of(&response);
    let next = header(&response, "link");
    assert_not_modified(&api, &filtered, &etag).await;
    // The cursor's page (`after=`), from the `next` link.
    let next = next
        .split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(url, _)| url.to_owned())
        .expect("a next link");
    assert!(next.contains("after="), "{next}");
    let second = revalidate(&api, &next, None).await;
    let second_etag = etag_of(&second);
    assert_eq!(ids(&body(second).await), [made[0].clone()]);
    assert_not_modified(&api, &next, &second_etag).await;

    let gone = api
        .put(
            &format!("/api/journal-entries/{}", made[0]),
            Some(&ada.token),
            json!({ "isPublic": false }),
        )
        .await;
    assert_eq!(gone.status(), StatusCode::OK);
    let after = revalidate(&api, &next, Some(&second_etag)).await;
    assert_eq!(after.status(), StatusCode::OK);
    assert!(ids(&body(after).await).is_empty());
    let filtered_again = revalidate(&api, &filtered, Some(&etag)).await;
    assert_eq!(filtered_again.status(), StatusCode::OK);
}

async fn a_signed_in_request_for_the_feed_is_still_no_store(db: &str) {
    let api = Api::start(db);
    let ada = api.user("ada").await;
    api.entry(&ada, "public", true).await;
    let response = api.get(FEED, Some(&ada.token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(&response, "cache-control"), "no-store");
}
