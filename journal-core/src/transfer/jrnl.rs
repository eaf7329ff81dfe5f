//! jrnl's formats. Its JSON export (`jrnl --format json`), read and written:
//! `{"tags": {"@tag": n}, "entries": [{"title", "body", "date": "YYYY-MM-DD",
//! "time": "HH:MM", "tags": ["@tag"], "starred"}]}`, dates in local time. And its
//! plain-text journal (`[YYYY-MM-DD HH:MM] Title *` then the body), read and written:
//! that is what `jrnl --import` reads. Neither keeps a public flag (entries read from
//! them are private) nor seconds; the text keeps tags in the text (`@tag`), with the
//! tags the text does not show on a last line of their own.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use serde::Serialize;
use serde_json::{Map, Value};

use super::fields::text_field;
use super::{
    Imported, ImportedEntry, InlineTags, ReadOptions, dropped_tags_note, fit_title, in_zone,
    invalid, validate,
};
use crate::api::CreateEntryRequest;
use crate::domain::{TITLE_MAX_CHARS, Zone};
use crate::error::ValidationError;
use crate::model::Entry;

/// What the JSON format leaves out, for the export's note and docs/CLI.md.
pub const JSON_KEEPS: &str = "jrnl's JSON keeps the title, text, tags, star and date to the minute; not the public flag (entries imported from it are private) nor seconds";

/// What the text format leaves out, for the export's note and docs/CLI.md.
pub const TEXT_KEEPS: &str = "jrnl's text keeps the title, text, tags, star and date to the minute; not the public flag (entries imported from it are private) nor seconds";

/// The format's name in messages.
pub const NAME: &str = "jrnl export";

/// jrnl's default tag symbol, which its JSON keeps on each tag.
const TAG_SYMBOL: char = '@';

fn jrnl_time(
    zone: &Zone,
    date: &str,
    time: Option<&str>,
) -> Result<crate::domain::Timestamp, String> {
    let day = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
        .map_err(|_| format!("field \"date\": {date:?} is not YYYY-MM-DD"))?;
    let clock = match time.map(str::trim).filter(|t| !t.is_empty()) {
        None => NaiveTime::MIN,
        Some(t) => NaiveTime::parse_from_str(t, "%H:%M")
            .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M:%S"))
            .map_err(|_| format!("field \"time\": {t:?} is not HH:MM"))?,
    };
    Ok(zone.instant(NaiveDateTime::new(day, clock)))
}

