//! The core's rules through its public API, on every backend: validation, tokens,
//! search, pagination and concurrency.

mod common;

use std::sync::Arc;

use base64::Engine as _;
use common::{backends, entry, journal, user};
use journal_core::api::{CreateEntryRequest, RegisterRequest, UpdateEntryRequest};
use journal_core::domain::{Email, PageRequest, ProfilePic, SearchQuery};
use journal_core::{Error, Journal, JournalOptions, JwtSecret, TokenRejection};

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef-test";

fn page(p: i64, l: i64) -> PageRequest {
    PageRequest::new(Some(p), Some(l)).unwrap()
}

/// The URL of the SQLite file `file` in `dir`.
fn sqlite_url(dir: &tempfile::TempDir, file: &str) -> String {
    format!("sqlite:{}", dir.path().join(file).display())
}

/// `count` of the store's caches named in `names`, summed.
fn cache_count(
    store: &dyn journal_core::store::Store,
    names: &[&str],
    count: fn(&journal_core::CacheCounts) -> u64,
) -> u64 {
    store
        .cache_counts()
        .iter()
        .filter(|(name, _)| names.contains(name))
        .map(|(_, c)| count(c))
        .sum()
}

fn validation(result: journal_core::Result<impl std::fmt::Debug>) -> (String, String) {
    match result {
        Err(Error::Validation(e)) => (e.field.to_owned(), e.message),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[tokio::test]
async fn registration_refuses_invalid_fields_with_actionable_messages() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    let good = common::register_request("ok@example.com", "ok");
    let cases: Vec<(RegisterRequest, &str, &str)> = vec![
        (
            RegisterRequest {
                email: Some("not-an-address".into()),
                ..good.clone()
            },
            "email",
            "valid e-mail",
        ),
        (
            RegisterRequest {
                email: None,
                ..good.clone()
            },
            "email",
            "required",
        ),
        (
            RegisterRequest {
                password: Some("short".into()),
                ..good.clone()
            },
            "password",
            "at least 8",
        ),
        (
            RegisterRequest {
                password: Some("x".repeat(1025)),
                ..good.clone()
            },
            "password",
            "at most 1024",
        ),
        (
            RegisterRequest {
                password: Some("password123".into()),
                ..good.clone()
            },
            "password",
            "common",
        ),
        (
            RegisterRequest {
                full_name: Some("   ".into()),
                ..good.clone()
            },
            "fullName",
            "empty",
        ),
        (
            RegisterRequest {
                nickname: Some("n".repeat(101)),
                ..good.clone()
            },
            "nickname",
            "at most 100",
        ),
        (
            RegisterRequest {
                nickname: Some("nul\0byte".into()),
                ..good.clone()
            },
            "nickname",
            "NUL",
        ),
    ];
    for (request, field, needle) in cases {
        let (f, message) = validation(j.register(&request).await);
        assert_eq!(f, field, "{message}");
        assert!(
            message.contains(needle),
            "{field}: {message:?} should mention {needle:?}"
        );
    }
    // Nothing was stored by the refusals: the address is still free.
    j.register(&good)
        .await
        .expect("valid registration after refusals");
}

#[test]
fn domain_values_validate_on_construction() {
    assert_eq!(
        Email::parse("  Ada@Example.COM ").unwrap().as_ref(),
        "ada@example.com"
    );
    assert!(Email::parse("me@localhost").is_ok());
    for bad in ["", "a@", "@b.c", "a b@c.d", "a@b..c", "a@-b.c", "a@@b.c"] {
        assert!(Email::parse(bad).is_err(), "{bad:?} should be refused");
    }
    let png = base64::engine::general_purpose::STANDARD.encode([0x89, b'P', b'N', b'G']);
    assert!(ProfilePic::parse(&format!("data:image/png;base64,{png}")).is_ok());
    assert!(ProfilePic::parse("").is_ok());
    assert!(ProfilePic::parse("data:image/svg+xml;base64,PHN2Zz4=").is_err());
    assert!(ProfilePic::parse("data:image/png;base64,!!!").is_err());
    assert!(ProfilePic::parse("http://example.com/a.png").is_err());
    let big = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 512 * 1024 + 1]);
    let err = ProfilePic::parse(&format!("data:image/jpeg;base64,{big}")).unwrap_err();
    assert!(err.message.contains("512 KiB"), "{err}");
    let exact = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 512 * 1024]);
    assert!(ProfilePic::parse(&format!("data:image/webp;base64,{exact}")).is_ok());

    assert_eq!(
        PageRequest::new(None, None).unwrap(),
        PageRequest::default()
    );
    for (p, l) in [
        (Some(0), None),
        (Some(-1), None),
        (None, Some(0)),
        (None, Some(101)),
    ] {
        assert!(PageRequest::new(p, l).is_err(), "{p:?} {l:?}");
    }
    assert!(
        PageRequest::from_query(Some("abc"), None)
            .unwrap_err()
            .message
            .contains("1 to")
    );
    assert_eq!(
        PageRequest::from_query(Some("2"), Some("100"))
            .unwrap()
            .offset(),
        100
    );
}

