//! Importing entries with their original dates: from files (the CLI, and the API's
//! import of a file), and as the API's list of entries.
//!
//! One rule for ids, whatever brought the entries: an entry keeps the id it comes with
//! when that is a UUIDv7 in canonical form that no other user's entry has, so importing
//! the same file again finds every entry by id and skips it. An entry of the caller's
//! with the same trimmed title and text, dated in the same minute (what jrnl keeps of
//! a date), is the same entry too: that finds entries that come without an id (jrnl,
//! Day One, anyone's Markdown) or whose id another user has. An id another user has is
//! never overwritten: the entry is stored under a new id (see docs/API.md for what that
//! tells the importer). Each import is one transaction: it is written whole or not at
//! all, and running it again after a failure completes it.

use std::collections::HashSet;

use tracing::instrument;
use uuid::Uuid;

pub use crate::api::MAX_IMPORT_BATCH;
pub use crate::transfer::ImportedEntry;

use super::{Caller, Journal};
use crate::api::{CreateEntryRequest, ImportEntriesRequest};
use crate::domain::{EntryId, Timestamp, check_entry_date};
use crate::error::{Error, Result, ValidationError};
use crate::input::NewEntry;
use crate::model::Entry;
use crate::store::{ImportOutcome, ImportRow};

/// What an import did.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// The entries created, in the order given.
    pub created: Vec<Entry>,
    /// How many the journal had already.
    pub skipped: usize,
}

/// The id an imported entry may keep: a UUIDv7 (ids sort by creation time, and short
/// ids are read from their start) in the one form ids have.
fn kept_id(id: Option<&str>) -> Option<EntryId> {
    let id: EntryId = id?.trim().parse().ok()?;
    (Uuid::get_version_num(id.as_uuid()) == 7).then_some(id)
}

/// The minute `t` falls in: an entry of the same title and text dated in it is the
/// same entry.
fn minute_of(t: Timestamp) -> (Timestamp, Timestamp) {
    let start = t.as_millis().div_euclid(60_000) * 60_000;
    (
        Timestamp::from_millis(start),
        Timestamp::from_millis(start + 60_000),
    )
}

impl Journal {
    /// Imports entries by the caller keeping their dates, and their ids by the rule
    /// above. Every entry is validated first; nothing is stored unless all are valid,
    /// and what is stored is stored in one transaction.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import_entries(
        &self,
        caller: &Caller,
        entries: Vec<ImportedEntry>,
    ) -> Result<ImportReport> {
        let author = self.profile(caller).await?;
        let mut rows = Vec::with_capacity(entries.len());
        // An id a file gives twice is one entry: the second is skipped, whoever has it.
        let mut given = HashSet::new();
        let mut repeated = 0;
        for (i, e) in entries.into_iter().enumerate() {
            let in_entry = |err: ValidationError| {
                ValidationError::new(err.field, format!("entry {}: {}", i + 1, err.message))
            };
            let new = NewEntry::try_from(&e.request).map_err(in_entry)?;
            for (field, date) in [
                ("createdAt", Some(e.created_at)),
                ("updatedAt", e.updated_at),
            ] {
                if let Some(date) = date {
                    check_entry_date(field, date).map_err(|err| {
                        ValidationError::new(
                            field,
                            format!("entry {}: {field}: {}", i + 1, err.message),
                        )
                    })?;
                }
            }
            let author_name = e
                .author_name
                .clone()
                .unwrap_or_else(|| author.nickname.clone());
            let updated_at = e.updated_at.unwrap_or(e.created_at);
            let mut entry = new.into_entry(caller.user_id, author_name, e.created_at, updated_at);
            let fresh_id = entry.id;
            if let Some(id) = kept_id(e.id.as_deref()) {
                if !given.insert(id) {
                    repeated += 1;
                    continue;
                }
                entry.id = id;
            }
            let (same_from, same_until) = minute_of(entry.date);
            rows.push(ImportRow {
                entry,
                fresh_id,
                same_from,
                same_until,
            });
        }
        let mut report = ImportReport {
            created: Vec::with_capacity(rows.len()),
            skipped: repeated,
        };
        if rows.is_empty() {
            return Ok(report);
        }
        let outcomes = self.store_ref().import_entries(&rows).await?;
        for (row, outcome) in rows.into_iter().zip(outcomes) {
            match outcome {
                ImportOutcome::Stored(id) => {
                    let mut entry = row.entry;
                    entry.id = id;
                    report.created.push(entry);
                }
                ImportOutcome::Skipped => report.skipped += 1,
            }
        }
        Ok(report)
    }

    /// Imports entries by the caller with their original dates, as sent over the API
    /// (`POST /api/journal-entries/import`). All or nothing: one invalid entry refuses
    /// the whole batch. The author name is always the caller's nickname.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import(
        &self,
        caller: &Caller,
        request: &ImportEntriesRequest,
    ) -> Result<ImportReport> {
        if request.entries.is_empty() || request.entries.len() > MAX_IMPORT_BATCH {
            return Err(ValidationError::new(
                "entries",
                format!("send 1 to {MAX_IMPORT_BATCH} entries per request"),
            )
            .into());
        }
        let mut imported = Vec::with_capacity(request.entries.len());
        for (i, e) in request.entries.iter().enumerate() {
            let date = |field: &str, value: Option<&str>| -> Result<Option<Timestamp>> {
                value
                    .map(|v| {
                        Timestamp::parse(v).map_err(|err| {
                            Error::from(ValidationError::new(
                                "entries",
                                format!("entry {}: {field}: {}", i + 1, err.message),
                            ))
                        })
                    })
                    .transpose()
            };
            let created_at = date("createdAt", e.created_at.as_deref())?.ok_or_else(|| {
                ValidationError::new(
                    "entries",
                    format!("entry {}: createdAt: is required", i + 1),
                )
            })?;
            imported.push(ImportedEntry {
                id: e.id.clone(),
                request: CreateEntryRequest::from(e),
                created_at,
                updated_at: date("updatedAt", e.updated_at.as_deref())?,
                author_name: None,
            });
        }
        self.import_entries(caller, imported).await
    }
}
