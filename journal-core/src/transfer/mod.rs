//! Entries to and from files: Journal's JSON, Markdown (one file of entries, or one
//! file per entry, each with YAML front matter), jrnl's JSON and plain text, and Day
//! One's JSON and `.zip`. One reader per format, used by the CLI and the server alike,
//! so a file imports the same way wherever it is sent; what happens to the entries
//! read (which are there already, which ids are kept) is `Journal::import_entries`'s.
//!
//! What each format keeps is in docs/CLI.md ("Export and import").

use chrono::{DateTime, FixedOffset};

use crate::api::{CreateEntryRequest, ImportRevisionRequest};
use crate::domain::{TITLE_MAX_CHARS, Timestamp, Zone};
use crate::error::ValidationError;
use crate::input::NewEntry;

pub mod archive;
mod bounded_yaml;
pub mod day_one;
pub mod day_one_zip;
mod fields;
pub mod journal_zip;
pub mod jrnl;
pub mod json;
pub mod json_stream;
pub mod markdown;
pub mod tags;

pub use bounded_yaml::{MAX_ALIAS_GROWTH, MAX_DEPTH};

/// An entry to import with its original dates, and the id it had where it came from.
#[derive(Clone, Debug)]
pub struct ImportedEntry {
    /// Its id in the file (Journal's exports carry one); kept when it may be (see
    /// `Journal::import_entries`).
    pub id: Option<String>,
    /// Title, content and visibility, validated like a new entry.
    pub request: CreateEntryRequest,
    /// Original creation time.
    pub created_at: Timestamp,
    /// Original last change; `created_at` when unknown.
    pub updated_at: Option<Timestamp>,
    /// Original author name; the caller's nickname when unknown.
    pub author_name: Option<String>,
    /// Its history, oldest first, as our JSON export carries it; empty when the file
    /// has none, and the import records one revision.
    pub revisions: Vec<ImportRevisionRequest>,
    /// When it was deleted, for an entry of our export's trash: it goes to the trash.
    pub deleted_at: Option<Timestamp>,
}

impl ImportedEntry {
    /// An entry to import with no history, live.
    pub fn new(
        id: Option<String>,
        request: CreateEntryRequest,
        created_at: Timestamp,
        updated_at: Option<Timestamp>,
        author_name: Option<String>,
    ) -> ImportedEntry {
        ImportedEntry {
            id,
            request,
            created_at,
            updated_at,
            author_name,
            revisions: Vec::new(),
            deleted_at: None,
        }
    }
}

/// What a file to import holds: the entries, and what was left out of them on the way
/// (media, tags that are not tags here), to tell the person.
#[derive(Debug, Default)]
pub struct Imported {
    /// The entries, in the file's order.
    pub items: Vec<ImportedEntry>,
    /// One sentence per kind of thing left out.
    pub notes: Vec<String>,
}

/// The formats a file to import can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON: Journal's export (or a list of its entries), jrnl's or Day One's.
    Json,
    /// Markdown: entries each under YAML front matter (Journal's export), or any note.
    Markdown,
    /// jrnl's plain-text journal (`[2024-01-02 09:30] Title`).
    JrnlText,
    /// Day One's export, a `.zip` holding `Journal.json` (and media, left out).
    DayOneZip,
}

impl Format {
    /// The format a request's `Content-Type` (its media type, lower-cased, without
    /// parameters) or `format` parameter names: `json`, `markdown`, `jrnl`, `dayone`.
    pub fn named(name: &str) -> Option<Format> {
        match name {
            "application/json" | "json" => Some(Format::Json),
            "text/markdown" | "text/x-markdown" | "markdown" | "md" => Some(Format::Markdown),
            "text/plain" | "jrnl" | "txt" => Some(Format::JrnlText),
            "application/zip" | "application/x-zip-compressed" | "dayone" | "zip" => {
                Some(Format::DayOneZip)
            }
            _ => None,
        }
    }
}

impl Format {
    /// The format of a file by its first bytes, for a file named without a telling
    /// extension: a zip's signature, a jrnl entry's first line, front matter, else JSON.
    pub fn guess(bytes: &[u8]) -> Format {
        if bytes.starts_with(b"PK\x03\x04") {
            return Format::DayOneZip;
        }
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
        let head = head.trim_start_matches('\u{feff}').trim_start();
        if jrnl::starts_entry(head.lines().next().unwrap_or("")) {
            Format::JrnlText
        } else if head.starts_with("---") || head.starts_with('#') {
            Format::Markdown
        } else {
            Format::Json
        }
    }
}

/// A rule that finds the inline tags (`#tag`, `@tag`) of a text: [`tags::inline`], or
/// none where a person turned inline tags off (the CLI's `inline_tags` setting).
pub type InlineTags = dyn Fn(&str) -> Vec<String> + Sync;

