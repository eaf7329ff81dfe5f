//! Our JSON export with history, told once for every backend: export → import into an
//! empty journal → export gives the same entries, revisions and trash; an import into
//! a journal where the ids are taken keeps the history under new ids; an export
//! without history imports as before, one revision each; a history that does not
//! hold together is refused whole.

use std::collections::HashMap;

use journal_core::api::UpdateEntryRequest;
use journal_core::store::SNAPSHOT_EVERY;
use journal_core::transfer::json::ExportDocument;
use journal_core::transfer::{self, Format, ReadOptions};
use journal_core::{
    Caller, EditedVia, EntryId, Error, ImportReport, Journal, RevisionId, Timestamp, UserId,
};

use super::common::{Backend, entry, journal, on_every_backend, user};
use super::page;

/// What an export says, its metadata and the author's account id aside.
fn comparable(mut doc: ExportDocument) -> ExportDocument {
    doc.exported_at = Timestamp::from_millis(0);
    let nobody = UserId::from_uuid(uuid::Uuid::nil());
    for e in doc.entries.iter_mut().chain(doc.trash.iter_mut().flatten()) {
        e.entry.author_id = nobody;
    }
    doc
}

/// Imports the export's file, as `journal import` and the server read it.
async fn import(j: &Journal, caller: &Caller, doc: &ExportDocument) -> Result<ImportReport, Error> {
    let text = doc.to_json();
    let read = transfer::read(
        Format::Json,
        text.as_bytes(),
        &ReadOptions {
            zone: Default::default(),
            inline_tags: None,
            source: "export.json",
        },
    )?;
    j.import_entries(caller, read.items).await
}

