//! Texts a sync could not merge: listing the caller's, and settling one by keeping
//! the entry as it is or the text set aside. Where a sync meets one is `sync.rs`.

use tracing::instrument;

use super::entries::check_author;
use super::{Caller, Journal};
use crate::domain::{EntryId, PageRequest, Resolution};
use crate::error::{Error, Result};
use crate::model::{Conflict, Entry, Page};

impl Journal {
    /// One page of the caller's open conflicts, newest first.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn conflicts(&self, caller: &Caller, page: PageRequest) -> Result<Page<Conflict>> {
        Ok(self.store_ref().conflicts(&caller.user_id, page).await?)
    }

    /// Settles the conflicts of the caller's entry `id`, as `resolution` says (keeping
    /// the entry settles those open now; taking a text settles its own);
    /// returns the entry. 404 when the entry has no open conflict, or names a
    /// revision none of them set aside.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %id))]
    pub async fn resolve_conflict(
        &self,
        caller: &Caller,
        id: &EntryId,
        resolution: Resolution,
    ) -> Result<Entry> {
        let stored = self.store_ref().entry(id).await?;
        check_author(caller, stored.as_ref(), false)?;
        let open = self
            .store_ref()
            .entry_conflicts(&caller.user_id, id)
            .await?;
        if open.is_empty() {
            return Err(Error::NotFound { kind: "conflict" });
        }
        let entry = match resolution {
            Resolution::KeepCurrent => self.entry(caller, id).await?,
            Resolution::TakeSetAside(revision) => {
                if !open.contains(&revision) {
                    return Err(Error::NotFound { kind: "conflict" });
                }
                let set_aside = self
                    .store_ref()
                    .revision_by_id(&revision)
                    .await?
                    .filter(|r| r.entry_id == *id)
                    .ok_or(Error::NotFound { kind: "revision" })?;
                self.restore_revision(caller, id, set_aside.revision, None)
                    .await?
            }
        };
        // Only what the caller saw and chose: a text set aside meanwhile stays listed.
        let settled = match resolution {
            Resolution::KeepCurrent => open,
            Resolution::TakeSetAside(revision) => vec![revision],
        };
        self.store_ref()
            .settle_conflicts(&caller.user_id, id, &settled)
            .await?;
        Ok(entry)
    }
}
