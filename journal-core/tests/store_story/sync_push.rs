//! Changes a replica pushes, told once for every backend: a new entry keeps its id and
//! revisions; a push applied twice changes nothing; revisions made from the server's
//! current one follow on; edits on both sides merge, or, where they overlap, keep the
//! server's text with the replica's in the history as a conflict; an edit outlives a
//! delete on the other side; a replica's purge only reaches the trash; another
//! account's id is refused; a bad push writes nothing.

use journal_core::api::{PushChangeRequest, PushChangesRequest, UpdateEntryRequest};
use journal_core::domain::SyncCursor;
use journal_core::{
    Caller, EditedVia, EntryId, Error, Journal, PageRequest, PushOutcome, PushReply, PushResult,
    Revision, RevisionId, Timestamp,
};

use super::common::on_every_backend;
use super::common::{Backend, entry, journal, user};

/// A revision the replica made, of `entry`, from `parent`.
fn made(entry: EntryId, parent: Option<RevisionId>, title: &str, content: &str) -> Revision {
    Revision {
        id: RevisionId::generate(),
        parent_id: parent,
        entry_id: entry,
        revision: 1,
        title: title.into(),
        content: content.into(),
        is_public: false,
        tags: vec![],
        starred: false,
        date: Timestamp::from_millis(1_700_000_000_000),
        edited_at: Timestamp::now(),
        edited_via: EditedVia::Local,
    }
}

fn change(
    id: EntryId,
    base: Option<RevisionId>,
    state: &str,
    revisions: &[Revision],
) -> PushChangeRequest {
    PushChangeRequest {
        id: Some(id.to_string()),
        base: base.map(|b| b.to_string()),
        state: Some(state.into()),
        deleted_at: (state == "trashed").then(|| Timestamp::now().to_string()),
        created_at: None,
        revisions: Some(
            revisions
                .iter()
                .map(|r| serde_json::from_value(serde_json::to_value(r).unwrap()).unwrap())
                .collect(),
        ),
        attachments: None,
    }
}

async fn push(j: &Journal, who: &Caller, changes: Vec<PushChangeRequest>) -> Vec<PushResult> {
    j.push_changes(
        who,
        &PushChangesRequest {
            changes: Some(changes),
            since: None,
        },
    )
    .await
    .unwrap()
    .results
}

async fn history(j: &Journal, who: &Caller, id: &EntryId) -> Vec<Revision> {
    j.revisions(who, id, PageRequest::new(Some(1), Some(20)).unwrap())
        .await
        .unwrap()
        .items
}