#[tokio::test]
async fn entries_are_validated_and_title_only_entries_are_allowed() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let title_only = j
        .create_entry(
            &me,
            &CreateEntryRequest {
                title: Some("  Just a line  ".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(title_only.title, "Just a line");
    assert_eq!(title_only.content, "");
    assert!(!title_only.is_public, "entries are private by default");
    let (f, m) = validation(
        j.create_entry(&me, &entry(&"t".repeat(201), "", false))
            .await,
    );
    assert_eq!((f.as_str(), m.contains("200")), ("title", true));
    let (f, _) = validation(
        j.create_entry(&me, &entry("ok", &"c".repeat(100_001), false))
            .await,
    );
    assert_eq!(f, "content");
    let (f, _) = validation(j.create_entry(&me, &CreateEntryRequest::default()).await);
    assert_eq!(f, "title");
    let (f, _) = validation(
        j.update_entry(&me, &title_only.id, &UpdateEntryRequest::default())
            .await,
    );
    assert_eq!(f, "body");
    assert!(
        j.create_entry(&me, &entry("ok", &"c".repeat(100_000), false))
            .await
            .is_ok()
    );
    assert_eq!(
        j.user_entries(&me, me.user_id(), page(1, 10))
            .await
            .unwrap()
            .total,
        2
    );
    // createdAt is ISO 8601 UTC with milliseconds.
    let json = serde_json::to_value(&title_only).unwrap();
    let created = json["createdAt"].as_str().unwrap();
    assert_eq!(created.len(), "2024-08-27T11:42:28.185Z".len(), "{created}");
    assert!(created.ends_with('Z'));
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 11, "{keys:?}");
}

fn forge(claims: serde_json::Value, secret: &[u8]) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(secret),
    )
    .unwrap()
}

