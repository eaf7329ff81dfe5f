//! PostgreSQL-only behaviour: connection settings from the URL, TLS, clear errors.

#![cfg(feature = "postgres")]

mod common;

use journal_core::store::postgres::PostgresStore;

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn sslmode_decides_whether_the_connection_is_encrypted() {
    let url = common::postgres_url();
    let encrypted = PostgresStore::connect(&format!("{url}&sslmode=require"))
        .await
        .expect("sslmode=require");
    assert!(
        encrypted.tls_in_use().await.unwrap(),
        "sslmode=require encrypts"
    );
    let plain = PostgresStore::connect(&format!("{url}&sslmode=disable"))
        .await
        .expect("sslmode=disable");
    assert!(
        !plain.tls_in_use().await.unwrap(),
        "sslmode=disable does not"
    );
}

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn verify_full_refuses_a_certificate_no_root_vouches_for() {
    let url = common::postgres_url();
    // This machine's server has a self-signed certificate: verification must fail, and
    // say so, rather than connect unauthenticated.
    let err = PostgresStore::connect(&format!("{url}&sslmode=verify-full"))
        .await
        .err()
        .expect("refused");
    let text = format!("{err:?}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
}

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn bad_urls_and_unreachable_servers_are_clear_errors() {
    let url = common::postgres_url();
    let bad_mode = PostgresStore::connect(&format!("{url}&sslmode=sometimes"))
        .await
        .err()
        .expect("refused");
    assert!(
        bad_mode.to_string().contains("sslmode=sometimes"),
        "{bad_mode}"
    );
    let bad_schema = PostgresStore::connect(&format!("{url}&schema=Robert'); DROP"))
        .await
        .err()
        .expect("refused");
    assert!(
        bad_schema.to_string().contains("schema name"),
        "{bad_schema}"
    );
    // Port 1 on loopback: nothing listens there.
    let down = PostgresStore::connect("postgres://postgres@127.0.0.1:1/test")
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(down, journal_core::StoreError::Unavailable(_)),
        "{down:?}"
    );
    let wrong_db =
        PostgresStore::connect("postgres://postgres@127.0.0.1:5432/no_such_database_here")
            .await
            .err()
            .expect("refused");
    assert!(
        format!("{wrong_db:?}").contains("no_such_database_here"),
        "{wrong_db:?}"
    );
}

/// Token checks that arrive together share one statement (`coalesce.rs`): each still
/// gets its own answer, a logout is seen by every check asked after it, and checks
/// whose callers give up midway leave none of the others waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn token_checks_asked_at_once_each_get_their_own_answer() {
    use std::sync::Arc;
    use std::time::Duration;

    let url = common::postgres_url();
    let store = Arc::new(PostgresStore::connect(&url).await.expect("connect"));
    let j = Arc::new(common::journal(store.clone()).await);
    let mut tokens = Vec::new();
    for i in 0..12 {
        let (caller, token) =
            common::user(&j, &format!("u{i}@example.com"), &format!("user{i}")).await;
        let revoked = i % 3 == 0;
        if revoked {
            j.logout(&caller).await.expect("logout");
        }
        tokens.push((token, revoked));
    }
    let tokens = Arc::new(tokens);

    for round in 0..20 {
        let mut checks = tokio::task::JoinSet::new();
        for k in 0..48 {
            let (j, tokens) = (j.clone(), tokens.clone());
            checks.spawn(async move {
                let (token, revoked) = &tokens[(k * 7 + round) % tokens.len()];
                if k % 5 == 0 {
                    // A caller who gives up: dropped while waiting, or while sending.
                    let _ = tokio::time::timeout(Duration::from_micros(50), j.authenticate(token))
                        .await;
                    return;
                }
                let answer = j.authenticate(token).await;
                assert_eq!(
                    answer.is_ok(),
                    !revoked,
                    "token {k} of round {round}: {answer:?}"
                );
            });
        }
        tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(done) = checks.join_next().await {
                done.expect("check");
            }
        })
        .await
        .expect("no check is left waiting");
    }

    // Logouts under load: the check asked right after is refused, every time.
    let load = {
        let (j, tokens) = (j.clone(), tokens.clone());
        tokio::spawn(async move {
            loop {
                let mut checks = tokio::task::JoinSet::new();
                for (token, _) in tokens.iter().filter(|(_, revoked)| !revoked) {
                    let (j, token) = (j.clone(), token.clone());
                    checks.spawn(async move { j.authenticate(&token).await.is_ok() });
                }
                while let Some(done) = checks.join_next().await {
                    assert!(done.expect("check"), "a live token was refused");
                }
            }
        })
    };
    for n in 0..20 {
        let (caller, token) =
            common::user(&j, &format!("leaver{n}@example.com"), &format!("leaver{n}")).await;
        j.logout(&caller).await.expect("logout");
        assert!(
            j.authenticate(&token).await.is_err(),
            "a token logged out before the check is refused"
        );
    }
    load.abort();

    let shared = journal_core::store::Store::cache_counts(store.as_ref())
        .into_iter()
        .find(|(name, _)| *name == "sharedTokenChecks")
        .expect("counted")
        .1;
    assert!(
        shared.hits > 0 && shared.misses > 0,
        "checks asked at once shared statements: {shared:?}"
    );
}

