//! Export and import formats.
//!
//! Export: our own JSON (lossless), Markdown (one file, for reading), a folder of
//! Markdown files with YAML front matter (lossless, for Obsidian-like tools), jrnl's
//! JSON, and jrnl's plain text. Import: our JSON, jrnl's JSON, Day One's JSON, and
//! folders of Markdown files (ours or anyone's).

mod bounded_yaml;
pub mod day_one;
pub mod jrnl;
pub mod markdown;

pub(crate) use crate::when::local_instant;

use journal_core::api::CreateEntryRequest;
use journal_core::domain::TITLE_MAX_CHARS;
use journal_core::input::NewEntry;
use journal_core::{Entry, ImportedEntry, Timestamp};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{CliError, Result};

/// The name in our export's `format` field.
pub const FORMAT_NAME: &str = "journal-export";

/// Our JSON export: every entry in its wire shape.
#[derive(Serialize)]
pub struct Export<'a> {
    /// Always [`FORMAT_NAME`].
    pub format: &'static str,
    /// Format version.
    pub version: u32,
    /// When the export was made.
    #[serde(rename = "exportedAt")]
    pub exported_at: Timestamp,
    /// The entries, newest first.
    pub entries: &'a [Entry],
}

/// One entry read from a file to import, with the id it had there (if any).
#[derive(Debug)]
pub struct ImportItem {
    /// The `_id` in the file (our exports have one).
    pub id: Option<String>,
    /// The entry to create.
    pub entry: ImportedEntry,
}

/// What a file to import holds: the entries, and what was left out of them on the way
/// (media, tags that are not tags here), to tell the user.
#[derive(Debug, Default)]
pub struct Imported {
    /// The entries, in the file's order.
    pub items: Vec<ImportItem>,
    /// One sentence per kind of thing left out.
    pub notes: Vec<String>,
}

/// What the JSON formats look like, for error messages.
const EXPECTED: &str = "expected a journal export ({\"format\": \"journal-export\", \"entries\": [...]}, or a list of entries), a jrnl export (jrnl --format json: {\"entries\": [{\"title\", \"body\", \"date\", \"time\"}]}) or a Day One export (Journal.json: {\"entries\": [{\"creationDate\", \"text\"}]})";

const OURS: &str = "journal export";

/// A JSON value's kind, in words.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn text_field(
    map: &Map<String, Value>,
    name: &str,
) -> std::result::Result<Option<String>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "field \"{name}\" must be text, found {}",
            kind(other)
        )),
    }
}

pub(crate) fn bool_field(
    map: &Map<String, Value>,
    name: &str,
) -> std::result::Result<Option<bool>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!(
            "field \"{name}\" must be true or false, found {}",
            kind(other)
        )),
    }
}

/// A list of texts (tags), or nothing.
pub(crate) fn text_list_field(
    map: &Map<String, Value>,
    name: &str,
) -> std::result::Result<Option<Vec<String>>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "field \"{name}\" must be a list of texts, found {} in it",
                    kind(other)
                )),
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "field \"{name}\" must be a list of texts, found {}",
            kind(other)
        )),
    }
}

/// A title and body from another app, made to fit: an empty title becomes the body's
/// first line (or "Untitled"), a title too long for one is shortened and kept whole at
/// the top of the body.
pub(crate) fn fit_title(title: &str, body: &str) -> (String, String) {
    let (title, body) = (title.trim(), body.trim());
    if title.is_empty() {
        let (first, rest) = crate::text::split_title(body);
        if first.is_empty() {
            ("Untitled".into(), body.to_owned())
        } else if first.chars().count() > TITLE_MAX_CHARS {
            (crate::text::short_title(&first), body.to_owned())
        } else {
            (first, rest)
        }
    } else if title.chars().count() > TITLE_MAX_CHARS {
        (
            crate::text::short_title(title),
            format!("{title}\n\n{body}").trim().to_owned(),
        )
    } else {
        (title.to_owned(), body.to_owned())
    }
}

/// Checks an entry as the journal will, naming the field as the file does.
pub(crate) fn validate(
    request: &CreateEntryRequest,
    body_name: &str,
) -> std::result::Result<(), String> {
    NewEntry::try_from(request).map(|_| ()).map_err(|e| {
        let field = if e.field == "content" {
            body_name
        } else {
            e.field
        };
        format!("field \"{field}\" {}", e.message)
    })
}

/// A note on tags left out, or nothing when none was.
pub(crate) fn dropped_tags_note(dropped: &[String]) -> Option<String> {
    if dropped.is_empty() {
        return None;
    }
    let mut unique: Vec<&str> = dropped.iter().map(String::as_str).collect();
    unique.sort_unstable();
    unique.dedup();
    let shown: Vec<String> = unique.iter().take(10).map(|t| format!("{t:?}")).collect();
    Some(format!(
        "left out {} that {} not fit here (tags are 1 to 50 letters, digits, - and _; at most 20 an entry): {}{}",
        crate::output::count(dropped.len() as u64, "tag", "tags"),
        if dropped.len() == 1 { "does" } else { "do" },
        shown.join(", "),
        if unique.len() > 10 { ", …" } else { "" }
    ))
}

