//! JSON: Journal's export (lossless: every field of every entry, with its id), and
//! the JSON of jrnl and Day One, told apart entry by entry by the fields only each has.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::fields::{bool_field, date_field, kind, text_field, text_list_field};
use super::json_stream::{List, StreamError, read_entries};
use super::{DroppedTags, Imported, ImportedEntry, count, day_one, invalid, jrnl, validate};
use crate::api::{CreateEntryRequest, ImportRevisionRequest};
use crate::domain::{Timestamp, Zone};
use crate::error::ValidationError;
use crate::model::{Entry, Revision, TrashedEntry};

/// The name in our export's `format` field.
pub const FORMAT_NAME: &str = "journal-export";

/// The export's version: 2 added each entry's `revisions` and the `trash` (version 1
/// had neither); 3 added each entry's `attachments`. All read the same.
pub const VERSION: u32 = 3;

/// One attachment of an exported entry: what the zip export needs to store its file
/// again (the file itself is `attachments/ID` in the archive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedAttachment {
    /// Its id, which `attachment:ID` links in the entry's text name.
    pub id: String,
    /// The file's name as uploaded.
    pub name: String,
    /// Its type, as its bytes say.
    #[serde(rename = "contentType")]
    pub content_type: String,
    /// Bytes stored.
    pub size: u64,
    /// SHA-256 of the stored bytes, lower-case hex.
    pub sha256: String,
    /// When it was uploaded.
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
}

impl From<&crate::model::Attachment> for ExportedAttachment {
    fn from(a: &crate::model::Attachment) -> ExportedAttachment {
        ExportedAttachment {
            id: a.id.to_string(),
            name: a.name.clone(),
            content_type: a.content_type.clone(),
            size: a.size,
            sha256: a.sha256.clone(),
            created_at: a.created_at,
        }
    }
}

/// One entry of our export: the entry in its wire shape, with its history (oldest
/// first, the last revision the entry as it is) and, in the trash, when it was deleted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedEntry {
    /// The entry.
    #[serde(flatten)]
    pub entry: Entry,
    /// When it was deleted (entries of the trash only).
    #[serde(rename = "deletedAt", default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<Timestamp>,
    /// Its revisions, oldest first; left out of an export without history.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<Revision>,
    /// Its attachments, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<ExportedAttachment>,
}

impl From<Entry> for ExportedEntry {
    /// The entry alone, without history.
    fn from(entry: Entry) -> ExportedEntry {
        ExportedEntry {
            entry,
            deleted_at: None,
            revisions: Vec::new(),
            attachments: Vec::new(),
        }
    }
}

impl From<TrashedEntry> for ExportedEntry {
    /// An entry of the trash, without history.
    fn from(t: TrashedEntry) -> ExportedEntry {
        ExportedEntry {
            entry: t.entry,
            deleted_at: Some(t.deleted_at),
            revisions: Vec::new(),
            attachments: Vec::new(),
        }
    }
}

/// Our JSON export: every entry in its wire shape, and with history, each entry's
/// revisions and the trash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportDocument {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// When the export was made.
    #[serde(rename = "exportedAt")]
    pub exported_at: Timestamp,
    /// The entries, newest first.
    pub entries: Vec<ExportedEntry>,
    /// The trash, newest deletion first; left out of an export without history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trash: Option<Vec<ExportedEntry>>,
}

impl ExportDocument {
    /// An export made now.
    pub fn new(entries: Vec<ExportedEntry>, trash: Option<Vec<ExportedEntry>>) -> ExportDocument {
        ExportDocument {
            format: FORMAT_NAME.to_owned(),
            version: VERSION,
            exported_at: Timestamp::now(),
            entries,
            trash,
        }
    }

    /// The export as the file holds it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }
}

/// The entries, without history, as our JSON export made now.
pub fn export(entries: &[Entry]) -> String {
    let entries = entries.iter().cloned().map(ExportedEntry::from).collect();
    ExportDocument::new(entries, None).to_json()
}

/// What the JSON formats look like, for error messages.
const EXPECTED: &str = "expected a journal export ({\"format\": \"journal-export\", \"entries\": [...]}, or a list of entries), a jrnl export (jrnl --format json: {\"entries\": [{\"title\", \"body\", \"date\", \"time\"}]}) or a Day One export (Journal.json: {\"entries\": [{\"creationDate\", \"text\"}]})";

const OURS: &str = "journal export";