/// One entry of jrnl's JSON, with the tags that could not be kept.
pub(crate) fn entry(
    map: &Map<String, Value>,
    zone: &Zone,
) -> Result<(ImportedEntry, Vec<String>), String> {
    let date = text_field(map, "date")?.ok_or("field \"date\" is missing")?;
    let created = jrnl_time(zone, &date, text_field(map, "time")?.as_deref())?;
    let (title, body) = fit_title(
        &text_field(map, "title")?.unwrap_or_default(),
        &text_field(map, "body")?.unwrap_or_default(),
    );
    // jrnl's tags are the words of the text after a tag symbol (`@` unless configured
    // otherwise); its JSON lists them with the symbol, which is not part of the tag.
    let raw_tags = super::fields::text_list_field(map, "tags")?.unwrap_or_default();
    let (tags, dropped) = super::tags::lenient(&raw_tags);
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(body),
        is_public: Some(false),
        tags: Some(tags),
        starred: super::fields::bool_field(map, "starred")?,
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
            revisions: Vec::new(),
            deleted_at: None,
        },
        dropped,
    ))
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
pub fn export_json(entries: &[Entry], zone: &Zone) -> String {
    let mut export = JrnlExport {
        tags: BTreeMap::new(),
        entries: Vec::with_capacity(entries.len()),
    };
    for e in entries.iter().rev() {
        let tags: Vec<String> = e.tags.iter().map(|t| format!("{TAG_SYMBOL}{t}")).collect();
        for t in &tags {
            *export.tags.entry(t.clone()).or_default() += 1;
        }
        let at = in_zone(zone, e.date);
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
/// `inline_tags` is the rule that finds the tags a text shows, as when reading.
pub fn export_text(entries: &[Entry], zone: &Zone, inline_tags: Option<&InlineTags>) -> String {
    let mut out = String::new();
    for e in entries.iter().rev() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "[{}] {}{}\n",
            in_zone(zone, e.date).format("%Y-%m-%d %H:%M"),
            e.title.trim(),
            if e.starred { " *" } else { "" }
        ));
        let body = e.content.trim_end();
        if !body.is_empty() {
            out.push_str(body);
            out.push('\n');
        }
        let shown = inline_tags
            .map(|rule| rule(&format!("{}\n{}", e.title, e.content)))
            .unwrap_or_default();
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

/// The date of an entry's first line, `[2024-01-02 09:30]` (or with seconds), and the
/// rest of the line; `None` for any other line.
fn header(line: &str) -> Option<(NaiveDateTime, &str)> {
    let inner = line.strip_prefix('[')?;
    let (stamp, rest) = inner.split_once(']')?;
    let at = ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %I:%M %p"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(stamp.trim(), f).ok())?;
    Some((at, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// True when `line` starts a jrnl entry (`[2024-01-02 09:30] …`).
pub(crate) fn starts_entry(line: &str) -> bool {
    header(line).is_some()
}

/// True for a line of tags only (`@work @lake`): the line the export adds for the tags
/// a text does not show.
fn tag_line(line: &str) -> bool {
    let mut words = line.split_whitespace().peekable();
    words.peek().is_some() && words.all(|w| w.len() > 1 && w.starts_with('@'))
}

/// jrnl's plain-text journal: an entry starts at a line `[date time] Title`, ` *` at
/// its end when starred; the lines up to the next such line are its text. Dates are in
/// `options.zone`. Tags: those of a last line of tags only, and those the text shows
/// (`options.inline_tags`).
pub fn read_text(text: &str, options: &ReadOptions<'_>) -> Result<Imported, ValidationError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // An empty file holds no entry (the export of an empty journal is one); text that
    // is not jrnl's is an error below.
    if text.trim().is_empty() {
        let mut imported = Imported::default();
        imported
            .notes
            .push(format!("{} is empty: no entry in it", options.source));
        return Ok(imported);
    }
    let mut starts = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some((at, rest)) = header(line) {
            starts.push((i, at, rest));
        }
    }
    if starts.is_empty() {
        return Err(invalid(format!(
            "{} holds no jrnl entry: expected lines like [2024-01-02 09:30] Title",
            options.source
        )));
    }
    if let Some(stray) = lines[..starts[0].0].iter().find(|l| !l.trim().is_empty()) {
        return Err(invalid(format!(
            "{}: text before the first entry ({:?}); each entry starts with a line like [2024-01-02 09:30] Title",
            options.source,
            stray.chars().take(40).collect::<String>()
        )));
    }
    let mut imported = Imported::default();
    let mut dropped_tags = Vec::new();
    for (n, &(first, at, rest)) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(lines.len(), |s| s.0);
        let mut body: Vec<&str> = lines[first + 1..end].to_vec();
        while body.last().is_some_and(|l| l.trim().is_empty()) {
            body.pop();
        }
        let mut listed: Vec<String> = Vec::new();
        if body.last().is_some_and(|l| tag_line(l)) {
            listed = body
                .pop()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
        }
        let (title, starred) = match rest.trim_end().strip_suffix(" *") {
            Some(title) => (title.trim(), true),
            None if rest.trim() == "*" => ("", true),
            None => (rest.trim(), false),
        };
        let body = body.join("\n");
        let (title, content) = if title.is_empty() || title.chars().count() > TITLE_MAX_CHARS {
            fit_title(title, &body)
        } else {
            (title.to_owned(), body)
        };
        if let Some(rule) = options.inline_tags {
            listed.extend(rule(&format!("{title}\n{content}")));
        }
        let (tags, dropped) = super::tags::lenient(&listed);
        dropped_tags.extend(dropped);
        let created = options.zone.instant(at);
        let request = CreateEntryRequest {
            title: Some(title),
            content: Some(content),
            is_public: Some(false),
            tags: Some(tags),
            starred: Some(starred),
            date: Some(created.to_string()),
        };
        validate(&request, "text").map_err(|m| {
            invalid(format!(
                "{}: entry {} (jrnl text, line {}): {m}",
                options.source,
                n + 1,
                first + 1
            ))
        })?;
        imported.items.push(ImportedEntry {
            id: None,
            request,
            created_at: created,
            updated_at: None,
            author_name: None,
            revisions: Vec::new(),
            deleted_at: None,
        });
    }
    imported.notes.extend(dropped_tags_note(&dropped_tags));
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{EntryId, Timestamp, UserId};

    #[test]
    fn the_export_of_an_empty_journal_reads_back_as_no_entry() {
        let empty = export_text(&[], &Zone::default(), None);
        let read = read_text(&empty, &options()).unwrap();
        assert!(read.items.is_empty());
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        assert!(read_text("no header here\n", &options()).is_err());
    }

    fn options() -> ReadOptions<'static> {
        ReadOptions {
            zone: "Europe/Paris".parse().unwrap(),
            inline_tags: None,
            source: "journal.txt",
        }
    }

    #[test]
    fn the_text_reads_title_star_body_and_tag_line() {
        let text = "[2021-06-05 09:30] Walked to the lake. *\n  Cold water.\n\n---\n@lake @walk\n\n[2021-06-06 18:05] Rainy day.\n";
        let read = read_text(text, &options()).unwrap();
        assert_eq!(read.items.len(), 2);
        let r = &read.items[0].request;
        assert_eq!(r.title.as_deref(), Some("Walked to the lake."));
        assert_eq!(r.content.as_deref(), Some("  Cold water.\n\n---"));
        assert_eq!(r.starred, Some(true));
        assert_eq!(r.is_public, Some(false));
        assert_eq!(
            r.tags.as_deref().unwrap(),
            ["lake".to_owned(), "walk".to_owned()]
        );
        assert_eq!(r.date.as_deref(), Some("2021-06-05T07:30:00.000Z"));
        assert_eq!(read.items[1].request.content.as_deref(), Some(""));
    }

    #[test]
    fn what_the_export_writes_reads_back_and_writes_the_same() {
        let at = Timestamp::parse("2024-03-04T05:06:07.089Z").unwrap();
        let entry = Entry {
            id: EntryId::generate(),
            title: "東京の朝".into(),
            content: "今日は静かな朝でした。\n\n[not a date] still text".into(),
            is_public: true,
            tags: vec!["旅行".into()],
            starred: true,
            date: at,
            author_id: UserId::generate(),
            author_name: "ada".into(),
            created_at: at,
            updated_at: at,
            revision: 1,
            revision_id: crate::domain::RevisionId::generate(),
        };
        let zone = options().zone;
        let first = export_text(std::slice::from_ref(&entry), &zone, None);
        let read = read_text(&first, &options()).unwrap();
        let r = &read.items[0].request;
        let back = Entry {
            title: r.title.clone().unwrap(),
            content: r.content.clone().unwrap(),
            tags: r.tags.clone().unwrap(),
            starred: r.starred.unwrap(),
            date: Timestamp::parse(r.date.as_deref().unwrap()).unwrap(),
            ..entry
        };
        assert_eq!(export_text(&[back], &zone, None), first);
    }

    #[test]
    fn text_that_is_no_jrnl_journal_is_said_so() {
        let err = read_text("just words\n", &options()).unwrap_err();
        assert!(err.message.contains("no jrnl entry"), "{}", err.message);
        let err = read_text("preface\n[2021-01-01 00:00] T\n", &options()).unwrap_err();
        assert!(
            err.message.contains("before the first entry"),
            "{}",
            err.message
        );
    }
}
