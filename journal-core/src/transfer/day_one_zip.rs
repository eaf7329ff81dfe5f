//! Day One's `.zip` export: its journals' JSON (read as Day One's JSON by `json.rs`)
//! within bounds, and its photos, audio and PDFs (`photos/<md5>.jpeg` and the like)
//! listed for the journal to store as attachments.

use std::collections::HashMap;
use std::io::{Read, Seek};

use serde_json::{Map, Value};

use super::archive::{Archive, ArchivedFile};
use super::json_stream::{List, MAX_FILE_ENTRIES};
use super::{Imported, invalid};
use crate::domain::{AttachmentId, Zone};
use crate::error::ValidationError;

/// The most a `.zip`'s JSON files may hold once unpacked, together: a journal of
/// 100,000 entries of 1 KB each, and room to spare. A zip bomb stops here, not in
/// memory. (The archive's photos are not unpacked at all.)
pub const MAX_UNPACKED_JSON: u64 = 256 * 1024 * 1024;

/// The most files an archive may list; Day One writes one per photo.
pub const MAX_ZIP_FILES: usize = 200_000;

/// Day One's `.zip` export: every JSON file at its top (one per journal,
/// `Journal.json` by default), read as Day One's JSON; the media beside them are left
/// out, and counted from the entries. [`read_archive`] takes them too.
pub fn read_zip(bytes: &[u8], source: &str) -> Result<Imported, ValidationError> {
    read_zip_within(bytes, source, MAX_UNPACKED_JSON)
}

fn not_zip(source: &str) -> impl Fn(zip::result::ZipError) -> ValidationError + '_ {
    move |e| {
        invalid(format!(
            "{source} is not a .zip archive Day One wrote ({e}); export from Day One with File → Export → JSON"
        ))
    }
}

/// [`read_zip`] with at most `max_json` bytes of JSON unpacked.
fn read_zip_within(bytes: &[u8], source: &str, max_json: u64) -> Result<Imported, ValidationError> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(not_zip(source))?;
    let mut imported = Imported::default();
    for (name, text) in journals(&mut archive, source, max_json)? {
        let one = super::json::read(&text, &format!("{source}: {name}"), &Zone::default())?;
        imported.items.extend(one.items);
        imported.notes.extend(one.notes);
        too_many(imported.items.len(), source)?;
    }
    Ok(imported)
}

/// Past [`MAX_FILE_ENTRIES`] entries, in all the archive's journals together: one import
/// takes at most that many, however the export splits them.
fn too_many(entries: usize, source: &str) -> Result<(), ValidationError> {
    if entries > MAX_FILE_ENTRIES {
        return Err(invalid(format!(
            "{source}: its journals hold more than {MAX_FILE_ENTRIES} entries together; at most that many are imported at once"
        )));
    }
    Ok(())
}

/// The archive's journals, each its name and JSON text: every `.json` file at its top,
/// at most `max_json` bytes of them together once unpacked.
fn journals<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    source: &str,
    max_json: u64,
) -> Result<Vec<(String, String)>, ValidationError> {
    if archive.len() > MAX_ZIP_FILES {
        return Err(invalid(format!(
            "{source} lists {} files; at most {MAX_ZIP_FILES} are read",
            archive.len()
        )));
    }
    let mut journals = Vec::new();
    let mut budget = max_json;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(not_zip(source))?;
        let name = file.name().map_err(not_zip(source))?.into_owned();
        // Journals are at the top; media are in folders (photos/, videos/, …).
        if name.contains('/') || !name.to_ascii_lowercase().ends_with(".json") {
            continue;
        }
        let mut text = String::new();
        let read = (&mut file)
            .take(budget + 1)
            .read_to_string(&mut text)
            .map_err(|e| {
                invalid(format!(
                    "{source}: {name} cannot be read as UTF-8 JSON ({e})"
                ))
            })?;
        if read as u64 > budget {
            return Err(invalid(format!(
                "{source}: its JSON files hold more than {} MiB once unpacked; split the export",
                max_json / (1024 * 1024)
            )));
        }
        budget -= read as u64;
        journals.push((name, text));
    }
    if journals.is_empty() {
        return Err(invalid(format!(
            "{source} holds no journal (a .json file at its top, such as Journal.json)"
        )));
    }
    Ok(journals)
}

/// The media of a Day One entry that are imported: the entry's field, the archive's
/// folder of their files (each named by its MD5, with its type's extension), and
/// whether it shows as an image. Videos are not among the types a journal takes.
const MEDIA: [(&str, &str, bool); 3] = [
    ("photos", "photos", true),
    ("audios", "audios", false),
    ("pdfAttachments", "pdfs", false),
];

/// Day One's `.zip` export with its photos, audio and PDFs: each file the archive
/// holds for an entry becomes an attachment, linked where the entry's text showed it
/// (`![](dayone-moment://ID)`), or after the text when it did not.
pub fn read_archive<R: Read + Seek>(
    archive: &mut zip::ZipArchive<R>,
    source: &str,
) -> Result<Archive, ValidationError> {
    let journals = journals(archive, source, MAX_UNPACKED_JSON)?;
    // "photos/<md5>" → the file's name in the archive, whatever its extension.
    let packed: HashMap<String, String> = archive
        .file_names()
        .filter_map(|name| {
            let name = name.ok()?;
            let (stem, _) = name.rsplit_once('.')?;
            Some((stem.to_ascii_lowercase(), name.into_owned()))
        })
        .collect();
    let mut result = Archive::default();
    for (name, text) in journals {
        let where_ = format!("{source}: {name}");
        let first = result.imported.items.len();
        let files = &mut result.files;
        let (one, _) =
            super::json::read_with(&text, &where_, &Zone::default(), |list, at, entry| {
                if list == List::Entries {
                    take_media(entry, &packed, first + at, files);
                }
                Ok(())
            })?;
        result.imported.items.extend(one.items);
        result.imported.notes.extend(one.notes);
        too_many(result.imported.items.len(), source)?;
    }
    Ok(result)
}

