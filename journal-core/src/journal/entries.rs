//! One entry: creating, reading, changing and deleting it, with who may do which.

use tracing::instrument;

use super::{Caller, Journal};
use crate::api::{CreateEntryRequest, UpdateEntryRequest};
use crate::domain::{EntryId, RevisionId, Timestamp, UserId};
use crate::error::{Error, Result};
use crate::input::{EntryChanges, NewEntry};
use crate::model::Entry;
use crate::store::{Edit, EntryWrite, StoredEntry};

impl Journal {
    /// Creates an entry by the caller; `author_name` is the caller's nickname now.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn create_entry(
        &self,
        caller: &Caller,
        request: &CreateEntryRequest,
    ) -> Result<Entry> {
        let new = NewEntry::try_from(request)?;
        let author = self.profile(caller).await?;
        let now = Timestamp::now();
        let entry = new.into_entry(caller.user_id, author.nickname, now, now);
        self.store_ref().insert_entry(&entry, caller.via()).await?;
        self.attach_named(caller, &entry.id, &entry.content).await?;
        Ok(entry)
    }

    async fn visible_entry(&self, caller: &Caller, id: &EntryId) -> Result<StoredEntry> {
        let stored = self
            .store_ref()
            .entry(id)
            .await?
            .ok_or(Error::NotFound { kind: "entry" })?;
        if can_see(caller, &stored) {
            Ok(stored)
        } else {
            Err(Error::NotFound { kind: "entry" })
        }
    }

    /// One entry, when the caller may see it.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn entry(&self, caller: &Caller, id: &EntryId) -> Result<Entry> {
        Ok(self.visible_entry(caller, id).await?.entry)
    }

    /// Changes the caller's own entry, recording a revision.
    pub async fn update_entry(
        &self,
        caller: &Caller,
        id: &EntryId,
        request: &UpdateEntryRequest,
    ) -> Result<Entry> {
        self.update_entry_if(caller, id, request, None).await
    }

    /// [`Journal::update_entry`] with a condition: with `if_match`, only while that is
    /// still the entry's current revision, otherwise [`Error::Stale`] and nothing
    /// changes (HTTP `If-Match`).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn update_entry_if(
        &self,
        caller: &Caller,
        id: &EntryId,
        request: &UpdateEntryRequest,
        if_match: Option<RevisionId>,
    ) -> Result<Entry> {
        let changes = EntryChanges::try_from(request)?;
        self.apply_changes(caller, id, &changes, if_match).await
    }

    /// Writes `changes` to an entry the caller may change.
    pub(super) async fn apply_changes(
        &self,
        caller: &Caller,
        id: &EntryId,
        changes: &EntryChanges,
        if_match: Option<RevisionId>,
    ) -> Result<Entry> {
        let edit = caller.edit(Some(caller.user_id), if_match);
        let write = self.store_ref().update_entry(id, changes, &edit).await?;
        let entry = self.written(caller, id, false, write).await?;
        if changes.content.is_some() {
            self.attach_named(caller, id, &entry.content).await?;
        }
        Ok(entry)
    }

    /// Moves the caller's own entry (or any entry, for an admin) to its author's trash.
    pub async fn delete_entry(&self, caller: &Caller, id: &EntryId) -> Result<()> {
        self.delete_entry_if(caller, id, None).await
    }

    /// [`Journal::delete_entry`] with a condition: with `if_match`, only while that is
    /// still the entry's current revision, otherwise [`Error::Stale`].
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn delete_entry_if(
        &self,
        caller: &Caller,
        id: &EntryId,
        if_match: Option<RevisionId>,
    ) -> Result<()> {
        // An admin may delete anyone's entry; everyone else only their own.
        let author = (!caller.is_admin()).then_some(caller.user_id);
        let edit = caller.edit(author, if_match);
        let write = self.store_ref().delete_entry(id, &edit).await?;
        self.written(caller, id, true, write).await.map(drop)
    }

    /// The result of a conditional write, or why there is none. The store checked the
    /// author in the write; only a refusal reads the entry, to tell "not yours" (403)
    /// from "not visible to you" (404).
    async fn written<T>(
        &self,
        caller: &Caller,
        id: &EntryId,
        delete: bool,
        write: EntryWrite<T>,
    ) -> Result<T> {
        match write {
            EntryWrite::Done(value) => Ok(value),
            EntryWrite::Missing => Err(Error::NotFound { kind: "entry" }),
            EntryWrite::Foreign => {
                let stored = self.store_ref().entry(id).await?;
                check_author(caller, stored.as_ref(), delete)?;
                Err(Error::NotFound { kind: "entry" })
            }
            EntryWrite::Stale { current } => Err(Error::Stale {
                revision: current.revision,
                revision_id: current.revision_id.to_string(),
            }),
        }
    }
}

impl Caller {
    /// An edit by this caller now.
    pub(super) fn edit(&self, author: Option<UserId>, if_match: Option<RevisionId>) -> Edit {
        Edit {
            at: Timestamp::now(),
            via: self.via(),
            author,
            if_match,
            revision_id: RevisionId::generate(),
        }
    }
}

fn can_see(caller: &Caller, stored: &StoredEntry) -> bool {
    stored.entry.author_id == caller.user_id || (stored.entry.is_public && !stored.author_private)
}

/// May the caller change (or, with `delete`, remove) this entry?
pub(super) fn check_author(
    caller: &Caller,
    stored: Option<&StoredEntry>,
    delete: bool,
) -> Result<()> {
    let Some(stored) = stored else {
        return Err(Error::NotFound { kind: "entry" });
    };
    if stored.entry.author_id == caller.user_id || (delete && caller.is_admin()) {
        return Ok(());
    }
    if can_see(caller, stored) {
        Err(Error::Forbidden(
            "only the author may change this entry".into(),
        ))
    } else {
        Err(Error::NotFound { kind: "entry" })
    }
}