#[tokio::test]
async fn tokens_are_refused_when_forged_expired_or_malformed() {
    let store = journal_core::store::open("sqlite::memory:").await.unwrap();
    let j = Journal::with_store(
        store,
        JournalOptions {
            jwt_secret: Some(JwtSecret::new(SECRET).unwrap()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (me, token) = user(&j, "me@example.com", "me").await;
    let sub = me.user_id().to_string();
    let now = chrono::Utc::now().timestamp();
    let jti = uuid::Uuid::now_v7().to_string();
    let b64 = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let payload = serde_json::json!({"sub": sub, "iat": now, "exp": now + 3600, "jti": jti});

    let cases: Vec<(&str, String, TokenRejection)> = vec![
        (
            "valid shape, our key",
            forge(payload.clone(), SECRET),
            TokenRejection::Invalid,
        ),
        (
            "another key",
            forge(payload.clone(), b"another secret that is long enough!!"),
            TokenRejection::Invalid,
        ),
        (
            "alg none",
            format!(
                "{}.{}.",
                b64(serde_json::json!({"alg": "none", "typ": "JWT"})),
                b64(payload.clone())
            ),
            TokenRejection::Invalid,
        ),
        (
            "expired",
            forge(
                serde_json::json!({"sub": sub, "iat": now - 7200, "exp": now - 3600, "jti": jti}),
                SECRET,
            ),
            TokenRejection::Expired,
        ),
        (
            "issued in the future",
            forge(
                serde_json::json!({"sub": sub, "iat": now + 3600, "exp": now + 7200, "jti": jti}),
                SECRET,
            ),
            TokenRejection::NotYetValid,
        ),
        (
            "not before in the future",
            forge(
                serde_json::json!({"sub": sub, "iat": now, "nbf": now + 3600, "exp": now + 7200, "jti": jti}),
                SECRET,
            ),
            TokenRejection::NotYetValid,
        ),
        (
            "missing sub",
            forge(
                serde_json::json!({"iat": now, "exp": now + 60, "jti": jti}),
                SECRET,
            ),
            TokenRejection::Invalid,
        ),
        (
            "unknown user",
            forge(
                serde_json::json!({"sub": uuid::Uuid::now_v7().to_string(), "iat": now, "exp": now + 60, "jti": jti}),
                SECRET,
            ),
            TokenRejection::UnknownUser,
        ),
        (
            "trailing garbage",
            format!("{token}garbage"),
            TokenRejection::Invalid,
        ),
        ("huge", "a".repeat(1 << 20), TokenRejection::Invalid),
        ("empty", String::new(), TokenRejection::Invalid),
    ];
    for (name, token, expected) in cases {
        let result = j.authenticate(&token).await;
        // A correctly signed token with a fresh jti is fine; the first case checks that
        // our own forging helper is sound, so that the other refusals mean something.
        if name == "valid shape, our key" {
            assert!(result.is_ok(), "{name}: {result:?}");
            continue;
        }
        match result {
            Err(Error::Unauthenticated(why)) => assert_eq!(why, expected, "{name}"),
            other => panic!("{name}: expected {expected:?}, got {other:?}"),
        }
    }
    assert!(j.authenticate(&token).await.is_ok());
}

#[tokio::test]
async fn search_matches_words_and_prefixes_without_regard_to_case_or_accents() {
    for b in backends("search_matches_words").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "me@example.com", "me").await;
        let (other, _) = user(&j, "other@example.com", "other").await;
        let cafe = j
            .create_entry(
                &me,
                &entry("Café morning", "Espresso at the CAFÉ near the river", false),
            )
            .await
            .unwrap();
        let lake = j
            .create_entry(&me, &entry("Lake", "walked to the lake; café closed", true))
            .await
            .unwrap();
        j.create_entry(&me, &entry("Nothing", "unrelated words here", false))
            .await
            .unwrap();
        j.create_entry(&other, &entry("Cafe too", "cafe cafe cafe", true))
            .await
            .unwrap();

        let q = |text: &'static str| {
            let j = j.clone();
            let me = me.clone();
            async move { j.search(&me, text, page(1, 10)).await.unwrap() }
        };
        // Case and accents fold both ways; only the caller's entries come back.
        for text in ["cafe", "CAFÉ", "Cafe", "caf"] {
            let found = q(text).await;
            assert_eq!(found.total, 2, "{} {text}", b.name);
            assert!(found.items.iter().all(|e| e.author_id == *me.user_id()));
        }
        // Ranking: the entry with the word in its title and twice in content comes first.
        assert_eq!(q("cafe").await.items[0].id, cafe.id, "{}", b.name);
        // Every word must match.
        assert_eq!(q("cafe river").await.total, 1);
        assert_eq!(q("lake walked").await.items[0].id, lake.id);
        // Whole words and prefixes only, not infixes.
        assert_eq!(q("afe").await.total, 0);
        // Hostile strings are searched as text and never fail.
        for hostile in [
            "\"",
            "*",
            "OR",
            "-",
            "%",
            "'; DROP TABLE entries; --",
            "cafe OR 1=1",
            "NEAR(",
            "title:cafe",
            "😀",
            "a\"b*c(d)e",
            "^cafe",
            "cafe*",
            "(",
            "AND",
            "NOT cafe",
            "\\",
            "{x}",
            &"w".repeat(10_000),
        ] {
            let found = j.search(&me, hostile, page(1, 10)).await;
            assert!(
                found.is_ok(),
                "{} {:?}: {:?}",
                b.name,
                &hostile[..hostile.len().min(40)],
                found.err()
            );
        }
        assert_eq!(q("'; DROP TABLE entries; --").await.total, 0);
        assert_eq!(
            q("cafe:river").await.total,
            1,
            "punctuation only separates words"
        );
        assert_eq!(
            q("title:cafe").await.total,
            0,
            "no column filters: `title` is a word too"
        );
        assert!(matches!(
            j.search(&me, "   ", page(1, 10)).await,
            Err(Error::Validation(_))
        ));

        // Updates and deletes reach the index.
        j.update_entry(
            &me,
            &lake.id,
            &UpdateEntryRequest {
                content: Some("swam in the pond".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        assert_eq!(q("lake").await.total, 1, "the title still says Lake");
        assert_eq!(q("pond").await.total, 1);
        assert_eq!(q("closed").await.total, 0);
        j.delete_entry(&me, &cafe.id).await.unwrap();
        assert_eq!(q("espresso").await.total, 0);
        assert_eq!(q("cafe").await.total, 0);
    }
}

#[test]
fn search_queries_keep_only_words() {
    let q = SearchQuery::parse("Hello, \"World\"* -x OR 😀 hello").unwrap();
    assert_eq!(q.terms(), ["hello", "world", "x", "or"]);
    assert!(SearchQuery::parse("😀 ***").unwrap().is_empty());
    assert!(SearchQuery::parse("").is_err());
}

#[tokio::test]
async fn pages_cover_the_list_exactly_once_newest_first() {
    for b in backends("pages_cover_the_list").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "me@example.com", "me").await;
        for i in 0..25 {
            j.create_entry(&me, &entry(&format!("entry {i:02}"), "word", i % 2 == 0))
                .await
                .unwrap();
        }
        let mut seen = Vec::new();
        for p in 1..=3 {
            let got = j
                .user_entries(&me, me.user_id(), page(p, 10))
                .await
                .unwrap();
            assert_eq!(got.total, 25);
            assert_eq!(got.items.len(), if p == 3 { 5 } else { 10 }, "{}", b.name);
            assert_eq!(got.has_next(), p < 3);
            assert_eq!(got.has_prev(), p > 1);
            seen.extend(got.items.into_iter().map(|e| e.title));
        }
        let expected: Vec<String> = (0..25).rev().map(|i| format!("entry {i:02}")).collect();
        assert_eq!(seen, expected, "{}", b.name);
        let empty = j
            .user_entries(&me, me.user_id(), page(4, 10))
            .await
            .unwrap();
        assert!(empty.items.is_empty());
        assert_eq!(empty.total, 25);
        let all = j
            .user_entries(&me, me.user_id(), page(1, 100))
            .await
            .unwrap();
        assert_eq!(all.items.len(), 25);
        let feed = j.public_entries(page(2, 5)).await.unwrap();
        assert_eq!(feed.total, 13);
        assert_eq!(feed.items.len(), 5);
        assert_eq!(feed.items[0].title, "entry 14");
        let searched = j.search(&me, "word", page(3, 10)).await.unwrap();
        assert_eq!((searched.total, searched.items.len()), (25, 5));
    }
}

#[tokio::test]
async fn concurrent_registrations_of_one_email_yield_exactly_one_account() {
    for b in backends("concurrent_registrations").await {
        let j = journal(b.store.clone()).await;
        let attempts = (0..8).map(|i| {
            let j = j.clone();
            tokio::spawn(async move {
                j.register(&common::register_request(
                    if i % 2 == 0 {
                        "race@example.com"
                    } else {
                        "RACE@example.com"
                    },
                    &format!("racer{i}"),
                ))
                .await
            })
        });
        let results = futures_join(attempts).await;
        let ok = results.iter().filter(|r| r.is_ok()).count();
        let conflicts = results
            .iter()
            .filter(|r| matches!(r, Err(Error::Conflict(_))))
            .count();
        assert_eq!((ok, conflicts), (1, 7), "{}: {results:?}", b.name);
    }
}

#[tokio::test]
async fn concurrent_entry_creation_loses_nothing() {
    for b in backends("concurrent_entry_creation").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "me@example.com", "me").await;
        let me = Arc::new(me);
        let writers = (0..16).map(|w| {
            let (j, me) = (j.clone(), me.clone());
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0..10 {
                    let e = j
                        .create_entry(&me, &entry(&format!("w{w} e{i}"), "body", false))
                        .await
                        .unwrap();
                    ids.push(e.id);
                }
                ids
            })
        });
        let created: Vec<_> = futures_join(writers).await.into_iter().flatten().collect();
        assert_eq!(created.len(), 160);
        let listed = j
            .user_entries(&me, me.user_id(), page(1, 100))
            .await
            .unwrap();
        assert_eq!(listed.total, 160, "{}", b.name);
        for id in &created {
            assert!(j.entry(&me, id).await.is_ok());
        }
    }
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn login_takes_the_same_path_for_unknown_email_and_wrong_password() {
    let j = journal(journal_core::store::open("sqlite::memory:").await.unwrap()).await;
    user(&j, "me@example.com", "me").await;
    let attempt = |email: &str, password: &str| journal_core::api::LoginRequest {
        email: Some(email.into()),
        password: Some(password.into()),
        ..Default::default()
    };
    let unknown = j
        .login(&attempt("ghost@example.com", "whatever123"))
        .await
        .unwrap_err();
    let wrong = j
        .login(&attempt("me@example.com", "whatever123"))
        .await
        .unwrap_err();
    let huge = j
        .login(&attempt("me@example.com", &"x".repeat(1 << 20)))
        .await
        .unwrap_err();
    for e in [&unknown, &wrong, &huge] {
        assert!(matches!(e, Error::InvalidCredentials));
        assert_eq!(e.to_string(), "Invalid credentials.");
    }
    let (f, _) = validation(j.login(&journal_core::api::LoginRequest::default()).await);
    assert_eq!(f, "email");
}

