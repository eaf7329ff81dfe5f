//! The replica's side of sync (`journal sync`, docs/design/sync.md), for any program
//! that links the core: one sync sends the local changes the other side lacks, then
//! applies the other side's changes here with the same rules the server uses
//! ([`Journal::apply_pulled`]), then sends back what it had to merge. The other side
//! is a [`SyncRemote`]: the CLI's speaks HTTP to a server; a test's can be another
//! journal in the same process. The bookkeeping is a [`SyncBook`]. Every step is
//! idempotent (revisions are known by their ids), so a sync killed anywhere is
//! finished by the next one.

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::TryStreamExt;
use sha2::{Digest, Sha256};

use crate::api::{PushAttachmentRequest, PushChangeRequest, PushChangesRequest};
use crate::domain::SyncCursor;
use crate::model::{
    ChangePage, ChangeState, EntryChange, PushOutcome, PushReply, PushResult, SyncAttachment,
};
use crate::sync_book::{Agreed, SyncBook, SyncBookError, SyncLink};
use crate::{AttachmentId, Caller, EntryId, Journal, Reader, RevisionId, Timestamp};

/// The other side of a sync: a server's change feed and push.
#[async_trait]
pub trait SyncRemote: Send + Sync {
    /// Why the other side failed, or the sync stopped: local errors convert into it.
    type Error: From<crate::Error> + From<SyncBookError> + Send;

    /// One page of the account's changes after `since` (`GET /api/sync/changes`);
    /// `None` when the cursor is of another database or ahead of it (`409`): the sync
    /// then starts over from the beginning.
    async fn pull(
        &self,
        since: Option<&str>,
        limit: u32,
    ) -> Result<Option<ChangePage>, Self::Error>;

    /// Applies a replica's changes (`POST /api/sync/changes`).
    async fn push(&self, changes: &PushChangesRequest) -> Result<PushReply, Self::Error>;

    /// Which of these attachments' files the other side lacks
    /// (`POST /api/sync/files/missing`).
    async fn missing_files(
        &self,
        files: &[PushAttachmentRequest],
    ) -> Result<Vec<AttachmentId>, Self::Error>;

    /// Sends the file of one attachment (`PUT /api/sync/files/{id}`); `Some(why)` when
    /// the other side refuses this file (its type, its size, the account's space, an
    /// id of another account's): the changes that list it are refused, and the sync
    /// goes on.
    async fn send_file(
        &self,
        file: &SyncAttachment,
        bytes: Bytes,
    ) -> Result<Option<String>, Self::Error>;

    /// The file of one of the account's attachments (`GET /api/attachments/{id}`);
    /// `None` when the other side no longer has it.
    async fn fetch_file(&self, id: &AttachmentId) -> Result<Option<Bytes>, Self::Error>;

    /// The error of a sync stopped before deleting many entries, with why.
    fn stopped(why: String) -> Self::Error;
}

/// What a sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Local changes the other side took.
    pub sent: u64,
    /// The other side's changes applied here.
    pub received: u64,
    /// Changes merged with the other side's.
    pub merged: u64,
    /// Entries whose texts clashed: each kept one side's, the other's is in its history.
    pub conflicts: Vec<(EntryId, String)>,
    /// Deletions that did not happen because the other side edited the entry.
    pub kept: Vec<(EntryId, String)>,
    /// Changes the other side refused, with why.
    pub refused: Vec<(EntryId, String)>,
}

/// Deletions one sync applies without asking: past a fifth of the journal or 50
/// entries it stops and asks (a server restored from the wrong backup, a journal
/// emptied by mistake); fewer than [`DELETIONS_ALWAYS`] never ask, or deleting one of a
/// new journal's three entries elsewhere would stop every sync.
pub const DELETIONS_UNASKED: u64 = 50;
/// Deletions that never ask.
pub const DELETIONS_ALWAYS: u64 = 5;

/// Most changes, revisions and bytes of text in one push (the server's bounds: 100
/// changes, 1,000 revisions, and its body limit).
const PUSH_CHANGES: usize = 1_000;
const PUSH_REVISIONS: usize = 5_000;
const PUSH_BYTES: usize = 8 << 20;

