//! How the author settles a sync conflict: keep the entry as it is, or take the text
//! the sync set aside.

use std::fmt;
use std::str::FromStr;

use super::ids::RevisionId;
use crate::error::ValidationError;

/// What settling an entry's conflict keeps. Written `current`, or the set-aside
/// revision's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The entry as it is now; the text set aside stays in its history.
    KeepCurrent,
    /// The text set aside in this revision, made the entry's current state as a new
    /// revision (the entry as it was stays in its history).
    TakeSetAside(RevisionId),
}

impl FromStr for Resolution {
    type Err = ValidationError;

    fn from_str(text: &str) -> Result<Resolution, ValidationError> {
        let text = text.trim();
        if text == "current" {
            return Ok(Resolution::KeepCurrent);
        }
        text.parse::<RevisionId>()
            .map(Resolution::TakeSetAside)
            .map_err(|_| {
                ValidationError::new(
                    "keep",
                    "must be \"current\" (the entry as it is) or the revisionId of the text \
                     set aside, as the conflict lists it",
                )
            })
    }
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resolution::KeepCurrent => f.write_str("current"),
            Resolution::TakeSetAside(id) => write!(f, "{id}"),
        }
    }
}
