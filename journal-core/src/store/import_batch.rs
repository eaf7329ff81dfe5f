//! An import as the stores take it: each entry with what tells whether its author has
//! it already, and the id to use when another author has its id. Both backends run the
//! same questions, in the transaction that writes the import.

use crate::domain::{EntryId, Timestamp};
use crate::model::Entry;

/// One entry of an import, with the window in which an entry of the same title and
/// content counts as the same (the journal decides it: a minute, what jrnl keeps of a
/// date).
#[derive(Clone, Debug)]
pub struct ImportRow {
    /// The entry, under the id the file gave it (or a new one).
    pub entry: Entry,
    /// The id to store it under when another author has `entry.id`.
    pub fresh_id: EntryId,
    /// An entry of the author with the same trimmed title and content dated from here…
    pub same_from: Timestamp,
    /// …to before here is this one.
    pub same_until: Timestamp,
}

/// What became of one [`ImportRow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportOutcome {
    /// Stored under this id (the file's, or the fresh one).
    Stored(EntryId),
    /// The author has it already: the same id, or the same title, content and date.
    Skipped,
}

/// The characters trimmed off both ends of a title and content before they are compared
/// (`trim(x, chars)` on SQLite, `btrim(x, chars)` on PostgreSQL): formats that trim
/// text (jrnl's) still find the entry they came from.
pub const TRIMMED: &str = " \t\r\n";
