//! Search in every script: runs of Chinese, Japanese, Thai and Hangul found by any two
//! or more of their characters (or one), tags found by their words, Latin words as
//! before, ranked together.

use journal_core::api::{CreateEntryRequest, UpdateEntryRequest};
use journal_core::{Caller, EntryId, Journal};

use crate::common::{Backend, journal, on_every_backend, user};
use crate::{page, titles};

async fn create(j: &Journal, who: &Caller, title: &str, content: &str, tags: &[&str]) -> EntryId {
    let new = CreateEntryRequest {
        title: Some(title.into()),
        content: Some(content.into()),
        is_public: Some(false),
        tags: Some(tags.iter().map(|t| t.to_string()).collect()),
        ..Default::default()
    };
    j.create_entry(who, &new).await.expect("create").id
}

async fn found(j: &Journal, who: &Caller, q: &str) -> Vec<String> {
    let found = j.search(who, q, page(1, 100)).await.expect("search");
    assert_eq!(found.total, found.items.len() as u64, "{q}");
    titles(&found.items)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

async fn search_finds_every_script_and_the_tags(backend: Backend) {
    println!("every script on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (me, _) = user(&j, "scripts@example.com", "scripts").await;
    let (other, _) = user(&j, "other@example.com", "other").await;
    create(&j, &me, "日記", "今日は静かな朝でした。", &[]).await;
    create(&j, &me, "東京の朝", "We walked along the river.", &[]).await;
    create(&j, &me, "ตลาด", "วันนี้อากาศดีมาก ราคาไม่แพง", &[]).await;
    create(&j, &me, "서울", "서울에서 친구를 만났다", &[]).await;
    let hike = create(
        &j,
        &me,
        "Saturday",
        "Up at dawn, back by noon.",
        &["hiking"],
    )
    .await;
    create(&j, &me, "Weekend", "Nothing much.", &["京都"]).await;
    create(
        &j,
        &me,
        "Notes",
        "Meeting at 東京駅 at 9, then a garden walk",
        &[],
    )
    .await;
    create(&j, &other, "他人の日記", "静かな夜", &["hiking"]).await;

    let q = |text: &'static str| found(&j, &me, text);
    // Chinese and Japanese: any run of two or more characters, in a title or a body,
    // kana with their voicing marks included.
    assert_eq!(q("静か").await, ["日記"]);
    assert_eq!(q("静かな朝").await, ["日記"]);
    assert_eq!(q("でした").await, ["日記"]);
    assert_eq!(q("京の朝").await, ["東京の朝"]);
    // Not a run of the text: the characters apart, or in another order.
    assert!(q("静朝").await.is_empty());
    assert!(q("朝静か").await.is_empty());
    assert!(q("てした").await.is_empty(), "で is not て");
    // One character is found wherever it is: inside a run, or at its end.
    let mut mornings = q("朝").await;
    mornings.sort();
    assert_eq!(mornings, ["日記", "東京の朝"]);
    // Ranked with the rest: the title's 東京 before the body's.
    assert_eq!(q("東京").await, ["東京の朝", "Notes"]);
    // Mixed with Latin words, all required.
    assert_eq!(q("東京駅 garden").await, ["Notes"]);
    assert!(q("東京駅 river").await.is_empty());
    // Thai, tone marks included; Hangul inside a word.
    assert_eq!(q("อากาศ").await, ["ตลาด"]);
    assert_eq!(q("ไม่แพง").await, ["ตลาด"]);
    assert!(q("แพงไม่").await.is_empty());
    assert_eq!(q("친구").await, ["서울"]);
    // Tags match search words, in any script, and follow an edit of the tags.
    assert_eq!(q("hiking").await, ["Saturday"]);
    assert_eq!(q("hik").await, ["Saturday"]);
    assert_eq!(q("京都").await, ["Weekend"]);
    j.update_entry(
        &me,
        &hike,
        &UpdateEntryRequest {
            tags: Some(vec!["climbing".into()]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(q("hiking").await.is_empty());
    assert_eq!(q("climbing").await, ["Saturday"]);
    // Latin words as before.
    assert_eq!(q("river").await, ["東京の朝"]);
    assert_eq!(q("GARDEN").await, ["Notes"]);
    // Another author's entries stay theirs.
    assert_eq!(found(&j, &other, "静か").await, ["他人の日記"]);
    assert_eq!(found(&j, &other, "hiking").await, ["他人の日記"]);
    assert!(found(&j, &other, "東京").await.is_empty());
}
on_every_backend!(search_finds_every_script_and_the_tags);

/// An entry that keeps coming back to a word ranks above one that mentions it once,
/// in a script written without spaces as in any other; a title or a tag counts more
/// than the body.
async fn runs_rank_as_words_do(backend: Backend) {
    let j = journal(backend.store.clone()).await;
    let (me, _) = user(&j, "rank@example.com", "rank").await;
    create(&j, &me, "一", "少し雨が降った。", &[]).await;
    create(&j, &me, "二", "雨、雨、また雨。雨の日は長い。", &[]).await;
    create(&j, &me, "三", "晴れ", &["雨の日"]).await;
    let q = |text: &'static str| found(&j, &me, text);
    let rain = q("雨").await;
    let at = |title: &str| rain.iter().position(|t| t == title);
    assert_eq!(rain.len(), 3, "{rain:?}");
    assert!(at("二") < at("一"), "four times before once: {rain:?}");
    assert_eq!(q("雨の日").await, ["三", "二"]);
}
on_every_backend!(runs_rank_as_words_do);

/// A body longer than the index keeps pairs for is still found by the pairs of its
/// first characters and by its other words, and its save is not refused.
async fn a_long_run_is_indexed_by_its_beginning(backend: Backend) {
    let j = journal(backend.store.clone()).await;
    let (me, _) = user(&j, "long@example.com", "long").await;
    // Every pair different: the largest index such a body can make.
    let body: String = (0..99_000u32)
        .map(|i| char::from_u32(0x4E00 + i % 20_000).unwrap())
        .chain(" tail".chars())
        .collect();
    create(&j, &me, "long", &body, &[]).await;
    let head: String = body.chars().take(5).collect();
    assert_eq!(found(&j, &me, &head).await, ["long"]);
    assert_eq!(found(&j, &me, "tail").await, ["long"]);
    // Characters 15,000 to 19,999 of the cycle come only past what is indexed.
    let late: String = body.chars().skip(17_000).take(4).collect();
    assert!(found(&j, &me, &late).await.is_empty());
}
on_every_backend!(a_long_run_is_indexed_by_its_beginning);

/// PostgreSQL's index functions (its migration 12) split runs as the core's rule does
/// (`domain::index_words`, which SQLite's index and every query use): the same pairs
/// for text mixing runs, their marks, Latin letters, digits and punctuation.
#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn postgres_splits_runs_by_the_cores_rule() {
    let url = crate::common::postgres_url();
    journal_core::store::postgres::migrate_to(&url, usize::MAX)
        .await
        .unwrap();
    let (base, schema) = url.split_once("schema=").unwrap();
    let (client, conn) =
        tokio_postgres::connect(base.trim_end_matches(['?', '&']), tokio_postgres::NoTls)
            .await
            .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!("SET search_path TO \"{schema}\", public"))
        .await
        .unwrap();
    let alphabet: Vec<char> = "今日は静かな朝でしたが東京の駅かアイー々ไม่ดีแพงสวัสดี서울에ab1 .,・、。-'〇\u{3099}\u{301}ＡÉ"
        .chars()
        .collect();
    let mut texts: Vec<String> = [
        "今日は静かな朝でした。",
        "東京2024年・ราคาไม่แพง",
        "東\u{301}京 か\u{3099} 〇〇 ・・",
        "서울에서 친구를 만났다",
        "mixed 東京abc とabc",
    ]
    .map(String::from)
    .to_vec();
    // Texts drawn from the alphabet, the same on every run.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..300 {
        let len = 1 + (seed >> 59) as usize;
        let text: String = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                alphabet[(seed >> 33) as usize % alphabet.len()]
            })
            .collect();
        texts.push(text);
    }
    for text in texts {
        let mut core: Vec<String> = journal_core::domain::index_words(&text)
            .into_iter()
            .filter(|w| w.starts_with(journal_core::domain::is_run_char))
            .collect();
        core.sort();
        core.dedup();
        let row = client
            .query_one("SELECT tsvector_to_array(journal_run_vector($1))", &[&text])
            .await
            .unwrap();
        let mut postgres: Vec<String> = row.get(0);
        postgres.sort();
        assert_eq!(core, postgres, "{text:?}");
    }
}
