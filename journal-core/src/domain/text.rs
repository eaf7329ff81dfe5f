//! The rules shared by the text values: no NUL, and trimmed text of bounded length.

use crate::error::ValidationError;

pub(crate) fn reject_nul(field: &'static str, value: &str) -> Result<(), ValidationError> {
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
            format!("must be at most {max} characters (this is {chars})"),
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

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
pub(crate) use text_newtype;
