//! Markdown: entries each under YAML front matter, one file of them all
//! (`--format markdown`, the web app's "Download Markdown") or one file each
//! (`--format markdown-dir`); both import back without loss, and so does any `.md`
//! file (an Obsidian note, a static site's post).
//!
//! In a file of many entries, an entry's text ends where the next front matter
//! begins, at a line `---`; so a line of the text that is `---` (or backslashes
//! then `---`) is written with one more backslash before it, and read without it.
//!
//! Front matter is read and written with yaml-rust2: a maintained YAML 1.2 parser in
//! safe Rust, whose emitter quotes whatever a title or tag needs quoted. Files from
//! other tools write it in every style (block or flow lists, dates with or without
//! quotes), which a hand parser for our own keys would not read. It is read within
//! bounds on aliases and nesting (`bounded_yaml`), since the files may be anyone's.

use std::collections::HashSet;

use chrono::{NaiveDate, NaiveDateTime, SecondsFormat};
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

use super::json::ExportedAttachment;
use super::{
    Imported, ImportedEntry, ReadOptions, dropped_tags_note, fit_title, in_zone, invalid, validate,
};
use crate::api::CreateEntryRequest;
use crate::domain::{TITLE_MAX_CHARS, Timestamp, Zone};
use crate::error::ValidationError;
use crate::model::Entry;

/// The entries as one Markdown file: each its front matter, a blank line, its text
/// (lines that would end it escaped), a blank line between entries.
pub fn document(entries: &[Entry], zone: &Zone) -> String {
    entries
        .iter()
        .map(|e| {
            let mut text = front_matter(e, zone, &[]);
            text.push('\n');
            for line in e.content.split_inclusive('\n') {
                if is_fence(line.trim_end_matches(['\n', '\r'])) {
                    text.push('\\');
                }
                text.push_str(line);
            }
            text.push('\n');
            text
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// True for `---` and for backslashes then `---`: a line of text that a file of many
/// entries writes with one more backslash.
fn is_fence(line: &str) -> bool {
    line.trim_start_matches('\\') == "---"
}

// ----- writing a folder ------------------------------------------------------------------

/// An instant as ISO 8601 in local time with its offset (`2024-01-02T09:30:00.000+01:00`):
/// the same instant as our UTC form, and the time a person reading the file expects.
fn local_iso(zone: &Zone, t: Timestamp) -> String {
    in_zone(zone, t).to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A file name's part from a title: lower-case letters and digits, `-` between words,
/// at most 60 characters.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "entry".into()
    } else {
        out.to_owned()
    }
}

/// The file name of each entry: its local date and title (`2024-01-02-walked-to-the-lake.md`),
/// with `-2`, `-3`… when two would share one.
pub fn file_names(entries: &[Entry], zone: &Zone) -> Vec<String> {
    let mut taken = HashSet::new();
    entries
        .iter()
        .map(|e| {
            let stem = format!(
                "{}-{}",
                in_zone(zone, e.date).format("%Y-%m-%d"),
                slug(&e.title)
            );
            let mut name = format!("{stem}.md");
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}-{n}.md");
                n += 1;
            }
            name
        })
        .collect()
}

/// One entry as a Markdown file: front matter, a blank line, the content exactly.
pub fn file_text(e: &Entry, zone: &Zone) -> String {
    format!("{}\n{}\n", front_matter(e, zone, &[]), e.content)
}

/// Where a folder export keeps an attachment's file, relative to the entries:
/// `attachments/ID-name`, the id first so two files of one name never meet, the name
/// made of letters, digits, `.`, `-` and `_` so a link to it needs no escaping.
pub fn attachment_path(id: &str, name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .take(80)
        .collect();
    format!("attachments/{id}-{safe}")
}

/// [`file_text`] of an entry with attachments, for a folder export that writes each
/// file at its [`attachment_path`]: each `attachment:ID` of the text becomes that path
/// (so any Markdown viewer shows the photo), and the front matter's `attachments` lists
/// them all, linked or not, for `journal import` to take them back.
pub fn file_text_with_attachments(
    e: &Entry,
    zone: &Zone,
    attachments: &[ExportedAttachment],
) -> String {
    let paths: Vec<String> = attachments
        .iter()
        .map(|a| attachment_path(&a.id, &a.name))
        .collect();
    let mut content = e.content.clone();
    for (a, path) in attachments.iter().zip(&paths) {
        content = content.replace(&format!("attachment:{}", a.id), path);
    }
    format!("{}\n{content}\n", front_matter(e, zone, &paths))
}

