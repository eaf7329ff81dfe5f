//! Domain values that are valid by construction.
//!
//! Every value that reaches a store went through one of these constructors, so the
//! rules about what is acceptable live here and nowhere else. Each constructor
//! returns a [`ValidationError`] that names the field and says what to change.

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;
use uuid::Uuid;

pub use crate::error::UnknownId;
use crate::error::ValidationError;

/// Longest password accepted, in characters. Anything longer is refused before hashing,
/// so a huge password cannot buy a slow hash.
pub const PASSWORD_MAX_CHARS: usize = 1024;
/// Shortest password accepted, in characters.
pub const PASSWORD_MIN_CHARS: usize = 8;
/// Longest full name or nickname, in characters after trimming.
pub const NAME_MAX_CHARS: usize = 100;
/// Longest entry title, in characters after trimming.
pub const TITLE_MAX_CHARS: usize = 200;
/// Longest entry content, in characters.
pub const CONTENT_MAX_CHARS: usize = 100_000;
/// Largest profile picture, in decoded bytes.
pub const PROFILE_PIC_MAX_BYTES: usize = 512 * 1024;
/// Largest page size a list accepts.
pub const LIMIT_MAX: u32 = 100;
/// Page size when none is asked for.
pub const LIMIT_DEFAULT: u32 = 10;
/// Longest e-mail address (RFC 5321 path limit).
const EMAIL_MAX_CHARS: usize = 254;

fn reject_nul(field: &'static str, value: &str) -> Result<(), ValidationError> {
    // PostgreSQL cannot store NUL in text; refusing it everywhere keeps the backends equal.
    if value.contains('\0') {
        return Err(ValidationError::new(
            field,
            "must not contain NUL (\\u0000) characters",
        ));
    }
    Ok(())
}

/// Trimmed text of 1..=max characters, shared by names and titles.
pub(crate) fn bounded_text(
    field: &'static str,
    value: &str,
    max: usize,
) -> Result<String, ValidationError> {
    reject_nul(field, value)?;
    let trimmed = value.trim();
    let chars = trimmed.chars().count();
    if chars == 0 {
        return Err(ValidationError::new(field, "must not be empty"));
    }
    if chars > max {
        return Err(ValidationError::new(
            field,
            format!("must be at most {max} characters (got {chars})"),
        ));
    }
    Ok(trimmed.to_owned())
}

macro_rules! text_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl $name {
            /// The validated value.
            pub fn into_inner(self) -> String {
                self.0
            }
        }
    };
}

text_newtype!(
    /// An e-mail address: normalised (see [`Email::normalize`]), one `@` with a local
    /// part and a domain.
    Email
);

impl Email {
    /// The form an address is stored and compared in: trimmed, NFKC, lower-cased (and
    /// NFKC again, as lower-casing can undo it). Look-alikes that are the same text to a
    /// reader (full-width letters, `é` composed or not) become the same address.
    pub fn normalize(value: &str) -> String {
        let folded: String = value.trim().nfkc().collect::<String>().to_lowercase();
        folded.nfkc().collect()
    }

    /// The keys to look a typed address up by, for login, in order: as addresses were
    /// stored before normalisation (trimmed, lower-cased: an account whose address
    /// collided with another's when they were normalised kept that form), then
    /// [`Email::normalize`]d. None of the rules for new addresses apply, so an account
    /// registered before them still logs in. No key for text no stored address can be
    /// (NUL, far too long).
    pub fn lookup_keys(value: &str) -> Vec<String> {
        if value.contains('\0') || value.len() > EMAIL_MAX_CHARS * 4 {
            return Vec::new();
        }
        let legacy = value.trim().to_lowercase();
        let normal = Email::normalize(value);
        if legacy == normal {
            vec![normal]
        } else {
            vec![legacy, normal]
        }
    }