/// A fingerprint of an entry's attachments as both sides see them: which are attached
/// (a deleted one is not). 0 for none, so an entry without attachments costs nothing
/// in the bookkeeping.
fn files_of(change: &EntryChange) -> u32 {
    let mut live: Vec<&AttachmentId> = change
        .attachments
        .iter()
        .filter(|a| a.deleted_at.is_none())
        .map(|a| &a.id)
        .collect();
    if live.is_empty() {
        return 0;
    }
    live.sort();
    let mut hash = Sha256::new();
    for id in live {
        hash.update(id.as_uuid().as_bytes());
    }
    let digest = hash.finalize();
    u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]).max(1)
}

fn state_of(change: &EntryChange) -> (&'static str, Option<RevisionId>) {
    match &change.state {
        ChangeState::Live { entry } => ("live", Some(entry.revision_id)),
        ChangeState::Trashed { entry, .. } => ("trashed", Some(entry.revision_id)),
        ChangeState::Purged { .. } => ("purged", None),
    }
}

/// One sync of `journal` (as `caller`) with `remote`, over `link`: see the module.
/// `confirm` is asked before deletions past [`DELETIONS_UNASKED`].
pub async fn sync<R: SyncRemote>(
    journal: &Journal,
    caller: &Caller,
    book: &mut SyncBook,
    link: &mut SyncLink,
    remote: &R,
    confirm: &dyn Fn(&str) -> bool,
) -> Result<SyncReport, R::Error> {
    let mut report = SyncReport::default();
    push(journal, caller, remote, book, link, &mut report, confirm).await?;
    let pulled = pull(journal, caller, remote, book, link, &mut report, confirm).await?;
    let merged_here = match pulled {
        Some(merged_here) => merged_here,
        None => {
            // The other side is another database, or one restored from an older
            // backup: what both agreed on may be gone there. Everything is sent again
            // (the other side keeps what it has, by revision ids) and read again.
            book.forget_agreed()?;
            link.pushed = None;
            link.pulled = None;
            book.set_link(link)?;
            push(journal, caller, remote, book, link, &mut report, confirm).await?;
            pull(journal, caller, remote, book, link, &mut report, confirm)
                .await?
                .unwrap_or(false)
        }
    };
    if merged_here {
        // What this side merged goes back, so both sides end alike.
        push(journal, caller, remote, book, link, &mut report, confirm).await?;
    }
    link.last_sync = Some(Timestamp::now());
    book.set_link(link)?;
    Ok(report)
}

/// How many local changes wait to be sent.
pub async fn pending(
    journal: &Journal,
    caller: &Caller,
    book: &SyncBook,
    link: &SyncLink,
) -> Result<u64, crate::Error> {
    let mut cursor = pushed_cursor(link);
    let mut pending = 0;
    loop {
        let page = local_page(journal, caller, &mut cursor).await?;
        let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
        let agreed = book
            .agreed(&ids)
            .map_err(|e| crate::Error::Internal(Box::new(e)))?;
        pending += page
            .changes
            .iter()
            .filter(|c| needs_sending(c, agreed.get(&c.id)))
            .count() as u64;
        cursor = Some(page.cursor);
        if !page.more {
            return Ok(pending);
        }
    }
}

/// Where this replica is in its own journal's feed.
fn pushed_cursor(link: &SyncLink) -> Option<SyncCursor> {
    link.pushed.as_deref().and_then(|c| c.parse().ok())
}

/// The page of the local journal's feed after `cursor`. A cursor of another database
/// (the local file was replaced) starts from the beginning: everything is sent again,
/// and the other side knows what it has.
async fn local_page(
    journal: &Journal,
    caller: &Caller,
    cursor: &mut Option<SyncCursor>,
) -> Result<ChangePage, crate::Error> {
    match journal.changes(caller, cursor.as_ref(), 100).await {
        Err(crate::Error::Conflict(_)) if cursor.is_some() => {
            *cursor = None;
            journal.changes(caller, None, 100).await
        }
        other => other,
    }
}

/// Whether deleting `count` of a journal's `size` entries in one sync asks first.
fn asks_first(count: u64, size: u64) -> bool {
    count >= DELETIONS_ALWAYS && (count > DELETIONS_UNASKED || count * 5 > size)
}

fn entries(n: u64) -> &'static str {
    if n == 1 { "entry" } else { "entries" }
}

