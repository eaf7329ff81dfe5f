//! One entry: creating, reading, changing and deleting it, with who may do which.

use tracing::instrument;

use super::{Caller, Journal};
use crate::api::{CreateEntryRequest, UpdateEntryRequest};
use crate::domain::{EntryId, Timestamp};
use crate::error::{Error, Result};
use crate::input::{EntryChanges, NewEntry};
use crate::model::Entry;
use crate::store::StoredEntry;

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
        self.store_ref().insert_entry(&entry).await?;
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

    /// Changes any of title, content, isPublic of the caller's own entry.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn update_entry(
        &self,
        caller: &Caller,
        id: &EntryId,
        request: &UpdateEntryRequest,
    ) -> Result<Entry> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), false)?;
        let changes = EntryChanges::try_from(request)?;
        self.store_ref()
            .update_entry(id, &changes, Timestamp::now())
            .await?
            .ok_or(Error::NotFound { kind: "entry" })
    }

    /// Deletes the caller's own entry, or any entry when the caller is an admin.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn delete_entry(&self, caller: &Caller, id: &EntryId) -> Result<()> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), true)?;
        if self.store_ref().delete_entry(id).await? {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "entry" })
        }
    }
}

fn can_see(caller: &Caller, stored: &StoredEntry) -> bool {
    stored.entry.author_id == caller.user_id || (stored.entry.is_public && !stored.author_private)
}

/// May the caller change (or, with `delete`, remove) this entry?
fn check_author(caller: &Caller, stored: Option<&StoredEntry>, delete: bool) -> Result<()> {
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
