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
//!
//! An entry that comes with its history (our JSON export's `revisions`) is stored with
//! those revisions as they were, ids, parents, numbers and times, and no revision for
//! the import; one that comes from the export's trash goes to the trash. An entry
//! that differs from its last revision (an export edited by hand) gets one more, made
//! by the import. Revision ids are unique in the whole database: when an entry cannot
//! keep its id, or one of its revision ids is taken (in the database, or by another
//! entry of the import), its whole history gets new revision ids (parents follow), so
//! the history reads the same under new names.

use std::collections::{HashMap, HashSet};

use tracing::instrument;
use uuid::Uuid;

pub use crate::api::MAX_IMPORT_BATCH;
pub use crate::transfer::ImportedEntry;

use super::{Caller, Journal};
use crate::api::{CreateEntryRequest, ImportEntriesRequest, ImportRevisionRequest};
use crate::domain::{AttachmentId, EntryId, RevisionId, Timestamp, check_entry_date};
use crate::error::{Error, Result, ValidationError};
use crate::input::NewEntry;
use crate::model::{EditedVia, Entry, Revision};
use crate::store::{ImportOutcome, ImportRow};

/// What an import did.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// The entries created, in the order given (those put in the trash aside).
    pub created: Vec<Entry>,
    /// How many entries of an export's trash went to the trash.
    pub trashed: usize,
    /// How many the journal had already.
    pub skipped: usize,
    /// Each entry stored (live or in the trash): its index in the entries given, and
    /// the id it was stored under.
    pub stored: Vec<(usize, EntryId)>,
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

/// The `k`th revision of entry `entry_id`'s history as sent (an export's, or a replica's), checked
/// on its own: ids in canonical form, a number from 1, a valid entry's state, a time.
pub(super) fn checked_revision(
    k: usize,
    r: &ImportRevisionRequest,
    entry_id: EntryId,
    default_date: Timestamp,
) -> std::result::Result<Revision, ValidationError> {
    let fail = |field: &'static str, m: &str| {
        ValidationError::new(field, format!("revision {}: {field}: {m}", k + 1))
    };
    let id = |field: &'static str, value: &str| {
        value.parse::<RevisionId>().map_err(|_| {
            fail(
                field,
                "must be a UUID in canonical form (lower-case, with hyphens)",
            )
        })
    };
    let revision_id = id(
        "revisionId",
        r.revision_id
            .as_deref()
            .ok_or_else(|| fail("revisionId", "is required"))?,
    )?;
    let parent_id = r
        .parent_id
        .as_deref()
        .map(|p| id("parentId", p))
        .transpose()?;
    let number = r
        .revision
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 1)
        .ok_or_else(|| fail("revision", "must be a whole number from 1"))?;
    let state = NewEntry::try_from(&CreateEntryRequest::from(r)).map_err(|e| {
        ValidationError::new(
            e.field,
            format!("revision {}: {}: {}", k + 1, e.field, e.message),
        )
    })?;
    let edited_at = Timestamp::parse(
        r.edited_at
            .as_deref()
            .ok_or_else(|| fail("editedAt", "is required"))?,
    )
    .map_err(|e| fail("editedAt", &e.message))?;
    check_entry_date("editedAt", edited_at).map_err(|e| fail("editedAt", &e.message))?;
    Ok(Revision {
        id: revision_id,
        parent_id,
        entry_id,
        revision: number,
        title: state.title.into_inner(),
        content: state.content.into_inner(),
        is_public: state.is_public,
        tags: state.tags.into_inner(),
        starred: state.starred,
        date: state.date.unwrap_or(default_date),
        edited_at,
        edited_via: r
            .edited_via
            .as_deref()
            .map_or(EditedVia::Import, EditedVia::from_name),
    })
}