/// Pages after a cursor asked for at once are read in one statement (`link_pages.rs`):
/// each request still gets exactly its own page and total, for its own list, another
/// author's list as a reader sees it, and the feed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn pages_after_a_cursor_asked_at_once_each_get_their_own() {
    use std::sync::Arc;

    use journal_core::{Cursor, PageRequest};

    let url = common::postgres_url();
    let store = Arc::new(PostgresStore::connect(&url).await.expect("connect"));
    let j = Arc::new(common::journal(store.clone()).await);
    let mut callers = Vec::new();
    for (i, n) in [23, 17, 9].into_iter().enumerate() {
        let (caller, _) =
            common::user(&j, &format!("a{i}@example.com"), &format!("author{i}")).await;
        for k in 0..n {
            let title = format!("author {i} entry {k}");
            j.create_entry(&caller, &common::entry(&title, "text", k % 3 != 0))
                .await
                .expect("create");
        }
        callers.push(caller);
    }
    let callers = Arc::new(callers);

    // Which list a walk reads: an author's own (0..3), an author's as the next author
    // reads it (3..6), or the feed (6).
    async fn read(
        j: &journal_core::Journal,
        callers: &[journal_core::Caller],
        list: usize,
        page: PageRequest,
    ) -> journal_core::Page<journal_core::Entry> {
        match list {
            0..3 => {
                j.user_entries(&callers[list], callers[list].user_id(), page)
                    .await
            }
            3..6 => {
                let author = &callers[list - 3];
                let reader = &callers[(list - 2) % 3];
                j.user_entries(reader, author.user_id(), page).await
            }
            _ => j.public_entries(page).await,
        }
        .expect("page")
    }
    let first = || PageRequest::new(Some(1), Some(4)).unwrap();

    // Every page of every list, one request at a time, with the cursor that reaches it.
    let mut steps = Vec::new();
    for list in 0..7 {
        let whole = read(
            &j,
            &callers,
            list,
            PageRequest::new(Some(1), Some(100)).unwrap(),
        )
        .await;
        let mut walked = Vec::new();
        let mut request = first();
        loop {
            let got = read(&j, &callers, list, request).await;
            assert_eq!(got.total, whole.total, "list {list}");
            let Some(last) = got.items.last() else { break };
            let next = first().continuing(Some(Cursor::new(last.date, last.id)));
            steps.push((list, next, read(&j, &callers, list, next).await));
            walked.extend(got.items);
            request = next;
        }
        assert_eq!(walked, whole.items, "list {list} walked by cursor");
    }

    // The same pages, all at once, several times over.
    let mut reads = tokio::task::JoinSet::new();
    for round in 0..4 {
        for (list, request, expected) in steps.clone() {
            let (j, callers) = (j.clone(), callers.clone());
            reads.spawn(async move {
                let got = read(&j, &callers, list, request).await;
                assert_eq!(got, expected, "list {list}, round {round}");
            });
        }
    }
    while let Some(done) = reads.join_next().await {
        done.expect("read");
    }
    let shared = journal_core::store::Store::cache_counts(store.as_ref())
        .into_iter()
        .find(|(name, _)| *name == "sharedLinkPages")
        .expect("counted")
        .1;
    assert!(
        shared.hits > 0,
        "pages asked at once shared statements: {shared:?}"
    );
}