async fn pushed_changes_apply_on_every_backend(backend: Backend) {
    println!("push story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;

    // A new entry, made offline: its id and both revisions kept, parents and all.
    let id = EntryId::generate();
    let r1 = made(id, None, "Offline", "line one\nline two\nline three\n");
    let r2 = made(
        id,
        Some(r1.id),
        "Offline",
        "line one\nline two, more\nline three\n",
    );
    let new = change(id, None, "live", &[r1.clone(), r2.clone()]);
    let results = push(&j, &ann, vec![new.clone()]).await;
    assert_eq!(results[0].outcome, PushOutcome::Applied);
    assert_eq!(results[0].revision_id, Some(r2.id));
    let stored = j.entry(&ann, &id).await.unwrap();
    assert_eq!((stored.revision, stored.revision_id), (2, r2.id));
    assert_eq!(stored.author_name, "ann");
    let kept = history(&j, &ann, &id).await;
    assert_eq!(kept[0].parent_id, Some(r1.id));
    assert_eq!(kept[1].id, r1.id);

    // The same push again changes nothing.
    let again = push(&j, &ann, vec![new]).await;
    assert_eq!(again[0].outcome, PushOutcome::Applied);
    assert_eq!(j.entry(&ann, &id).await.unwrap(), stored);

    // Made from the server's current revision: follows on.
    let r3 = made(
        id,
        Some(r2.id),
        "Offline",
        "line one, edited\nline two, more\nline three\n",
    );
    let results = push(
        &j,
        &ann,
        vec![change(id, Some(r2.id), "live", std::slice::from_ref(&r3))],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Applied);
    assert_eq!(j.entry(&ann, &id).await.unwrap().content, r3.content);

    // Edited on the server and on the replica, in different lines: merged.
    let on_server = j
        .update_entry(
            &ann,
            &id,
            &UpdateEntryRequest {
                content: Some("line one, edited\nline two, more\nline three, server\n".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let r4 = made(
        id,
        Some(r3.id),
        "Offline, renamed",
        "line zero\nline one, edited\nline two, more\nline three\n",
    );
    let results = push(
        &j,
        &ann,
        vec![change(id, Some(r3.id), "live", std::slice::from_ref(&r4))],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Merged, "{results:?}");
    let merged = j.entry(&ann, &id).await.unwrap();
    assert_eq!(
        merged.content,
        "line zero\nline one, edited\nline two, more\nline three, server\n"
    );
    assert_eq!(
        merged.title, "Offline, renamed",
        "a field changed on one side"
    );
    assert_eq!(results[0].revision_id, Some(merged.revision_id));
    let ids: Vec<RevisionId> = history(&j, &ann, &id).await.iter().map(|r| r.id).collect();
    assert!(ids.contains(&r4.id) && ids.contains(&on_server.revision_id));

    // The same line changed on both sides: the server's text stays, the replica's is
    // in the history, and the push says so.
    let server_text = "line zero\nline one, the server's\nline two, more\nline three, server\n";
    j.update_entry(
        &ann,
        &id,
        &UpdateEntryRequest {
            content: Some(server_text.into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let r5 = made(
        id,
        Some(merged.revision_id),
        "Offline, renamed",
        "line zero\nline one, the replica's\nline two, more\nline three, server\n",
    );
    let results = push(
        &j,
        &ann,
        vec![change(
            id,
            Some(merged.revision_id),
            "live",
            std::slice::from_ref(&r5),
        )],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Conflict, "{results:?}");
    assert!(results[0].message.as_deref().unwrap().contains("resolve"));
    assert_eq!(j.entry(&ann, &id).await.unwrap().content, server_text);
    let texts: Vec<String> = history(&j, &ann, &id)
        .await
        .into_iter()
        .map(|r| r.content)
        .collect();
    assert!(texts.contains(&r5.content), "the replica's text is kept");

    // Deleted on the replica after the server edited: kept, live.
    let now = j.entry(&ann, &id).await.unwrap();
    let results = push(&j, &ann, vec![change(id, Some(r5.id), "trashed", &[])]).await;
    assert_eq!(results[0].outcome, PushOutcome::Kept, "{results:?}");
    assert_eq!(j.entry(&ann, &id).await.unwrap(), now);

    // Deleted on the server, edited on the replica: back from the trash with the edit.
    j.delete_entry(&ann, &id).await.unwrap();
    let r6 = made(
        id,
        Some(now.revision_id),
        "Back",
        "edited while deleted elsewhere\n",
    );
    let results = push(
        &j,
        &ann,
        vec![change(
            id,
            Some(now.revision_id),
            "live",
            std::slice::from_ref(&r6),
        )],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Kept, "{results:?}");
    assert!(results[0].message.is_some());
    assert_eq!(j.entry(&ann, &id).await.unwrap().title, "Back");

    // A replica's purge only puts the entry in the server's trash.
    let results = push(&j, &ann, vec![change(id, Some(r6.id), "purged", &[])]).await;
    assert_eq!(results[0].outcome, PushOutcome::Applied);
    assert!(j.entry(&ann, &id).await.is_err());
    let trash = j.trash(&ann, PageRequest::default()).await.unwrap();
    assert!(trash.items.iter().any(|t| t.entry.id == id));

    // Purged on the server, edited on the replica: written again, and the feed has it
    // once, live (the purge's tombstone goes).
    j.purge(&ann, &id).await.unwrap();
    let r7 = made(id, Some(r6.id), "Again", "edited after the purge\n");
    let results = push(
        &j,
        &ann,
        vec![change(id, Some(r6.id), "live", std::slice::from_ref(&r7))],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Kept, "{results:?}");
    let feed = j.changes(&ann, None, 100).await.unwrap();
    let mine: Vec<_> = feed.changes.iter().filter(|c| c.id == id).collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert!(matches!(
        mine[0].state,
        journal_core::ChangeState::Live { .. }
    ));

    // Another account's id: refused, nothing written.
    let bobs = j
        .create_entry(&bob, &entry("Bob's", "mine", false))
        .await
        .unwrap();
    let stolen = made(bobs.id, Some(bobs.revision_id), "Stolen", "overwritten");
    let results = push(
        &j,
        &ann,
        vec![change(bobs.id, Some(bobs.revision_id), "live", &[stolen])],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Refused);
    assert_eq!(j.entry(&bob, &bobs.id).await.unwrap(), bobs);
    // Bob's revision ids under a new entry of Ann's: refused too.
    let copied = Revision {
        entry_id: EntryId::generate(),
        ..made(bobs.id, None, "x", "y")
    };
    let copied = Revision {
        id: bobs.revision_id,
        ..copied
    };
    let results = push(
        &j,
        &ann,
        vec![change(
            copied.entry_id,
            None,
            "live",
            std::slice::from_ref(&copied),
        )],
    )
    .await;
    assert_eq!(results[0].outcome, PushOutcome::Refused);

    // A bad push writes nothing, naming the change and field.
    let fresh = EntryId::generate();
    let good = change(fresh, None, "live", &[made(fresh, None, "Fine", "")]);
    let mut bad = change(EntryId::generate(), None, "live", &[]);
    bad.revisions = Some(vec![
        serde_json::from_value(serde_json::json!({
            "revisionId": RevisionId::generate().to_string(), "revision": 1,
            "title": "", "editedAt": "2026-01-01T00:00:00Z"
        }))
        .unwrap(),
    ]);
    let refused = j
        .push_changes(
            &ann,
            &PushChangesRequest {
                changes: Some(vec![good, bad]),
                since: None,
            },
        )
        .await;
    match refused {
        Err(Error::Validation(e)) => assert!(e.message.contains("change 2"), "{e}"),
        other => panic!("a bad push is refused: {other:?}"),
    }
    assert!(j.entry(&ann, &fresh).await.is_err(), "nothing written");
    let too_many: Vec<_> = (0..=journal_core::PUSH_CHANGES_MAX)
        .map(|_| {
            let id = EntryId::generate();
            change(id, None, "live", &[made(id, None, "t", "")])
        })
        .collect();
    let refused = j
        .push_changes(
            &ann,
            &PushChangesRequest {
                changes: Some(too_many),
                since: None,
            },
        )
        .await;
    assert!(matches!(refused, Err(Error::Validation(_))), "{refused:?}");
}
on_every_backend!(pushed_changes_apply_on_every_backend);

/// Pushes `changes` from the replica's cursor `since`; the reply.
async fn push_from(
    j: &Journal,
    who: &Caller,
    since: &SyncCursor,
    changes: Vec<PushChangeRequest>,
) -> PushReply {
    j.push_changes(
        who,
        &PushChangesRequest {
            changes: Some(changes),
            since: Some(since.to_string()),
        },
    )
    .await
    .unwrap()
}

/// The cursor past a push comes back only when the push was all that changed the
/// account since the replica's cursor and every change was applied as sent; from it,
/// the feed holds nothing the replica lacks.
async fn a_push_moves_the_cursor_past_its_own_changes_on_every_backend(backend: Backend) {
    println!("push cursor story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let web = j
        .create_entry(&ann, &entry("Web", "w", false))
        .await
        .unwrap();
    let read = j.changes(&ann, None, 100).await.unwrap().cursor;

    let id = EntryId::generate();
    let reply = push_from(
        &j,
        &ann,
        &read,
        vec![change(id, None, "live", &[made(id, None, "New", "n")])],
    )
    .await;
    assert_eq!(reply.results[0].outcome, PushOutcome::Applied);
    let past = reply.cursor.expect("only this push changed the account");
    assert!(
        j.changes(&ann, Some(&past), 100)
            .await
            .unwrap()
            .changes
            .is_empty()
    );

    // Something else changed the account since the cursor: the feed must be read.
    j.update_entry(
        &ann,
        &web.id,
        &UpdateEntryRequest {
            title: Some("Web, edited".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let other = EntryId::generate();
    let reply = push_from(
        &j,
        &ann,
        &past,
        vec![change(
            other,
            None,
            "live",
            &[made(other, None, "Other", "o")],
        )],
    )
    .await;
    assert_eq!(reply.results[0].outcome, PushOutcome::Applied);
    assert_eq!(reply.cursor, None);
    let page = j.changes(&ann, Some(&past), 100).await.unwrap();
    assert_eq!(page.changes.len(), 2, "the web's edit and the push");

    // A change not applied as sent (merged with the server's): read back too.
    let now = page.cursor;
    let base = j.entry(&ann, &web.id).await.unwrap();
    j.update_entry(
        &ann,
        &web.id,
        &UpdateEntryRequest {
            content: Some("w\nserver line".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let now = j.changes(&ann, Some(&now), 100).await.unwrap().cursor;
    let mine = made(web.id, Some(base.revision_id), "Replica title", "w");
    let reply = push_from(
        &j,
        &ann,
        &now,
        vec![change(web.id, Some(base.revision_id), "live", &[mine])],
    )
    .await;
    assert_eq!(reply.results[0].outcome, PushOutcome::Merged, "{reply:?}");
    assert_eq!(reply.cursor, None);
    assert_eq!(
        j.changes(&ann, Some(&now), 100)
            .await
            .unwrap()
            .changes
            .len(),
        1
    );
}
on_every_backend!(a_push_moves_the_cursor_past_its_own_changes_on_every_backend);

/// A push that names one entry twice applies both, in turn; one that gives two entries
/// the same revision id writes the first and refuses the second, and says so.
async fn a_push_naming_an_entry_or_revision_twice_applies_in_turn_on_every_backend(
    backend: Backend,
) {
    println!("push twice story on {}", backend.name);
    let j = journal(backend.store.clone()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let made_here = j
        .create_entry(&ann, &entry("Here", "h", false))
        .await
        .unwrap();
    let read = j.changes(&ann, None, 100).await.unwrap().cursor;
    let base = Some(made_here.revision_id);
    let reply = push_from(
        &j,
        &ann,
        &read,
        vec![
            change(made_here.id, base, "trashed", &[]),
            change(made_here.id, base, "live", &[]),
        ],
    )
    .await;
    assert_eq!(reply.results.len(), 2);
    assert_eq!(reply.cursor, None, "applied in turn: the feed must be read");

    let (a, b) = (EntryId::generate(), EntryId::generate());
    let shared = made(a, None, "A", "a");
    let reply = push_from(
        &j,
        &ann,
        &read,
        vec![
            change(a, None, "live", std::slice::from_ref(&shared)),
            change(
                b,
                None,
                "live",
                &[Revision {
                    entry_id: b,
                    ..shared.clone()
                }],
            ),
        ],
    )
    .await;
    assert_eq!(reply.results[0].outcome, PushOutcome::Applied, "{reply:?}");
    assert_eq!(reply.results[1].outcome, PushOutcome::Refused, "{reply:?}");
    assert!(
        j.entry(&ann, &b).await.is_err(),
        "nothing of the second written"
    );
}
on_every_backend!(a_push_naming_an_entry_or_revision_twice_applies_in_turn_on_every_backend);