async fn an_export_with_history_round_trips_on_every_backend(backend: Backend) {
    println!("export round trip on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;

    // A long-lived entry (past a snapshot, tags and star changed, a restore), a new
    // one, and one edited then deleted.
    let mut long = entry("Long", "words one", true);
    long.tags = Some(vec!["garden".into()]);
    let long = j.create_entry(&ann, &long).await.unwrap();
    for n in 2..=SNAPSHOT_EVERY + 8 {
        let change = UpdateEntryRequest {
            content: Some(format!("{} edit {n}", "many words here ".repeat(50))),
            starred: Some(n % 5 == 0),
            tags: Some(vec![format!("t{}", n % 3)]),
            ..Default::default()
        };
        j.update_entry(&ann, &long.id, &change).await.unwrap();
    }
    j.restore_revision(&ann, &long.id, 3, None).await.unwrap();
    let short = j
        .create_entry(&ann, &entry("Short", "only once", false))
        .await
        .unwrap();
    let gone = j
        .create_entry(&ann, &entry("Gone", "first", false))
        .await
        .unwrap();
    let change = UpdateEntryRequest {
        content: Some("second".into()),
        ..Default::default()
    };
    j.update_entry(&ann, &gone.id, &change).await.unwrap();
    j.delete_entry(&ann, &gone.id).await.unwrap();

    let exported = j.export(&ann, true).await.unwrap();
    assert_eq!(exported.entries.len(), 2);
    let trash = exported.trash.clone().unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!((trash[0].entry.id, trash[0].revisions.len()), (gone.id, 2));
    assert!(trash[0].deleted_at.is_some());
    let long_out = exported
        .entries
        .iter()
        .find(|e| e.entry.id == long.id)
        .unwrap();
    assert_eq!(long_out.revisions.len() as u32, SNAPSHOT_EVERY + 9);
    let numbers: Vec<u32> = long_out.revisions.iter().map(|r| r.revision).collect();
    assert_eq!(numbers, (1..=SNAPSHOT_EVERY + 9).collect::<Vec<_>>());
    assert_eq!(
        long_out.revisions.last().unwrap().id,
        long_out.entry.revision_id
    );

    // Into an empty journal: the same entries, revisions and trash.
    let fresh = backend.another().await;
    let j2 = journal(fresh.store.clone()).await;
    // Ann moving her journal: her nickname, which imported entries take (never the
    // file's), is the same there.
    let (ann2, _) = user(&j2, "ann@example.org", "ann").await;
    let report = import(&j2, &ann2, &exported).await.unwrap();
    assert_eq!(
        (report.created.len(), report.trashed, report.skipped),
        (2, 1, 0)
    );
    let created_long = report.created.iter().find(|e| e.id == long.id).unwrap();
    assert_eq!(created_long.revision_id, long_out.entry.revision_id);
    let again = j2.export(&ann2, true).await.unwrap();
    assert_eq!(comparable(again.clone()), comparable(exported.clone()));
    // The history reads back through the ordinary routes too, and no import revision
    // was added.
    let revisions = j2.revisions(&ann2, &long.id, page(1, 20)).await.unwrap();
    assert_eq!(revisions.total, u64::from(SNAPSHOT_EVERY + 9));
    assert!(
        revisions
            .items
            .iter()
            .all(|r| r.edited_via == EditedVia::Login)
    );
    // An entry of the trash comes back whole, with its history.
    let back = j2.untrash(&ann2, &gone.id).await.unwrap();
    assert_eq!((back.content.as_str(), back.revision), ("second", 2));
    assert_eq!(
        j2.revision(&ann2, &gone.id, 1).await.unwrap().content,
        "first"
    );
    // The same file again adds nothing.
    let twice = import(&j2, &ann2, &exported).await.unwrap();
    assert_eq!(
        (twice.created.len(), twice.trashed, twice.skipped),
        (0, 0, 3)
    );

    // Into the same database, by another user: the ids are ann's, so the entries and
    // every revision get new ids, and the history reads the same under them.
    let (bob, _) = user(&j, "bob@example.com", "bob").await;
    let report = import(&j, &bob, &exported).await.unwrap();
    assert_eq!((report.created.len(), report.trashed), (2, 1));
    let bobs = j.export(&bob, true).await.unwrap();
    let mut renamed: HashMap<RevisionId, RevisionId> = HashMap::new();
    let pairs = exported
        .entries
        .iter()
        .zip(&bobs.entries)
        .chain(trash.iter().zip(bobs.trash.as_ref().unwrap()));
    for (a, b) in pairs {
        assert_ne!(a.entry.id, b.entry.id);
        assert_eq!(
            (&a.entry.title, &a.entry.content, a.entry.revision),
            (&b.entry.title, &b.entry.content, b.entry.revision)
        );
        assert_eq!(a.revisions.len(), b.revisions.len());
        for (ra, rb) in a.revisions.iter().zip(&b.revisions) {
            assert_ne!(ra.id, rb.id);
            renamed.insert(ra.id, rb.id);
            assert_eq!(rb.parent_id, ra.parent_id.map(|p| renamed[&p]));
            assert_eq!(
                (&ra.content, &ra.tags, ra.edited_at, ra.revision),
                (&rb.content, &rb.tags, rb.edited_at, rb.revision)
            );
        }
        assert_eq!(b.entry.revision_id, b.revisions.last().unwrap().id);
    }
    // ann's journal is as it was.
    assert_eq!(
        comparable(j.export(&ann, true).await.unwrap()),
        comparable(exported.clone())
    );

    // A revision id someone has (a public entry's ETag) under a new entry id: the
    // entry is stored, its history under new revision ids.
    let mut crafted = exported.clone();
    crafted.trash = Some(Vec::new());
    crafted.entries.retain(|e| e.entry.id == short.id);
    crafted.entries[0].entry.id = EntryId::generate();
    crafted.entries[0].entry.title = "Crafted".into();
    crafted.entries[0].revisions[0].title = "Crafted".into();
    let (cat, _) = user(&j, "cat@example.com", "cat").await;
    let report = import(&j, &cat, &crafted).await.unwrap();
    assert_eq!(report.created[0].id, crafted.entries[0].entry.id);
    assert_ne!(report.created[0].revision_id, short.revision_id);
    assert_eq!(
        j.entry(&cat, &report.created[0].id)
            .await
            .unwrap()
            .revision_id,
        report.created[0].revision_id
    );

    // Without history: one revision each, made by the import, and no trash.
    let plain = j.export(&ann, false).await.unwrap();
    assert!(plain.trash.is_none());
    assert!(plain.entries.iter().all(|e| e.revisions.is_empty()));
    let fresh = backend.another().await;
    let j3 = journal(fresh.store.clone()).await;
    let (ann3, _) = user(&j3, "ann@example.net", "ann3").await;
    let report = import(&j3, &ann3, &plain).await.unwrap();
    assert_eq!((report.created.len(), report.trashed), (2, 0));
    let history = j3.revisions(&ann3, &long.id, page(1, 10)).await.unwrap();
    assert_eq!(history.total, 1);
    assert_eq!(history.items[0].edited_via, EditedVia::Import);
    assert_eq!(history.items[0].revision, 1);

    // An export edited by hand: the entry as the file has it follows its history as
    // one more revision, made by the import. An entry copied as a template: its copy's
    // history gets new revision ids.
    let fresh = backend.another().await;
    let j4 = journal(fresh.store.clone()).await;
    let (dan, _) = user(&j4, "dan@example.com", "dan").await;
    let mut edited = exported.clone();
    edited.trash = Some(Vec::new());
    edited.entries.retain(|e| e.entry.id == short.id);
    edited.entries[0].entry.content = "changed by hand".into();
    let mut copy = edited.entries[0].clone();
    copy.entry.id = EntryId::generate();
    copy.entry.title = "A copy".into();
    edited.entries.push(copy);
    let report = import(&j4, &dan, &edited).await.unwrap();
    assert_eq!(report.created.len(), 2);
    let by_hand = j4.revisions(&dan, &short.id, page(1, 10)).await.unwrap();
    assert_eq!(by_hand.total, 2);
    assert_eq!(
        (
            by_hand.items[0].content.as_str(),
            by_hand.items[0].edited_via
        ),
        ("changed by hand", EditedVia::Import)
    );
    assert_eq!(by_hand.items[1].id, short.revision_id);
    assert_eq!(by_hand.items[0].parent_id, Some(short.revision_id));
    let copied = &report.created[1];
    let copy_history = j4.revisions(&dan, &copied.id, page(1, 10)).await.unwrap();
    assert_eq!(copy_history.total, 2);
    assert_ne!(copy_history.items[1].id, short.revision_id);
    assert_eq!(
        copy_history.items[0].parent_id,
        Some(copy_history.items[1].id)
    );
    assert_eq!(copy_history.items[1].content, "only once");

    // A history that repeats a revision id within itself is refused, and nothing of
    // the file is stored.
    let (eve, _) = user(&j4, "eve@example.com", "eve").await;
    let mut repeated = exported.clone();
    let long_at = repeated
        .entries
        .iter()
        .position(|e| e.entry.id == long.id)
        .unwrap();
    let first = repeated.entries[long_at].revisions[0].id;
    repeated.entries[long_at].revisions[1].id = first;
    let err = import(&j4, &eve, &repeated).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(v) if v.message.contains("given twice")),
        "{err:?}"
    );
    let empty = j4.export(&eve, true).await.unwrap();
    assert!(empty.entries.is_empty() && empty.trash.unwrap().is_empty());
}
on_every_backend!(an_export_with_history_round_trips_on_every_backend);