    /// Validates and normalises an address (see [`Email::normalize`]). Refuses invisible
    /// and control characters, and a part that mixes Latin letters with Cyrillic or
    /// Greek ones (`exаmple.com` with a Cyrillic `а`), which read as another address.
    pub fn parse(value: &str) -> Result<Email, ValidationError> {
        const FIELD: &str = "email";
        reject_nul(FIELD, value)?;
        if value.trim().chars().any(is_invisible) {
            return Err(ValidationError::new(
                FIELD,
                "must not contain invisible or control characters",
            ));
        }
        let email = Email::normalize(value);
        let invalid = || {
            ValidationError::new(
                FIELD,
                "must be a valid e-mail address such as name@example.com",
            )
        };
        if email.is_empty() {
            return Err(ValidationError::new(FIELD, "must not be empty"));
        }
        if email.chars().count() > EMAIL_MAX_CHARS {
            return Err(ValidationError::new(
                FIELD,
                format!("must be at most {EMAIL_MAX_CHARS} characters"),
            ));
        }
        let (local, domain) = email.split_once('@').ok_or_else(invalid)?;
        let local_ok = !local.is_empty()
            && local.chars().count() <= 64
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .chars()
                .all(|c| !c.is_whitespace() && !c.is_control() && !"@<>()[]\\,;:\"".contains(c));
        // A dotless domain such as `localhost` is allowed: the CLI's local owner uses one.
        let domain_ok = !domain.is_empty()
            && domain.split('.').all(|label| {
                !label.is_empty()
                    && label.chars().count() <= 63
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label.chars().all(|c| c.is_alphanumeric() || c == '-')
            });
        if !(local_ok && domain_ok) {
            return Err(invalid());
        }
        if std::iter::once(local)
            .chain(domain.split('.'))
            .any(mixes_scripts)
        {
            return Err(ValidationError::new(
                FIELD,
                "mixes Latin letters with look-alike Cyrillic or Greek ones; type the address in one alphabet",
            ));
        }
        Ok(Email(email))
    }
}

/// Characters that show nothing (zero-width spaces and joiners, direction marks, soft
/// hyphens, variation selectors, tags, fillers) or control the terminal.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
            | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// True when `part` has letters of two of Latin, Cyrillic and Greek, whose look-alikes
/// (`a`/`а`, `o`/`о`/`ο`) make one address read as another.
fn mixes_scripts(part: &str) -> bool {
    let latin = part
        .chars()
        .any(|c| c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c));
    let cyrillic = part.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
    let greek = part.chars().any(|c| ('\u{0370}'..='\u{03FF}').contains(&c));
    usize::from(latin) + usize::from(cyrillic) + usize::from(greek) > 1
}

/// A plain-text password that meets the policy. It is hashed as soon as it is used
/// and never stored or printed; `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

impl Password {
    /// Checks the password policy for a new password: 8 to 1024 characters, not one of
    /// the most common passwords.
    pub fn parse(value: &str) -> Result<Password, ValidationError> {
        Self::parse_field("password", value)
    }

    /// Like [`Password::parse`], naming another field in the error (`newPassword`).
    pub fn parse_field(field: &'static str, value: &str) -> Result<Password, ValidationError> {
        // Count bytes first: a megabyte-long value is refused without walking it.
        if value.len() > PASSWORD_MAX_CHARS * 4 || value.chars().count() > PASSWORD_MAX_CHARS {
            return Err(ValidationError::new(
                field,
                format!("must be at most {PASSWORD_MAX_CHARS} characters"),
            ));
        }
        reject_nul(field, value)?;
        if value.chars().count() < PASSWORD_MIN_CHARS {
            return Err(ValidationError::new(
                field,
                format!("must be at least {PASSWORD_MIN_CHARS} characters"),
            ));
        }
        if crate::common_passwords::is_common(value) {
            return Err(ValidationError::new(
                field,
                "is one of the most common passwords; choose another",
            ));
        }
        Ok(Password(value.to_owned()))
    }

