//! Importing entries with their original dates: from the CLI's files, and over the API.

use tracing::instrument;

pub use crate::api::MAX_IMPORT_BATCH;

use super::{Caller, Journal};
use crate::api::{CreateEntryRequest, ImportEntriesRequest};
use crate::domain::Timestamp;
use crate::domain::check_entry_date;
use crate::error::{Error, Result, ValidationError};
use crate::input::NewEntry;
use crate::model::Entry;

/// An entry to import with its original dates.
#[derive(Clone, Debug)]
pub struct ImportedEntry {
    /// Title, content and visibility, validated like a new entry.
    pub request: CreateEntryRequest,
    /// Original creation time.
    pub created_at: Timestamp,
    /// Original last change; `created_at` when unknown.
    pub updated_at: Option<Timestamp>,
    /// Original author name; the caller's nickname when unknown.
    pub author_name: Option<String>,
}

impl Journal {
    /// Imports entries by the caller keeping their dates (the CLI's `journal import`).
    /// Every entry is validated first; nothing is stored unless all are valid.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import_entries(
        &self,
        caller: &Caller,
        entries: Vec<ImportedEntry>,
    ) -> Result<Vec<Entry>> {
        let author = self.profile(caller).await?;
        let mut built = Vec::with_capacity(entries.len());
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
            built.push(new.into_entry(caller.user_id, author_name, e.created_at, updated_at));
        }
        for chunk in built.chunks(1000) {
            self.store_ref().insert_entries(chunk).await?;
        }
        Ok(built)
    }

    /// Imports entries by the caller with their original dates, as sent over the API
    /// (`POST /api/journal-entries/import`). All or nothing: one invalid entry refuses
    /// the whole batch. The author name is always the caller's nickname.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import(
        &self,
        caller: &Caller,
        request: &ImportEntriesRequest,
    ) -> Result<Vec<Entry>> {
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
                request: CreateEntryRequest::from(e),
                created_at,
                updated_at: date("updatedAt", e.updated_at.as_deref())?,
                author_name: None,
            });
        }
        self.import_entries(caller, imported).await
    }
}