/// The local journal's feed, a page at a time: while a batch is on its way to the other
/// side, the next pages are read, so the replica's reading and the server's writing
/// overlap.
struct Pages {
    /// Where the next page starts.
    cursor: Option<SyncCursor>,
    /// Whether the feed's end was read.
    done: bool,
    /// Pages read ahead, in order.
    ahead: std::collections::VecDeque<ChangePage>,
}

/// Pages read ahead at most: a batch's worth.
const PAGES_AHEAD: usize = PUSH_CHANGES / 100;

impl Pages {
    async fn next(
        &mut self,
        journal: &Journal,
        caller: &Caller,
    ) -> Result<Option<ChangePage>, crate::Error> {
        match self.ahead.pop_front() {
            Some(page) => Ok(Some(page)),
            None => self.read(journal, caller).await,
        }
    }

    async fn read(
        &mut self,
        journal: &Journal,
        caller: &Caller,
    ) -> Result<Option<ChangePage>, crate::Error> {
        if self.done {
            return Ok(None);
        }
        let page = local_page(journal, caller, &mut self.cursor).await?;
        self.cursor = Some(page.cursor.clone());
        self.done = !page.more;
        Ok(Some(page))
    }

    /// Reads pages ahead, up to a batch's worth of changes or of text.
    async fn read_ahead(&mut self, journal: &Journal, caller: &Caller) -> Result<(), crate::Error> {
        let text = |p: &ChangePage| p.changes.iter().map(change_text_bytes).sum::<usize>();
        while self.ahead.len() < PAGES_AHEAD
            && self.ahead.iter().map(text).sum::<usize>() < PUSH_BYTES
        {
            match self.read(journal, caller).await? {
                Some(page) => self.ahead.push_back(page),
                None => break,
            }
        }
        Ok(())
    }
}

/// Changes on their way to the other side, sent a batch at a time within its bounds,
/// each batch after the files of its attachments the other side lacks.
struct Outbox<'a> {
    journal: &'a Journal,
    caller: &'a Caller,
    /// The local feed, read ahead while a batch is sent.
    pages: Pages,
    batch: Vec<(PushChangeRequest, Option<Agreed>)>,
    revisions: usize,
    bytes: usize,
    files: usize,
    /// The local cursor every change before which is in the outbox or sent (where a
    /// page ended with no deletion held back).
    safe: Option<SyncCursor>,
    /// The local cursor every change before which is sent: where the next sync may
    /// start.
    sent: Option<SyncCursor>,
    /// The pulled cursor, sent with each batch; moved past a batch the server says was
    /// the only change since (it need not be read back).
    pulled: Option<String>,
    /// Entries listing attachments whose change the other side refused: marked to be
    /// sent again by the next sync, once this one has read the local feed to its end.
    again: Vec<EntryId>,
}

impl Outbox<'_> {
    /// Adds `change` (made from `known`), sending what waits first if it would not fit.
    async fn add<R: SyncRemote>(
        &mut self,
        remote: &R,
        book: &mut SyncBook,
        report: &mut SyncReport,
        change: &EntryChange,
        known: Option<&Agreed>,
    ) -> Result<(), R::Error> {
        let size = change_text_bytes(change);
        let count = change.revisions.len();
        let listed = change.attachments.len();
        if !self.batch.is_empty()
            && (self.batch.len() >= PUSH_CHANGES
                || self.revisions + count > PUSH_REVISIONS
                || self.files + listed > crate::SYNC_FILES_MAX
                || self.bytes + size > PUSH_BYTES)
        {
            self.flush(remote, book, report).await?;
        }
        let (state, revision) = state_of(change);
        let files = files_of(change);
        let after = revision.map(|revision| Agreed {
            revision,
            state,
            files,
        });
        self.batch.push((push_request(change, known), after));
        self.revisions += count;
        self.files += listed;
        self.bytes += size;
        Ok(())
    }

    /// Sends what waits, reading the next local pages meanwhile.
    async fn flush<R: SyncRemote>(
        &mut self,
        remote: &R,
        book: &mut SyncBook,
        report: &mut SyncReport,
    ) -> Result<(), R::Error> {
        let batch = std::mem::take(&mut self.batch);
        (self.revisions, self.bytes, self.files) = (0, 0, 0);
        if batch.is_empty() {
            return Ok(());
        }
        let refused_before = report.refused.len();
        send_files(self.journal, self.caller, remote, &batch, report).await?;
        let (journal, caller) = (self.journal, self.caller);
        let with_files: Vec<EntryId> = batch
            .iter()
            .filter(|(c, _)| c.attachments.as_ref().is_some_and(|a| !a.is_empty()))
            .filter_map(|(c, _)| c.id.as_deref().and_then(|id| id.parse().ok()))
            .collect();
        let (sent, ahead) = futures_util::future::join(
            send_batch(remote, book, batch, self.pulled.clone(), report),
            self.pages.read_ahead(journal, caller),
        )
        .await;
        self.again.extend(
            report.refused[refused_before..]
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| with_files.contains(id)),
        );
        if let Some(cursor) = sent? {
            self.pulled = Some(cursor);
        }
        ahead?;
        self.sent.clone_from(&self.safe);
        Ok(())
    }
}

