//! Three replicas of one journal (a server and two laptops, each the core on its own
//! SQLite database) go through random creates, edits, deletes, tag changes and syncs in
//! random order, then all sync until quiet. Then: all three hold the same entries, no
//! entry is there twice, and every text any replica ever saved is in its entry's final
//! state or history on the server: no edit lost, whatever the order.
//!
//! The laptops sync with `journal_core::sync_client` over an in-process `SyncRemote`
//! that calls the server's `Journal` as its HTTP routes do. Bounded to
//! `PROPTEST_CASES` cases (24 unless set), a few seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use futures_util::TryStreamExt;

use journal_core::api::{
    CreateEntryRequest, PushAttachmentRequest, PushChangesRequest, UpdateEntryRequest,
};
use journal_core::domain::SyncCursor;
use journal_core::store::{Store, sqlite::SqliteStore};
use journal_core::sync_book::{SyncBook, SyncBookError, SyncLink};
use journal_core::sync_client::{self, SyncRemote};
use journal_core::{
    AttachmentId, AttachmentPlace, Caller, ChangePage, EntryId, Journal, JournalOptions,
    PageRequest, PushReply, Reader, SyncAttachment, UploadRequest,
};
use proptest::prelude::*;

/// The server, as its routes call it.
struct InProcess {
    server: Journal,
    caller: Caller,
    /// Files sent to it.
    files_sent: AtomicUsize,
}

/// A failed sync, with why (shown when the test fails).
#[derive(Debug)]
#[allow(dead_code)]
struct Failed(String);

impl From<journal_core::Error> for Failed {
    fn from(e: journal_core::Error) -> Failed {
        Failed(e.to_string())
    }
}
impl From<SyncBookError> for Failed {
    fn from(e: SyncBookError) -> Failed {
        Failed(e.to_string())
    }
}

#[async_trait::async_trait]
impl SyncRemote for InProcess {
    type Error = Failed;

    async fn pull(&self, since: Option<&str>, limit: u32) -> Result<Option<ChangePage>, Failed> {
        let since = since
            .map(|s| s.parse::<SyncCursor>())
            .transpose()
            .map_err(|e| Failed(e.to_string()))?;
        match self
            .server
            .changes(&self.caller, since.as_ref(), limit)
            .await
        {
            Err(journal_core::Error::Conflict(_)) => Ok(None),
            other => Ok(Some(other?)),
        }
    }