    /// The plain text, for hashing.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

text_newtype!(
    /// A person's full name: 1 to 100 characters after trimming.
    FullName
);

impl FullName {
    /// Validates a full name.
    pub fn parse(value: &str) -> Result<FullName, ValidationError> {
        bounded_text("fullName", value, NAME_MAX_CHARS).map(FullName)
    }
}

text_newtype!(
    /// A display name: 1 to 100 characters after trimming.
    Nickname
);

impl Nickname {
    /// Validates a nickname.
    pub fn parse(value: &str) -> Result<Nickname, ValidationError> {
        bounded_text("nickname", value, NAME_MAX_CHARS).map(Nickname)
    }
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
        if value.len() > CONTENT_MAX_CHARS * 4 || value.chars().count() > CONTENT_MAX_CHARS {
            return Err(ValidationError::new(
                FIELD,
                format!("must be at most {CONTENT_MAX_CHARS} characters"),
            ));
        }
        reject_nul(FIELD, value)?;
        Ok(Content(value.to_owned()))
    }
}

text_newtype!(
    /// A profile picture: empty, or a `data:image/(png|jpeg|jpg|gif|webp);base64,` URI
    /// whose payload decodes to at most 512 KiB.
    ProfilePic
);

impl ProfilePic {
    /// Validates a profile picture data URI.
    pub fn parse(value: &str) -> Result<ProfilePic, ValidationError> {
        const FIELD: &str = "profilePic";
        let value = value.trim();
        if value.is_empty() {
            return Ok(ProfilePic(String::new()));
        }
        let Some((header, payload)) = value.split_once(',') else {
            return Err(Self::bad_format());
        };
        let kind = header
            .strip_prefix("data:image/")
            .and_then(|rest| rest.strip_suffix(";base64"))
            .ok_or_else(Self::bad_format)?;
        if !matches!(kind, "png" | "jpeg" | "jpg" | "gif" | "webp") {
            return Err(ValidationError::new(
                FIELD,
                format!("image type {kind:?} is not supported; use png, jpeg, gif or webp"),
            ));
        }
        // Judge the size from the encoded length before decoding anything.
        let max_encoded = PROFILE_PIC_MAX_BYTES.div_ceil(3) * 4;
        if payload.len() > max_encoded {
            return Err(Self::too_large());
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|_| {
                ValidationError::new(FIELD, "the base64 data after the comma does not decode")
            })?;
        if decoded.is_empty() {
            return Err(ValidationError::new(FIELD, "the image data is empty"));
        }
        if decoded.len() > PROFILE_PIC_MAX_BYTES {
            return Err(Self::too_large());
        }
        Ok(ProfilePic(value.to_owned()))
    }

    /// The empty picture.
    pub fn none() -> ProfilePic {
        ProfilePic(String::new())
    }

    fn bad_format() -> ValidationError {
        ValidationError::new(
            "profilePic",
            "must be empty or a data URI like data:image/png;base64,<data>",
        )
    }

    fn too_large() -> ValidationError {
        ValidationError::new(
            "profilePic",
            format!(
                "the image must be at most {} KiB",
                PROFILE_PIC_MAX_BYTES / 1024
            ),
        )
    }
}

/// Which page of a list to return: `page` ≥ 1 and `limit` in 1..=100, and for the
/// newest-first lists optionally a [`Cursor`]: the page then starts right after the
/// cursor's entry, found through the index instead of by skipping rows, so page 10,000
/// costs what page 1 does. `page` then only numbers the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    page: u32,
    limit: u32,
    after: Option<Cursor>,
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            page: 1,
            limit: LIMIT_DEFAULT,
            after: None,
        }
    }
}

/// A position in a newest-first list: just after the entry dated `date` with id `id`. Written `<milliseconds>_<id>` in a `Link` URL's `after` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cursor {
    date: Timestamp,
    id: EntryId,
}

impl Cursor {
    /// The position right after the entry dated `date` with id `id`.
    pub fn new(date: Timestamp, id: EntryId) -> Cursor {
        Cursor { date, id }
    }

