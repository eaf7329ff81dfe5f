//! The SQLite file under a steady stream of writes: the WAL starts over from its
//! beginning instead of growing for as long as the writes go on.

mod common;

use common::{entry, journal, user};
use journal_core::store::sqlite::SqliteStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_wal_stays_small_under_a_steady_stream_of_creates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    let store = std::sync::Arc::new(SqliteStore::open(&path).await.unwrap());
    let j = std::sync::Arc::new(journal(store).await);
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    // A page's worth of words per entry: every create writes a few pages to the WAL.
    let body = "the garden in the morning with coffee and the cat ".repeat(60);
    let wal = path.with_extension("db-wal");
    let (mut written, mut largest) = (0u64, 0u64);
    for round in 0..200 {
        let creates = (0..32).map(|n| {
            let (j, ann, body) = (j.clone(), ann.clone(), body.clone());
            tokio::spawn(async move {
                j.create_entry(
                    &ann,
                    &entry(&format!("entry {round}-{n}"), &body, n % 2 == 0),
                )
                .await
                .unwrap();
            })
        });
        for create in creates.collect::<Vec<_>>() {
            create.await.unwrap();
        }
        written += 32;
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    let listed = j
        .user_entries(&ann, ann.user_id(), journal_core::PageRequest::default())
        .await
        .unwrap();
    assert_eq!(listed.total, written);
    // Without starting over, 6,400 creates of this size leave a WAL of about 80 MB
    // (each writes its row, its index entries and its search terms); a WAL that starts
    // over holds what a checkpoint interval or two wrote.
    assert!(
        largest < 32 << 20,
        "the WAL reached {largest} bytes over {written} creates"
    );
}