#[tokio::test]
async fn a_restarted_journal_on_the_same_file_keeps_users_entries_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "j.db");
    let (token, id) = {
        let j = Journal::open(&url, JournalOptions::default())
            .await
            .unwrap();
        let (me, token) = user(&j, "me@example.com", "me").await;
        (
            token,
            j.create_entry(&me, &entry("kept", "", false))
                .await
                .unwrap()
                .id,
        )
    };
    let j = Journal::open(&url, JournalOptions::default())
        .await
        .unwrap();
    let me = j
        .authenticate(&token)
        .await
        .expect("token still valid after restart");
    assert_eq!(j.entry(&me, &id).await.unwrap().title, "kept");
}

#[tokio::test]
async fn writes_by_another_process_on_the_same_file_are_seen_within_a_moment() {
    // Two stores on one file stand for journal-server and the CLI on its database. Each
    // sees its own writes at once; the other's once its writer has looked for them
    // (every tenth of a second), well within the half second waited here.
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "shared.db");
    let server = journal(journal_core::store::open(&url).await.unwrap()).await;
    let cli = journal(journal_core::store::open(&url).await.unwrap()).await;
    let (me, token) = user(&server, "me@example.com", "me").await;
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 0);
    server.authenticate(&token).await.unwrap();

    let cli_me = cli.local_caller(me.user_id()).await.unwrap();
    cli.create_entry(&cli_me, &entry("from the cli", "", true))
        .await
        .unwrap();
    cli.set_role("me@example.com", journal_core::Role::Admin)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 1);
    assert_eq!(
        server.authenticate(&token).await.unwrap().role(),
        journal_core::Role::Admin
    );

    // Its own writes, the server sees at once, cached or not.
    server
        .create_entry(&me, &entry("from the server", "", true))
        .await
        .unwrap();
    assert_eq!(server.public_entries(page(1, 10)).await.unwrap().total, 2);
    server
        .logout(&server.authenticate(&token).await.unwrap())
        .await
        .unwrap();
    assert!(server.authenticate(&token).await.is_err());
}

