//! The values of an entry: its title, content, tags, and the dates it may have.

use std::fmt;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization as _;

use super::text::{bounded_text, reject_nul, text_newtype};
use super::time::{DAY_MS, Timestamp};
use crate::error::ValidationError;

/// Longest entry title, in characters after trimming.
pub const TITLE_MAX_CHARS: usize = 200;
/// Longest entry content, in characters.
pub const CONTENT_MAX_CHARS: usize = 100_000;
/// Most characters in a tag.
pub const TAG_MAX_CHARS: usize = 50;
/// Most tags on one entry.
pub const MAX_TAGS: usize = 20;

/// Midnight UTC on 1900-01-01: the earliest date an entry can have.
pub(crate) const EARLIEST_DATE_MS: i64 = -2_208_988_800_000;

/// The latest date an entry can have: a day from now (clocks differ a little).
pub(crate) fn latest_date() -> Timestamp {
    Timestamp::from_millis(Timestamp::now().as_millis() + DAY_MS)
}

text_newtype!(
    /// An entry title: 1 to 200 characters after trimming.
    Title
);

impl Title {
    /// Validates a title.
    pub fn parse(value: &str) -> Result<Title, ValidationError> {
        bounded_text("title", value, TITLE_MAX_CHARS).map(Title)
    }
}

text_newtype!(
    /// Entry content: at most 100,000 characters; may be empty (a title-only line).
    Content
);

impl Content {
    /// Validates content. It is kept exactly as given, whitespace included.
    pub fn parse(value: &str) -> Result<Content, ValidationError> {
        const FIELD: &str = "content";
        // Counted whatever the size (the request's body limit bounds it), so the
        // message can say how far over the limit the text is.
        let chars = value.chars().count();
        if chars > CONTENT_MAX_CHARS {
            return Err(ValidationError::new(
                FIELD,
                format!("must be at most {CONTENT_MAX_CHARS} characters (this is {chars})"),
            ));
        }
        reject_nul(FIELD, value)?;
        Ok(Content(value.to_owned()))
    }
}

/// One tag: lower-cased, in Unicode NFC, 1 to 50 letters, digits, `-` or `_`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Tag(String);

impl Tag {
    /// Normalises and checks a tag (`Work` → `work`); `field` names it in the error.
    pub fn parse_field(field: &'static str, value: &str) -> Result<Tag, ValidationError> {
        let tag: String = value.to_lowercase().nfc().collect();
        let chars = tag.chars().count();
        if chars == 0 || chars > TAG_MAX_CHARS {
            return Err(ValidationError::new(
                field,
                format!("{value:?} is not a tag: a tag has 1 to {TAG_MAX_CHARS} characters"),
            ));
        }
        if let Some(bad) = tag
            .chars()
            .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(ValidationError::new(
                field,
                format!(
                    "{value:?} is not a tag: {bad:?} is not allowed; use letters, digits, - and _"
                ),
            ));
        }
        Ok(Tag(tag))
    }

    /// Normalises and checks a tag of an entry.
    pub fn parse(value: &str) -> Result<Tag, ValidationError> {
        Tag::parse_field("tags", value)
    }

    /// The tag's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The tag's text, owned.
    pub fn into_inner(self) -> String {
        self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An entry's tags: each valid, none twice, sorted, at most [`MAX_TAGS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags(Vec<String>);

impl Tags {
    /// Validates a list of tags as a client sent it; duplicates (after lower-casing)
    /// count once.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Tags, ValidationError> {
        let mut tags = values
            .iter()
            .map(|v| Tag::parse(v.as_ref()).map(|t| t.0))
            .collect::<Result<Vec<_>, _>>()?;
        tags.sort();
        tags.dedup();
        if tags.len() > MAX_TAGS {
            return Err(ValidationError::new(
                "tags",
                format!(
                    "an entry has at most {MAX_TAGS} tags; this one has {}",
                    tags.len()
                ),
            ));
        }
        Ok(Tags(tags))
    }

    /// The tags, sorted.
    pub fn into_inner(self) -> Vec<String> {
        self.0
    }
}

/// An entry's `date`: ISO 8601, from 1900 to a day from now.
pub(crate) fn entry_date(field: &'static str, value: &str) -> Result<Timestamp, ValidationError> {
    let date = Timestamp::parse(value).map_err(|e| ValidationError::new(field, e.message))?;
    check_entry_date(field, date)
}

/// Refuses a date before 1900 or more than a day from now.
pub(crate) fn check_entry_date(
    field: &'static str,
    date: Timestamp,
) -> Result<Timestamp, ValidationError> {
    let (earliest, latest) = (Timestamp::from_millis(EARLIEST_DATE_MS), latest_date());
    if date < earliest || date > latest {
        return Err(ValidationError::new(
            field,
            format!("must be from {earliest} to one day from now"),
        ));
    }
    Ok(date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_lower_case_nfc_unique_and_sorted() {
        let tags = Tags::parse(&["Work", "cafe\u{301}", "work", "b-2_x"]).unwrap();
        assert_eq!(tags.into_inner(), vec!["b-2_x", "café", "work"]);
        assert!(Tags::parse(&["no#hash"]).is_err());
        assert!(Tags::parse(&[""]).is_err());
        assert!(Tags::parse(&["x".repeat(51)]).is_err());
        let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        assert!(Tags::parse(&many).is_err());
    }
}
