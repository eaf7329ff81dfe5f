//! The rules of the request fields as OpenAPI schemas, for the `ToSchema` derives of the
//! request types (`schema_with`): the field names, which are required, and the order come
//! from the types; each function here states one field's rule exactly as the core checks
//! it, so that a value the document calls valid is one the server takes. Patterns are
//! worked out from the core's own rules where the rule is code (the tag characters).

use std::sync::OnceLock;

use serde_json::json;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};

use crate::Tag;
use crate::domain::{
    CONTENT_MAX_CHARS, MAX_TAGS, NAME_MAX_CHARS, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS,
    TAG_MAX_CHARS, TITLE_MAX_CHARS,
};

/// What the server trims from text (Rust's `char::is_whitespace`, Unicode White_Space),
/// as the inside of a regular-expression character class.
pub const WHITESPACE: &str =
    r"\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// What a string without NUL matches.
const NO_NUL: &str = "^[^\\u0000]*$";

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// A string or null (null is the same as leaving the field out).
fn string_or_null() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::String, Type::Null]))
}

fn bool_or_null() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::Boolean, Type::Null]))
}

/// `schema`, or `null`, which means the same as leaving the field out.
fn or_null(schema: impl Into<Schema>) -> Schema {
    AnyOfBuilder::new()
        .item(schema.into())
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .build()
        .into()
}

/// A string that is 1 to `max` characters after trimming whitespace, without NUL: the
/// rule of names and titles, exactly (`maxLength` alone would count the whitespace).
fn trimmed_text(max: usize, description: &str) -> Schema {
    let pattern = format!(
        "^[{WHITESPACE}]*[^\\u0000{WHITESPACE}]([^\\u0000]{{0,{}}}[^\\u0000{WHITESPACE}])?[{WHITESPACE}]*$",
        max - 2
    );
    string()
        .pattern(Some(pattern))
        .description(Some(description))
        .build()
        .into()
}

const NAME: &str = "1 to 100 characters after trimming whitespace; no NUL.";
const TITLE: &str = "1 to 200 characters after trimming whitespace; no NUL.";
const RECENT_PASSWORD: &str =
    "The current password: needed unless the login is recent (--recent-login).";
const TOTP_WITH_PASSWORD: &str =
    "A second-factor or recovery code, with the password, when the second factor is on.";

/// A full name or nickname.
pub(super) fn name() -> Schema {
    trimmed_text(NAME_MAX_CHARS, NAME)
}

/// A full name or nickname, or null.
pub(super) fn name_or_null() -> Schema {
    or_null(name())
}

/// What a token is for.
pub(super) fn token_name() -> Schema {
    trimmed_text(
        NAME_MAX_CHARS,
        "What the token is for: 1 to 100 characters after trimming; no NUL.",
    )
}

/// An entry's title.
pub(super) fn title() -> Schema {
    trimmed_text(TITLE_MAX_CHARS, TITLE)
}

/// An entry's title, or null.
pub(super) fn title_or_null() -> Schema {
    or_null(title())
}

/// An entry's content, or null.
pub(super) fn content_or_null() -> Schema {
    or_null(
        string()
            .max_length(Some(CONTENT_MAX_CHARS))
            .pattern(Some(NO_NUL))
            .description(Some("At most 100,000 characters, kept exactly; no NUL.")),
    )
}

/// A new password.
pub(super) fn new_password() -> Schema {
    string()
        .min_length(Some(PASSWORD_MIN_CHARS))
        .max_length(Some(PASSWORD_MAX_CHARS))
        .pattern(Some(NO_NUL))
        .write_only(Some(true))
        .description(Some(
            "8 to 1024 characters, no NUL, and not one of the 10,000 most common passwords (400).",
        ))
        .build()
        .into()
}

fn email_rule() -> ObjectBuilder {
    string()
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Email)))
        .max_length(Some(254))
}

/// An e-mail address to register with.
pub(super) fn email() -> Schema {
    email_rule().build().into()
}

/// A new e-mail address, or null.
pub(super) fn email_or_null() -> Schema {
    or_null(email_rule())
}

/// A string, no more (an e-mail address to log in with).
pub(super) fn plain_string() -> Schema {
    string().build().into()
}

/// A secret: a password or code, never echoed.
pub(super) fn secret() -> Schema {
    string().write_only(Some(true)).build().into()
}

/// The current password, to confirm a change.
pub(super) fn current_password() -> Schema {
    string()
        .write_only(Some(true))
        .description(Some("The current password."))
        .build()
        .into()
}

/// The current password, needed unless the login is recent.
pub(super) fn recent_password() -> Schema {
    string_or_null()
        .write_only(Some(true))
        .description(Some(RECENT_PASSWORD))
        .build()
        .into()
}

/// The current password, read when the e-mail address changes.
pub(super) fn email_change_password() -> Schema {
    string_or_null()
        .write_only(Some(true))
        .description(Some(
            "The current password, to change the email unless the login is recent.",
        ))
        .build()
        .into()
}

