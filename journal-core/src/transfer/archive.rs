//! An archive of entries with their files, as `Journal::import_archive` takes it: our
//! zip export (`journal_zip::read_archive`) or Day One's with its photos
//! (`day_one_zip::read_archive`). Either way a file is read only by a name the
//! archive's document gives, and only into memory, so a name in the archive (`../x`,
//! `/etc/x`) never becomes a path.

use std::io::{Read, Seek};

use super::{Imported, invalid};
use crate::domain::{AttachmentId, Timestamp};
use crate::error::ValidationError;

/// A file the archive holds for the entry at `entry` in [`Archive::imported`].
#[derive(Clone, Debug)]
pub struct ArchivedFile {
    /// The index of its entry among the imported entries.
    pub entry: usize,
    /// The attachment id the entry's text links it by (`attachment:ID`).
    pub id: AttachmentId,
    /// Whether `id` is the attachment's own (our export), kept when no one has it;
    /// else (Day One's) the stored id is made from it and the importer's, so importing
    /// the archive again finds the file and nobody else's import can.
    pub kept: bool,
    /// Its name in the archive.
    pub path: String,
    /// Its name as uploaded.
    pub name: String,
    /// SHA-256 of its bytes, when the archive says it (ours does).
    pub sha256: Option<String>,
    /// When it was uploaded, when the archive says it.
    pub created_at: Option<Timestamp>,
}

/// What an archive holds: the entries, and the files to store with them.
#[derive(Debug, Default)]
pub struct Archive {
    /// The entries (live, then the trash).
    pub imported: Imported,
    /// The files, each with its entry.
    pub files: Vec<ArchivedFile>,
}

/// The bytes of one file, at most `max` of them: `None` for a file past it (whatever
/// the archive says its size is), read no further.
pub fn read_file<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    path: &str,
    max: u64,
    source: &str,
) -> Result<Option<Vec<u8>>, ValidationError> {
    let file = zip
        .by_name(path)
        .map_err(|e| invalid(format!("{source}: {path} cannot be read ({e})")))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(format!("{source}: {path} cannot be read ({e})")))?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}
