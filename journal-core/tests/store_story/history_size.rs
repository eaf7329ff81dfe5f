//! The goal for history's size: 1,000 one-word edits of a 10 KB entry add at
//! most 1 MB to the revision storage, on SQLite (pages counted by `dbstat` after
//! `VACUUM`) and PostgreSQL (`pg_total_relation_size` after `VACUUM`).

use journal_core::api::UpdateEntryRequest;
use journal_core::store::Store;

use super::common::{entry, journal, postgres_url, user};

const EDITS: u32 = 1_000;
const LIMIT: u64 = 1024 * 1024;

/// A 10 KB text of 1,800 words, with word `n % 1800` changed.
fn text(n: u32) -> String {
    let mut words: Vec<String> = (0..1800).map(|i| format!("w{i:04}")).collect();
    words[(n as usize * 37) % 1800] = format!("x{n:04}");
    words.join(" ")
}

async fn edit_a_long_entry(store: std::sync::Arc<dyn Store>) {
    let j = journal(store).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let made = j
        .create_entry(&ann, &entry("Long", &text(0), false))
        .await
        .unwrap();
    assert!(made.content.len() >= 10_000);
    for n in 1..=EDITS {
        let change = UpdateEntryRequest {
            content: Some(text(n)),
            ..Default::default()
        };
        j.update_entry(&ann, &made.id, &change).await.unwrap();
    }
    // Every revision still reads back whole, the last snapshot's neighbours included.
    for n in [1, 2, 500, 990, EDITS + 1] {
        assert_eq!(
            j.revision(&ann, &made.id, n).await.unwrap().content,
            text(n - 1)
        );
    }
}

#[tokio::test]
async fn a_thousand_one_word_edits_of_10_kb_add_under_a_megabyte_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("journal.db");
    let store = journal_core::store::open(&format!("sqlite:{}", file.display()))
        .await
        .unwrap();
    edit_a_long_entry(store).await;
    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute_batch("VACUUM").unwrap();
    let bytes: i64 = conn
        .query_row(
            "SELECT sum(pgsize) FROM dbstat WHERE name IN
                 (SELECT name FROM sqlite_schema WHERE tbl_name = 'entry_revisions')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    println!("SQLite: {EDITS} edits of a 10 KB entry take {bytes} bytes of revisions");
    assert!((bytes as u64) <= LIMIT, "{bytes} bytes");
}

#[tokio::test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "needs PostgreSQL: set JOURNAL_TEST_POSTGRES_URL (docs/TESTING.md)"
)]
async fn a_thousand_one_word_edits_of_10_kb_add_under_a_megabyte_on_postgres() {
    let url = postgres_url();
    let store = journal_core::store::open(&url).await.unwrap();
    edit_a_long_entry(store).await;
    let (base, schema) = url.split_once("schema=").unwrap();
    let (client, conn) =
        tokio_postgres::connect(base.trim_end_matches(['?', '&']), tokio_postgres::NoTls)
            .await
            .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!("VACUUM \"{schema}\".entry_revisions"))
        .await
        .unwrap();
    let bytes: i64 = client
        .query_one(
            &format!("SELECT pg_total_relation_size('\"{schema}\".entry_revisions')"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    println!("PostgreSQL: {EDITS} edits of a 10 KB entry take {bytes} bytes of revisions");
    assert!((bytes as u64) <= LIMIT, "{bytes} bytes");
}
