//! Day One's JSON export (`Journal.json` in the export's zip):
//! `{"metadata": …, "entries": [{"uuid", "creationDate", "modifiedDate", "text", "tags",
//! "starred", "photos": […], "videos", "audios", "pdfAttachments", …}]}`. The text,
//! dates, tags and star are kept; media are left out (counted), and so are their
//! places in the text (`![](dayone-moment://…)`).

use std::io::Read;

use serde_json::{Map, Value};

use super::fields::{bool_field, date_field, text_field, text_list_field};
use super::{Imported, ImportedEntry, fit_title, invalid, validate};
use crate::api::CreateEntryRequest;
use crate::domain::{Timestamp, Zone};
use crate::error::ValidationError;

/// The most a `.zip`'s JSON files may hold once unpacked, together: a journal of
/// 100,000 entries of 1 KB each, and room to spare. A zip bomb stops here, not in
/// memory. (The archive's photos are not unpacked at all.)
pub const MAX_UNPACKED_JSON: u64 = 256 * 1024 * 1024;

/// The most files an archive may list; Day One writes one per photo.
pub const MAX_ZIP_FILES: usize = 200_000;

/// The format's name in messages.
pub const NAME: &str = "Day One export";

/// The fields of an entry that hold media.
const MEDIA: [&str; 4] = ["photos", "videos", "audios", "pdfAttachments"];

/// One Day One entry, converted.
pub(crate) struct Converted {
    pub entry: ImportedEntry,
    /// Tags that could not be kept.
    pub dropped_tags: Vec<String>,
    /// Media files left out.
    pub media: u64,
}

/// Day One's text without its media links, and without the backslashes its editor
/// puts before punctuation that means nothing in Markdown there (`Hello\.`), so the
/// text reads as it was typed.
fn clean_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("![](dayone-moment:") {
        out.push_str(&rest[..at]);
        rest = match rest[at..].find(')') {
            Some(end) => &rest[at + end + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    let mut cleaned = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| ".!()[]-+".contains(*n)) {
            continue;
        }
        cleaned.push(c);
    }
    // Removing a media link leaves the blank lines around it.
    let mut text = String::new();
    let mut blank_run = 0;
    for line in cleaned.lines() {
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.trim().to_owned()
}

fn date(map: &Map<String, Value>, name: &str) -> Result<Option<Timestamp>, String> {
    date_field(map, name)
}

pub(crate) fn entry(map: &Map<String, Value>) -> Result<Converted, String> {
    let created = date(map, "creationDate")?.ok_or("field \"creationDate\" is missing")?;
    let text = clean_text(&text_field(map, "text")?.unwrap_or_default());
    let (title, body) = fit_title("", &text);
    let raw_tags = text_list_field(map, "tags")?.unwrap_or_default();
    let (tags, dropped_tags) = super::tags::lenient(&raw_tags);
    let media = MEDIA
        .iter()
        .filter_map(|field| map.get(*field).and_then(Value::as_array))
        .map(|list| list.len() as u64)
        .sum();
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(body),
        is_public: Some(false),
        tags: Some(tags),
        starred: bool_field(map, "starred")?,
        // What this format does not carry is left as a new entry's default.
        ..Default::default()
    };
    validate(&request, "text")?;
    Ok(Converted {
        entry: ImportedEntry {
            id: None,
            request,
            created_at: created,
            updated_at: date(map, "modifiedDate")?.filter(|m| *m >= created),
            author_name: None,
        },
        dropped_tags,
        media,
    })
}

/// Day One's `.zip` export: every JSON file at its top (one per journal,
/// `Journal.json` by default), read as Day One's JSON; the media beside them are left
/// out, and counted from the entries.
pub fn read_zip(bytes: &[u8], source: &str) -> Result<Imported, ValidationError> {
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
    let mut budget = MAX_UNPACKED_JSON;
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
                MAX_UNPACKED_JSON / (1024 * 1024)
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
    use super::*;

    #[test]
    fn media_links_and_needless_escapes_are_taken_out() {
        let text = "# Trip\\.\n\n![](dayone-moment://ABC123)\n\nWe swam\\! (cold)\n\n![](dayone-moment:/video/DEF)\n\nEnd\\.";
        assert_eq!(clean_text(text), "# Trip.\n\nWe swam! (cold)\n\nEnd.");
    }

    #[test]
    fn an_entry_takes_its_title_from_the_first_line() {
        let value: Value = serde_json::from_str(
            r##"{"uuid":"A","creationDate":"2023-07-01T08:00:00Z","text":"# Beach day\n\nSun.",
                "tags":["Summer trip","beach"],"starred":true,"photos":[{},{}],"videos":[{}]}"##,
        )
        .unwrap();
        let converted = entry(value.as_object().unwrap()).unwrap();
        let r = &converted.entry.request;
        assert_eq!(r.title.as_deref(), Some("Beach day"));
        assert_eq!(r.content.as_deref(), Some("Sun."));
        assert_eq!(
            r.tags.as_deref(),
            Some(&["beach".to_owned(), "summer-trip".to_owned()][..])
        );
        assert_eq!(r.starred, Some(true));
        assert_eq!(converted.media, 3);
        assert_eq!(
            converted.entry.created_at.to_string(),
            "2023-07-01T08:00:00.000Z"
        );
    }
}