/// With nothing written, a cached page and a token's state are served from memory for
/// as long as they are asked, not read again every so often: the writer looks for
/// other processes' writes instead of letting values expire.
#[tokio::test]
async fn a_quiet_journal_keeps_serving_its_cached_pages() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "quiet.db");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (me, token) = user(&j, "me@example.com", "me").await;
    j.create_entry(&me, &entry("kept", "", true)).await.unwrap();
    let caches = ["authStates", "authorPages", "feedPages"];
    let misses = || cache_count(store.as_ref(), &caches, |c| c.misses);
    let read = async || {
        j.authenticate(&token).await.unwrap();
        let own = j.user_entries(&me, me.user_id(), page(1, 10)).await;
        assert_eq!(own.unwrap().items[0].title, "kept");
        assert_eq!(j.public_entries(page(1, 10)).await.unwrap().total, 1);
    };
    read().await;
    let before = misses();
    for _ in 0..3 {
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        read().await;
    }
    assert_eq!(misses(), before, "read again though nothing was written");
}

/// A new entry is put in its place in its author's cached first pages (newest date
/// first, then highest id) for the author and, when public, for others, with the total
/// one more and the pages after the first moved along. Checked after every create
/// against a journal opened afresh on the same file, whose cache is empty, with dates
/// before, among, equal to and after the entries already there.
#[tokio::test]
async fn a_new_entry_takes_its_place_in_the_cached_first_pages() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "carry.db");
    let store = journal_core::store::open(&url).await.unwrap();
    let j = journal(store.clone()).await;
    let (me, _) = user(&j, "me@example.com", "me").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    let (me_id, other_id) = (*me.user_id(), *other.user_id());
    // Each view's pages, for the author and for another user, in pages of 3 (pages 1
    // and 2) and of 10.
    let views = async |j: &Journal, me: &journal_core::Caller, other: &journal_core::Caller| {
        let mut all = Vec::new();
        for who in [me, other] {
            for (n, limit) in [(1, 3), (2, 3), (1, 10)] {
                all.push(j.user_entries(who, &me_id, page(n, limit)).await.unwrap());
            }
        }
        all
    };
    let fresh_views = async || {
        let fresh = journal(journal_core::store::open(&url).await.unwrap()).await;
        let (fresh_me, fresh_other) = (
            fresh.local_caller(&me_id).await.unwrap(),
            fresh.local_caller(&other_id).await.unwrap(),
        );
        views(&fresh, &fresh_me, &fresh_other).await
    };
    let hits = || cache_count(store.as_ref(), &["authorPages"], |c| c.hits);
    let soon = (chrono::Utc::now() + chrono::Duration::hours(1))
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    let dates = [
        None,
        Some("2020-05-01T10:00:00.000Z"),
        Some("2020-05-01T10:00:00.000Z"),
        Some(soon.as_str()),
        Some("2019-12-31T23:59:59.999Z"),
        None,
        Some("2020-05-01T10:00:00.000Z"),
        Some("2024-02-29T12:00:00.000Z"),
    ];
    let mut hits_after_creates = 0;
    for n in 0..24 {
        views(&j, &me, &other).await; // the first pages are cached now
        let mut new = entry(&format!("e{n}"), "", n % 3 != 1);
        new.date = dates[n % dates.len()].map(str::to_owned);
        j.create_entry(&me, &new).await.unwrap();
        let before = hits();
        let seen = views(&j, &me, &other).await;
        hits_after_creates += hits() - before;
        assert_eq!(seen, fresh_views().await, "after e{n} ({:?})", new.date);
    }
    // The first pages were served from memory after every create: the author's two
    // and others' two (with the entry when public, as they were when private).
    assert!(hits_after_creates >= 4 * 24, "{hits_after_creates} hits");

    // Creates at once, which may share a commit: still every view as the file has it.
    let j = std::sync::Arc::new(j);
    views(&j, &me, &other).await;
    let mut creates = tokio::task::JoinSet::new();
    for n in 0..12 {
        let (j, me) = (j.clone(), me.clone());
        creates.spawn(async move {
            let new = entry(&format!("burst {n}"), "", n % 2 == 0);
            j.create_entry(&me, &new).await.unwrap();
        });
    }
    creates.join_all().await;
    assert_eq!(
        views(&j, &me, &other).await,
        fresh_views().await,
        "after the burst"
    );
}