    /// Parses the `after` text of a `Link` URL.
    pub fn parse(value: &str) -> Result<Cursor, ValidationError> {
        let invalid = || {
            ValidationError::new(
                "after",
                "is not a position from a Link header; drop it to start from the first page",
            )
        };
        let (ms, id) = value.split_once('_').ok_or_else(invalid)?;
        // Within years 1900 to 9999: every date an entry can have, and every store can
        // compare against them.
        let ms: i64 = ms
            .parse()
            .ok()
            .filter(|ms| (-2_208_988_800_000..=253_402_300_799_999).contains(ms))
            .ok_or_else(invalid)?;
        let id: EntryId = id.parse().map_err(|_| invalid())?;
        Ok(Cursor {
            date: Timestamp::from_millis(ms),
            id,
        })
    }

    /// The date of the entry the page continues after.
    pub fn date(&self) -> Timestamp {
        self.date
    }

    /// The id of the entry the page continues after.
    pub fn id(&self) -> &EntryId {
        &self.id
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.date.as_millis(), self.id)
    }
}

/// How deep into a list a page may reach by number (`page × limit`); deeper pages are
/// served by cursor. Skipping costs the database a few microseconds a row (the public
/// feed checks each author's privacy as it goes), so this bounds what any request, an
/// anonymous one included, can make it walk (docs/PERFORMANCE.md has the figures).
pub const MAX_PAGE_DEPTH: u64 = 2_000;

impl PageRequest {
    /// Validates a page request; `None` takes the default (page 1, limit 10).
    pub fn new(page: Option<i64>, limit: Option<i64>) -> Result<PageRequest, ValidationError> {
        let page = match page {
            None => 1,
            Some(p) if (1..=i64::from(u32::MAX)).contains(&p) => p as u32,
            Some(_) => {
                return Err(ValidationError::new(
                    "page",
                    format!("must be a whole number from 1 to {}", u32::MAX),
                ));
            }
        };
        let limit = match limit {
            None => LIMIT_DEFAULT,
            Some(l) if (1..=i64::from(LIMIT_MAX)).contains(&l) => l as u32,
            Some(_) => {
                return Err(ValidationError::new(
                    "limit",
                    format!("must be a whole number from 1 to {LIMIT_MAX}"),
                ));
            }
        };
        Ok(PageRequest {
            page,
            limit,
            after: None,
        })
    }

    /// The same page size and number, starting right after `cursor`.
    pub fn continuing(self, cursor: Option<Cursor>) -> PageRequest {
        PageRequest {
            after: cursor,
            ..self
        }
    }

    /// Where the page starts, when it continues from a cursor.
    pub fn after(&self) -> Option<&Cursor> {
        self.after.as_ref()
    }

    /// Parses `page` and `limit` as they come in a query string.
    pub fn from_query(
        page: Option<&str>,
        limit: Option<&str>,
    ) -> Result<PageRequest, ValidationError> {
        fn number(
            field: &'static str,
            raw: Option<&str>,
            range: &str,
        ) -> Result<Option<i64>, ValidationError> {
            raw.map(|s| {
                s.trim().parse::<i64>().map_err(|_| {
                    ValidationError::new(field, format!("must be a whole number from {range}"))
                })
            })
            .transpose()
        }
        let page = number("page", page, &format!("1 to {}", u32::MAX))?;
        let limit = number("limit", limit, &format!("1 to {LIMIT_MAX}"))?;
        PageRequest::new(page, limit)
    }

    /// The 1-based page number.
    pub fn page(&self) -> u32 {
        self.page
    }

    /// Items per page.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Refuses a page that reaches past the first [`MAX_PAGE_DEPTH`] entries of a list by
    /// its number: the database would walk every entry before it, at any client's
    /// request. A `Link` cursor (`after=`) reaches any depth at the cost of page 1.
    pub fn check_depth(&self) -> Result<(), ValidationError> {
        if self.after.is_none() && u64::from(self.page) * u64::from(self.limit) > MAX_PAGE_DEPTH {
            return Err(ValidationError::new(
                "page",
                format!(
                    "reaches past entry {MAX_PAGE_DEPTH}; pages that deep are served only by \
                     cursor: follow the Link header's rel=\"next\" URL (after=…)"
                ),
            ));
        }
        Ok(())
    }