    async fn push(&self, changes: &PushChangesRequest) -> Result<PushReply, Failed> {
        let reply = self.server.push_changes(&self.caller, changes).await?;
        if std::env::var_os("SYNC_DEBUG").is_some() {
            for (c, r) in changes.changes.as_ref().unwrap().iter().zip(&reply.results) {
                let revs: Vec<String> = c
                    .revisions
                    .as_ref()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        format!(
                            "{}<-{:?} {:?}",
                            &r.revision_id.as_ref().unwrap()[30..],
                            r.parent_id.as_ref().map(|p| &p[30..]),
                            r.content
                        )
                    })
                    .collect();
                eprintln!(
                    "PUSH {} base {:?} {:?} revs {revs:?} => {:?} {:?}",
                    &c.id.as_ref().unwrap()[30..],
                    c.base.as_ref().map(|b| &b[30..]),
                    c.state,
                    r.outcome,
                    r.revision_id.map(|x| x.to_string()[30..].to_owned())
                );
            }
        }
        Ok(reply)
    }

    async fn missing_files(
        &self,
        files: &[PushAttachmentRequest],
    ) -> Result<Vec<AttachmentId>, Failed> {
        Ok(self.server.missing_files(&self.caller, files).await?)
    }

    async fn send_file(
        &self,
        file: &SyncAttachment,
        bytes: Bytes,
    ) -> Result<Option<String>, Failed> {
        self.files_sent.fetch_add(1, Ordering::SeqCst);
        let request = UploadRequest {
            name: Some(file.name.clone()),
            entry_id: None,
            declared_size: Some(bytes.len() as u64),
        };
        let body = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes)]);
        match self
            .server
            .receive_file(&self.caller, file.id, &request, body)
            .await
        {
            Ok(_) => Ok(None),
            Err(e @ (journal_core::Error::TooLarge(_) | journal_core::Error::Conflict(_))) => {
                Ok(Some(e.to_string()))
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn fetch_file(&self, id: &AttachmentId) -> Result<Option<Bytes>, Failed> {
        Ok(Some(read_file(&self.server, &self.caller, id).await?))
    }

    fn stopped(why: String) -> Failed {
        Failed(why)
    }
}

/// An attachment's bytes, as its author reads them.
async fn read_file(journal: &Journal, caller: &Caller, id: &AttachmentId) -> Result<Bytes, Failed> {
    let body = journal
        .attachment_body(Reader::Token(*caller.user_id()), id, false, None)
        .await?;
    let chunks: Vec<Bytes> = body
        .bytes
        .try_collect()
        .await
        .map_err(|e| Failed(e.to_string()))?;
    Ok(Bytes::from(chunks.concat()))
}

/// One replica: a journal, the caller on it, and (for a laptop) its bookkeeping.
struct Replica {
    journal: Journal,
    caller: Caller,
    book: Option<(SyncBook, SyncLink)>,
}

#[derive(Clone, Debug)]
enum Op {
    Create {
        on: usize,
    },
    Edit {
        on: usize,
        entry: usize,
        line: usize,
    },
    Delete {
        on: usize,
        entry: usize,
    },
    Undelete {
        on: usize,
    },
    Tag {
        on: usize,
        entry: usize,
        tag: usize,
    },
    Sync {
        laptop: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0..3usize).prop_map(|on| Op::Create { on }),
        5 => (0..3usize, 0..6usize, 0..4usize).prop_map(|(on, entry, line)| Op::Edit { on, entry, line }),
        1 => (0..3usize, 0..6usize).prop_map(|(on, entry)| Op::Delete { on, entry }),
        1 => (0..3usize).prop_map(|on| Op::Undelete { on }),
        1 => (0..3usize, 0..6usize, 0..3usize).prop_map(|(on, entry, tag)| Op::Tag { on, entry, tag }),
        3 => (1..3usize).prop_map(|laptop| Op::Sync { laptop }),
    ]
}

async fn live(r: &Replica) -> Vec<journal_core::Entry> {
    r.journal
        .user_entries(
            &r.caller,
            r.caller.user_id(),
            PageRequest::new(Some(1), Some(100)).unwrap(),
        )
        .await
        .unwrap()
        .items
}

async fn sync(replicas: &mut [Replica], laptop: usize, remote: &InProcess) {
    let r = &mut replicas[laptop];
    let (book, link) = r.book.as_mut().expect("a laptop");
    sync_client::sync(&r.journal, &r.caller, book, link, remote, &|_| true)
        .await
        .unwrap_or_else(|e| panic!("sync of laptop {laptop}: {e:?}"));
}

/// Options keeping attachments in a folder of their own under `dir`.
fn with_files(dir: &std::path::Path, name: &str) -> JournalOptions {
    let mut options = JournalOptions::default();
    options.attachments.place = AttachmentPlace::Folder(dir.join(format!("{name}-files")));
    options
}

/// A server with one account, and two laptops each with a journal of its own owner,
/// linked to that account and never synced.
async fn replicas(dir: &std::path::Path) -> (Vec<Replica>, InProcess, Arc<dyn Store>) {
    replicas_with(dir, with_files(dir, "server")).await
}

/// [`replicas`] with the server's options.
async fn replicas_with(
    dir: &std::path::Path,
    server_options: JournalOptions,
) -> (Vec<Replica>, InProcess, Arc<dyn Store>) {
    let server_store: Arc<dyn Store> = Arc::new(SqliteStore::open(":memory:").await.unwrap());
    let server = Journal::with_store(server_store.clone(), server_options)
        .await
        .unwrap();
    let id = server
        .find_or_register_local_owner("Ada", "ada", "ada@example.com")
        .await
        .unwrap();
    let account = server.local_caller(&id).await.unwrap();
    let remote = InProcess {
        server: server.clone(),
        caller: account.clone(),
        files_sent: AtomicUsize::new(0),
    };
    let mut replicas = vec![Replica {
        journal: server,
        caller: account.clone(),
        book: None,
    }];
    for n in 1..3 {
        let journal = Journal::with_store(
            Arc::new(SqliteStore::open(":memory:").await.unwrap()),
            with_files(dir, &format!("laptop{n}")),
        )
        .await
        .unwrap();
        let owner = journal
            .find_or_register_local_owner("Ada", "ada", "ada@localhost")
            .await
            .unwrap();
        let caller = journal.local_caller(&owner).await.unwrap();
        let book = SyncBook::open(&dir.join(format!("laptop{n}.sync"))).unwrap();
        let link = SyncLink {
            remote: "in-process".into(),
            account_id: *account.user_id(),
            pulled: None,
            pushed: None,
            last_sync: None,
        };
        replicas.push(Replica {
            journal,
            caller,
            book: Some((book, link)),
        });
    }
    (replicas, remote, server_store)
}