/// The first pages of every list are cached in memory; a write must still show in each
/// of them at once, for the author, for others and in the public feed.
#[tokio::test]
async fn lists_show_every_write_at_once_though_their_first_pages_are_cached() {
    for b in backends("lists_show_writes").await {
        println!("lists on {}", b.name);
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "me@example.com", "me").await;
        let (other, _) = user(&j, "other@example.com", "other").await;
        let titles = |p: journal_core::Page<journal_core::Entry>| {
            p.items.into_iter().map(|e| e.title).collect::<Vec<_>>()
        };
        // Each list's page 1 (read twice: the second read may come from a cache).
        let lists = async || {
            let mut all = Vec::new();
            for _ in 0..2 {
                all = vec![
                    titles(
                        j.user_entries(&me, me.user_id(), page(1, 10))
                            .await
                            .unwrap(),
                    ),
                    titles(
                        j.user_entries(&other, me.user_id(), page(1, 10))
                            .await
                            .unwrap(),
                    ),
                    titles(j.public_entries(page(1, 10)).await.unwrap()),
                ];
            }
            all
        };
        let none: Vec<&str> = Vec::new();
        assert_eq!(lists().await, [none.clone(), none.clone(), none.clone()]);

        let one = j.create_entry(&me, &entry("one", "", true)).await.unwrap();
        assert_eq!(lists().await, [vec!["one"], vec!["one"], vec!["one"]]);
        let two = j.create_entry(&me, &entry("two", "", false)).await.unwrap();
        assert_eq!(
            lists().await,
            [vec!["two", "one"], vec!["one"], vec!["one"]]
        );

        let hide = UpdateEntryRequest {
            title: Some("uno".into()),
            is_public: Some(false),
            ..Default::default()
        };
        j.update_entry(&me, &one.id, &hide).await.unwrap();
        assert_eq!(
            lists().await,
            [vec!["two", "uno"], none.clone(), none.clone()]
        );
        let show = UpdateEntryRequest {
            is_public: Some(true),
            ..Default::default()
        };
        j.update_entry(&me, &two.id, &show).await.unwrap();
        assert_eq!(
            lists().await,
            [vec!["two", "uno"], vec!["two"], vec!["two"]]
        );

        j.delete_entry(&me, &two.id).await.unwrap();
        assert_eq!(lists().await, [vec!["uno"], none.clone(), none.clone()]);
    }
}