/// How to read what a file leaves open.
pub struct ReadOptions<'a> {
    /// The zone of dates written without one (jrnl's, and front matter's `2024-01-02`).
    pub zone: Zone,
    /// The rule that finds inline tags (`#tag`, `@tag`) in a text, for files that list
    /// none (jrnl's text, Markdown without `tags`); `None` takes only listed tags.
    pub inline_tags: Option<&'a InlineTags>,
    /// The name of what is read, for messages ("journal.json", "the request body").
    pub source: &'a str,
}

/// Reads a file to import in `format`. Errors name the entry (counting from 1) and the
/// field, as the file spells them.
pub fn read(
    format: Format,
    bytes: &[u8],
    options: &ReadOptions<'_>,
) -> Result<Imported, ValidationError> {
    let text = || {
        std::str::from_utf8(bytes).map_err(|_| {
            invalid(format!(
                "{} is not UTF-8 text; a Day One .zip is read as application/zip (format=dayone)",
                options.source
            ))
        })
    };
    match format {
        Format::Json => json::read(text()?, options.source, &options.zone),
        Format::Markdown => markdown::read_document(text()?, options),
        Format::JrnlText => jrnl::read_text(text()?, options),
        Format::DayOneZip => day_one_zip::read_zip(bytes, options.source),
    }
}

/// A file that cannot be imported, and why.
pub(crate) fn invalid(message: String) -> ValidationError {
    ValidationError::new(ValidationError::FILE, message)
}

/// `n` and the noun for it.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An instant in `zone`, with the offset it has there.
pub fn in_zone(zone: &Zone, t: Timestamp) -> DateTime<FixedOffset> {
    let utc = t.to_datetime();
    match zone {
        Zone::Named(tz) => utc.with_timezone(tz).fixed_offset(),
        Zone::Fixed(offset) => utc.with_timezone(offset),
    }
}

/// Title and body split from a text: the first non-empty line is the title (without
/// a heading's `#`), the rest (without leading blank lines) the body.
pub fn split_title(text: &str) -> (String, String) {
    let text = text.trim_start_matches(['\n', '\r']);
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let title = first.trim().trim_start_matches('#').trim().to_owned();
    let body = rest.trim_start_matches(['\n', '\r']).trim_end().to_owned();
    (title, body)
}

/// A title for text whose first line is too long for one: its start, cut on a word.
pub fn short_title(line: &str) -> String {
    const MAX: usize = 80;
    if line.chars().count() <= MAX {
        return line.to_owned();
    }
    let head: String = line.chars().take(MAX).collect();
    let cut = head
        .rfind(' ')
        .filter(|&i| i > MAX / 2)
        .unwrap_or(head.len());
    format!("{}…", head[..cut].trim_end())
}

/// A title and body from another app, made to fit: an empty title becomes the body's
/// first line (or "Untitled"), a title too long for one is shortened and kept whole at
/// the top of the body.
pub(crate) fn fit_title(title: &str, body: &str) -> (String, String) {
    let (title, body) = (title.trim(), body.trim());
    if title.is_empty() {
        let (first, rest) = split_title(body);
        if first.is_empty() {
            ("Untitled".into(), body.to_owned())
        } else if first.chars().count() > TITLE_MAX_CHARS {
            (short_title(&first), body.to_owned())
        } else {
            (first, rest)
        }
    } else if title.chars().count() > TITLE_MAX_CHARS {
        (
            short_title(title),
            format!("{title}\n\n{body}").trim().to_owned(),
        )
    } else {
        (title.to_owned(), body.to_owned())
    }
}

/// Checks an entry as the journal will, naming the field as the file does.
pub(crate) fn validate(request: &CreateEntryRequest, body_name: &str) -> Result<(), String> {
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
pub fn dropped_tags_note(dropped: &[String]) -> Option<String> {
    let mut tags = DroppedTags::default();
    tags.add(dropped.iter().cloned());
    tags.note()
}

/// The tags left out of a file's entries, as few as the note needs: how many, and the
/// first few in order. A file of a million odd tags keeps eleven.
#[derive(Debug, Default)]
pub(crate) struct DroppedTags {
    count: u64,
    first: std::collections::BTreeSet<String>,
}

impl DroppedTags {
    /// The tags shown by name; one more tells that there are others.
    const SHOWN: usize = 10;

    pub(crate) fn add(&mut self, tags: impl IntoIterator<Item = String>) {
        for tag in tags {
            self.count += 1;
            self.first.insert(tag);
            if self.first.len() > Self::SHOWN + 1 {
                self.first.pop_last();
            }
        }
    }

    /// The sentence that names them; none when no tag was left out.
    pub(crate) fn note(&self) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        let shown: Vec<String> = self
            .first
            .iter()
            .take(Self::SHOWN)
            .map(|t| format!("{t:?}"))
            .collect();
        Some(format!(
            "left out {} that {} not fit here (tags are 1 to 50 letters, digits, - and _; at most 20 an entry): {}{}",
            count(self.count, "tag", "tags"),
            if self.count == 1 { "does" } else { "do" },
            shown.join(", "),
            if self.first.len() > Self::SHOWN {
                ", …"
            } else {
                ""
            }
        ))
    }
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
}
