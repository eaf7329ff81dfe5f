//! The sync bookkeeping file: a file of the older layout (ids as text) opens in the
//! new one with every agreed state kept and both feeds to be read again, so a sync
//! after the upgrade sends the entries with attachments (which did not travel before)
//! and nothing else.

use journal_core::sync_book::{Agreed, SyncBook};
use journal_core::{EntryId, RevisionId};

#[test]
fn a_book_of_the_text_layout_keeps_every_agreed_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db.sync");
    let (entry, revision) = (EntryId::generate(), RevisionId::generate());
    {
        let old = rusqlite::Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE sync_entries (
                 entry_id    TEXT PRIMARY KEY,
                 revision_id TEXT NOT NULL,
                 state       TEXT NOT NULL
             ) WITHOUT ROWID;
             CREATE TABLE sync_link (
                 id         INTEGER PRIMARY KEY CHECK (id = 0),
                 remote     TEXT NOT NULL,
                 account_id TEXT NOT NULL,
                 pulled     TEXT,
                 pushed     TEXT,
                 last_sync  INTEGER
             );",
        )
        .unwrap();
        old.execute(
            "INSERT INTO sync_link VALUES (0, 'https://journal.example', ?1, 'p', 'q', 1)",
            [journal_core::UserId::generate().to_string()],
        )
        .unwrap();
        old.execute(
            "INSERT INTO sync_entries VALUES (?1, ?2, 'trashed')",
            [entry.to_string(), revision.to_string()],
        )
        .unwrap();
    }
    let mut book = SyncBook::open(&path).unwrap();
    assert_eq!(book.agreed_count().unwrap(), 1);
    // Both feeds are read again, so entries with attachments travel once.
    let link = book.link().unwrap().unwrap();
    assert_eq!((link.pushed, link.pulled), (None, None));
    assert_eq!(link.remote, "https://journal.example");
    let agreed = book.agreed(&[entry]).unwrap();
    assert_eq!(
        agreed.get(&entry),
        Some(&Agreed {
            revision,
            state: "trashed",
            files: 0
        })
    );
    // Written and read back in the new layout; opening again changes nothing.
    let other = EntryId::generate();
    let state = Agreed {
        revision: RevisionId::generate(),
        state: "live",
        files: 7,
    };
    book.agree(&[(other, Some(state)), (entry, None)]).unwrap();
    drop(book);
    let book = SyncBook::open(&path).unwrap();
    assert_eq!(book.agreed_count().unwrap(), 1);
    assert_eq!(book.agreed(&[other]).unwrap().get(&other), Some(&state));
}
