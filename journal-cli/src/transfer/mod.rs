//! Export and import formats: our own JSON (lossless), Markdown (for reading), and
//! jrnl's `jrnl --format json` export.

use chrono::{Local, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use journal_core::api::CreateEntryRequest;
use journal_core::domain::TITLE_MAX_CHARS;
use journal_core::input::NewEntry;
use journal_core::{Entry, ImportedEntry, Timestamp};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{CliError, Result};
use crate::output::local_time;

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

/// The entries as Markdown, one section each.
pub fn markdown(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format!(
            "## {}\n\n*{}* · {} · id {}\n\n",
            e.title,
            local_time(&e.created_at),
            if e.is_public { "public" } else { "private" },
            e.id
        ));
        if !e.content.trim().is_empty() {
            out.push_str(e.content.trim_end());
            out.push_str("\n\n");
        }
    }
    out
}

/// One entry read from a file to import, with the id it had there (if any).
pub struct ImportItem {
    /// The `_id` in the file (our export has one).
    pub id: Option<String>,
    /// The entry to create.
    pub entry: ImportedEntry,
}

/// What the two formats look like, for error messages.
const EXPECTED: &str = "expected a journal export ({\"format\": \"journal-export\", \"entries\": [...]}, or a list of entries) or a jrnl export (jrnl --format json: {\"entries\": [{\"title\", \"body\", \"date\", \"time\"}]})";

const OURS: &str = "journal export";
const JRNL: &str = "jrnl export";

/// A JSON value's kind, in words.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn text_field(map: &Map<String, Value>, name: &str) -> std::result::Result<Option<String>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "field \"{name}\" must be text, found {}",
            kind(other)
        )),
    }
}

fn bool_field(map: &Map<String, Value>, name: &str) -> std::result::Result<Option<bool>, String> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(format!(
            "field \"{name}\" must be true or false, found {}",
            kind(other)
        )),
    }
}

fn jrnl_time(date: &str, time: Option<&str>) -> std::result::Result<Timestamp, String> {
    let day = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
        .map_err(|_| format!("field \"date\": {date:?} is not YYYY-MM-DD"))?;
    let clock = match time.map(str::trim).filter(|t| !t.is_empty()) {
        None => NaiveTime::MIN,
        Some(t) => NaiveTime::parse_from_str(t, "%H:%M")
            .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M:%S"))
            .map_err(|_| format!("field \"time\": {t:?} is not HH:MM"))?,
    };
    let local = NaiveDateTime::new(day, clock);
    // A time skipped by a DST change takes the next valid instant; an ambiguous one the
    // earlier.
    let instant = Local
        .from_local_datetime(&local)
        .earliest()
        .or_else(|| {
            Local
                .from_local_datetime(&(local + chrono::Duration::hours(1)))
                .earliest()
        })
        .ok_or_else(|| {
            format!(
                "fields \"date\" and \"time\": {date} {clock} does not exist in the local time zone"
            )
        })?;
    Ok(Timestamp::from_millis(instant.timestamp_millis()))
}

/// Checks an entry as the journal will, naming the field as the file does.
fn validate(request: &CreateEntryRequest, body_name: &str) -> std::result::Result<(), String> {
    NewEntry::try_from(request).map(|_| ()).map_err(|e| {
        let field = if e.field == "content" {
            body_name
        } else {
            e.field
        };
        format!("field \"{field}\" {}", e.message)
    })
}

fn jrnl_entry(map: &Map<String, Value>) -> std::result::Result<ImportedEntry, String> {
    let date = text_field(map, "date")?.ok_or("field \"date\" is missing")?;
    let created = jrnl_time(&date, text_field(map, "time")?.as_deref())?;
    let mut title = text_field(map, "title")?
        .unwrap_or_default()
        .trim()
        .to_owned();
    let mut body = text_field(map, "body")?
        .unwrap_or_default()
        .trim()
        .to_owned();
    if title.is_empty() {
        let (first, rest) = crate::text::split_title(&body);
        if first.is_empty() {
            title = "Untitled".into();
        } else if first.chars().count() > TITLE_MAX_CHARS {
            title = crate::text::short_title(&first);
        } else {
            title = first;
            body = rest;
        }
    } else if title.chars().count() > TITLE_MAX_CHARS {
        body = format!("{title}\n\n{body}").trim().to_owned();
        title = crate::text::short_title(&title);
    }
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(body),
        is_public: Some(false),
        ..Default::default()
    };
    validate(&request, "body")?;
    Ok(ImportedEntry {
        request,
        created_at: created,
        updated_at: None,
        author_name: None,
    })
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
        ..Default::default()
    };
    validate(&request, "content")?;
    Ok(ImportedEntry {
        created_at: date("createdAt")?.unwrap_or_else(Timestamp::now),
        updated_at: date("updatedAt")?,
        author_name: text_field(map, "author_name")?,
        request,
    })
}

/// Parses a file to import: our export (or any `{"entries": [...]}` / `[...]` of our
/// entries) or jrnl's JSON export. Errors say which format was expected, which entry
/// (counting from 1) and which field is wrong.
pub fn parse_import(text: &str, source: &str) -> Result<Vec<ImportItem>> {
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
    entries
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let fail = |format: &str, m: String| {
                CliError::Invalid(format!("{source}: entry {} ({format}): {m}", i + 1))
            };
            let Value::Object(map) = v else {
                return Err(fail(
                    "any format",
                    format!("expected an object, found {}", kind(v)),
                ));
            };
            let is_jrnl = !map.contains_key("content")
                && (map.contains_key("body") || map.contains_key("date"));
            let (format, converted) = if is_jrnl {
                (JRNL, jrnl_entry(map))
            } else {
                (OURS, our_entry(map))
            };
            let entry = converted.map_err(|m| fail(format, m))?;
            let id = text_field(map, "_id").map_err(|m| fail(format, m))?;
            Ok(ImportItem { id, entry })
        })
        .collect()
}