    /// Rows to skip: none after a cursor, which already says where the page starts.
    pub fn offset(&self) -> u64 {
        if self.after.is_some() {
            return 0;
        }
        u64::from(self.page - 1) * u64::from(self.limit)
    }
}

/// The words of a text as search sees them: lower-cased, accents removed (`Café` is
/// `cafe`), split into runs of letters and digits. Every other character (quotes, `*`,
/// `-`, `%`, emoji) only separates words.
///
/// Queries and the SQLite index both go through this one function, so a word in a query
/// matches the same word in an entry whatever its case, accents or Unicode form.
pub fn search_words(text: &str) -> Vec<String> {
    // ASCII has no accents, decomposes to itself, and its letters and digits are the
    // ASCII ones: the same words as below, without the Unicode tables. Every create
    // folds its whole title and body here, on the single writer thread.
    if text.is_ascii() {
        return text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
    }
    unicode_words(text)
}

/// [`search_words`] for any text.
fn unicode_words(text: &str) -> Vec<String> {
    // Lower-case first: lower-casing can itself make combining marks ("İ" becomes "i"
    // and a combining dot), which decomposition then removes with the other accents.
    let folded: String = text
        .to_lowercase()
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A search query, reduced to the words it contains (see [`search_words`]).
///
/// Each store turns the words into its own full-text syntax, so no user text ever
/// reaches a query parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    terms: Vec<String>,
}

impl SearchQuery {
    /// Most words a query keeps; the rest are ignored.
    pub const MAX_TERMS: usize = 16;
    /// Longest word kept, in characters; a longer word is searched by its prefix.
    pub const MAX_TERM_CHARS: usize = 64;

    /// Parses the `q` text. An empty or blank query is an error; a query without any
    /// letters or digits is valid and matches nothing.
    pub fn parse(value: &str) -> Result<SearchQuery, ValidationError> {
        if value.trim().is_empty() {
            return Err(ValidationError::new("q", "must not be empty"));
        }
        let mut terms: Vec<String> = Vec::new();
        for word in search_words(value) {
            let term: String = word.chars().take(Self::MAX_TERM_CHARS).collect();
            if !terms.contains(&term) {
                terms.push(term);
            }
            if terms.len() == Self::MAX_TERMS {
                break;
            }
        }
        Ok(SearchQuery { terms })
    }

    /// Shortest word searched as a prefix (`gar` finds `garden`); shorter words match
    /// whole words only. A one- or two-letter prefix would expand to most of a
    /// journal's vocabulary, and rank every entry, for one keystroke.
    pub const MIN_PREFIX_CHARS: usize = 3;

    /// The words, lower-cased and without accents, each made only of letters and digits.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether `term` (one of [`SearchQuery::terms`]) matches as a word prefix, or only
    /// as a whole word (see [`SearchQuery::MIN_PREFIX_CHARS`]).
    pub fn is_prefix(term: &str) -> bool {
        term.chars().count() >= Self::MIN_PREFIX_CHARS
    }

    /// True when the query has no words and so matches nothing.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// The role of an account. Everyone who registers is a `user`; `admin` is granted only
/// on the database itself (the CLI's `journal admin promote`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A normal account.
    User,
    /// May delete any entry (moderation).
    Admin,
}

impl Role {
    /// The stored and wire name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Admin => "admin",
        }
    }
}

