//! An import as the stores take it: each entry with what tells whether its author has
//! it already, the id to use when another author has its id, and its history when the
//! file carries one. Both backends run the same questions, in the transaction that
//! writes the import, and write what [`ImportRow::to_write`] decides.

use std::collections::HashMap;

use super::revision_rows::{RevisionRow, first_revision, history_rows};
use crate::domain::{AttachmentId, EntryId, RevisionId, Timestamp};
use crate::model::{EditedVia, Entry, Revision};

/// One entry of an import, with the window in which an entry of the same title and
/// content counts as the same (the journal decides it: a minute, what jrnl keeps of a
/// date).
#[derive(Clone, Debug)]
pub struct ImportRow {
    /// The entry, under the id the file gave it (or a new one). With a history, its
    /// `revision` and `revision_id` are the last revision's.
    pub entry: Entry,
    /// The id to store it under when another author has `entry.id`.
    pub fresh_id: EntryId,
    /// An entry of the author with the same trimmed title and content dated from here…
    pub same_from: Timestamp,
    /// …to before here is this one.
    pub same_until: Timestamp,
    /// The entry's revisions as the file has them, oldest first, the last one the
    /// entry as it is; empty: the import records one revision, the entry as it is.
    pub history: Vec<Revision>,
    /// A new id for every revision id (and parent id) of `history`, used for the whole
    /// history when its ids cannot be kept: the entry goes under `fresh_id`, or a
    /// revision id is in the database already (revision ids are its primary key, and
    /// the ids of public entries' current revisions are public: their ETags).
    pub fresh_revision_ids: HashMap<RevisionId, RevisionId>,
    /// For an entry of an export's trash: when it was deleted. It goes to the trash.
    pub deleted_at: Option<Timestamp>,
    /// The author's uploads (not yet attached) to attach to the entry when it is
    /// stored, in the same transaction: an archive's files.
    pub attachments: Vec<AttachmentId>,
}

/// What became of one [`ImportRow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportOutcome {
    /// Stored under this id (the file's, or the fresh one), its current revision this
    /// one (the file's, or a fresh one).
    Stored {
        /// The entry's id.
        id: EntryId,
        /// Its current revision's id.
        revision_id: RevisionId,
    },
    /// The author has it already: the same id, or the same title, content and date.
    Skipped,
}

/// The characters trimmed off both ends of a title and content before they are compared
/// (`trim(x, chars)` on SQLite, `btrim(x, chars)` on PostgreSQL): formats that trim
/// text (jrnl's) still find the entry they came from.
pub const TRIMMED: &str = " \t\r\n";

/// The key SQLite keeps of an entry's text (column `same_text`, written with the row),
/// so that an import finds an entry of the same trimmed title and content in the same
/// minute by one index probe, however many entries that minute holds: compared row by
/// row, re-importing thousands of entries of one minute took time in their square.
/// PostgreSQL indexes a SQL function of its own for the same job. Two texts with one
/// key only cost time: the texts are compared too.
pub(crate) fn same_text_key(title: &str, content: &str) -> i64 {
    use sha2::{Digest, Sha256};
    fn trim(s: &str) -> &str {
        s.trim_matches(|c| TRIMMED.contains(c))
    }
    let (title, content) = (trim(title), trim(content));
    let mut hash = Sha256::new();
    // The title's length first: no title and content run together like another's.
    hash.update((title.len() as u64).to_le_bytes());
    hash.update(title.as_bytes());
    hash.update(content.as_bytes());
    let digest = hash.finalize();
    i64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 32 bytes"))
}

impl ImportRow {
    /// The revision ids the backend checks are free before keeping them.
    pub(crate) fn revision_ids(&self) -> impl Iterator<Item = RevisionId> + '_ {
        self.history.iter().map(|r| r.id)
    }

    /// The entry to write (under `id`) and its revision rows: the history as the file
    /// has it, under fresh revision ids when `fresh_revisions`, or else one revision of
    /// the import.
    pub(crate) fn to_write(&self, id: EntryId, fresh_revisions: bool) -> (Entry, Vec<RevisionRow>) {
        let mut entry = self.entry.clone();
        entry.id = id;
        if self.history.is_empty() {
            let row = first_revision(&entry, EditedVia::Import);
            return (entry, vec![row]);
        }
        let fresh = |id: RevisionId| {
            if fresh_revisions {
                self.fresh_revision_ids.get(&id).copied().unwrap_or(id)
            } else {
                id
            }
        };
        let history: Vec<Revision> = self
            .history
            .iter()
            .map(|r| Revision {
                id: fresh(r.id),
                parent_id: r.parent_id.map(fresh),
                entry_id: id,
                ..r.clone()
            })
            .collect();
        if let Some(last) = history.last() {
            entry.revision = last.revision;
            entry.revision_id = last.id;
        }
        let rows = history_rows(&entry, &history);
        (entry, rows)
    }
}
