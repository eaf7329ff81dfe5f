//! Texts a sync could not merge, told once for every backend: a push that overlaps the
//! server's edit leaves a conflict the author sees listed (and no one else); its text
//! outlives history pruning; settling it keeps the entry as it is or takes the text set
//! aside; a settled conflict is gone; a trashed entry's is not listed, a purged one's
//! goes with it.

use journal_core::api::{PushChangeRequest, PushChangesRequest, UpdateEntryRequest};
use journal_core::store::HistoryKeep;
use journal_core::{
    Caller, EditedVia, EntryId, Error, Journal, PageRequest, PushOutcome, Resolution, Revision,
    RevisionId, Timestamp,
};

use super::common::on_every_backend;
use super::common::{Backend, entry, journal, user};

/// Makes a conflict on a new entry of `who`'s: the server's text and a replica's both
/// change its one line. Returns the entry and the revision set aside.
async fn conflict(j: &Journal, who: &Caller, title: &str) -> (EntryId, Revision) {
    let made = j
        .create_entry(who, &entry(title, "the first line\n", false))
        .await
        .unwrap();
    j.update_entry(
        who,
        &made.id,
        &UpdateEntryRequest {
            content: Some("the server's line\n".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let theirs = Revision {
        id: RevisionId::generate(),
        parent_id: Some(made.revision_id),
        entry_id: made.id,
        revision: 2,
        title: title.into(),
        content: "the replica's line\n".into(),
        is_public: false,
        tags: vec![],
        starred: false,
        date: made.date,
        edited_at: Timestamp::now(),
        edited_via: EditedVia::Local,
    };
    let request = PushChangeRequest {
        id: Some(made.id.to_string()),
        base: Some(made.revision_id.to_string()),
        state: Some("live".into()),
        deleted_at: None,
        created_at: None,
        revisions: Some(vec![
            serde_json::from_value(serde_json::to_value(&theirs).unwrap()).unwrap(),
        ]),
        attachments: None,
    };
    let results = j
        .push_changes(
            who,
            &PushChangesRequest {
                changes: Some(vec![request]),
                since: None,
            },
        )
        .await
        .unwrap()
        .results;
    assert_eq!(results[0].outcome, PushOutcome::Conflict, "{results:?}");
    (made.id, theirs)
}

fn all() -> PageRequest {
    PageRequest::new(Some(1), Some(100)).unwrap()
}

async fn conflicts_are_listed_and_settled_on_every_backend(backend: Backend) {
    println!("conflict story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;

    let (first, set_aside) = conflict(&j, &ann, "First").await;
    let listed = j.conflicts(&ann, all()).await.unwrap();
    assert_eq!(listed.total, 1);
    let c = &listed.items[0];
    assert_eq!((c.entry_id, c.revision_id), (first, set_aside.id));
    assert_eq!(c.title, "First");
    let aside = j.revision(&ann, &first, c.revision).await.unwrap();
    assert_eq!(aside.content, "the replica's line\n");
    assert_eq!(
        j.entry(&ann, &first).await.unwrap().content,
        "the server's line\n"
    );

    // No one else sees or settles it.
    assert_eq!(j.conflicts(&bob, all()).await.unwrap().total, 0);
    let theirs = Resolution::TakeSetAside(set_aside.id);
    assert!(matches!(
        j.resolve_conflict(&bob, &first, theirs).await,
        Err(Error::NotFound { .. })
    ));
    // A revision no conflict set aside is refused, and nothing changes.
    let other = Resolution::TakeSetAside(RevisionId::generate());
    assert!(matches!(
        j.resolve_conflict(&ann, &first, other).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(j.conflicts(&ann, all()).await.unwrap().total, 1);

    // Pruning the history to one revision keeps the text set aside.
    for n in 0..3 {
        j.update_entry(
            &ann,
            &first,
            &UpdateEntryRequest {
                title: Some(format!("First, edit {n}")),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    }
    let keep = HistoryKeep {
        revisions: Some(1),
        days: None,
    };
    assert!(j.prune_history(&keep).await.unwrap() > 0);
    assert_eq!(
        j.revision(&ann, &first, c.revision).await.unwrap().content,
        "the replica's line\n"
    );

    // Taking the text set aside makes it current, as a new revision.
    let before = j.entry(&ann, &first).await.unwrap();
    let taken = j.resolve_conflict(&ann, &first, theirs).await.unwrap();
    assert_eq!(taken.content, "the replica's line\n");
    assert_eq!(taken.revision, before.revision + 1);
    assert_eq!(j.conflicts(&ann, all()).await.unwrap().total, 0);
    assert!(matches!(
        j.resolve_conflict(&ann, &first, Resolution::KeepCurrent)
            .await,
        Err(Error::NotFound { .. })
    ));

    // Keeping the entry as it is changes nothing but the list.
    let (second, _) = conflict(&j, &ann, "Second").await;
    let before = j.entry(&ann, &second).await.unwrap();
    let kept = j
        .resolve_conflict(&ann, &second, Resolution::KeepCurrent)
        .await
        .unwrap();
    assert_eq!(kept, before);
    assert_eq!(j.conflicts(&ann, all()).await.unwrap().total, 0);

    // A trashed entry's conflict is not listed until it is back; a purged one's goes.
    let (third, _) = conflict(&j, &ann, "Third").await;
    j.delete_entry(&ann, &third).await.unwrap();
    assert_eq!(j.conflicts(&ann, all()).await.unwrap().total, 0);
    j.untrash(&ann, &third).await.unwrap();
    assert_eq!(j.conflicts(&ann, all()).await.unwrap().total, 1);
    j.delete_entry(&ann, &third).await.unwrap();
    j.purge(&ann, &third).await.unwrap();
    let undeleted = conflict(&j, &ann, "Fourth").await.0;
    let listed = j.conflicts(&ann, all()).await.unwrap();
    assert_eq!(listed.total, 1, "{listed:?}");
    assert_eq!(listed.items[0].entry_id, undeleted);
}

on_every_backend!(conflicts_are_listed_and_settled_on_every_backend);
