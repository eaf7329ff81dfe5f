//! Public writing read in public: an author's profile, their public entries and one
//! entry without a token; Atom feeds that validate against RFC 4287's schema; the app's
//! pages of public entries and authors with link previews. Nothing private reaches any
//! of them, and a profile made private is gone from each at once.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::SqliteDb;

use crate::support::{Api, User, body, header, ids, keys, on_every_database};

on_every_database!(
    a_stranger_reads_public_writing_and_nothing_private,
    a_profile_made_private_is_gone_at_once_even_for_a_cached_copy,
    the_atom_feeds_carry_public_entries_escaped_and_hide_private_profiles,
    the_pages_of_public_entries_and_authors_carry_link_previews_and_private_ones_do_not,
);

/// Ada keeps a public profile with a public and a private entry; Bob keeps a private
/// profile with an entry marked public.
struct Cast {
    ada: User,
    bob: User,
    public: String,
    private: String,
    bobs: String,
}

async fn cast(api: &Api) -> Cast {
    let ada = api.user("ada").await;
    let bob = api.user("bob").await;
    let public = api
        .post(
            "/api/journal-entries",
            Some(&ada.token),
            json!({ "title": "Spring <garden> & \"roses\"", "isPublic": true, "tags": ["garden"],
                    "content": "Planted <script>alert(1)</script> & roses\n\nSecond paragraph." }),
        )
        .await;
    assert_eq!(public.status(), StatusCode::CREATED);
    let public = body(public).await["_id"].as_str().unwrap().to_owned();
    let private = api.entry(&ada, "ada's secret diary", false).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let bobs = api.entry(&bob, "bob's hidden public", true).await["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let hide = api
        .put(
            "/api/user/profile",
            Some(&bob.token),
            json!({ "isPrivate": true }),
        )
        .await;
    assert_eq!(hide.status(), StatusCode::OK);
    Cast {
        ada,
        bob,
        public,
        private,
        bobs,
    }
}

async fn anonymous(api: &Api, path: &str) -> reqwest::Response {
    api.get(path, None).await
}

async fn a_stranger_reads_public_writing_and_nothing_private(db: &str) {
    let api = Api::start(db);
    let cast = cast(&api).await;
    let ada = &cast.ada;

    let profile = anonymous(&api, &format!("/api/public/users/{}", ada.id)).await;
    assert_eq!(profile.status(), StatusCode::OK);
    assert_eq!(header(&profile, "cache-control"), "no-cache");
    let profile = body(profile).await;
    assert_eq!(
        keys(&profile),
        ["_id", "fullName", "nickname", "profilePic"]
    );
    assert_eq!(profile["nickname"], "ada");
    assert!(
        !profile.to_string().contains(&ada.email),
        "never the e-mail"
    );

    let list = anonymous(
        &api,
        &format!("/api/public/users/{}/journal-entries", ada.id),
    )
    .await;
    assert_eq!(list.status(), StatusCode::OK);
    assert_eq!(header(&list, "x-total-count"), "1");
    assert_eq!(ids(&body(list).await), std::slice::from_ref(&cast.public));
    // The feed's filters apply, under their usual spellings.
    let tagged = format!(
        "/api/public/users/{}/journal-entries?tag=GARDEN&limit=1",
        ada.id
    );
    assert_eq!(
        ids(&body(anonymous(&api, &tagged).await).await),
        std::slice::from_ref(&cast.public)
    );
    let none = format!("/api/public/users/{}/journal-entries?tag=other", ada.id);
    assert!(ids(&body(anonymous(&api, &none).await).await).is_empty());

    let entry = anonymous(
        &api,
        &format!("/api/public/journal-entries/{}", cast.public),
    )
    .await;
    assert_eq!(entry.status(), StatusCode::OK);
    let entry = body(entry).await;
    assert_eq!(entry["_id"], cast.public.as_str());
    assert!(entry["attachments"].is_array());

    // A private entry, a private profile's entries and profile, and ids that never
    // existed answer alike: the same status and message.
    let unknown_user = "0190c0de-0000-7000-8000-000000000001";
    let unknown_entry = "0190c0de-0000-7000-8000-000000000002";
    let not_found = |path: String| {
        let api = &api;
        async move {
            let response = anonymous(api, &path).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            body(response).await["message"].as_str().unwrap().to_owned()
        }
    };
    let unknown_profile = not_found(format!("/api/public/users/{unknown_user}")).await;
    for path in [
        format!("/api/public/users/{}", cast.bob.id),
        format!("/api/public/users/{}/journal-entries", cast.bob.id),
        format!("/api/public/users/{unknown_user}/journal-entries"),
    ] {
        assert_eq!(not_found(path).await, unknown_profile);
    }
    let unknown = not_found(format!("/api/public/journal-entries/{unknown_entry}")).await;
    for id in [&cast.private, &cast.bobs] {
        let message = not_found(format!("/api/public/journal-entries/{id}")).await;
        assert_eq!(message, unknown);
    }
    // A malformed id names nothing, as everywhere in the API; a bad page is said plainly.
    assert_eq!(
        not_found("/api/public/journal-entries/not-an-id".into()).await,
        unknown
    );
    assert_eq!(
        not_found("/api/public/users/not-an-id".into()).await,
        unknown_profile
    );
    let bad = anonymous(
        &api,
        &format!("/api/public/users/{}/journal-entries?limit=0", ada.id),
    )
    .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    // A stolen token adds nothing: the public routes read the same with one.
    let with_token = api
        .get(
            &format!("/api/public/journal-entries/{}", cast.private),
            Some(&ada.token),
        )
        .await;
    assert_eq!(with_token.status(), StatusCode::NOT_FOUND);
}

async fn a_profile_made_private_is_gone_at_once_even_for_a_cached_copy(db: &str) {
    let api = Api::start(db);
    let cast = cast(&api).await;
    let paths = [
        format!("/api/public/users/{}", cast.ada.id),
        format!("/api/public/users/{}/journal-entries", cast.ada.id),
        format!("/api/public/journal-entries/{}", cast.public),
        format!("/api/user/{}/feed.atom", cast.ada.id),
    ];
    let mut etags = Vec::new();
    for path in &paths {
        let first = anonymous(&api, path).await;
        assert_eq!(first.status(), StatusCode::OK, "{path}");
        let etag = header(&first, "etag");
        let again = api
            .http
            .get(api.url(path))
            .header("if-none-match", &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        etags.push(etag);
    }
    let hide = api
        .put(
            "/api/user/profile",
            Some(&cast.ada.token),
            json!({ "isPrivate": true }),
        )
        .await;
    assert_eq!(hide.status(), StatusCode::OK);
    for (path, etag) in paths.iter().zip(&etags) {
        let revalidated = api
            .http
            .get(api.url(path))
            .header("if-none-match", etag)
            .send()
            .await
            .unwrap();
        assert_eq!(revalidated.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let page = anonymous(&api, &format!("/entries/{}", cast.public)).await;
    let html = page.text().await.unwrap();
    assert!(!html.contains("Spring"), "the page's preview is gone too");
}

async fn the_atom_feeds_carry_public_entries_escaped_and_hide_private_profiles(db: &str) {
    let api = Api::start(db);
    let cast = cast(&api).await;
    for path in [
        "/api/public/feed.atom".to_owned(),
        format!("/api/user/{}/feed.atom", cast.ada.id),
    ] {
        let feed = anonymous(&api, &path).await;
        assert_eq!(feed.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&feed, "content-type"),
            "application/atom+xml; charset=utf-8"
        );
        assert_eq!(header(&feed, "cache-control"), "no-cache");
        let xml = feed.text().await.unwrap();
        assert!(
            xml.contains(&format!("<id>urn:uuid:{}</id>", cast.public)),
            "{xml}"
        );
        assert!(
            xml.contains("Planted &lt;script&gt;alert(1)&lt;/script&gt; &amp; roses"),
            "{xml}"
        );
        assert!(!xml.contains("<script>"), "{xml}");
        assert!(xml.contains("<category term=\"garden\"/>"), "{xml}");
        let host = api.url("").trim_end_matches('/').to_owned();
        assert!(
            xml.contains(&format!("href=\"{host}/entries/{}\"", cast.public)),
            "absolute links under the request's host: {xml}"
        );
        for hidden in [&cast.private, &cast.bobs] {
            assert!(!xml.contains(hidden.as_str()), "{path} shows {hidden}");
        }
        assert!(!xml.contains("secret diary") && !xml.contains(&cast.ada.email));
    }
    for path in [
        format!("/api/user/{}/feed.atom", cast.bob.id),
        "/api/user/0190c0de-0000-7000-8000-000000000001/feed.atom".to_owned(),
    ] {
        assert_eq!(anonymous(&api, &path).await.status(), StatusCode::NOT_FOUND);
    }
    let post = api.post("/api/public/feed.atom", None, json!({})).await;
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
}

async fn the_pages_of_public_entries_and_authors_carry_link_previews_and_private_ones_do_not(
    db: &str,
) {
    let api = Api::start_with(db, &["--public-url", "https://journal.example/"]);
    let cast = cast(&api).await;
    let page = |path: String| {
        let api = &api;
        async move {
            let response = anonymous(api, &path).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert_eq!(header(&response, "cache-control"), "no-cache");
            assert!(header(&response, "content-security-policy").contains("default-src 'none'"));
            response.text().await.unwrap()
        }
    };
    let entry = page(format!("/entries/{}", cast.public)).await;
    assert!(
        entry.contains(
            "<title>Spring &lt;garden&gt; &amp; &quot;roses&quot; · ada · Journal</title>"
        ),
        "{entry}"
    );
    assert!(entry.contains(
        "<meta name=\"description\" content=\"Planted &lt;script&gt;alert(1)&lt;/script&gt; &amp; roses Second paragraph.\">"
    ));
    assert!(entry.contains("<meta property=\"og:type\" content=\"article\">"));
    assert!(entry.contains(&format!(
        "<meta property=\"og:url\" content=\"https://journal.example/entries/{}\">",
        cast.public
    )));
    assert!(entry.contains(&format!("href=\"/api/user/{}/feed.atom\"", cast.ada.id)));
    assert_eq!(entry.matches("<title>").count(), 1);

    let author = page(format!("/users/{}", cast.ada.id)).await;
    assert!(
        author.contains("<title>ada&apos;s journal · Journal</title>"),
        "{author}"
    );
    assert!(author.contains("<meta property=\"og:type\" content=\"profile\">"));

    // Private or unknown: the plain page, the same bytes as for an id that never was.
    let plain = page("/entries/0190c0de-0000-7000-8000-000000000002".to_owned()).await;
    assert!(plain.contains("<title>Journal</title>"));
    for path in [
        format!("/entries/{}", cast.private),
        format!("/entries/{}", cast.bobs),
        format!("/users/{}", cast.bob.id),
    ] {
        assert_eq!(page(path.clone()).await, plain, "{path}");
    }
    // The feed is linked from every page.
    assert!(plain.contains("href=\"/api/public/feed.atom\""));
}

/// Both feeds, with every kind of text an entry may hold (markup, entities, controls a
/// title may not carry but content might, emoji, right-to-left), are valid Atom by
/// RFC 4287's RELAX NG schema (`tests/schemas/atom.rng`), checked by `xmllint`.
#[tokio::test]
#[cfg_attr(
    not(xmllint_tests),
    ignore = "needs xmllint (Debian's libxml2-utils; docs/TESTING.md)"
)]
async fn the_atom_feeds_are_valid_by_rfc_4287s_schema() {
    let db = SqliteDb::new();
    let api = Api::start(&db.url);
    let cast = cast(&api).await;
    let odd = api
        .post(
            "/api/journal-entries",
            Some(&cast.ada.token),
            json!({ "title": "]]> <![CDATA[ x ü 🌱 שלום", "isPublic": true,
                    "content": "tab\there\r\nbell\u{7} &amp; &#x26; <a href='x'>", "tags": ["a-b", "ç"] }),
        )
        .await;
    assert_eq!(odd.status(), StatusCode::CREATED);
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/atom.rng");
    let dir = tempfile::tempdir().unwrap();
    for path in [
        "/api/public/feed.atom".to_owned(),
        format!("/api/user/{}/feed.atom", cast.ada.id),
        // An author with no public entry: an empty feed is valid too.
        format!("/api/user/{}/feed.atom", api.user("quiet").await.id),
    ] {
        let xml = anonymous(&api, &path).await.text().await.unwrap();
        let file = dir.path().join("feed.atom");
        std::fs::write(&file, &xml).unwrap();
        let out = std::process::Command::new("xmllint")
            .args(["--noout", "--relaxng", schema])
            .arg(&file)
            .output()
            .expect("xmllint runs");
        assert!(
            out.status.success(),
            "{path} is not valid Atom: {}\n{xml}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
