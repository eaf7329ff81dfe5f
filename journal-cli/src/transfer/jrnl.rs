//! jrnl's formats. Its JSON export (`jrnl --format json`), read and written:
//! `{"tags": {"@tag": n}, "entries": [{"title", "body", "date": "YYYY-MM-DD",
//! "time": "HH:MM", "tags": ["@tag"], "starred"}]}`, dates in local time. And its
//! plain-text journal (`[YYYY-MM-DD HH:MM] Title *` then the body), written: that is
//! what `jrnl --import` reads.

use std::collections::BTreeMap;

use chrono::{Local, NaiveDate, NaiveDateTime, NaiveTime};
use journal_core::api::CreateEntryRequest;
use journal_core::{Entry, ImportedEntry, Timestamp};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{fit_title, local_instant, text_field, validate};

/// The format's name in messages.
pub const NAME: &str = "jrnl export";

/// jrnl's default tag symbol, which its JSON keeps on each tag.
const TAG_SYMBOL: char = '@';

fn jrnl_time(date: &str, time: Option<&str>) -> std::result::Result<Timestamp, String> {
    let day = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
        .map_err(|_| format!("field \"date\": {date:?} is not YYYY-MM-DD"))?;
    let clock = match time.map(str::trim).filter(|t| !t.is_empty()) {
        None => NaiveTime::MIN,
        Some(t) => NaiveTime::parse_from_str(t, "%H:%M")
            .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M:%S"))
            .map_err(|_| format!("field \"time\": {t:?} is not HH:MM"))?,
    };
    local_instant(NaiveDateTime::new(day, clock)).ok_or_else(|| {
        format!(
            "fields \"date\" and \"time\": {date} {clock} does not exist in the local time zone"
        )
    })
}

/// One entry of jrnl's JSON, with the tags that could not be kept.
pub(crate) fn entry(
    map: &Map<String, Value>,
) -> std::result::Result<(ImportedEntry, Vec<String>), String> {
    let date = text_field(map, "date")?.ok_or("field \"date\" is missing")?;
    let created = jrnl_time(&date, text_field(map, "time")?.as_deref())?;
    let (title, body) = fit_title(
        &text_field(map, "title")?.unwrap_or_default(),
        &text_field(map, "body")?.unwrap_or_default(),
    );
    // jrnl's tags are the words of the text after a tag symbol (`@` unless configured
    // otherwise); its JSON lists them with the symbol, which is not part of the tag.
    let raw_tags = super::text_list_field(map, "tags")?.unwrap_or_default();
    let (tags, dropped) = crate::tags::lenient(&raw_tags);
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(body),
        is_public: Some(false),
        tags: Some(tags),
        starred: super::bool_field(map, "starred")?,
        // What this format does not carry is left as a new entry's default.
        ..Default::default()
    };
    validate(&request, "body")?;
    Ok((
        ImportedEntry {
            id: None,
            request,
            created_at: created,
            updated_at: None,
            author_name: None,
        },
        dropped,
    ))
}

fn local(t: &Timestamp) -> chrono::DateTime<Local> {
    t.to_datetime().with_timezone(&Local)
}

/// One entry as jrnl's JSON writes it, its fields in jrnl's order.
#[derive(Serialize)]
struct JrnlEntry<'a> {
    title: &'a str,
    body: &'a str,
    date: String,
    time: String,
    tags: Vec<String>,
    starred: bool,
}

/// jrnl's JSON export: the tag counts, then the entries.
#[derive(Serialize)]
struct JrnlExport<'a> {
    tags: BTreeMap<String, u64>,
    entries: Vec<JrnlEntry<'a>>,
}

/// The entries as jrnl's JSON export, oldest first as jrnl writes them, dated in local
/// time to the minute (jrnl keeps no seconds).
pub fn export_json(entries: &[Entry]) -> String {
    let mut export = JrnlExport {
        tags: BTreeMap::new(),
        entries: Vec::with_capacity(entries.len()),
    };
    for e in entries.iter().rev() {
        let tags: Vec<String> = e.tags.iter().map(|t| format!("{TAG_SYMBOL}{t}")).collect();
        for t in &tags {
            *export.tags.entry(t.clone()).or_default() += 1;
        }
        let at = local(&e.date);
        export.entries.push(JrnlEntry {
            title: &e.title,
            body: &e.content,
            date: at.format("%Y-%m-%d").to_string(),
            time: at.format("%H:%M").to_string(),
            tags,
            starred: e.starred,
        });
    }
    serde_json::to_string_pretty(&export).unwrap_or_else(|_| "{}".into())
}

/// The entries as jrnl's plain-text journal, oldest first: `[date time] title`, ` *`
/// when starred, then the body, a blank line between entries. jrnl finds tags in the
/// text, so tags the text does not show are added on a last line (`@work @lake`).
pub fn export_text(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries.iter().rev() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "[{}] {}{}\n",
            local(&e.date).format("%Y-%m-%d %H:%M"),
            e.title.trim(),
            if e.starred { " *" } else { "" }
        ));
        let body = e.content.trim_end();
        if !body.is_empty() {
            out.push_str(body);
            out.push('\n');
        }
        let shown = crate::tags::inline(&format!("{}\n{}", e.title, e.content));
        let missing: Vec<String> = e
            .tags
            .iter()
            .filter(|t| !shown.contains(t))
            .map(|t| format!("{TAG_SYMBOL}{t}"))
            .collect();
        if !missing.is_empty() {
            out.push_str(&missing.join(" "));
            out.push('\n');
        }
    }
    out
}
