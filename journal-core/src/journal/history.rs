//! An entry's history and the trash: reading revisions, restoring one, and taking
//! entries out of the trash or purging them. Only an entry's author sees its history,
//! even of a public entry; everyone else sees the current state.

use std::time::Duration;

use tracing::instrument;

use super::entries::check_author;
use super::{Caller, Journal};
use crate::domain::{Content, EntryId, PageRequest, RevisionId, Tags, Timestamp, Title};
use crate::error::{Error, Result, ValidationError};
use crate::input::EntryChanges;
use crate::model::{Entry, Page, Revision, TrashedEntry};
use crate::store::HistoryKeep;

/// Most revisions one page of history holds.
pub const HISTORY_PAGE_MAX: u32 = 20;

/// Days an entry stays in the trash unless the operator says otherwise.
pub const TRASH_DAYS: u32 = 30;

/// How many trashed entries one purge statement removes; a purge of more runs in
/// several, so it never holds the writer for long.
const PURGE_BATCH: u32 = 500;

/// How many entries' histories one pruning transaction takes.
const PRUNE_ENTRIES: u32 = 50;

impl Journal {
    async fn check_history_reader(&self, caller: &Caller, id: &EntryId) -> Result<()> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), false).map_err(|e| match e {
            Error::Forbidden(_) => {
                Error::Forbidden("only the author may see an entry's history".into())
            }
            other => other,
        })
    }

    /// One page of the history of the caller's own entry, newest first.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn revisions(
        &self,
        caller: &Caller,
        id: &EntryId,
        page: PageRequest,
    ) -> Result<Page<Revision>> {
        // Any page by number: an entry's history is read through its own index range,
        // so a page past its end costs what an empty page does. Each revision may hold
        // a whole text, so a page holds fewer of them than a list holds entries.
        if page.limit() > HISTORY_PAGE_MAX {
            return Err(ValidationError::new(
                "limit",
                format!(
                    "a page of history holds at most {HISTORY_PAGE_MAX} revisions (each may \
                     hold a whole text); ask for the next page instead"
                ),
            )
            .into());
        }
        self.check_history_reader(caller, id).await?;
        Ok(self.store_ref().revisions(id, page).await?)
    }

    /// Revision `number` of the caller's own entry.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn revision(&self, caller: &Caller, id: &EntryId, number: u32) -> Result<Revision> {
        self.check_history_reader(caller, id).await?;
        self.store_ref()
            .revision(id, number)
            .await?
            .ok_or(Error::NotFound { kind: "revision" })
    }

    /// Makes revision `number`'s state the entry's current one, as a new revision
    /// (the history in between stays). With `if_match`, only while that is still the
    /// entry's current revision.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn restore_revision(
        &self,
        caller: &Caller,
        id: &EntryId,
        number: u32,
        if_match: Option<RevisionId>,
    ) -> Result<Entry> {
        let old = self.revision(caller, id, number).await?;
        let changes = EntryChanges {
            title: Some(Title::parse(&old.title)?),
            content: Some(Content::parse(&old.content)?),
            is_public: Some(old.is_public),
            tags: Some(Tags::parse(&old.tags)?),
            starred: Some(old.starred),
            date: Some(old.date),
        };
        self.apply_changes(caller, id, &changes, if_match).await
    }

    /// One page of the caller's trash, newest deletion first.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn trash(&self, caller: &Caller, page: PageRequest) -> Result<Page<TrashedEntry>> {
        // Any page by number, as for history: one author's range of the trash's index.
        Ok(self.store_ref().trash(&caller.user_id, page).await?)
    }

    /// Puts an entry of the caller's trash back where it was, with its tags, star,
    /// date, visibility and history.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn untrash(&self, caller: &Caller, id: &EntryId) -> Result<Entry> {
        self.store_ref()
            .untrash(&caller.user_id, id)
            .await?
            .ok_or(Error::NotFound { kind: "entry" })
    }

    /// Removes an entry of the caller's trash, with its history, for good. The one
    /// step that cannot be undone, so a personal access token (a script's, perhaps a
    /// stolen one) cannot take it: a login can.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn purge(&self, caller: &Caller, id: &EntryId) -> Result<()> {
        caller.needs_login("purge entries from the trash")?;
        if self.store_ref().purge(&caller.user_id, id).await? {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "entry" })
        }
    }

    /// Prunes every entry's history to `keep` (the operator's `--history-keep` and
    /// `--history-days`), a few entries per transaction; returns how many revisions
    /// went. First and current revisions always stay, and every kept revision stays
    /// readable whole.
    #[instrument(level = "debug", skip_all)]
    pub async fn prune_history(&self, keep: &HistoryKeep) -> Result<u64> {
        if keep.keeps_everything() {
            return Ok(0);
        }
        let mut removed = 0;
        loop {
            let n = self
                .store_ref()
                .prune_history(keep, Timestamp::now(), PRUNE_ENTRIES)
                .await?;
            removed += n;
            if n == 0 {
                return Ok(removed);
            }
        }
    }

    /// Purges every entry deleted more than `after` ago, in batches; returns how many.
    /// The server runs it in the background, a local journal when it is opened.
    #[instrument(level = "debug", skip_all)]
    pub async fn purge_expired_trash(&self, after: Duration) -> Result<u64> {
        let ms = i64::try_from(after.as_millis()).unwrap_or(i64::MAX);
        let before = Timestamp::from_millis(Timestamp::now().as_millis().saturating_sub(ms));
        let mut purged = 0;
        loop {
            let n = self.store_ref().purge_trash(before, PURGE_BATCH).await?;
            purged += n;
            if n < u64::from(PURGE_BATCH) {
                return Ok(purged);
            }
        }
    }
}