#[tokio::test]
async fn following_cursors_walks_the_same_list_as_page_numbers() {
    use journal_core::Cursor;
    for b in backends("following_cursors").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "me@example.com", "me").await;
        let (other, _) = user(&j, "other@example.com", "other").await;
        // Several entries share a millisecond: the id breaks the tie, as in ORDER BY.
        let mut imported = Vec::new();
        for i in 0..23 {
            imported.push(journal_core::ImportedEntry {
                request: entry(&format!("e{i:02}"), "", i % 3 != 0),
                created_at: journal_core::Timestamp::from_millis(
                    1_700_000_000_000 + (i / 4) * 1000,
                ),
                updated_at: None,
                author_name: None,
            });
        }
        j.import_entries(&me, imported).await.unwrap();

        let list = |which: &'static str, p: PageRequest| {
            let (j, me, other) = (j.clone(), me.clone(), other.clone());
            async move {
                match which {
                    "own" => j.user_entries(&me, me.user_id(), p).await.unwrap(),
                    "others' view" => j.user_entries(&other, me.user_id(), p).await.unwrap(),
                    _ => j.public_entries(p).await.unwrap(),
                }
            }
        };
        for name in ["own", "others' view", "feed"] {
            let mut by_number = Vec::new();
            let mut by_cursor = Vec::new();
            let mut cursor = None;
            for n in 1..=5 {
                let numbered = list(name, page(n, 5)).await;
                by_number.extend(numbered.items.iter().map(|e| e.id));
                let followed = list(name, page(n, 5).continuing(cursor)).await;
                assert_eq!(followed.total, numbered.total, "{} {name}", b.name);
                cursor = followed
                    .items
                    .last()
                    .map(|e| Cursor::new(e.created_at, e.id));
                by_cursor.extend(followed.items.iter().map(|e| e.id));
            }
            assert!(!by_number.is_empty());
            assert_eq!(by_cursor, by_number, "{} {name}", b.name);
        }
        let parsed = Cursor::parse(
            &Cursor::new(
                journal_core::Timestamp::from_millis(5),
                journal_core::EntryId::generate(),
            )
            .to_string(),
        );
        assert!(parsed.is_ok());
        assert!(Cursor::parse("garbage").is_err());
        let id = journal_core::EntryId::generate();
        // Entries may be dated from 1900 (imports), so their cursors are too.
        assert!(Cursor::parse(&format!("-1_{id}")).is_ok(), "1969");
        assert!(
            Cursor::parse(&format!("-2208988800001_{id}")).is_err(),
            "before 1900"
        );
        assert!(
            Cursor::parse(&format!("99999999999999999_{id}")).is_err(),
            "after 9999"
        );
        assert!(matches!(
            j.search(&me, "e01", page(1, 5).continuing(parsed.ok()))
                .await,
            Err(Error::Validation(_))
        ));
    }
}

