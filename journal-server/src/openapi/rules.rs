//! Schemas for values whose rule is more than a type and a length: the dates of the
//! `from` and `to` filters and a tag. Each states the server's rule exactly, so that a
//! value the document calls valid is one the server takes (schemathesis holds the
//! server to that).

use std::sync::OnceLock;

use journal_core::Tag;
use serde_json::{Value, json};

use super::WHITESPACE;

/// A calendar day from 1900-01-01 to 9999-12-31: months of their length, 29 February
/// in leap years only (every fourth year, but of the centuries only those divisible by
/// 400).
const DAY: &str = concat!(
    "(?:(?:19[0-9]{2}|[2-9][0-9]{3})-",
    "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)",
    "|(?:19|[2-9][0-9])(?:0[48]|[2468][048]|[13579][26])-02-29",
    "|(?:[2468][048]|[3579][26])00-02-29)"
);

/// What may follow the day: a local time to the minute or second (read in `tz`), or
/// an RFC 3339 instant with seconds and an offset.
const TIME: &str = concat!(
    "(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9]",
    "(?::[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?)?)?"
);

/// `from` or `to`: a day, or an instant, whose year as written is 1900 to 9999.
pub(super) fn date_bound(description: &str) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^[{WHITESPACE}]*{DAY}{TIME}[{WHITESPACE}]*$"),
        "description": description
    })
}

/// One tag: 1 to 50 letters (any script), digits, `-` or `_`, as the core checks it
/// after lower-casing and NFC.
pub(super) fn tag() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": 50,
        "pattern": format!("^{}+$", tag_class()),
        "description": "1 to 50 letters (any script), digits, - or _; matched without regard to case. \
            The pattern lists every character that is a tag on its own; a letter followed by a \
            combining accent (e\u{301}) is a tag too, kept in its composed form (\u{e9})."
    })
}

/// The characters that make a one-character tag, as a character class worked out from
/// the core's own rule rather than copied from it (so it cannot drift). Characters of
/// the Basic Multilingual Plane are written `\uXXXX`; the others, which that escape
/// cannot name, as themselves.
fn tag_class() -> &'static str {
    static CLASS: OnceLock<String> = OnceLock::new();
    CLASS.get_or_init(|| {
        let is_tag = |c: char| {
            let mut buf = [0; 4];
            (c.is_alphanumeric() || c == '-' || c == '_')
                && Tag::parse(c.encode_utf8(&mut buf)).is_ok()
        };
        let write = |c: char| {
            if u32::from(c) <= 0xFFFF {
                format!("\\u{:04x}", u32::from(c))
            } else {
                c.to_string()
            }
        };
        let mut class = String::from("[");
        let mut run: Option<(char, char)> = None;
        let close = |class: &mut String, (first, last): (char, char)| {
            class.push_str(&write(first));
            if last != first {
                class.push('-');
                class.push_str(&write(last));
            }
        };
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if !is_tag(c) {
                continue;
            }
            run = match run {
                Some((first, last)) if u32::from(last) + 1 == u32::from(c) => Some((first, c)),
                Some(done) => {
                    close(&mut class, done);
                    Some((c, c))
                }
                None => Some((c, c)),
            };
        }
        if let Some(done) = run {
            close(&mut class, done);
        }
        class.push(']');
        class
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges `tag_class` wrote, read back.
    fn ranges(class: &str) -> Vec<(char, char)> {
        let mut chars = class[1..class.len() - 1].chars().peekable();
        let one = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
            let c = chars.next()?;
            if c != '\\' {
                return Some(c);
            }
            assert_eq!(chars.next(), Some('u'));
            let hex: String = chars.by_ref().take(4).collect();
            char::from_u32(u32::from_str_radix(&hex, 16).ok()?)
        };
        let mut out = Vec::new();
        while let Some(first) = one(&mut chars) {
            if chars.peek() == Some(&'-') {
                chars.next();
                out.push((first, one(&mut chars).expect("a range's end")));
            } else {
                out.push((first, first));
            }
        }
        out
    }

    #[test]
    fn the_tag_class_holds_letters_and_digits_of_every_script_and_no_symbol() {
        let ranges = ranges(tag_class());
        let covers = |c: char| ranges.iter().any(|(a, b)| (*a..=*b).contains(&c));
        for c in [
            'a',
            'A',
            'z',
            '0',
            '-',
            '_',
            '\u{e9}',
            '\u{3b1}',
            '\u{436}',
            '\u{4e2d}',
            '\u{1d400}',
        ] {
            assert!(covers(c), "{c:?} missing");
        }
        // Symbols, punctuation, a combining accent alone, and İ, whose lower case is
        // i and a combining dot.
        for c in [
            ' ',
            '#',
            '\u{a7}',
            '\u{a9}',
            '\u{b0}',
            '\u{d7}',
            '\u{301}',
            '\u{130}',
            '\u{1f600}',
        ] {
            assert!(!covers(c), "{c:?} listed");
        }
    }
}