/// Sends the local changes after the pushed cursor. Deletions of entries both sides
/// had wait to the end, and past [`DELETIONS_UNASKED`] ask first; the cursor moves past
/// a page only once nothing of it is held back, so a sync stopped (or killed) reads
/// them again.
async fn push<R: SyncRemote>(
    journal: &Journal,
    caller: &Caller,
    remote: &R,
    book: &mut SyncBook,
    link: &mut SyncLink,
    report: &mut SyncReport,
    confirm: &dyn Fn(&str) -> bool,
) -> Result<(), R::Error> {
    let mut cursor = pushed_cursor(link);
    let mut outbox = Outbox {
        journal,
        caller,
        pages: Pages {
            cursor: cursor.clone(),
            done: false,
            ahead: Default::default(),
        },
        batch: Vec::new(),
        revisions: 0,
        bytes: 0,
        files: 0,
        safe: cursor.clone(),
        sent: cursor.clone(),
        pulled: link.pulled.clone(),
        again: Vec::new(),
    };
    let mut deletions: Vec<(EntryChange, Agreed)> = Vec::new();
    while let Some(page) = outbox.pages.next(journal, caller).await? {
        let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
        let agreed = book.agreed(&ids)?;
        for change in page.changes {
            // A later change of an entry replaces a deletion held back for it.
            deletions.retain(|(d, _)| d.id != change.id);
            let known = agreed.get(&change.id).copied();
            if !needs_sending(&change, known.as_ref()) {
                continue;
            }
            match known {
                Some(k) if k.state == "live" && state_of(&change).0 != "live" => {
                    deletions.push((change, k));
                }
                _ => {
                    outbox
                        .add(remote, book, report, &change, known.as_ref())
                        .await?
                }
            }
        }
        cursor = Some(page.cursor);
        if deletions.is_empty() {
            // Nothing held back: what the page brought goes with the next batch, and
            // once that is sent a sync killed after it starts from this page's end.
            outbox.safe.clone_from(&cursor);
            if outbox.batch.is_empty() {
                outbox.sent.clone_from(&cursor);
            }
        }
        let sent = outbox.sent.as_ref().map(|c| c.to_string());
        if sent != link.pushed {
            link.pushed = sent;
            link.pulled.clone_from(&outbox.pulled);
            book.set_link(link)?;
        }
    }
    outbox.flush(remote, book, report).await?;
    if !deletions.is_empty() {
        let count = deletions.len() as u64;
        let size = count
            + journal
                .user_entries(caller, caller.user_id(), crate::PageRequest::default())
                .await?
                .total;
        if asks_first(count, size)
            && !confirm(&format!(
                "this journal deleted {count} of its {size} {} since the last sync; delete \
                 them on {remote} too?",
                entries(size),
                remote = link.remote
            ))
        {
            return Err(R::stopped(format!(
                "stopped before deleting {count} {} on {}; nothing was deleted there \
                 (journal sync --yes deletes them)",
                entries(count),
                link.remote
            )));
        }
        for (change, known) in &deletions {
            outbox
                .add(remote, book, report, change, Some(known))
                .await?;
        }
        outbox.flush(remote, book, report).await?;
    }
    link.pushed = cursor.map(|c| c.to_string());
    link.pulled = outbox.pulled;
    book.set_link(link)?;
    // Past the feed's end now: the next sync sends these again (this one would meet
    // them again in its feed and loop).
    for entry in outbox.again {
        journal.mark_for_sync(caller, &entry).await?;
    }
    Ok(())
}