async fn run(ops: Vec<Op>) {
    let dir = tempfile::tempdir().unwrap();
    let (mut replicas, remote, server_store) = replicas(dir.path()).await;

    // Every text saved anywhere, by entry id.
    let mut saved: BTreeMap<EntryId, BTreeSet<String>> = BTreeMap::new();
    let mut created = 0;
    for op in ops {
        match op {
            Op::Create { on } => {
                created += 1;
                let r = &replicas[on];
                let content = "line a\nline b\nline c\nline d\n".to_owned();
                let made = r
                    .journal
                    .create_entry(
                        &r.caller,
                        &CreateEntryRequest {
                            title: Some(format!("Entry {created}")),
                            content: Some(content.clone()),
                            ..Default::default()
                        },
                    )
                    .await
                    .unwrap();
                saved.entry(made.id).or_default().insert(content);
            }
            Op::Edit { on, entry, line } => {
                let r = &replicas[on];
                let entries = live(r).await;
                let Some(e) = entries.get(entry % entries.len().max(1)) else {
                    continue;
                };
                let mut lines: Vec<String> = e.content.lines().map(str::to_owned).collect();
                if lines.is_empty() {
                    lines.push(String::new());
                }
                let at = line % lines.len();
                lines[at] = format!("{} / edited on {on}", lines[at]);
                let content = lines.join("\n") + "\n";
                let changes = UpdateEntryRequest {
                    content: Some(content.clone()),
                    ..Default::default()
                };
                r.journal
                    .update_entry(&r.caller, &e.id, &changes)
                    .await
                    .unwrap();
                saved.entry(e.id).or_default().insert(content);
            }
            Op::Delete { on, entry } => {
                let r = &replicas[on];
                let entries = live(r).await;
                if let Some(e) = entries.get(entry % entries.len().max(1)) {
                    r.journal.delete_entry(&r.caller, &e.id).await.unwrap();
                }
            }
            Op::Undelete { on } => {
                let r = &replicas[on];
                let trash = r
                    .journal
                    .trash(&r.caller, PageRequest::default())
                    .await
                    .unwrap();
                if let Some(t) = trash.items.first() {
                    r.journal.untrash(&r.caller, &t.entry.id).await.unwrap();
                }
            }
            Op::Tag { on, entry, tag } => {
                let r = &replicas[on];
                let entries = live(r).await;
                if let Some(e) = entries.get(entry % entries.len().max(1)) {
                    let mut tags = e.tags.clone();
                    let name = ["red", "green", "blue"][tag].to_owned();
                    if tags.contains(&name) {
                        tags.retain(|t| *t != name);
                    } else {
                        tags.push(name);
                    }
                    let changes = UpdateEntryRequest {
                        tags: Some(tags),
                        ..Default::default()
                    };
                    r.journal
                        .update_entry(&r.caller, &e.id, &changes)
                        .await
                        .unwrap();
                }
            }
            Op::Sync { laptop } => {
                if std::env::var_os("SYNC_DEBUG").is_some() {
                    eprintln!("-- sync laptop {laptop}");
                }
                sync(&mut replicas, laptop, &remote).await
            }
        }
    }
    // Until quiet: each laptop brings the other's changes through the server.
    for _ in 0..3 {
        sync(&mut replicas, 1, &remote).await;
        sync(&mut replicas, 2, &remote).await;
    }

    let shape =
        |entries: Vec<journal_core::Entry>| -> BTreeMap<EntryId, (String, String, Vec<String>)> {
            entries
                .into_iter()
                .map(|e| (e.id, (e.title, e.content, e.tags)))
                .collect()
        };
    let on_server = shape(live(&replicas[0]).await);
    for (laptop, replica) in replicas.iter().enumerate().skip(1) {
        assert_eq!(
            shape(live(replica).await),
            on_server,
            "laptop {laptop} holds what the server holds"
        );
    }
    let titles: Vec<&String> = on_server.values().map(|(t, _, _)| t).collect();
    let unique: BTreeSet<&String> = titles.iter().copied().collect();
    assert_eq!(titles.len(), unique.len(), "no entry twice: {titles:?}");
    for (id, texts) in saved {
        let mut kept: BTreeSet<String> = BTreeSet::new();
        let mut page = 1;
        loop {
            let revisions = server_store
                .revisions(&id, PageRequest::new(Some(page), Some(20)).unwrap())
                .await
                .unwrap();
            kept.extend(revisions.items.iter().map(|r| r.content.clone()));
            if revisions.items.len() < 20 {
                break;
            }
            page += 1;
        }
        for text in texts {
            assert!(
                kept.contains(&text),
                "entry {id} lost the text {text:?}; it has {kept:?}"
            );
        }
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn three_replicas_end_alike_and_lose_no_edit(ops in proptest::collection::vec(op(), 1..40)) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(run(ops));
    }
}

