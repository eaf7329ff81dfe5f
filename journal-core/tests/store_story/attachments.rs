//! Attachments, told once for every backend: a file streams into the folder and its
//! row names it; the same bytes are stored once per person; a file lives as long as
//! its entry (in the trash too) and as long as a kept revision may name it; and after
//! the entries go and the collection runs, no file is left in the folder.

use std::time::Duration;

use bytes::Bytes;
use journal_core::UploadRequest;
use journal_core::api::UpdateEntryRequest;
use journal_core::{
    AttachmentOptions, AttachmentPlace, Error, Journal, JournalOptions, PageRequest, Reader,
};

use super::common::{Backend, entry, on_every_backend, user};

fn chunks(text: &str) -> impl futures_util::Stream<Item = std::io::Result<Bytes>> + Unpin + Send {
    // In pieces, as a request body arrives.
    let parts: Vec<std::io::Result<Bytes>> = text
        .as_bytes()
        .chunks(1000)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    futures_util::stream::iter(parts)
}

fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            found.extend(files_in(&path));
        } else {
            found.push(path.display().to_string());
        }
    }
    found
}

/// A journal on the backend keeping its files in `dir/files`.
async fn with_files(backend: &Backend, dir: &std::path::Path) -> Journal {
    let options = JournalOptions {
        attachments: AttachmentOptions {
            place: AttachmentPlace::Folder(dir.join("files")),
            ..AttachmentOptions::default()
        },
        ..JournalOptions::default()
    };
    Journal::with_store(backend.store.clone(), options)
        .await
        .unwrap()
}