/// Sends the files of a batch's attachments that the other side lacks, each once.
async fn send_files<R: SyncRemote>(
    journal: &Journal,
    caller: &Caller,
    remote: &R,
    batch: &[(PushChangeRequest, Option<Agreed>)],
    report: &mut SyncReport,
) -> Result<(), R::Error> {
    let listed: Vec<PushAttachmentRequest> = batch
        .iter()
        .flat_map(|(c, _)| c.attachments.iter().flatten())
        .filter(|a| a.deleted_at.is_none())
        .cloned()
        .collect();
    if listed.is_empty() {
        return Ok(());
    }
    let missing = remote.missing_files(&listed).await?;
    let mut sent = std::collections::HashSet::new();
    for id in missing {
        if !sent.insert(id) {
            continue;
        }
        let body = journal
            .attachment_body(Reader::Token(*caller.user_id()), &id, false, None)
            .await?;
        let bytes: Vec<Bytes> = body
            .bytes
            .try_collect()
            .await
            .map_err(crate::Error::internal)?;
        let file = SyncAttachment {
            id,
            name: body.attachment.name.clone(),
            sha256: body.attachment.sha256.clone(),
            size: body.attachment.size,
            created_at: body.attachment.created_at,
            deleted_at: None,
        };
        if let Some(why) = remote.send_file(&file, Bytes::from(bytes.concat())).await? {
            for (change, _) in batch {
                let lists = change
                    .attachments
                    .iter()
                    .flatten()
                    .any(|a| a.id.as_deref() == Some(id.to_string().as_str()));
                if let Some(entry) = change.id.as_deref().and_then(|e| e.parse().ok())
                    && lists
                {
                    report
                        .refused
                        .push((entry, format!("attachment {:?}: {why}", file.name)));
                }
            }
        }
    }
    Ok(())
}

/// Sends one batch and notes what both sides now agree on; the pulled cursor past it
/// when the server gave one.
async fn send_batch<R: SyncRemote>(
    remote: &R,
    book: &mut SyncBook,
    batch: Vec<(PushChangeRequest, Option<Agreed>)>,
    pulled: Option<String>,
    report: &mut SyncReport,
) -> Result<Option<String>, R::Error> {
    let (requests, after): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
    let body = PushChangesRequest {
        changes: Some(requests),
        since: pulled,
    };
    let reply = remote.push(&body).await?;
    let results = reply.results;
    let mut agree = Vec::new();
    for (result, after) in results.into_iter().zip(after) {
        let message = result.message.clone().unwrap_or_default();
        match result.outcome {
            PushOutcome::Refused => {
                // A file refused before the push already says why.
                if !report.refused.iter().any(|(id, _)| *id == result.id) {
                    report.refused.push((result.id, message));
                }
                continue;
            }
            PushOutcome::Merged => report.merged += 1,
            PushOutcome::Conflict => report.conflicts.push((result.id, message)),
            PushOutcome::Kept => report.kept.push((result.id, message)),
            PushOutcome::Applied => {}
        }
        report.sent += 1;
        // The server has this side's state now; its own comes with the pull.
        let after = after.or(Some(Agreed {
            revision: result.revision_id.unwrap_or_default(),
            state: "purged",
            files: 0,
        }));
        agree.push((result.id, after));
    }
    book.agree(&agree)?;
    Ok(reply.cursor.map(|c| c.to_string()))
}

