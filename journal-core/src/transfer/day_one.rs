//! Day One's JSON export (`Journal.json` in the export's zip):
//! `{"metadata": …, "entries": [{"uuid", "creationDate", "modifiedDate", "text", "tags",
//! "starred", "photos": […], "videos", "audios", "pdfAttachments", …}]}`. The text,
//! dates, tags and star are kept; media are left out (counted), and so are their
//! places in the text (`![](dayone-moment://…)`), unless the `.zip` export's reader
//! took them as attachments first (`day_one_zip`).

use serde_json::{Map, Value};

use super::fields::{bool_field, date_field, text_field, text_list_field};
use super::{ImportedEntry, fit_title, validate};
use crate::api::CreateEntryRequest;
use crate::domain::Timestamp;

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

/// Whether a line is only a link to an attachment (a photo the archive's reader put in).
fn is_attachment_link(line: &str) -> bool {
    let line = line.trim();
    (line.starts_with("![") || line.starts_with('['))
        && line.ends_with(')')
        && line.contains("](attachment:")
}

fn date(map: &Map<String, Value>, name: &str) -> Result<Option<Timestamp>, String> {
    date_field(map, name)
}

pub(crate) fn entry(map: &Map<String, Value>) -> Result<Converted, String> {
    let created = date(map, "creationDate")?.ok_or("field \"creationDate\" is missing")?;
    let text = clean_text(&text_field(map, "text")?.unwrap_or_default());
    // A photo at the top stays at the top of the body; the title is the first line of text.
    let lead_len = text
        .lines()
        .take_while(|l| l.trim().is_empty() || is_attachment_link(l))
        .map(|l| l.len() + 1)
        .sum::<usize>()
        .min(text.len());
    let (lead, rest) = text.split_at(lead_len);
    let (title, body) = fit_title("", rest);
    let body = format!("{}\n\n{body}", lead.trim()).trim().to_owned();
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
            revisions: Vec::new(),
            deleted_at: None,
        },
        dropped_tags,
        media,
    })
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
