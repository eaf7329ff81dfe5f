//! Day One's `.zip` export: its journals' JSON (read as Day One's JSON by `json.rs`)
//! within bounds, its media left packed.

use std::io::Read;

use super::{Imported, invalid};
use crate::domain::Zone;
use crate::error::ValidationError;

/// The most a `.zip`'s JSON files may hold once unpacked, together: a journal of
/// 100,000 entries of 1 KB each, and room to spare. A zip bomb stops here, not in
/// memory. (The archive's photos are not unpacked at all.)
pub const MAX_UNPACKED_JSON: u64 = 256 * 1024 * 1024;

/// The most files an archive may list; Day One writes one per photo.
pub const MAX_ZIP_FILES: usize = 200_000;

/// Day One's `.zip` export: every JSON file at its top (one per journal,
/// `Journal.json` by default), read as Day One's JSON; the media beside them are left
/// out, and counted from the entries.
pub fn read_zip(bytes: &[u8], source: &str) -> Result<Imported, ValidationError> {
    read_zip_within(bytes, source, MAX_UNPACKED_JSON)
}

/// [`read_zip`] with at most `max_json` bytes of JSON unpacked.
fn read_zip_within(bytes: &[u8], source: &str, max_json: u64) -> Result<Imported, ValidationError> {
    let not_zip = |e: zip::result::ZipError| {
        invalid(format!(
            "{source} is not a .zip archive Day One wrote ({e}); export from Day One with File → Export → JSON"
        ))
    };
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(not_zip)?;
    if archive.len() > MAX_ZIP_FILES {
        return Err(invalid(format!(
            "{source} lists {} files; at most {MAX_ZIP_FILES} are read",
            archive.len()
        )));
    }
    let mut imported = Imported::default();
    let mut budget = max_json;
    let mut journals = 0;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(not_zip)?;
        let name = file.name().map_err(not_zip)?.into_owned();
        // Journals are at the top; media are in folders (photos/, videos/, …).
        if name.contains('/') || !name.to_ascii_lowercase().ends_with(".json") {
            continue;
        }
        journals += 1;
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
        let one = super::json::read(&text, &format!("{source}: {name}"), &Zone::default())?;
        imported.items.extend(one.items);
        imported.notes.extend(one.notes);
    }
    if journals == 0 {
        return Err(invalid(format!(
            "{source} holds no journal (a .json file at its top, such as Journal.json)"
        )));
    }
    Ok(imported)
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
}