fn our_entry(map: &Map<String, Value>) -> std::result::Result<ImportedEntry, String> {
    let date = |name: &str| -> std::result::Result<Option<Timestamp>, String> {
        text_field(map, name)?
            .map(|t| Timestamp::parse(&t).map_err(|e| format!("field \"{name}\": {}", e.message)))
            .transpose()
    };
    let request = CreateEntryRequest {
        title: text_field(map, "title")?,
        content: text_field(map, "content")?,
        is_public: bool_field(map, "isPublic")?,
        tags: text_list_field(map, "tags")?,
        starred: bool_field(map, "starred")?,
        date: text_field(map, "date")?,
    };
    validate(&request, "content")?;
    Ok(ImportedEntry {
        id: text_field(map, "_id")?,
        created_at: date("createdAt")?.unwrap_or_else(Timestamp::now),
        updated_at: date("updatedAt")?,
        author_name: text_field(map, "author_name")?,
        request,
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
pub fn parse_import(text: &str, source: &str) -> Result<Imported> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let problem = if text.trim().is_empty() {
            "it is empty".to_owned()
        } else if e.is_eof() {
            "it ends too soon".to_owned()
        } else {
            format!("at line {}, column {}", e.line(), e.column())
        };
        CliError::Invalid(format!(
            "{source} is not valid JSON ({problem}); {EXPECTED}"
        ))
    })?;
    let entries = match &value {
        Value::Array(list) => list,
        Value::Object(map) => match map.get("entries") {
            Some(Value::Array(list)) => list,
            Some(other) => {
                return Err(CliError::Invalid(format!(
                    "{source}: field \"entries\" must be a list, found {}; {EXPECTED}",
                    kind(other)
                )));
            }
            None => {
                return Err(CliError::Invalid(format!(
                    "{source} has no field \"entries\"; {EXPECTED}"
                )));
            }
        },
        other => {
            return Err(CliError::Invalid(format!(
                "{source} holds {}, not entries; {EXPECTED}",
                kind(other)
            )));
        }
    };
    let mut imported = Imported::default();
    let mut dropped_tags = Vec::new();
    let mut media = 0;
    for (i, v) in entries.iter().enumerate() {
        let fail = |format: &str, m: String| {
            CliError::Invalid(format!("{source}: entry {} ({format}): {m}", i + 1))
        };
        let Value::Object(map) = v else {
            return Err(fail(
                "any format",
                format!("expected an object, found {}", kind(v)),
            ));
        };
        let format = Format::of(map);
        let converted = match format {
            Format::Ours => our_entry(map),
            Format::Jrnl => jrnl::entry(map).map(|(entry, dropped)| {
                dropped_tags.extend(dropped);
                entry
            }),
            Format::DayOne => day_one::entry(map).map(|e| {
                dropped_tags.extend(e.dropped_tags);
                media += e.media;
                e.entry
            }),
        };
        let entry = converted.map_err(|m| fail(format.name(), m))?;
        let id = match format {
            Format::Ours => text_field(map, "_id").map_err(|m| fail(format.name(), m))?,
            _ => None,
        };
        imported.items.push(ImportItem { id, entry });
    }
    imported.notes.extend(dropped_tags_note(&dropped_tags));
    if media > 0 {
        imported.notes.push(format!(
            "skipped {} (photos, videos, audio and PDFs are not imported; the text is)",
            crate::output::count(media, "media file", "media files")
        ));
    }
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_or_missing_title_is_made_to_fit() {
        assert_eq!(
            fit_title("", "First line\n\nrest"),
            ("First line".into(), "rest".into())
        );
        assert_eq!(fit_title("  ", ""), ("Untitled".into(), "".into()));
        let long = "word ".repeat(60);
        let (title, body) = fit_title(&long, "body");
        assert!(title.chars().count() <= TITLE_MAX_CHARS);
        assert!(body.starts_with("word word"), "{body}");
        assert!(body.ends_with("body"), "{body}");
    }

    #[test]
    fn our_entries_keep_tags_starred_and_date() {
        let text = r#"{"entries":[{"_id":"x","title":"T","content":"c","isPublic":true,
            "tags":["a","b"],"starred":true,"date":"2020-01-02T03:04:05.678Z",
            "createdAt":"2024-01-01T00:00:00.000Z"}]}"#;
        let imported = parse_import(text, "f").unwrap();
        let r = &imported.items[0].entry.request;
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
        let err = parse_import(text, "f").unwrap_err().to_string();
        assert!(err.contains("entry 1 (journal export)"), "{err}");
        assert!(err.contains("\"tags\""), "{err}");
    }
}