/// Searches asked at once by authors with few entries are read in one statement
/// (`search.rs`, `LightSearches`); an author with many entries is searched alone. Both
/// find exactly the matches, ranked, with the right totals, alone or all at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn searches_asked_at_once_each_find_their_own_matches() {
    use std::sync::Arc;

    use journal_core::{ImportedEntry, PageRequest, Timestamp};

    let url = common::postgres_url();
    let store = Arc::new(PostgresStore::connect(&url).await.expect("connect"));
    let j = Arc::new(common::journal(store.clone()).await);
    // Three light authors and one past the light limit (2,000 entries); every third
    // entry mentions apples, every fifth pears.
    let mut callers = Vec::new();
    for (i, n) in [14usize, 9, 30, 2_010].into_iter().enumerate() {
        let (caller, _) =
            common::user(&j, &format!("s{i}@example.com"), &format!("searcher{i}")).await;
        let entries = (0..n)
            .map(|k| {
                let mut words = vec![format!("author{i} note{k}")];
                if k % 3 == 0 {
                    words.push("apple orchard".into());
                }
                if k % 5 == 0 {
                    words.push("pear".into());
                }
                ImportedEntry {
                    id: None,
                    request: common::entry(&format!("t{k}"), &words.join(" "), k % 2 == 0),
                    created_at: Timestamp::from_millis(1_700_000_000_000 + k as i64 * 1000),
                    updated_at: None,
                    author_name: None,
                    revisions: Vec::new(),
                    deleted_at: None,
                }
            })
            .collect();
        j.import_entries(&caller, entries).await.expect("import");
        callers.push((caller, n));
    }
    let callers = Arc::new(callers);
    let expected = |n: usize, step: usize| (0..n).filter(|k| k % step == 0).count() as u64;
    let searches: Vec<(usize, &str, usize, i64)> = (0..4)
        .flat_map(|who| {
            [
                ("apple", 3, 1),
                ("pear", 5, 1),
                ("apple", 3, 2),
                ("apple", 3, 500),
            ]
            .map(|(word, step, page)| (who, word, step, page))
        })
        .collect();

    let mut alone = Vec::new();
    for &(who, word, step, page) in &searches {
        let (caller, n) = &callers[who];
        let found = j
            .search(caller, word, PageRequest::new(Some(page), Some(4)).unwrap())
            .await
            .expect("search");
        assert_eq!(found.total, expected(*n, step), "{word} by author {who}");
        let on_page = (found.total as i64 - (page - 1) * 4).clamp(0, 4) as usize;
        assert_eq!(
            found.items.len(),
            on_page,
            "{word} by author {who}, page {page}"
        );
        assert!(found.items.iter().all(|e| e.author_id == *caller.user_id()));
        assert!(found.items.iter().all(|e| e.content.contains(word)));
        alone.push(found);
    }

    let mut at_once = tokio::task::JoinSet::new();
    for round in 0..3 {
        for (i, &(who, word, _, page)) in searches.iter().enumerate() {
            let (j, callers) = (j.clone(), callers.clone());
            let expected = alone[i].clone();
            at_once.spawn(async move {
                let found = j
                    .search(
                        &callers[who].0,
                        word,
                        PageRequest::new(Some(page), Some(4)).unwrap(),
                    )
                    .await
                    .expect("search");
                assert_eq!(found, expected, "{word} by author {who}, round {round}");
            });
        }
    }
    while let Some(done) = at_once.join_next().await {
        done.expect("search");
    }
    let shared = journal_core::store::Store::cache_counts(store.as_ref())
        .into_iter()
        .find(|(name, _)| *name == "sharedSearches")
        .expect("counted")
        .1;
    assert!(
        shared.hits > 0,
        "searches asked at once shared statements: {shared:?}"
    );
}

