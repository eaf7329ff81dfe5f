//! Our zip export: `journal.json` (our JSON export, whose entries list their
//! attachments) and each attachment's file as `attachments/ID`. Reading it is bounded
//! as Day One's zip is: the document by [`MAX_UNPACKED_JSON`], each file by the
//! largest attachment the journal takes (`archive::read_file`).

use std::io::{Read, Seek};

use serde::Deserialize;
use serde_json::Value;

use super::archive::{Archive, ArchivedFile};
use super::day_one_zip::{MAX_UNPACKED_JSON, MAX_ZIP_FILES};
use super::fields::kind;
use super::invalid;
use super::json::{ExportedAttachment, FORMAT_NAME};
use crate::domain::{AttachmentId, Zone};
use crate::error::ValidationError;

/// The export document's name in the archive.
pub const DOCUMENT: &str = "journal.json";

/// An attachment's file's name in the archive.
pub fn file_name(id: &str) -> String {
    format!("attachments/{id}")
}

fn not_zip(source: &str) -> impl Fn(zip::result::ZipError) -> ValidationError + '_ {
    move |e| invalid(format!("{source} is not a readable .zip archive ({e})"))
}

/// Whether an archive is ours: it holds `journal.json` whose `format` names our export,
/// wherever in the document that is (Day One's holds `Journal.json`, and never our
/// format's name). Reads the document through once, building none of it. A
/// `journal.json` that is not one JSON document (cut off at the bound, broken) is taken
/// as ours, so that its error is about our document, not Day One's.
pub fn is_ours<R: Read + Seek>(archive: &mut zip::ZipArchive<R>) -> bool {
    let Ok(file) = archive.by_name(DOCUMENT) else {
        return false;
    };
    match super::json_stream::format_of(file.take(MAX_UNPACKED_JSON)) {
        Ok(format) => format.as_deref() == Some(FORMAT_NAME),
        Err(_) => true,
    }
}

/// Whether a `.zip` is our archive (see [`is_ours`]).
pub fn is_our_archive<R: Read + Seek>(reader: R) -> bool {
    zip::ZipArchive::new(reader).is_ok_and(|mut zip| is_ours(&mut zip))
}

/// [`read_archive`] of a whole `.zip` file.
pub fn read_archive_file<R: Read + Seek>(
    reader: R,
    source: &str,
) -> Result<Archive, ValidationError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(not_zip(source))?;
    read_archive(&mut zip, source)
}

/// Reads our archive's document and the list of its attachments; the files stay
/// packed until [`read_file`] takes them one by one.
pub fn read_archive<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    source: &str,
) -> Result<Archive, ValidationError> {
    if archive.len() > MAX_ZIP_FILES {
        return Err(invalid(format!(
            "{source} lists {} files; at most {MAX_ZIP_FILES} are read",
            archive.len()
        )));
    }
    let file = archive.by_name(DOCUMENT).map_err(|_| {
        invalid(format!(
            "{source} holds no {DOCUMENT}: it is not an archive `journal export --format zip` wrote"
        ))
    })?;
    let mut text = String::new();
    let read = file
        .take(MAX_UNPACKED_JSON + 1)
        .read_to_string(&mut text)
        .map_err(|e| {
            invalid(format!(
                "{source}: {DOCUMENT} cannot be read as UTF-8 ({e})"
            ))
        })?;
    if read as u64 > MAX_UNPACKED_JSON {
        return Err(invalid(format!(
            "{source}: {DOCUMENT} holds more than {} MiB once unpacked",
            MAX_UNPACKED_JSON / (1024 * 1024)
        )));
    }
    let where_ = format!("{source}: {DOCUMENT}");
    let mut files = Vec::new();
    let (imported, format) = super::json::read_with(
        &text,
        &where_,
        &Zone::default(),
        |_, at, entry| {
            let fail = |m: String| invalid(format!("{where_}: entry {}: {m}", at + 1));
            let listed = match entry.remove("attachments") {
            None | Some(Value::Null) => return Ok(()),
            Some(list @ Value::Array(_)) => Vec::<ExportedAttachment>::deserialize(list)
                .map_err(|e| {
                    fail(format!(
                        "field \"attachments\" is not a list of attachments as an export writes them: {e}"
                    ))
                })?,
            Some(other) => {
                return Err(fail(format!(
                    "field \"attachments\" must be a list, found {}",
                    kind(&other)
                )));
            }
        };
            for attachment in listed {
                let id: AttachmentId = attachment.id.parse().map_err(|_| {
                    fail(format!(
                        "attachment id {:?} is not an attachment id (a UUID in canonical form)",
                        attachment.id
                    ))
                })?;
                if archive.index_for_name(&file_name(&attachment.id)).is_none() {
                    return Err(fail(format!(
                        "the archive lacks the file of attachment {} ({})",
                        attachment.id,
                        file_name(&attachment.id)
                    )));
                }
                files.push(ArchivedFile {
                    entry: at,
                    id,
                    kept: true,
                    path: file_name(&attachment.id),
                    name: attachment.name,
                    sha256: Some(attachment.sha256),
                    created_at: Some(attachment.created_at),
                });
            }
            Ok(())
        },
    )?;
    drop(text);
    if format.as_deref() != Some(FORMAT_NAME) {
        return Err(invalid(format!(
            "{where_} is not our export: its \"format\" must be \"{FORMAT_NAME}\""
        )));
    }
    Ok(Archive { imported, files })
}
