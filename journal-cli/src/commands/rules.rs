//! The journal's rules for an entry, checked here so that both modes refuse a bad one
//! with the same message.

use journal_core::api::{CreateEntryRequest, UpdateEntryRequest};

use crate::error::{CliError, Result};

/// The journal's rules for a new entry, checked here so that both modes refuse it with
/// the same message (a server would refuse a large body before reading it).
pub(super) fn check_new_entry(request: &CreateEntryRequest) -> Result<()> {
    journal_core::input::NewEntry::try_from(request)
        .map(|_| ())
        .map_err(rule_broken)
}

/// The same for a change to an entry.
pub(super) fn check_entry_change(request: &UpdateEntryRequest) -> Result<()> {
    journal_core::input::EntryChanges::try_from(request)
        .map(|_| ())
        .map_err(rule_broken)
}

/// A broken rule in the user's words: the date came from `--date`.
fn rule_broken(e: journal_core::ValidationError) -> CliError {
    match e.field {
        "date" => CliError::Invalid(format!("--date {}", e.message)),
        _ => CliError::Invalid(e.to_string()),
    }
}