/// The history of an imported entry, checked: ids in canonical form and not repeated
/// within it, numbers rising, each state a valid entry. When its last revision is not
/// the entry as imported (an export edited by hand), the entry as imported follows as
/// one more revision, made by the import: nothing of either is lost. A history whose
/// ids another entry of the import has used already (an exported entry copied as a
/// template) gets new ones. `entry` takes the last revision's number and id; `seen`
/// gathers the import's revision ids.
fn history(
    revisions: &[ImportRevisionRequest],
    entry: &mut Entry,
    seen: &mut HashSet<RevisionId>,
) -> std::result::Result<Vec<Revision>, ValidationError> {
    let mut own = HashSet::with_capacity(revisions.len());
    let mut reused = false;
    let mut history: Vec<Revision> = Vec::with_capacity(revisions.len());
    for (k, r) in revisions.iter().enumerate() {
        let revision = checked_revision(k, r, entry.id, entry.date)?;
        let fail = |field: &'static str, m: &str| {
            ValidationError::new(field, format!("revision {}: {field}: {m}", k + 1))
        };
        if !own.insert(revision.id) {
            return Err(fail("revisionId", "is given twice in this entry's history"));
        }
        reused |= seen.contains(&revision.id);
        if history
            .last()
            .is_some_and(|before| before.revision >= revision.revision)
        {
            return Err(fail(
                "revision",
                "must be more than the revision before it (oldest first)",
            ));
        }
        history.push(revision);
    }
    let Some(last) = history.last() else {
        return Ok(history);
    };
    if last.applied_to(entry) != *entry {
        let number = last.revision.checked_add(1).ok_or_else(|| {
            ValidationError::new("revisions", "revision numbers end at 4294967295")
        })?;
        let edited = Revision {
            id: RevisionId::generate(),
            parent_id: Some(last.id),
            entry_id: entry.id,
            revision: number,
            title: entry.title.clone(),
            content: entry.content.clone(),
            is_public: entry.is_public,
            tags: entry.tags.clone(),
            starred: entry.starred,
            date: entry.date,
            edited_at: entry.updated_at.max(last.edited_at),
            edited_via: EditedVia::Import,
        };
        history.push(edited);
    }
    if reused {
        let fresh = fresh_revision_ids(&history);
        for r in &mut history {
            r.id = fresh[&r.id];
            r.parent_id = r.parent_id.map(|p| fresh[&p]);
        }
    }
    seen.extend(history.iter().map(|r| r.id));
    if let Some(last) = history.last() {
        entry.revision = last.revision;
        entry.revision_id = last.id;
    }
    Ok(history)
}

/// A new id for every revision id and parent id of `history`, should it need them.
fn fresh_revision_ids(history: &[Revision]) -> HashMap<RevisionId, RevisionId> {
    history
        .iter()
        .flat_map(|r| std::iter::once(r.id).chain(r.parent_id))
        .map(|id| (id, RevisionId::generate()))
        .collect()
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
        self.import_entries_attaching(caller, entries, &[]).await
    }

    /// [`Journal::import_entries`], attaching the caller's uploads `attach` names (each
    /// an index into `entries` and an upload) to the entries stored, in the same
    /// transaction: an archive's entries are never stored without their files.
    pub(crate) async fn import_entries_attaching(
        &self,
        caller: &Caller,
        entries: Vec<ImportedEntry>,
        attach: &[(usize, AttachmentId)],
    ) -> Result<ImportReport> {
        let author = self.profile(caller).await?;
        let mut files: HashMap<usize, Vec<AttachmentId>> = HashMap::new();
        for (entry, id) in attach {
            files.entry(*entry).or_default().push(*id);
        }
        let mut rows = Vec::with_capacity(entries.len());
        let mut given_at = Vec::with_capacity(entries.len());
        // An id a file gives twice is one entry: the second is skipped, whoever has it.
        let mut given = HashSet::new();
        let mut repeated = 0;
        let mut revision_ids = HashSet::new();
        for (i, e) in entries.into_iter().enumerate() {
            let in_entry = |err: ValidationError| {
                ValidationError::new(err.field, format!("entry {}: {}", i + 1, err.message))
            };
            let new = NewEntry::try_from(&e.request).map_err(in_entry)?;
            for (field, date) in [
                ("createdAt", Some(e.created_at)),
                ("updatedAt", e.updated_at),
                ("deletedAt", e.deleted_at),
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
            // The caller's, whatever the file says: an entry is shown under its author
            // name, and a file must not publish entries under someone else's.
            let author_name = author.nickname.clone();
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
            let history = history(&e.revisions, &mut entry, &mut revision_ids).map_err(in_entry)?;
            let (same_from, same_until) = minute_of(entry.date);
            given_at.push(i);
            rows.push(ImportRow {
                entry,
                fresh_id,
                same_from,
                same_until,
                fresh_revision_ids: fresh_revision_ids(&history),
                history,
                deleted_at: e.deleted_at,
                attachments: files.remove(&i).unwrap_or_default(),
            });
        }
        let mut report = ImportReport {
            created: Vec::with_capacity(rows.len()),
            trashed: 0,
            skipped: repeated,
            stored: Vec::new(),
        };
        if rows.is_empty() {
            return Ok(report);
        }
        let outcomes = self.store_ref().import_entries(&rows).await?;
        for ((row, outcome), given) in rows.into_iter().zip(outcomes).zip(given_at) {
            match outcome {
                ImportOutcome::Stored { id, revision_id } => {
                    report.stored.push((given, id));
                    if row.deleted_at.is_some() {
                        report.trashed += 1;
                        continue;
                    }
                    let mut entry = row.entry;
                    entry.id = id;
                    entry.revision_id = revision_id;
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
                revisions: e.revisions.clone().unwrap_or_default(),
                deleted_at: date("deletedAt", e.deleted_at.as_deref())?,
            });
        }
        self.import_entries(caller, imported).await
    }
}