/// Maintenance that runs outside the journal's schema works on its tables: autovacuum,
/// an operator's `VACUUM ANALYZE` and restores compute index expressions with only
/// `pg_catalog` on the search path (PostgreSQL 17 does so for every maintenance
/// command), so no index may depend on the journal's own functions being found there.
#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn maintenance_from_outside_the_schema_works_on_every_index() {
    let url = common::postgres_url();
    let store = std::sync::Arc::new(PostgresStore::connect(&url).await.expect("connect"));
    let j = common::journal(store.clone()).await;
    let (ann, _) = common::user(&j, "ann@example.com", "ann").await;
    for k in 0..5 {
        j.create_entry(
            &ann,
            &common::entry(&format!("garden {k}"), "roses", k % 2 == 0),
        )
        .await
        .unwrap();
    }
    let (client, schema) = plain_client(&url).await;
    for command in [
        "SET search_path = pg_catalog".to_owned(),
        format!("ANALYZE \"{schema}\".entries"),
        format!("VACUUM ANALYZE \"{schema}\".entries"),
        format!("REINDEX TABLE \"{schema}\".entries"),
    ] {
        client
            .simple_query(&command)
            .await
            .unwrap_or_else(|e| panic!("{command}: {e:?}"));
    }
    let found = j
        .search(&ann, "garden", journal_core::PageRequest::default())
        .await
        .unwrap();
    assert_eq!(found.total, 5);
}

/// A search's expression of ASCII letters and digits is made into its query as it is
/// (migration 10), without folding each word apart: the query must be the one folding
/// each word would make, for any such word, prefix or not.
#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn an_ascii_search_makes_the_query_its_words_folded_one_by_one_make() {
    let url = common::postgres_url();
    // Creates the schema and its functions.
    PostgresStore::connect(&url).await.expect("connect");
    let (client, schema) = plain_client(&url).await;
    client
        .simple_query(&format!("SET search_path = \"{schema}\""))
        .await
        .unwrap();

    // Expressions as search.rs writes them (lower-case letters and digits), from words
    // of every kind the parser tells apart: letters, digits, both mixed, hex- and
    // float-like runs; and a few it never writes (upper case, nothing at all).
    let alphabet: Vec<char> = ('a'..='z').chain('0'..='9').collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    let mut expressions: Vec<String> = [
        "'1e5'",
        "'0x1F':*",
        "'007'",
        "'H2O'",
        "'uint8'",
        "'2024':* & 'Garden'",
        "'E'",
        "'1st' & '3d'",
        "'v2'",
        "'1e5e'",
        "'0x1f':*",
        "'h2o'",
        "",
    ]
    .map(String::from)
    .to_vec();
    for _ in 0..3_000 {
        let words = 1 + next(3);
        let expression = (0..words)
            .map(|_| {
                let word: String = (0..1 + next(12))
                    .map(|_| alphabet[next(alphabet.len())])
                    .collect();
                let star = if next(2) == 0 { ":*" } else { "" };
                format!("'{word}'{star}")
            })
            .collect::<Vec<_>>()
            .join(" & ");
        expressions.push(expression);
    }
    let differ = client
        .query(
            "SELECT e, journal_search_query(e)::text, journal_search_query_unicode(e)::text
             FROM unnest($1::text[]) e
             WHERE journal_search_query(e)::text
                   IS DISTINCT FROM journal_search_query_unicode(e)::text",
            &[&expressions],
        )
        .await
        .unwrap();
    let differ: Vec<(String, String, String)> = differ
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(differ.is_empty(), "queries that differ: {differ:?}");

    // Expressions with other letters still fold each word.
    let row = client
        .query_one(
            "SELECT journal_search_query($1)::text, journal_search_query($2)::text",
            &[&"'NAÏVE':*", &"'donʼt'"],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "'naive':*");
    assert_eq!(row.get::<_, String>(1), "'don' <-> 't'");
}

/// A connection of its own to the database of `url` (a test URL with `schema=`), with
/// no search path set, and the name of the test's schema.
async fn plain_client(url: &str) -> (tokio_postgres::Client, String) {
    let (base, schema) = url
        .rsplit_once("schema=")
        .expect("a schema in the test URL");
    let base = base.trim_end_matches(['?', '&']);
    let (client, connection) = tokio_postgres::connect(base, tokio_postgres::NoTls)
        .await
        .expect("a plain connection");
    tokio::spawn(connection);
    (client, schema.to_owned())
}
