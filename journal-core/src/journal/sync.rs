//! Sync between replicas of one journal (`journal sync`, docs/design/sync.md): the
//! account's change feed. Every replica reads the changes after its cursor, page by
//! page, and keeps the cursor with what it applied.

use tracing::instrument;

use super::{Caller, Journal};
use crate::domain::SyncCursor;
use crate::error::{Error, Result, ValidationError};
use crate::model::ChangePage;

/// Most changes one page of the feed holds (each may carry whole texts, as a list's
/// entries do).
pub const CHANGES_PAGE_MAX: u32 = 100;

/// Changes on a page when the replica does not say.
pub const CHANGES_PAGE_DEFAULT: u32 = 100;

impl Journal {
    /// The caller's changes after `since` (from the beginning when `None`), at most
    /// `limit`, in the order they were made. A cursor of another database, or ahead of
    /// this one (a database restored from an older backup), is a conflict: the
    /// replica starts over from the beginning, which loses nothing.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn changes(
        &self,
        caller: &Caller,
        since: Option<&SyncCursor>,
        limit: u32,
    ) -> Result<ChangePage> {
        if !(1..=CHANGES_PAGE_MAX).contains(&limit) {
            return Err(ValidationError::new(
                "limit",
                format!("must be a whole number from 1 to {CHANGES_PAGE_MAX}"),
            )
            .into());
        }
        let (start, after) = since.map_or((0, 0), |c| (c.start(), c.position()));
        let stored = self
            .store_ref()
            .changes(&caller.user_id, start, after, limit)
            .await?;
        if let Some(since) = since
            && (since.epoch() != stored.epoch || since.position() > stored.counter)
        {
            return Err(Error::Conflict(
                "this cursor is not from this server's journal as it is now (it was restored \
                 from a backup, or copied): sync again from the beginning, without `since`; \
                 nothing is lost"
                    .into(),
            ));
        }
        let more = stored.more;
        let position = stored.changes.last().map_or(after, |(seq, _)| *seq);
        // A sync that read everything ends: the next one begins where this one ended.
        let start = if more { start } else { position };
        Ok(ChangePage {
            changes: stored.changes.into_iter().map(|(_, c)| c).collect(),
            cursor: SyncCursor::new(&stored.epoch, start, position),
            more,
        })
    }
}