/// Applies the server's changes after the pulled cursor; true when this side
/// merged something (to be sent back).
async fn pull<R: SyncRemote>(
    journal: &Journal,
    caller: &Caller,
    remote: &R,
    book: &mut SyncBook,
    link: &mut SyncLink,
    report: &mut SyncReport,
    confirm: &dyn Fn(&str) -> bool,
) -> Result<Option<bool>, R::Error> {
    let started = link.pulled.clone();
    let mut cursor = link.pulled.clone();
    // What a new entry's `author_name` is here: read once, when a change is applied.
    let mut nickname: Option<String> = None;
    let mut deletions: Vec<EntryChange> = Vec::new();
    let mut merged_here = false;
    loop {
        let Some(page) = remote.pull(cursor.as_deref(), 100).await? else {
            // Another database, or one restored from a backup: the caller starts over,
            // from both sides.
            if cursor.is_none() {
                return Err(R::stopped(
                    "the server refused a sync from the beginning".into(),
                ));
            }
            return Ok(None);
        };
        let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
        let agreed = book.agreed(&ids)?;
        let mut agree = Vec::new();
        for change in page.changes {
            let known = agreed.get(&change.id).copied();
            let (state, _) = state_of(&change);
            // This side's own change coming back, or one it has.
            if known.is_some_and(|k| agrees(&k, &change))
                || (known.is_some_and(|k| k.state == "purged") && state != "live")
            {
                continue;
            }
            // A later change of an entry replaces a deletion held back for it.
            deletions.retain(|d| d.id != change.id);
            if state != "live" {
                deletions.push(change);
                continue;
            }
            let result = journal
                .apply_pulled_as(
                    caller,
                    nickname_of(journal, caller, &mut nickname).await?,
                    &change,
                    known.map(|k| k.revision),
                )
                .await?;
            if result.outcome != PushOutcome::Refused {
                receive_files(journal, caller, remote, &change, report).await?;
            }
            merged_here |= note_pulled(report, &result);
            agree.push((change.id, agreed_after(&result, &change)));
        }
        book.agree(&agree)?;
        cursor = Some(page.cursor.to_string());
        if !page.more {
            break;
        }
    }
    let count = deletions.len() as u64;
    // Counted only when there is something to weigh: a count reads every entry's row.
    let live = if count == 0 {
        0
    } else {
        journal
            .user_entries(caller, caller.user_id(), crate::PageRequest::default())
            .await?
            .total
    };
    if asks_first(count, live)
        && !confirm(&format!(
            "{remote} deleted {count} of your {live} {} since the last sync; delete \
                 them here too?",
            entries(live),
            remote = link.remote
        ))
    {
        // Nothing of the deletions is applied, and the cursor stays: the next sync
        // asks again.
        link.pulled = started;
        return Err(R::stopped(format!(
            "stopped before deleting {count} {} here; nothing was deleted (journal sync \
                 --yes deletes them)",
            entries(count)
        )));
    }
    let mut agree = Vec::new();
    for change in deletions {
        let known = book.agreed(&[change.id])?;
        let known = known.get(&change.id).copied();
        let result = journal
            .apply_pulled_as(
                caller,
                nickname_of(journal, caller, &mut nickname).await?,
                &change,
                known.map(|k| k.revision),
            )
            .await?;
        if result.outcome != PushOutcome::Refused {
            receive_files(journal, caller, remote, &change, report).await?;
        }
        merged_here |= note_pulled(report, &result);
        agree.push((change.id, agreed_after(&result, &change)));
    }
    book.agree(&agree)?;
    link.pulled = cursor;
    book.set_link(link)?;
    Ok(Some(merged_here))
}

/// The caller's nickname, read the first time it is needed.
async fn nickname_of<'n>(
    journal: &Journal,
    caller: &Caller,
    nickname: &'n mut Option<String>,
) -> Result<&'n str, crate::Error> {
    if nickname.is_none() {
        *nickname = Some(journal.profile(caller).await?.nickname);
    }
    Ok(nickname.as_deref().unwrap_or_default())
}

/// Whether a local change is one the server lacks: not the state both last agreed on.
fn needs_sending(change: &EntryChange, agreed: Option<&Agreed>) -> bool {
    let (state, _) = state_of(change);
    match agreed {
        None => state != "purged",
        // Agreed purged, but here (written again since): sent as new.
        Some(a) if a.state == "purged" => state != "purged",
        Some(a) => !agrees(a, change),
    }
}

/// Whether `change` is the state both sides agreed on: its revision, place and
/// attachments.
fn agrees(agreed: &Agreed, change: &EntryChange) -> bool {
    let (state, revision) = state_of(change);
    Some(agreed.revision) == revision && agreed.state == state && agreed.files == files_of(change)
}

