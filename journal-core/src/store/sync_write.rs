//! What a sync writes to one entry, planned once for both backends: the revisions a
//! replica made (ids and parents kept, numbered after the entry's own), the entry's
//! state after them, and where it ends (live, in the trash, purged).

use crate::domain::{EntryId, RevisionId, Timestamp, UserId};
use crate::model::{Entry, Revision};
use crate::store::revision_rows::{Edit, EntryWrite, RevisionRow};

/// Where a sync puts an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In its author's lists.
    Live,
    /// In its author's trash, deleted at this time.
    Trashed(Timestamp),
    /// Gone for good, with its history (a tombstone stays in the change feed).
    Purged,
}

/// One entry's write by a sync (see [`Store::sync_write`](super::Store::sync_write)),
/// planned by the core on the entry as it was read: the store writes it only if the
/// entry is still so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncWrite {
    /// The entry's author (the caller).
    pub author: UserId,
    /// The entry.
    pub id: EntryId,
    /// The entry's current revision when the write was planned (live or in the trash);
    /// `None`: it had no such entry.
    pub expect: Option<RevisionId>,
    /// Revisions to add after the entry's, oldest first, with their ids, parents,
    /// times and states; the entry takes the last one's state.
    pub revisions: Vec<Revision>,
    /// Where the entry ends.
    pub place: Place,
    /// For an entry the store did not have: when it was created, and its author's
    /// nickname.
    pub created: Option<(Timestamp, String)>,
    /// A revision whose text could not be merged: kept in the history, and listed as a
    /// conflict for the author to settle.
    pub conflict: Option<RevisionId>,
}

/// What [`Store::sync_writes`](super::Store::sync_writes) did: each write's outcome,
/// and the author's change counter before and after the transaction. The writer holds
/// the author's counter from the first write to the commit, so the changes numbered
/// after `counter.0` up to `counter.1` are these writes' alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncWritten {
    /// Each write's outcome, in order.
    pub results: Vec<EntryWrite<Option<Entry>>>,
    /// The author's change counter before the first write and after the last.
    pub counter: (u64, u64),
    /// The database's sync epoch.
    pub epoch: String,
}

/// The rows `write` adds after `current` (the entry as it is, or `None` for a new
/// one) and the entry after them: numbered on from the current revision, each a delta
/// against the row before (the entry's current revision first) unless a snapshot is
/// due. `None` when it has no revisions to
/// add and no entry to start from.
pub(crate) fn plan_rows(
    current: Option<&Entry>,
    write: &SyncWrite,
) -> Option<(Vec<RevisionRow>, Entry)> {
    let mut state = match (current, &write.created) {
        (Some(entry), _) => entry.clone(),
        (None, Some((at, nickname))) => {
            let first = write.revisions.first()?;
            let mut skeleton = Entry {
                id: write.id,
                title: String::new(),
                content: String::new(),
                is_public: false,
                tags: Vec::new(),
                starred: false,
                date: first.date,
                author_id: write.author,
                author_name: nickname.clone(),
                created_at: *at,
                updated_at: *at,
                revision: 0,
                revision_id: first.id,
            };
            skeleton = first.applied_to(&skeleton);
            skeleton
        }
        (None, None) => return None,
    };
    let mut rows = Vec::with_capacity(write.revisions.len());
    for (k, r) in write.revisions.iter().enumerate() {
        let mut next = r.applied_to(&state);
        next.revision = state.revision + 1;
        next.revision_id = r.id;
        next.updated_at = r.edited_at;
        let edit = Edit {
            at: r.edited_at,
            via: r.edited_via,
            author: Some(write.author),
            if_match: None,
            revision_id: r.id,
        };
        let mut row = if k == 0 && current.is_none() {
            RevisionRow::snapshot(&next, r.parent_id, r.edited_at, r.edited_via)
        } else {
            RevisionRow::after(&state, &next, &edit)
        };
        row.parent_id = r.parent_id;
        rows.push(row);
        state = next;
    }
    Some((rows, state))
}
