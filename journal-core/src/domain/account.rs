//! The values of an account: its e-mail address, password, names, picture and role.

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization as _;

use super::text::{bounded_text, reject_nul, text_newtype};
use crate::error::ValidationError;

/// Longest password accepted, in characters. Anything longer is refused before hashing,
/// so a huge password cannot buy a slow hash.
pub const PASSWORD_MAX_CHARS: usize = 1024;
/// Shortest password accepted, in characters.
pub const PASSWORD_MIN_CHARS: usize = 8;
/// Longest full name or nickname, in characters after trimming.
pub const NAME_MAX_CHARS: usize = 100;
/// Largest profile picture, in decoded bytes.
pub const PROFILE_PIC_MAX_BYTES: usize = 512 * 1024;
/// Longest e-mail address (RFC 5321 path limit).
const EMAIL_MAX_CHARS: usize = 254;

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