/// A local change as the server takes it.
fn push_request(change: &EntryChange, agreed: Option<&Agreed>) -> PushChangeRequest {
    let (state, _) = state_of(change);
    let (deleted_at, created_at) = match &change.state {
        ChangeState::Live { entry } => (None, Some(entry.created_at)),
        ChangeState::Trashed { entry, deleted_at } => (Some(*deleted_at), Some(entry.created_at)),
        ChangeState::Purged { .. } => (None, None),
    };
    PushChangeRequest {
        id: Some(change.id.to_string()),
        base: agreed
            .filter(|a| a.state != "purged")
            .map(|a| a.revision.to_string()),
        state: Some(state.to_owned()),
        deleted_at: deleted_at.map(|t| t.to_string()),
        created_at: created_at.map(|t| t.to_string()),
        revisions: Some(change.revisions.iter().map(Into::into).collect()),
        attachments: (!change.attachments.is_empty())
            .then(|| change.attachments.iter().map(attachment_request).collect()),
    }
}

fn attachment_request(a: &SyncAttachment) -> PushAttachmentRequest {
    PushAttachmentRequest {
        id: Some(a.id.to_string()),
        sha256: Some(a.sha256.clone()),
        name: Some(a.name.clone()),
        created_at: Some(a.created_at.to_string()),
        deleted_at: a.deleted_at.map(|t| t.to_string()),
    }
}

/// Brings a pulled entry's attachments here, fetching the files this side lacks.
async fn receive_files<R: SyncRemote>(
    journal: &Journal,
    caller: &Caller,
    remote: &R,
    change: &EntryChange,
    report: &mut SyncReport,
) -> Result<(), R::Error> {
    if change.attachments.is_empty() || matches!(change.state, ChangeState::Purged { .. }) {
        return Ok(());
    }
    let applied = journal
        .apply_files(caller, change.id, &change.attachments)
        .await?;
    if applied.missing.is_empty() {
        return Ok(());
    }
    let mut received = Vec::new();
    for file in &applied.missing {
        // Gone there meanwhile: the next change of the entry says so.
        let Some(bytes) = remote.fetch_file(&file.id).await? else {
            continue;
        };
        let request = crate::UploadRequest {
            name: Some(file.name.clone()),
            entry_id: None,
            declared_size: Some(bytes.len() as u64),
        };
        let body = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes)]);
        match journal.receive_file(caller, file.id, &request, body).await {
            Ok(_) => received.push(file.clone()),
            // This journal's own rules refuse it: said, and the sync goes on.
            Err(
                e @ (crate::Error::TooLarge(_)
                | crate::Error::UnsupportedType(_)
                | crate::Error::OverQuota(_)
                | crate::Error::Conflict(_)
                | crate::Error::AttachmentsOff),
            ) => report.refused.push((
                change.id,
                format!("attachment {:?} was not kept here: {e}", file.name),
            )),
            Err(e) => return Err(e.into()),
        }
    }
    journal.apply_files(caller, change.id, &received).await?;
    Ok(())
}

fn change_text_bytes(change: &EntryChange) -> usize {
    change
        .revisions
        .iter()
        .map(|r| r.title.len() + r.content.len())
        .sum()
}

/// Counts what applying a pulled change came to; true when this side merged.
fn note_pulled(report: &mut SyncReport, result: &PushResult) -> bool {
    let message = result.message.clone().unwrap_or_default();
    match result.outcome {
        PushOutcome::Applied => report.received += 1,
        PushOutcome::Merged => {
            report.received += 1;
            report.merged += 1;
            return true;
        }
        PushOutcome::Conflict => {
            report.received += 1;
            report.conflicts.push((result.id, message));
            return true;
        }
        PushOutcome::Kept => {
            report.kept.push((result.id, message));
            return true;
        }
        PushOutcome::Refused => report.refused.push((result.id, message)),
    }
    false
}

/// The state both sides agree on once a pulled change is applied: this side's now;
/// where this side merged, the server's it merged with, so the merge goes to the
/// server next as made from it.
fn agreed_after(result: &PushResult, change: &EntryChange) -> Option<Agreed> {
    let (state, incoming) = state_of(change);
    let revision = match result.outcome {
        PushOutcome::Applied => result.revision_id,
        PushOutcome::Refused => return None,
        _ => incoming,
    };
    Some(match revision {
        Some(revision) => Agreed {
            revision,
            state,
            files: files_of(change),
        },
        None => Agreed {
            revision: RevisionId::default(),
            state: "purged",
            files: 0,
        },
    })
}