/// The more often an entry uses the searched words, the higher it ranks, however long
/// it is: a journal entry that keeps coming back to a subject is about it (see
/// docs/ARCHITECTURE.md, "Search"). Every word of the query counts.
#[tokio::test]
async fn search_ranks_entries_that_use_the_words_more_often_first() {
    for b in backends("search_ranks_by_use").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "ranks@example.com", "ranks").await;
        let filler = "and then the day went on as days do ".repeat(20);
        let create = |title: &str, content: String| {
            let (j, me) = (j.clone(), me.clone());
            let title = title.to_owned();
            async move {
                j.create_entry(&me, &entry(&title, &content, false))
                    .await
                    .unwrap()
                    .id
            }
        };
        let once_short = create("Monday", "rain in the garden".into()).await;
        let thrice_long = create(
            "Tuesday",
            format!("garden in the morning, {filler} garden at noon, garden at dusk"),
        )
        .await;
        let twice = create("Wednesday", "garden chores, then garden tea".into()).await;
        let both_words = create("Thursday", "rain on the garden all day, rain".into()).await;

        let ids = |text: &'static str| {
            let (j, me) = (j.clone(), me.clone());
            async move {
                let found = j.search(&me, text, page(1, 10)).await.unwrap();
                found.items.into_iter().map(|e| e.id).collect::<Vec<_>>()
            }
        };
        // The two entries that use it once come last, newest first.
        assert_eq!(
            ids("garden").await,
            [thrice_long, twice, both_words, once_short],
            "{}",
            b.name
        );
        // Both words must occur; the entry using them most comes first.
        assert_eq!(
            ids("garden rain").await,
            [both_words, once_short],
            "{}",
            b.name
        );
    }
}

/// Search pages walk every match exactly once, best first, also past the point where
/// the store trims its candidates (more than 1,024 matches).
#[tokio::test]
async fn search_pages_cover_every_match_once_best_first() {
    use journal_core::api::{ImportEntriesRequest, ImportEntryRequest};
    for b in backends("search_pages_cover").await {
        let j = journal(b.store.clone()).await;
        let (me, _) = user(&j, "many@example.com", "many").await;
        let (other, _) = user(&j, "other@example.com", "other").await;
        for (who, title_word) in [(&me, true), (&me, false), (&other, true)] {
            let entries = (0..600)
                .map(|i| ImportEntryRequest {
                    title: Some(if title_word {
                        format!("apple note {i}")
                    } else {
                        format!("plain note {i}")
                    }),
                    content: Some(if title_word {
                        "plain text here".into()
                    } else {
                        "apple text here".into()
                    }),
                    created_at: Some(format!("2024-01-01T00:{:02}:{:02}Z", i / 60, i % 60)),
                    ..Default::default()
                })
                .collect();
            j.import(who, &ImportEntriesRequest { entries })
                .await
                .unwrap();
        }
        let mut walked = Vec::new();
        for n in 1.. {
            let got = j.search(&me, "apple", page(n, 70)).await.unwrap();
            assert_eq!(got.total, 1200, "{}", b.name);
            if got.items.is_empty() {
                break;
            }
            walked.extend(got.items);
        }
        assert_eq!(walked.len(), 1200, "{}", b.name);
        let unique: std::collections::HashSet<_> = walked.iter().map(|e| e.id).collect();
        assert_eq!(unique.len(), 1200, "{}: a match was shown twice", b.name);
        assert!(walked.iter().all(|e| e.author_id == *me.user_id()));
        // A match in the title weighs more than one in the content.
        let first_content_match = walked
            .iter()
            .position(|e| e.title.starts_with("plain"))
            .unwrap();
        assert_eq!(first_content_match, 600, "{}", b.name);
    }
}