/// The files a Markdown file's front matter lists under `attachments` (as
/// [`file_text_with_attachments`] writes them); none when it lists none or cannot be
/// read (reading the entry says why).
pub fn listed_attachments(text: &str) -> Vec<String> {
    let (Some(yaml), _) = split_front_matter(text) else {
        return Vec::new();
    };
    let Ok(front) = FrontMatter::parse(yaml) else {
        return Vec::new();
    };
    match front.get("attachments") {
        Some(Yaml::Array(items)) => items.iter().filter_map(scalar_text).collect(),
        _ => Vec::new(),
    }
}

/// An entry's front matter, from its opening `---` line to its closing one.
fn front_matter(e: &Entry, zone: &Zone, attachments: &[String]) -> String {
    let mut front = Hash::new();
    let mut put = |key: &str, value: Yaml| {
        front.insert(Yaml::String(key.to_owned()), value);
    };
    put("title", Yaml::String(e.title.clone()));
    put("date", Yaml::String(local_iso(zone, e.date)));
    put(
        "tags",
        Yaml::Array(e.tags.iter().cloned().map(Yaml::String).collect()),
    );
    put("starred", Yaml::Boolean(e.starred));
    put("public", Yaml::Boolean(e.is_public));
    put("id", Yaml::String(e.id.to_string()));
    put("created", Yaml::String(local_iso(zone, e.created_at)));
    put("updated", Yaml::String(local_iso(zone, e.updated_at)));
    if !attachments.is_empty() {
        put(
            "attachments",
            Yaml::Array(attachments.iter().cloned().map(Yaml::String).collect()),
        );
    }
    let mut yaml = String::new();
    // Writing into a String cannot fail.
    let _ = YamlEmitter::new(&mut yaml).dump(&Yaml::Hash(front));
    format!("{yaml}\n---\n")
}

// ----- reading files ---------------------------------------------------------------------

/// A file's front matter and the text after it; no front matter when the file does not
/// start with a `---` line closed by another `---` (or `...`) line.
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut at = 0;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            return (Some(&after_open[..at]), &after_open[at + line.len()..]);
        }
        at += line.len();
    }
    (None, text)
}

/// The text after the front matter as the content: without the one line end that
/// separates it from the front matter and the one that ends the file.
fn body_after_front_matter(rest: &str) -> &str {
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest);
    rest.strip_suffix("\r\n")
        .or_else(|| rest.strip_suffix('\n'))
        .unwrap_or(rest)
}

fn yaml_kind(v: &Yaml) -> &'static str {
    match v {
        Yaml::Real(_) | Yaml::Integer(_) => "a number",
        Yaml::String(_) => "text",
        Yaml::Boolean(_) => "true or false",
        Yaml::Array(_) => "a list",
        Yaml::Hash(_) => "a mapping",
        Yaml::Alias(_) => "an alias",
        Yaml::Null | Yaml::BadValue => "nothing",
    }
}

/// A scalar as text (a title of digits, say, comes as a number).
fn scalar_text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The front matter's keys, read leniently: files come from many tools.
struct FrontMatter {
    map: Hash,
}

impl FrontMatter {
    fn parse(yaml: &str) -> Result<FrontMatter, String> {
        let docs = super::bounded_yaml::load(yaml)?;
        match docs.into_iter().next() {
            None | Some(Yaml::Null) => Ok(FrontMatter { map: Hash::new() }),
            Some(Yaml::Hash(map)) => Ok(FrontMatter { map }),
            Some(other) => Err(format!(
                "the front matter must be keys and values, found {}",
                yaml_kind(&other)
            )),
        }
    }

    fn get(&self, key: &str) -> Option<&Yaml> {
        self.map
            .get(&Yaml::String(key.to_owned()))
            .filter(|v| !matches!(v, Yaml::Null))
    }