/// The first case the property found: a laptop that edited and then deleted an entry
/// the other laptop and the server had edited meanwhile.
#[test]
fn an_edit_then_delete_on_a_laptop_after_edits_elsewhere_ends_alike() {
    use Op::*;
    let ops = vec![
        Create { on: 0 },
        Sync { laptop: 1 },
        Sync { laptop: 2 },
        Edit {
            on: 2,
            entry: 0,
            line: 2,
        },
        Sync { laptop: 2 },
        Create { on: 0 },
        Create { on: 0 },
        Edit {
            on: 1,
            entry: 0,
            line: 1,
        },
        Create { on: 0 },
        Edit {
            on: 2,
            entry: 0,
            line: 0,
        },
        Sync { laptop: 1 },
        Create { on: 0 },
        Delete { on: 2, entry: 0 },
        Create { on: 0 },
        Create { on: 0 },
        Create { on: 0 },
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(ops));
}

/// Uploads `bytes` as a text file attached to `entry`.
/// A new entry on replica `r`.
async fn write(r: &Replica, title: &str, content: &str) -> journal_core::Entry {
    r.journal
        .create_entry(
            &r.caller,
            &CreateEntryRequest {
                title: Some(title.into()),
                content: Some(content.into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
}

async fn attach(r: &Replica, entry: EntryId, name: &str, bytes: &'static [u8]) -> AttachmentId {
    let request = UploadRequest {
        name: Some(name.into()),
        entry_id: Some(entry),
        declared_size: Some(bytes.len() as u64),
    };
    let body = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(bytes))]);
    r.journal
        .upload_attachment(&r.caller, &request, body)
        .await
        .unwrap()
        .id
}

async fn attachment_ids(r: &Replica, entry: &EntryId) -> BTreeSet<AttachmentId> {
    r.journal
        .entry_attachments(&r.caller, entry)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect()
}

