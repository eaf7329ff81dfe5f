//! Export and import formats: our own JSON (lossless), Markdown (for reading), and
//! jrnl's `jrnl --format json` export.

use chrono::{Local, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use journal_core::api::CreateEntryRequest;
use journal_core::{Entry, ImportedEntry, Timestamp};
use serde::{Deserialize, Serialize};

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

/// One entry of a file to import, in either format.
#[derive(Deserialize)]
struct AnyEntry {
    #[serde(default)]
    title: Option<String>,
    // ours
    #[serde(default)]
    content: Option<String>,
    #[serde(rename = "isPublic", default)]
    is_public: Option<bool>,
    #[serde(rename = "createdAt", default)]
    created_at: Option<String>,
    #[serde(rename = "updatedAt", default)]
    updated_at: Option<String>,
    #[serde(default)]
    author_name: Option<String>,
    // jrnl
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    time: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ImportFile {
    Object { entries: Vec<AnyEntry> },
    List(Vec<AnyEntry>),
}

fn jrnl_time(date: &str, time: Option<&str>) -> std::result::Result<Timestamp, String> {
    let day = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
        .map_err(|_| format!("date {date:?} is not YYYY-MM-DD"))?;
    let clock = match time.map(str::trim).filter(|t| !t.is_empty()) {
        None => NaiveTime::MIN,
        Some(t) => NaiveTime::parse_from_str(t, "%H:%M")
            .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M:%S"))
            .map_err(|_| format!("time {t:?} is not HH:MM"))?,
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
        .ok_or_else(|| format!("{date} {} does not exist in the local time zone", clock))?;
    Ok(Timestamp::from_millis(instant.timestamp_millis()))
}

fn convert(e: AnyEntry) -> std::result::Result<ImportedEntry, String> {
    let is_jrnl = e.content.is_none() && (e.body.is_some() || e.date.is_some());
    if is_jrnl {
        let date = e.date.as_deref().ok_or("a jrnl entry needs a date")?;
        let created = jrnl_time(date, e.time.as_deref())?;
        let mut title = e.title.unwrap_or_default().trim().to_owned();
        let mut body = e.body.unwrap_or_default().trim().to_owned();
        if title.is_empty() {
            let (first, rest) = crate::text::split_title(&body);
            if first.is_empty() {
                title = "Untitled".into();
            } else if first.chars().count() > 200 {
                title = crate::text::short_title(&first);
            } else {
                title = first;
                body = rest;
            }
        } else if title.chars().count() > 200 {
            body = format!("{title}\n\n{body}").trim().to_owned();
            title = crate::text::short_title(&title);
        }
        return Ok(ImportedEntry {
            request: CreateEntryRequest {
                title: Some(title),
                content: Some(body),
                is_public: Some(false),
            },
            created_at: created,
            updated_at: None,
            author_name: None,
        });
    }
    let created_at = match e.created_at.as_deref() {
        Some(t) => Timestamp::parse(t).map_err(|err| err.message)?,
        None => Timestamp::now(),
    };
    let updated_at = e
        .updated_at
        .as_deref()
        .map(Timestamp::parse)
        .transpose()
        .map_err(|err| err.message)?;
    Ok(ImportedEntry {
        request: CreateEntryRequest {
            title: e.title,
            content: e.content,
            is_public: e.is_public,
        },
        created_at,
        updated_at,
        author_name: e.author_name,
    })
}

/// Parses a file to import: our export (or any `{"entries": [...]}` / `[...]` of our
/// entries) or jrnl's JSON export.
pub fn parse_import(text: &str, source: &str) -> Result<Vec<ImportedEntry>> {
    let file: ImportFile = serde_json::from_str(text).map_err(|e| {
        CliError::Invalid(format!(
            "{source} is neither a journal export nor a jrnl JSON export ({e})"
        ))
    })?;
    let entries = match file {
        ImportFile::Object { entries } | ImportFile::List(entries) => entries,
    };
    entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            convert(e).map_err(|m| CliError::Invalid(format!("{source}: entry {}: {m}", i + 1)))
        })
        .collect()
}