async fn attachments_hold_on_every_backend(backend: Backend) {
    println!("attachments story on {}", backend.name);
    let dir = tempfile::tempdir().unwrap();
    let j = with_files(&backend, dir.path()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let (bob, _) = user(&j, "bob@example.com", "bob").await;
    let kept = j
        .create_entry(&ann, &entry("Kept", "k", false))
        .await
        .unwrap();
    let binned = j
        .create_entry(&ann, &entry("Binned", "b", true))
        .await
        .unwrap();

    let text = "A line of notes.\n".repeat(500);
    let request = |entry| UploadRequest {
        name: Some("notes.txt".into()),
        entry_id: Some(entry),
        declared_size: None,
    };
    let first = j
        .upload_attachment(&ann, &request(kept.id), chunks(&text))
        .await
        .unwrap();
    assert_eq!(first.size, text.len() as u64);
    assert_eq!(first.content_type, "text/plain; charset=utf-8");
    // Apart by a few milliseconds, so that newest first has one answer.
    tokio::time::sleep(Duration::from_millis(5)).await;
    // The same bytes again, for another entry: another row, the same file.
    let again = j
        .upload_attachment(&ann, &request(binned.id), chunks(&text))
        .await
        .unwrap();
    assert_eq!(again.sha256, first.sha256);
    assert_ne!(again.id, first.id);
    // Bob's copy of the same bytes is his own file.
    let bobs_entry = j
        .create_entry(&bob, &entry("Bob's", "b", false))
        .await
        .unwrap();
    let none = j
        .attachments_of_entries(std::slice::from_ref(&bobs_entry))
        .await
        .unwrap();
    assert_eq!(none, [Vec::new()], "an entry without attachments has none");
    let bobs = j
        .upload_attachment(&bob, &request(bobs_entry.id), chunks(&text))
        .await
        .unwrap();

    // A page's attachments in one read, in the entries' order, each with whether anyone
    // may read it by its plain link.
    let of = j
        .attachments_of_entries(&[binned.clone(), kept.clone(), bobs_entry.clone()])
        .await
        .unwrap();
    let ids = |list: &[journal_core::store::StoredAttachment]| {
        list.iter().map(|s| s.attachment.id).collect::<Vec<_>>()
    };
    assert_eq!(of.len(), 3);
    assert_eq!(ids(&of[0]), [again.id]);
    assert_eq!(ids(&of[1]), [first.id]);
    assert_eq!(ids(&of[2]), [bobs.id]);
    assert!(of[0][0].readable_by_anyone(), "a public entry's");
    assert!(!of[1][0].readable_by_anyone(), "a private entry's");
    // Ann's own, newest first, by page; the same bytes take their space once.
    let page = j
        .my_attachments(&ann, PageRequest::new(Some(1), Some(1)).unwrap())
        .await
        .unwrap();
    assert_eq!((page.total, ids(&page.items)), (2, vec![again.id]));
    let page = j
        .my_attachments(&ann, PageRequest::new(Some(2), Some(1)).unwrap())
        .await
        .unwrap();
    assert_eq!(ids(&page.items), [first.id]);
    let usage = j.attachment_usage(&ann).await.unwrap();
    assert_eq!((usage.used, usage.quota), (text.len() as u64, None));
    assert_eq!(
        files_in(&dir.path().join("files")).len(),
        2,
        "one file per person"
    );

    // Reading follows the entry: Ann's private file is Bob's 404; her public one is
    // anyone's until the entry goes.
    assert!(matches!(
        j.attachment(Reader::Token(*bob.user_id()), &first.id).await,
        Err(Error::NotFound { .. })
    ));
    assert!(j.attachment(Reader::Anonymous, &again.id).await.is_ok());
    let body = j
        .attachment_body(Reader::Token(*ann.user_id()), &first.id, false, Some(0..6))
        .await
        .unwrap();
    assert_eq!(body.total, text.len() as u64);

    // A file deleted after a revision that may name it stays until that revision goes.
    j.update_entry(
        &ann,
        &kept.id,
        &UpdateEntryRequest {
            content: Some(format!("![n](attachment:{})", first.id)),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    j.delete_attachment(&ann, &first.id).await.unwrap();
    assert!(
        j.entry_attachments(&ann, &kept.id)
            .await
            .unwrap()
            .is_empty()
    );
    // Gone for every reader at once, its row kept for the collection.
    assert!(matches!(
        j.attachment(Reader::Token(*ann.user_id()), &first.id).await,
        Err(Error::NotFound { .. })
    ));
    let spared = j.collect_attachments(Duration::ZERO).await.unwrap();
    assert_eq!(spared.rows, 0, "a revision may name it");

    // The entries go, through the trash; then nothing of Ann's is left.
    j.delete_entry(&ann, &binned.id).await.unwrap();
    j.collect_attachments(Duration::ZERO).await.unwrap();
    assert!(
        j.attachment(Reader::Token(*ann.user_id()), &again.id)
            .await
            .is_ok(),
        "kept in the trash"
    );
    assert!(matches!(
        j.attachment(Reader::Anonymous, &again.id).await,
        Err(Error::NotFound { .. })
    ));
    j.delete_entry(&ann, &kept.id).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(j.purge_expired_trash(Duration::ZERO).await.unwrap(), 2);
    let collected = j.collect_attachments(Duration::ZERO).await.unwrap();
    assert_eq!(collected.rows, 2, "{collected:?}");
    assert_eq!(collected.objects, 1);
    let left = files_in(&dir.path().join("files"));
    assert_eq!(left.len(), 1, "only Bob's file: {left:?}");
    assert!(left[0].contains(&bob.user_id().to_string()));
    assert!(
        j.attachment(Reader::Token(*bob.user_id()), &bobs.id)
            .await
            .is_ok()
    );

    // Deleting Bob's account leaves no file behind either.
    assert!(backend.store.delete_user(bob.user_id()).await.unwrap());
    j.collect_attachments(Duration::ZERO).await.unwrap();
    assert!(files_in(&dir.path().join("files")).is_empty());
}
on_every_backend!(attachments_hold_on_every_backend);

/// An upload never attached can be taken back at once (an archive whose entries were
/// refused after its files were stored); an attached one cannot.
async fn an_unattached_upload_is_discarded_and_an_attached_one_is_not(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let j = with_files(&backend, dir.path()).await;
    let (ann, _) = user(&j, "ann@example.com", "ann").await;
    let kept = j
        .create_entry(&ann, &entry("Kept", "k", false))
        .await
        .unwrap();
    let upload = |entry_id| UploadRequest {
        name: Some("notes.txt".into()),
        entry_id,
        declared_size: None,
    };
    let loose = j
        .upload_attachment(&ann, &upload(None), chunks("loose notes"))
        .await
        .unwrap();
    let attached = j
        .upload_attachment(&ann, &upload(Some(kept.id)), chunks("attached notes"))
        .await
        .unwrap();
    let store = backend.store.clone();
    assert!(!store.discard_upload(&attached.id).await.unwrap());
    assert!(store.discard_upload(&loose.id).await.unwrap());
    assert!(store.attachment(&loose.id).await.unwrap().is_none());
    assert!(store.attachment(&attached.id).await.unwrap().is_some());
    let usage = j.attachment_usage(&ann).await.unwrap();
    assert_eq!(usage.used, "attached notes".len() as u64);
    assert!(!store.discard_upload(&loose.id).await.unwrap(), "once");
}
on_every_backend!(an_unattached_upload_is_discarded_and_an_attached_one_is_not);
