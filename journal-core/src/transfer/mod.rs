//! Entries to and from files: Journal's JSON, Markdown (one file, or a folder of files
//! with front matter), jrnl's JSON and plain text, and Day One's JSON and `.zip`. One
//! reader per format, used by the CLI and the server alike, so a file imports the same
//! way wherever it is sent.

use crate::api::CreateEntryRequest;
use crate::domain::Timestamp;

/// An entry to import with its original dates, and the id it had where it came from.
#[derive(Clone, Debug)]
pub struct ImportedEntry {
    /// Its id in the file (Journal's exports carry one); kept when it may be (see
    /// `Journal::import_entries`).
    pub id: Option<String>,
    /// Title, content and visibility, validated like a new entry.
    pub request: CreateEntryRequest,
    /// Original creation time.
    pub created_at: Timestamp,
    /// Original last change; `created_at` when unknown.
    pub updated_at: Option<Timestamp>,
    /// Original author name; the caller's nickname when unknown.
    pub author_name: Option<String>,
}