fn our_entry(map: &Map<String, Value>) -> Result<ImportedEntry, String> {
    let date = |name: &str| date_field(map, name);
    let request = CreateEntryRequest {
        title: text_field(map, "title")?,
        content: text_field(map, "content")?,
        is_public: bool_field(map, "isPublic")?,
        tags: text_list_field(map, "tags")?,
        starred: bool_field(map, "starred")?,
        date: text_field(map, "date")?,
    };
    validate(&request, "content")?;
    let revisions = match map.get("revisions") {
        None | Some(Value::Null) => Vec::new(),
        Some(list @ Value::Array(_)) => {
            let revisions = Vec::<ImportRevisionRequest>::deserialize(list).map_err(|e| {
                format!(
                    "field \"revisions\" is not a list of revisions as an export writes them: {e}"
                )
            })?;
            // What the import requires of each, checked as the file is read: a list of
            // empty objects (`{}`, 3 bytes, 200 in memory) would otherwise be held
            // whole before the import refused it.
            for (k, r) in revisions.iter().enumerate() {
                let missing = [
                    ("revisionId", r.revision_id.is_none()),
                    ("revision", r.revision.is_none()),
                    ("editedAt", r.edited_at.is_none()),
                ];
                if let Some((field, _)) = missing.iter().find(|(_, gone)| *gone) {
                    return Err(format!("revision {}: {field}: is required", k + 1));
                }
            }
            revisions
        }
        Some(other) => {
            return Err(format!(
                "field \"revisions\" must be a list, found {}",
                kind(other)
            ));
        }
    };
    Ok(ImportedEntry {
        id: text_field(map, "_id")?,
        created_at: date("createdAt")?.unwrap_or_else(Timestamp::now),
        updated_at: date("updatedAt")?,
        author_name: text_field(map, "author_name")?,
        request,
        revisions,
        deleted_at: None,
    })
}

/// An entry of our export's trash: one of ours, with when it was deleted.
fn trashed_entry(map: &Map<String, Value>) -> Result<ImportedEntry, String> {
    let deleted_at = date_field(map, "deletedAt")?.ok_or_else(|| {
        "field \"deletedAt\" is missing: the trash holds deleted entries".to_owned()
    })?;
    Ok(ImportedEntry {
        deleted_at: Some(deleted_at),
        ..our_entry(map)?
    })
}

/// The JSON formats an entry can be in.
enum Format {
    Ours,
    Jrnl,
    DayOne,
}

impl Format {
    /// Which format an entry is in, by the fields only that format has.
    fn of(map: &Map<String, Value>) -> Format {
        if map.contains_key("creationDate") {
            Format::DayOne
        } else if !map.contains_key("content")
            && (map.contains_key("body") || map.contains_key("date"))
        {
            Format::Jrnl
        } else {
            Format::Ours
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Format::Ours => OURS,
            Format::Jrnl => jrnl::NAME,
            Format::DayOne => day_one::NAME,
        }
    }
}

/// Parses a JSON file to import: our export (or any `{"entries": [...]}` / `[...]` of our
/// entries), jrnl's JSON export or Day One's. Errors say which format was expected,
/// which entry (counting from 1) and which field is wrong.
/// Dates without a zone (jrnl's) are in `zone`.
pub fn read(text: &str, source: &str, zone: &Zone) -> Result<Imported, ValidationError> {
    read_with(text, source, zone, |_, _, _| Ok(())).map(|(imported, _)| imported)
}