/// Takes out of an entry the media whose files the archive holds (what stays is
/// counted as left out), listing their files and linking them in the entry's text.
fn take_media(
    map: &mut Map<String, Value>,
    packed: &HashMap<String, String>,
    entry: usize,
    files: &mut Vec<ArchivedFile>,
) {
    let Some(mut text) = map.get("text").and_then(Value::as_str).map(str::to_owned) else {
        return;
    };
    for (field, folder, image) in MEDIA {
        let Some(Value::Array(list)) = map.get_mut(field) else {
            continue;
        };
        list.retain(|media| {
            let Some(md5) = media.get("md5").and_then(Value::as_str) else {
                return true;
            };
            let Some(path) = packed.get(&format!("{folder}/{}", md5.to_ascii_lowercase())) else {
                return true;
            };
            let identifier = media.get("identifier").and_then(Value::as_str);
            let name = file_name(media, path);
            let id = media_id(md5, identifier);
            let link = if image {
                format!("![](attachment:{id})")
            } else {
                format!("[{}](attachment:{id})", name.replace(['[', ']'], ""))
            };
            place_link(&mut text, identifier, &link);
            files.push(ArchivedFile {
                entry,
                id,
                kept: false,
                path: path.clone(),
                name,
                sha256: None,
                created_at: None,
            });
            false
        });
    }
    map.insert("text".into(), Value::String(text));
}

/// A medium's file name: Day One's `filename` when it keeps one, else its file's name
/// in the archive (`<md5>.jpeg`).
fn file_name(media: &Value, path: &str) -> String {
    media
        .get("filename")
        .and_then(Value::as_str)
        .map(|n| n.rsplit(['/', '\\']).next().unwrap_or(n).trim())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path))
        .to_owned()
}

/// An id for a medium from what names it in the export, the same each time it is read.
fn media_id(md5: &str, identifier: Option<&str>) -> AttachmentId {
    AttachmentId::derived(&[
        b"day-one-media:",
        md5.to_ascii_lowercase().as_bytes(),
        b":",
        identifier.unwrap_or_default().as_bytes(),
    ])
}

/// Puts `link` where the text shows the medium (`![](dayone-moment://ID)`, or
/// `dayone-moment:/audio/ID` and the like), or after the text when it does not.
fn place_link(text: &mut String, identifier: Option<&str>, link: &str) {
    const START: &str = "![](dayone-moment:";
    if let Some(identifier) = identifier {
        let mut from = 0;
        while let Some(at) = text[from..].find(START).map(|a| from + a) {
            let Some(end) = text[at..].find(')').map(|e| at + e) else {
                break;
            };
            let target = &text[at + START.len()..end];
            if target.rsplit('/').next() == Some(identifier) {
                text.replace_range(at..=end, link);
                return;
            }
            from = end;
        }
    }
    text.push_str("\n\n");
    text.push_str(link);
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn archive(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            zip.start_file(*name, options).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn journals_at_the_top_are_read_and_media_left_packed() {
        let journal = br#"{"entries":[{"creationDate":"2023-07-01T08:00:00Z","text":"Hi"}]}"#;
        let bytes = archive(&[
            ("Journal.json", journal),
            ("Travel.json", journal),
            ("photos/a.json", b"not read"),
        ]);
        let read = read_zip(&bytes, "x.zip").unwrap();
        assert_eq!(read.items.len(), 2);
    }

    #[test]
    fn a_zip_bomb_stops_at_the_bound_not_in_memory() {
        // 4 MiB of spaces compress to a few kilobytes.
        let mut json = b"{\"entries\": []".to_vec();
        json.extend(std::iter::repeat_n(b' ', 4 << 20));
        json.push(b'}');
        let bytes = archive(&[("Journal.json", &json)]);
        assert!(bytes.len() < 64 << 10, "{}", bytes.len());
        let err = read_zip_within(&bytes, "bomb.zip", 1 << 20).unwrap_err();
        assert!(err.message.contains("once unpacked"), "{}", err.message);
        assert!(read_zip_within(&bytes, "bomb.zip", 8 << 20).is_ok());
    }

    #[test]
    fn not_a_zip_or_no_journal_is_said_so() {
        assert!(
            read_zip(b"PK nothing", "x.zip")
                .unwrap_err()
                .message
                .contains("not a .zip")
        );
        let only_photos = archive(&[("photos/a.jpeg", b"\xff\xd8")]);
        assert!(
            read_zip(&only_photos, "x.zip")
                .unwrap_err()
                .message
                .contains("no journal")
        );
    }

    #[test]
    fn journals_together_hold_at_most_what_one_import_takes() {
        let half = MAX_FILE_ENTRIES / 2 + 1;
        let entry = r#"{"creationDate":"2023-07-01T08:00:00Z","text":"Hi"}"#;
        let journal = format!("{{\"entries\":[{}]}}", vec![entry; half].join(","));
        let one = archive(&[("Journal.json", journal.as_bytes())]);
        assert_eq!(read_zip(&one, "x.zip").unwrap().items.len(), half);
        let two = archive(&[
            ("Journal.json", journal.as_bytes()),
            ("Travel.json", journal.as_bytes()),
        ]);
        let err = read_zip(&two, "x.zip").unwrap_err().message;
        assert!(err.contains("more than 100000 entries together"), "{err}");
    }
}