/// A second-factor code with the password.
pub(super) fn totp_with_password() -> Schema {
    string_or_null()
        .write_only(Some(true))
        .description(Some(TOTP_WITH_PASSWORD))
        .build()
        .into()
}

/// A second-factor code at login.
pub(super) fn login_totp() -> Schema {
    string_or_null()
        .write_only(Some(true))
        .description(Some(
            "A current code, or an unused recovery code, for accounts with a second factor.",
        ))
        .build()
        .into()
}

/// A second-factor code for a password change.
pub(super) fn password_change_totp() -> Schema {
    string_or_null()
        .write_only(Some(true))
        .description(Some(
            "A second-factor or recovery code, when the second factor is on and the login is not recent.",
        ))
        .build()
        .into()
}

/// Whether a password change keeps the access tokens.
pub(super) fn keep_access_tokens() -> Schema {
    bool_or_null()
        .default(Some(json!(false)))
        .description(Some(
            "Keep the personal access tokens working; by default they are revoked with every login session.",
        ))
        .build()
        .into()
}

/// An invitation code.
pub(super) fn invite_code() -> Schema {
    string_or_null()
        .description(Some(
            "Needed when the server's registration is by invitation (else 403).",
        ))
        .build()
        .into()
}

/// A new picture.
pub(super) fn profile_pic_or_null() -> Schema {
    let base64 = "([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=|[A-Za-z0-9+/][AQgw]==)";
    or_null(
        string()
            .pattern(Some(format!(
                "^[{WHITESPACE}]*(data:image/(png|jpeg|jpg|gif|webp);base64,{base64})?[{WHITESPACE}]*$"
            )))
            .max_length(Some(699_100))
            .description(Some(
                "\"\" (none), or a data:image/(png|jpeg|gif|webp);base64 URI of canonical base64 decoding to at most 512 KiB.",
            )),
    )
}

/// A boolean, or null.
pub(super) fn bool_or_null_schema() -> Schema {
    bool_or_null().build().into()
}

/// A boolean, or null, false when left out.
pub(super) fn false_by_default() -> Schema {
    bool_or_null().default(Some(json!(false))).build().into()
}

/// A boolean.
pub(super) fn boolean() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Boolean)
        .build()
        .into()
}

fn days(max: i64, description: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
        .minimum(Some(1))
        .maximum(Some(max))
        .description(Some(description))
        .build()
        .into()
}

/// How long an access token works.
pub(super) fn token_days() -> Schema {
    days(3650, "Days until it stops working; never when left out.")
}

/// How long an invitation works.
pub(super) fn invite_days() -> Schema {
    days(30, "Days until the code stops working; 7 when left out.")
}

/// An instant, ISO 8601.
pub(super) fn date_time() -> Schema {
    string()
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
        .build()
        .into()
}

/// An instant, or null.
pub(super) fn date_time_or_null() -> Schema {
    or_null(date_time())
}

/// When an entry is about, or null.
pub(super) fn entry_date_or_null() -> Schema {
    or_null(
        string()
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .description(Some(
                "When the entry is about (ISO 8601), from 1900 to one day from now (400 otherwise); default: when it is created.",
            )),
    )
}

/// An entry's tags, or null.
pub(super) fn tags_or_null() -> Schema {
    or_null(
        ArrayBuilder::new()
            .items(RefOr::T(tag()))
            .max_items(Some(MAX_TAGS))
            .description(Some(
                "At most 20 tags (after lower-casing and removing duplicates). Stored lower-cased, in Unicode NFC, unique and sorted.",
            )),
    )
}

/// One tag: 1 to 50 letters (any script), digits, `-` or `_`, as the core checks it
/// after lower-casing and NFC.
pub fn tag() -> Schema {
    string()
        .min_length(Some(1))
        .max_length(Some(TAG_MAX_CHARS))
        .pattern(Some(format!("^{}+$", tag_class())))
        .description(Some(
            "1 to 50 letters (any script), digits, - or _; matched without regard to case. \
            The pattern lists every character that is a tag on its own; a letter followed by a \
            combining accent (e\u{301}) is a tag too, kept in its composed form (\u{e9}).",
        ))
        .build()
        .into()
}
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

    /// The class is a literal, so that the document needs no work to build; this holds
    /// it to the rule the core trims by (`str::trim`).
    #[test]
    fn the_whitespace_class_is_what_trimming_removes() {
        let class = format!(
            "[{}]",
            WHITESPACE
                .replace(r"\t", r"\u0009")
                .replace(r"\n", r"\u000a")
                .replace(r"\f", r"\u000c")
                .replace(r"\r", r"\u000d")
        );
        let ranges = ranges(&class);
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let listed = ranges.iter().any(|(a, b)| (*a..=*b).contains(&c));
            assert_eq!(listed, c.is_whitespace(), "{c:?}");
        }
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