impl FromStr for Role {
    type Err = ValidationError;
    fn from_str(s: &str) -> Result<Role, ValidationError> {
        match s {
            "user" => Ok(Role::User),
            "admin" => Ok(Role::Admin),
            _ => Err(ValidationError::new("role", "must be user or admin")),
        }
    }
}

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident, $kind:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Uuid);

        impl $name {
            /// A new identifier (UUIDv7: sorts by creation time).
            pub fn generate() -> Self {
                $name(Uuid::now_v7())
            }

            /// The underlying UUID.
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            /// Wraps a UUID read back from a store.
            pub fn from_uuid(uuid: Uuid) -> Self {
                $name(uuid)
            }
        }

        impl FromStr for $name {
            type Err = UnknownId;
            fn from_str(s: &str) -> Result<Self, UnknownId> {
                // Only the canonical form (lower-case, hyphenated), so one entry has
                // exactly one URL.
                if s.len() != 36 || s.bytes().any(|b| b.is_ascii_uppercase()) {
                    return Err(UnknownId { kind: $kind });
                }
                Uuid::try_parse(s)
                    .map($name)
                    .map_err(|_| UnknownId { kind: $kind })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // Through a stack buffer, not `Display`: a list writes two per entry.
                s.serialize_str(self.0.hyphenated().encode_lower(&mut Uuid::encode_buffer()))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

id_type!(
    /// Identifies a user.
    UserId,
    "user"
);
id_type!(
    /// Identifies a journal entry.
    EntryId,
    "entry"
);

/// A point in time with millisecond precision, shown as ISO 8601 UTC
/// (`2024-08-27T11:42:28.185Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The current time, truncated to milliseconds.
    pub fn now() -> Timestamp {
        Timestamp(Utc::now().timestamp_millis())
    }

    /// From milliseconds since the Unix epoch.
    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub fn as_millis(&self) -> i64 {
        self.0
    }

    /// Parses an RFC 3339 / ISO 8601 date-time with an offset.
    pub fn parse(value: &str) -> Result<Timestamp, ValidationError> {
        DateTime::parse_from_rfc3339(value.trim())
            .map(|t| Timestamp(t.timestamp_millis()))
            .map_err(|_| {
                ValidationError::new(
                    "date",
                    format!("{value:?} is not an ISO 8601 date-time like 2024-08-27T11:42:28.185Z"),
                )
            })
    }

    /// The time as a chrono value.
    pub fn to_datetime(&self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    }
}

impl Timestamp {
    /// Writes `2024-08-27T11:42:28.185Z` into `buf` without allocating, for the years
    /// 0 to 9999; `None` for the others, which chrono writes with a sign. Every list
    /// response writes two per entry, and chrono's `to_rfc3339_opts` allocates a
    /// `String` for each (measured in docs/PERFORMANCE.md).
    fn write_iso<'b>(&self, buf: &'b mut [u8; 24]) -> Option<&'b str> {
        use chrono::{Datelike as _, Timelike as _};
        let t = self.to_datetime();
        let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
        let mut put = |at: usize, value: u32, digits: usize| {
            let mut v = value;
            for i in (at..at + digits).rev() {
                buf[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, year, 4);
        put(5, t.month(), 2);
        put(8, t.day(), 2);
        put(11, t.hour(), 2);
        put(14, t.minute(), 2);
        put(17, t.second(), 2);
        put(20, t.nanosecond() / 1_000_000 % 1000, 3);
        for (at, sep) in [
            (4, b'-'),
            (7, b'-'),
            (10, b'T'),
            (13, b':'),
            (16, b':'),
            (19, b'.'),
            (23, b'Z'),
        ] {
            buf[at] = sep;
        }
        std::str::from_utf8(buf).ok()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.write_iso(&mut [0; 24]) {
            Some(text) => f.write_str(text),
            None => f.write_str(
                &self
                    .to_datetime()
                    .to_rfc3339_opts(SecondsFormat::Millis, true),
            ),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.write_iso(&mut [0; 24]) {
            Some(text) => s.serialize_str(text),
            None => s.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse(&s).map_err(serde::de::Error::custom)
    }
}
id_type!(
    /// Identifies a personal access token.
    AccessTokenId,
    "token"
);

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The ASCII shortcut finds exactly the words the Unicode path finds.
        #[test]
        fn ascii_text_folds_as_any_text_does(text in "[ -~\t\n]{0,200}") {
            prop_assert_eq!(super::search_words(&text), super::unicode_words(&text));
        }
    }

    #[test]
    fn text_beyond_ascii_still_folds_accents_and_case() {
        assert_eq!(
            super::search_words("Café, İstanbul & H₂O"),
            ["cafe", "istanbul", "h₂o"]
        );
    }
}