/// Attachments travel with their entries, keeping their ids; a file goes to the server
/// once whatever the number of attachments that show it; a deletion on one laptop
/// reaches the other; and once all agree, a sync sends and receives nothing.
#[test]
fn attachments_travel_once_by_their_bytes_and_deletions_follow() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (mut replicas, remote, _) = replicas(dir.path()).await;
        let note: &'static [u8] = b"the receipt from the harbour cafe\n";
        let a = &replicas[1];
        let first = write(a, "Harbour", "Coffee by the water.").await;
        let receipt = attach(a, first.id, "receipt.txt", note).await;
        sync(&mut replicas, 1, &remote).await;
        let server = &replicas[0];
        assert_eq!(
            attachment_ids(server, &first.id).await,
            BTreeSet::from([receipt]),
            "the server has the attachment, under its id"
        );
        assert_eq!(
            read_file(&server.journal, &server.caller, &receipt)
                .await
                .unwrap(),
            Bytes::from_static(note)
        );
        assert_eq!(remote.files_sent.load(Ordering::SeqCst), 1);

        // The same bytes attached to a second entry: the server has them already.
        let a = &replicas[1];
        let second = write(a, "Expenses", "The same receipt.").await;
        let copy = attach(a, second.id, "copy.txt", note).await;
        sync(&mut replicas, 1, &remote).await;
        assert_eq!(
            remote.files_sent.load(Ordering::SeqCst),
            1,
            "a file the server has is not sent again"
        );
        assert_eq!(
            attachment_ids(&replicas[0], &second.id).await,
            BTreeSet::from([copy])
        );

        // The other laptop gets both, and deletes one.
        sync(&mut replicas, 2, &remote).await;
        let b = &replicas[2];
        assert_eq!(
            attachment_ids(b, &first.id).await,
            BTreeSet::from([receipt])
        );
        assert_eq!(attachment_ids(b, &second.id).await, BTreeSet::from([copy]));
        assert_eq!(
            read_file(&b.journal, &b.caller, &copy).await.unwrap(),
            Bytes::from_static(note)
        );
        b.journal
            .delete_attachment(&b.caller, &receipt)
            .await
            .unwrap();
        sync(&mut replicas, 2, &remote).await;
        assert!(attachment_ids(&replicas[0], &first.id).await.is_empty());
        sync(&mut replicas, 1, &remote).await;
        assert!(
            attachment_ids(&replicas[1], &first.id).await.is_empty(),
            "the deletion reached the first laptop"
        );
        assert_eq!(
            attachment_ids(&replicas[1], &second.id).await,
            BTreeSet::from([copy])
        );

        // All agree: nothing more to send or receive.
        for laptop in [1, 2, 1, 2] {
            let r = &mut replicas[laptop];
            let (book, link) = r.book.as_mut().unwrap();
            let report = sync_client::sync(&r.journal, &r.caller, book, link, &remote, &|_| true)
                .await
                .unwrap_or_else(|e| panic!("sync of laptop {laptop}: {e:?}"));
            assert_eq!(
                (report.sent, report.received),
                (0, 0),
                "laptop {laptop} had nothing to exchange: {report:?}"
            );
        }
    });
}

/// A file the server will not take (past its --max-attachment): the entry's refusal
/// is reported, the sync goes on (the other laptop's entries still come), every sync
/// tries the entry again, and once the file is detached the entry settles.
#[test]
fn a_file_the_server_refuses_is_reported_and_tried_again_until_it_fits() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let mut options = with_files(dir.path(), "server");
        options.attachments.max_size = 64;
        let (mut replicas, remote, _) = replicas_with(dir.path(), options).await;
        let big: &'static [u8] =
            b"a note longer than the sixty-four bytes this server takes from anyone\n";
        let a = &replicas[1];
        let entry = write(a, "Long note", "See the file.").await;
        let file = attach(a, entry.id, "long.txt", big).await;
        let b = &replicas[2];
        b.journal
            .create_entry(
                &b.caller,
                &CreateEntryRequest {
                    title: Some("From the other laptop".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        sync(&mut replicas, 2, &remote).await;
        for round in 0..2 {
            let r = &mut replicas[1];
            let (book, link) = r.book.as_mut().unwrap();
            let report = sync_client::sync(&r.journal, &r.caller, book, link, &remote, &|_| true)
                .await
                .unwrap_or_else(|e| panic!("sync {round}: {e:?}"));
            assert!(
                report
                    .refused
                    .iter()
                    .any(|(id, why)| *id == entry.id && why.contains("long.txt")),
                "sync {round} reports the refused file: {report:?}"
            );
            assert_eq!(
                live(&replicas[1]).await.len(),
                2,
                "the other laptop's entry came"
            );
            assert!(attachment_ids(&replicas[0], &entry.id).await.is_empty());
        }
        // Detached here: the entry settles, and nothing is refused any more.
        let a = &replicas[1];
        a.journal.delete_attachment(&a.caller, &file).await.unwrap();
        let r = &mut replicas[1];
        let (book, link) = r.book.as_mut().unwrap();
        let report = sync_client::sync(&r.journal, &r.caller, book, link, &remote, &|_| true)
            .await
            .unwrap();
        assert!(report.refused.is_empty(), "{report:?}");
        let report = sync_client::sync(&r.journal, &r.caller, book, link, &remote, &|_| true)
            .await
            .unwrap();
        assert_eq!((report.sent, report.received), (0, 0), "{report:?}");
        assert!(report.refused.is_empty(), "{report:?}");
    });
}