    fn text(&self, key: &str) -> Result<Option<String>, String> {
        self.get(key)
            .map(|v| {
                scalar_text(v)
                    .ok_or_else(|| format!("field \"{key}\" must be text, found {}", yaml_kind(v)))
            })
            .transpose()
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, String> {
        self.get(key)
            .map(|v| match v {
                Yaml::Boolean(b) => Ok(*b),
                other => Err(format!(
                    "field \"{key}\" must be true or false, found {}",
                    yaml_kind(other)
                )),
            })
            .transpose()
    }

    fn date(&self, key: &str, zone: &Zone) -> Result<Option<Timestamp>, String> {
        self.text(key)?
            .map(|v| {
                parse_date(&v, zone).ok_or_else(|| {
                    format!(
                        "field \"{key}\": {v:?} is not a date (write 2024-01-02, 2024-01-02 09:30 or 2024-01-02T09:30:00Z)"
                    )
                })
            })
            .transpose()
    }

    /// `tags` as a list, or as one text of words separated by commas or spaces.
    fn tags(&self) -> Result<Option<Vec<String>>, String> {
        let Some(v) = self.get("tags") else {
            return Ok(None);
        };
        match v {
            Yaml::Array(items) => items
                .iter()
                .map(|item| {
                    scalar_text(item).ok_or_else(|| {
                        format!(
                            "field \"tags\" must be a list of texts, found {} in it",
                            yaml_kind(item)
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Yaml::String(s) => Ok(Some(
                s.split([',', ' '])
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_owned)
                    .collect(),
            )),
            other => Err(format!(
                "field \"tags\" must be a list, found {}",
                yaml_kind(other)
            )),
        }
    }
}

/// A date in front matter: ISO 8601 with an offset, else a local date and time, else a
/// local day (its start).
fn parse_date(value: &str, zone: &Zone) -> Option<Timestamp> {
    let v = value.trim();
    if let Ok(t) = Timestamp::parse(v) {
        return Some(t);
    }
    const FORMATS: [&str; 4] = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ];
    FORMATS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(v, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(v, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
        .map(|local| zone.instant(local))
}

/// The first line of a text when it is a `# ` heading: its words, and the text after it.
fn leading_heading(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim_start();
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let heading = first.trim_end().strip_prefix("# ")?.trim();
    (!heading.is_empty()).then(|| (heading.to_owned(), rest.trim().to_owned()))
}

/// A key of the front matter, if there is front matter.
fn field<T>(
    front: Option<&FrontMatter>,
    read: impl Fn(&FrontMatter) -> Result<Option<T>, String>,
) -> Result<Option<T>, String> {
    front.map(read).transpose().map(Option::flatten)
}

/// One Markdown file as an entry, with the tags that could not be kept. `name` (the
/// file's, without `.md`) is the title of a note that has none; `modified` its date
/// when it has none either.
pub fn parse_file(
    name: &str,
    text: &str,
    modified: Option<Timestamp>,
    options: &ReadOptions<'_>,
) -> Result<(ImportedEntry, Vec<String>), String> {
    let (front, rest) = split_front_matter(text);
    let front = front.map(FrontMatter::parse).transpose()?;
    build(
        name,
        front.as_ref(),
        body_after_front_matter(rest),
        rest,
        modified,
        options,
    )
}

/// An entry from its front matter and text: `body` is its content exactly when the
/// front matter gives a title; otherwise the title comes from `rest`'s heading, or is
/// `name`.
fn build(
    name: &str,
    front: Option<&FrontMatter>,
    body: &str,
    rest: &str,
    modified: Option<Timestamp>,
    options: &ReadOptions<'_>,
) -> Result<(ImportedEntry, Vec<String>), String> {
    let given_title = field(front, |f| f.text("title"))?;
    let (title, content) = match given_title {
        // Our own files, or anyone's with a title: the content is kept exactly.
        Some(title) => {
            if title.trim().is_empty() || title.chars().count() > TITLE_MAX_CHARS {
                fit_title(&title, body)
            } else {
                (title, body.to_owned())
            }
        }
        None => match leading_heading(rest) {
            Some((heading, after)) => fit_title(&heading, &after),
            None => fit_title(name, rest),
        },
    };
    let zone = &options.zone;
    let date = field(front, |f| f.date("date", zone))?;
    let created = field(front, |f| f.date("created", zone))?;
    let date = date.or(created).or(modified).unwrap_or_else(Timestamp::now);
    let (tags, dropped) = match (field(front, |f| f.tags())?, options.inline_tags) {
        (Some(listed), _) => super::tags::lenient(&listed),
        (None, Some(rule)) => super::tags::lenient(&rule(&format!("{title}\n{content}"))),
        (None, None) => (Vec::new(), Vec::new()),
    };
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(content),
        is_public: Some(field(front, |f| f.bool("public"))?.unwrap_or(false)),
        tags: Some(tags),
        starred: Some(field(front, |f| f.bool("starred"))?.unwrap_or(false)),
        date: Some(date.to_string()),
    };
    validate(&request, "content")?;
    let entry = ImportedEntry {
        id: field(front, |f| f.text("id"))?,
        request,
        created_at: created.unwrap_or(date),
        updated_at: field(front, |f| f.date("updated", zone))?,
        author_name: None,
        revisions: Vec::new(),
        deleted_at: None,
    };
    Ok((entry, dropped))
}

/// The front matter that opens at byte `at` of `text` (a line `---`): its YAML read,
/// and where the line after it begins; `None` when no closing line follows or what is
/// between is not keys and values with a `title` (then the line is text).
fn front_matter_at(text: &str, at: usize) -> Option<(Result<FrontMatter, String>, usize)> {
    let (yaml, rest) = split_front_matter(&text[at..]);
    let yaml = yaml?;
    let after = text.len() - rest.len();
    let parsed = FrontMatter::parse(yaml);
    match &parsed {
        Ok(f) if f.get("title").is_some() => Some((parsed, after)),
        // The first front matter is the file's, whatever it holds; a later one only
        // starts an entry when it has a title.
        Err(_) if at == 0 => Some((parsed, after)),
        _ => None,
    }
}

/// A Markdown file of entries, each under its front matter (Journal's export, the
/// web app's "Download Markdown"), or one note from anywhere (then it is one entry,
/// as from a folder).
pub fn read_document(text: &str, options: &ReadOptions<'_>) -> Result<Imported, ValidationError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let fail = |n: usize, m: String| invalid(format!("{}: entry {n}: {m}", options.source));
    let mut imported = Imported::default();
    let mut dropped = Vec::new();
    // An empty file holds no entry (the export of an empty journal is one): reading it
    // as a note would make an entry of its name, and the round trip would not hold.
    if text.trim().is_empty() {
        imported
            .notes
            .push(format!("{} is empty: no entry in it", options.source));
        return Ok(imported);
    }
    if split_front_matter(text).0.is_none() {
        let name = options.source.trim_end_matches(".md");
        let (entry, lost) = parse_file(name, text, None, options).map_err(|m| fail(1, m))?;
        imported.items.push(entry);
        imported.notes.extend(dropped_tags_note(&lost));
        return Ok(imported);
    }
    // Each entry: its front matter, then its text up to the next front matter.
    let mut at = 0;
    while at < text.len() {
        let n = imported.items.len() + 1;
        let Some((front, body_start)) = front_matter_at(text, at) else {
            break;
        };
        let front = front.map_err(|m| fail(n, m))?;
        let mut next = None;
        let mut line_start = body_start;
        for line in text[body_start..].split_inclusive('\n') {
            if line.trim_end_matches(['\n', '\r']) == "---"
                && front_matter_at(text, line_start).is_some()
            {
                next = Some(line_start);
                break;
            }
            line_start += line.len();
        }
        let end = next.unwrap_or(text.len());
        let mut body = String::with_capacity(end - body_start);
        for line in text[body_start..end].split_inclusive('\n') {
            let bare = line.trim_end_matches(['\n', '\r']);
            body.push_str(if bare.starts_with('\\') && is_fence(bare) {
                &line[1..]
            } else {
                line
            });
        }
        let mut body = body
            .strip_prefix("\r\n")
            .or_else(|| body.strip_prefix('\n'))
            .unwrap_or(&body);
        // The blank line between two entries, then the line end of the last line.
        if next.is_some() {
            body = strip_line_end(body);
        }
        let body = strip_line_end(body);
        let (entry, lost) =
            build("Untitled", Some(&front), body, body, None, options).map_err(|m| fail(n, m))?;
        imported.items.push(entry);
        dropped.extend(lost);
        at = end;
    }
    imported.notes.extend(dropped_tags_note(&dropped));
    Ok(imported)
}

fn strip_line_end(text: &str) -> &str {
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use crate::domain::{EntryId, UserId};

    use super::*;

    /// A stand-in for the CLI's inline-tag rule: words that start with `#` or `@`.
    fn words(text: &str) -> Vec<String> {
        text.split_whitespace()
            .filter(|w| w.len() > 1 && (w.starts_with('#') || w.starts_with('@')))
            .map(|w| w[1..].trim_end_matches(['.', ',']).to_owned())
            .collect()
    }

    fn options(inline: bool) -> ReadOptions<'static> {
        ReadOptions {
            zone: Zone::default(),
            inline_tags: if inline { Some(&words) } else { None },
            source: "test.md",
        }
    }

    fn parse(
        name: &str,
        text: &str,
        modified: Option<Timestamp>,
        inline: bool,
    ) -> Result<(ImportedEntry, Vec<String>), String> {
        parse_file(name, text, modified, &options(inline))
    }

    fn entry(title: &str, content: &str, tags: &[&str]) -> Entry {
        let at = Timestamp::parse("2024-01-02T09:30:15.250Z").unwrap();
        Entry {
            id: EntryId::generate(),
            title: title.into(),
            content: content.into(),
            is_public: true,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            starred: true,
            date: at,
            author_id: UserId::generate(),
            author_name: "ada".into(),
            created_at: at,
            updated_at: at,
            revision: 1,
            revision_id: crate::domain::RevisionId::generate(),
        }
    }

    #[test]
    fn the_export_of_an_empty_journal_reads_back_as_no_entry() {
        let empty = document(&[], &Zone::default());
        for text in [empty.as_str(), "", "\n\n  \n"] {
            let read = read_document(text, &options(true)).unwrap();
            assert!(read.items.is_empty(), "{text:?} made an entry");
            assert_eq!(read.notes, vec!["test.md is empty: no entry in it"]);
        }
        assert_eq!(document(&[], &Zone::default()), empty);
    }

    fn round_trip(e: &Entry) -> CreateEntryRequest {
        let (item, dropped) = parse("x", &file_text(e, &Zone::default()), None, true).unwrap();
        assert!(dropped.is_empty());
        assert_eq!(item.id.as_deref(), Some(e.id.to_string().as_str()));
        item.request
    }

    #[test]
    fn a_file_reads_back_as_the_entry_it_was_written_from() {
        for (title, content) in [
            ("Walked to the lake", "Cold water.\n\nSecond paragraph."),
            (
                "title: with \"quotes\", # and [brackets]",
                "---\nnot front matter\n---",
            ),
            ("true", "\nstarts and ends with blank lines\n\n"),
            ("12", ""),
            ("- a list? no", "#inline tag that is not listed"),
        ] {
            let e = entry(title, content, &["b-2", "lake"]);
            let r = round_trip(&e);
            assert_eq!(r.title.as_deref(), Some(title));
            assert_eq!(r.content.as_deref(), Some(content));
            assert_eq!(r.tags.as_deref().unwrap(), &e.tags[..]);
            assert_eq!(r.starred, Some(true));
            assert_eq!(r.is_public, Some(true));
            assert_eq!(
                Timestamp::parse(r.date.as_deref().unwrap()).unwrap(),
                e.date
            );
        }
    }

    #[test]
    fn file_names_are_date_and_slug_and_unique() {
        let entries = [
            entry("Walked to the Lake!", "", &[]),
            entry("Walked to the lake", "", &[]),
            entry("???", "", &[]),
        ];
        let names = file_names(&entries, &Zone::default());
        let day = "2024-01-02";
        assert_eq!(names[0], format!("{day}-walked-to-the-lake.md"));
        assert_eq!(names[1], format!("{day}-walked-to-the-lake-2.md"));
        assert_eq!(names[2], format!("{day}-entry.md"));
    }

    #[test]
    fn a_foreign_file_takes_its_title_from_the_heading_or_its_name() {
        let (item, _) = parse(
            "notes",
            "# Garden plans\n\nPlant #tomatoes and @basil.\n",
            Some(Timestamp::from_millis(0)),
            true,
        )
        .unwrap();
        let r = &item.request;
        assert_eq!(r.title.as_deref(), Some("Garden plans"));
        assert_eq!(r.content.as_deref(), Some("Plant #tomatoes and @basil."));
        assert_eq!(
            r.tags.as_deref().unwrap(),
            &["basil".to_owned(), "tomatoes".to_owned()]
        );
        assert_eq!(item.created_at, Timestamp::from_millis(0));

        let (item, _) = parse("2023 trip", "Just text.", None, false).unwrap();
        assert_eq!(item.request.title.as_deref(), Some("2023 trip"));
        assert_eq!(item.request.content.as_deref(), Some("Just text."));
        assert_eq!(item.request.tags.as_deref(), Some(&[][..]));
    }

    #[test]
    fn foreign_front_matter_in_other_styles() {
        let text = "---\ntags: Summer Trip, beach\ndate: 2023-07-01\nstarred: true\naliases: [x]\n---\n\nText #ignored\n";
        let (item, _) = parse("Beach", text, None, true).unwrap();
        let r = &item.request;
        assert_eq!(r.title.as_deref(), Some("Beach"));
        assert_eq!(r.content.as_deref(), Some("Text #ignored"));
        assert_eq!(
            r.tags.as_deref().unwrap(),
            &["beach".to_owned(), "summer".to_owned(), "trip".to_owned()]
        );
        assert_eq!(r.starred, Some(true));
        let text = "---\ntags:\n  - one\n  - two\n---\nBody";
        let (item, _) = parse("N", text, None, true).unwrap();
        assert_eq!(item.request.tags.as_deref().unwrap().len(), 2);
        assert_eq!(item.request.content.as_deref(), Some("Body"));
    }

    #[test]
    fn bad_front_matter_names_the_field() {
        for (text, needle) in [
            ("---\ndate: someday\n---\nx", "\"date\""),
            ("---\nstarred: maybe\n---\nx", "\"starred\""),
            ("---\ntags: {a: 1}\n---\nx", "\"tags\""),
            ("---\n: : :\n  - [\n---\nx", "YAML"),
            ("---\n- a\n---\nx", "keys and values"),
        ] {
            let err = parse("n", text, None, true).unwrap_err();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_file_of_entries_reads_back_whole_even_text_that_looks_like_front_matter() {
        let tricky = [
            ("One", "---\ntitle: fake\n---\nnot an entry"),
            ("Two", "\\---\n\\\\---\n---"),
            ("Three", "ends with lines\n\n"),
            ("Four", ""),
            ("東京の朝", "今日は静かな朝でした。\n---"),
        ];
        let entries: Vec<Entry> = tricky.iter().map(|(t, c)| entry(t, c, &["x"])).collect();
        let text = document(&entries, &Zone::default());
        let read = read_document(&text, &options(true)).unwrap();
        assert_eq!(read.items.len(), tricky.len(), "{text}");
        for ((title, content), item) in tricky.iter().zip(&read.items) {
            assert_eq!(item.request.title.as_deref(), Some(*title));
            assert_eq!(item.request.content.as_deref(), Some(*content), "{text}");
            assert_eq!(item.request.tags.as_deref().unwrap(), ["x".to_owned()]);
        }
    }

    #[test]
    fn the_web_apps_older_markdown_reads_as_its_entries() {
        let text = "---\nid: \"a\"\ntitle: \"First\"\ndate: \"2024-01-02T03:04:05.678Z\"\ntags: [\"t\"]\nstarred: true\npublic: false\n---\n\nOne\n\n---\nid: \"b\"\ntitle: \"Second\"\ndate: \"2024-01-01T00:00:00.000Z\"\ntags: []\nstarred: false\npublic: true\n---\n\nTwo\n";
        let read = read_document(text, &options(false)).unwrap();
        assert_eq!(read.items.len(), 2);
        assert_eq!(read.items[0].request.content.as_deref(), Some("One"));
        assert_eq!(read.items[1].request.content.as_deref(), Some("Two"));
        assert_eq!(read.items[1].request.is_public, Some(true));
        assert_eq!(read.items[0].id.as_deref(), Some("a"));
    }

    #[test]
    fn a_file_without_a_closing_line_has_no_front_matter() {
        let (item, _) = parse("n", "---\nnot closed\n", None, false).unwrap();
        assert_eq!(item.request.title.as_deref(), Some("n"));
    }
}