/// [`read`], one entry at a time (`json_stream.rs`): `each` is shown every entry as
/// parsed, with its list and its place among the entries read (the trash's too), before
/// it is read, to take from it what else it holds (an archive's attachments). Also
/// gives the document's `format`.
pub(crate) fn read_with(
    text: &str,
    source: &str,
    zone: &Zone,
    mut each: impl FnMut(List, usize, &mut Map<String, Value>) -> Result<(), ValidationError>,
) -> Result<(Imported, Option<String>), ValidationError> {
    let mut imported = Imported::default();
    let mut dropped_tags = DroppedTags::default();
    let mut media = 0;
    // Counted apart, for messages: "entry 3", "trash entry 1".
    let (mut live, mut trashed) = (0, 0);
    let read = read_entries(text, |list, at, value| {
        let (n, label) = match list {
            List::Entries => {
                live += 1;
                (live, "entry")
            }
            List::Trash => {
                trashed += 1;
                (trashed, "trash entry")
            }
        };
        let fail =
            |format: &str, m: String| invalid(format!("{source}: {label} {n} ({format}): {m}"));
        let Value::Object(mut map) = value else {
            return Err(fail(
                "any format",
                format!("expected an object, found {}", kind(&value)),
            ));
        };
        each(list, at, &mut map)?;
        let (format, converted) = match list {
            List::Trash => (OURS, trashed_entry(&map)),
            List::Entries => {
                let format = Format::of(&map);
                let converted = match format {
                    Format::Ours => our_entry(&map),
                    Format::Jrnl => jrnl::entry(&map, zone).map(|(entry, dropped)| {
                        dropped_tags.add(dropped);
                        entry
                    }),
                    Format::DayOne => day_one::entry(&map).map(|e| {
                        dropped_tags.add(e.dropped_tags);
                        media += e.media;
                        e.entry
                    }),
                };
                (format.name(), converted)
            }
        };
        imported.items.push(converted.map_err(|m| fail(format, m))?);
        Ok(())
    });
    let header = read.map_err(|e| match e {
        StreamError::Entry(e) => e,
        StreamError::Shape(m) => invalid(format!("{source}: {m}; {EXPECTED}")),
        StreamError::Bound(m) => invalid(format!("{source}: {m}")),
        StreamError::Json(e) => {
            let problem = if text.trim().is_empty() {
                "it is empty".to_owned()
            } else if e.is_eof() {
                "it ends too soon".to_owned()
            } else {
                format!("at line {}, column {}", e.line(), e.column())
            };
            invalid(format!(
                "{source} is not valid JSON ({problem}); {EXPECTED}"
            ))
        }
    })?;
    imported.notes.extend(dropped_tags.note());
    if media > 0 {
        imported.notes.push(format!(
            "left out {} (videos are not imported; photos, audio and PDFs are, from Day One's .zip export)",
            count(media, "media file", "media files")
        ));
    }
    Ok((imported, header.format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_entries_keep_tags_starred_and_date() {
        let text = r#"{"entries":[{"_id":"x","title":"T","content":"c","isPublic":true,
            "tags":["a","b"],"starred":true,"date":"2020-01-02T03:04:05.678Z",
            "createdAt":"2024-01-01T00:00:00.000Z"}]}"#;
        let imported = read(text, "f", &Zone::default()).unwrap();
        let r = &imported.items[0].request;
        assert_eq!(
            r.tags.as_deref(),
            Some(&["a".to_owned(), "b".to_owned()][..])
        );
        assert_eq!(r.starred, Some(true));
        assert_eq!(r.date.as_deref(), Some("2020-01-02T03:04:05.678Z"));
        assert_eq!(imported.items[0].id.as_deref(), Some("x"));
    }

    #[test]
    fn a_bad_tag_in_our_format_names_the_entry_and_field() {
        let text = r#"[{"title":"T","content":"c","tags":["two words"]}]"#;
        let err = read(text, "f", &Zone::default()).unwrap_err().message;
        assert!(err.contains("entry 1 (journal export)"), "{err}");
        assert!(err.contains("\"tags\""), "{err}");
    }

    #[test]
    fn our_export_gives_revisions_and_the_trash_and_says_what_is_wrong_with_them() {
        let text = r#"{"format":"journal-export","version":2,"entries":[{"title":"T",
            "content":"c","revisions":[{"revisionId":"01900000-0000-7000-8000-000000000001",
            "revision":1,"title":"T","content":"c","editedAt":"2024-01-01T00:00:00.000Z"}]}],
            "trash":[{"title":"Gone","deletedAt":"2024-02-01T00:00:00.000Z"}]}"#;
        let imported = read(text, "f", &Zone::default()).unwrap();
        assert_eq!(imported.items.len(), 2);
        assert_eq!(imported.items[0].revisions.len(), 1);
        assert_eq!(imported.items[0].deleted_at, None);
        assert!(imported.items[1].deleted_at.is_some());

        let no_date = r#"{"entries":[],"trash":[{"title":"Gone"}]}"#;
        let err = read(no_date, "f", &Zone::default()).unwrap_err().message;
        assert!(
            err.contains("trash entry 1") && err.contains("deletedAt"),
            "{err}"
        );
        let empty = r#"[{"title":"T","revisions":[{"revisionId":"01900000-0000-7000-8000-000000000001",
            "revision":1,"editedAt":"2024-01-01T00:00:00.000Z"},{}]}]"#;
        let err = read(empty, "f", &Zone::default()).unwrap_err().message;
        assert!(
            err.ends_with("revision 2: revisionId: is required"),
            "{err}"
        );
        let not_a_list = r#"[{"title":"T","revisions":{"revision":1}}]"#;
        let err = read(not_a_list, "f", &Zone::default()).unwrap_err().message;
        assert!(err.contains("\"revisions\" must be a list"), "{err}");
    }
}
