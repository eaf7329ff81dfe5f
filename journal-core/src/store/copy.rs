//! Copying a whole journal from one store into another, empty one (`journal admin
//! migrate`): nothing a person wrote is left behind, history and trash included.

use std::collections::HashMap;

use super::{ImportOutcome, ImportRow, Store, Visibility};
use crate::auth::JwtSecret;
use crate::domain::{Cursor, EntryId, PageRequest, Role};
use crate::error::StoreError;
use crate::filter::EntryFilter;
use crate::model::{Entry, Revision};

/// Items read per store call: a page of the longest length lists take.
const BATCH: i64 = crate::domain::LIMIT_MAX as i64;

/// Page `number` of `BATCH` items, continuing after `cursor` when there is one.
fn page(number: i64, cursor: Option<Cursor>) -> Result<PageRequest, CopyError> {
    Ok(PageRequest::new(Some(number), Some(BATCH))
        .map_err(StoreError::internal)?
        .continuing(cursor))
}

/// What [`copy_all`] copied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyReport {
    /// Users copied, with their password hashes and roles.
    pub users: u64,
    /// Entries copied, with their ids and dates.
    pub entries: u64,
    /// Entries of the trash copied, into the trash.
    pub trashed: u64,
    /// Revisions copied, with their ids, numbers and times.
    pub revisions: u64,
    /// Attachment rows copied (their files are the caller's to copy: see
    /// `Journal::copy_into`).
    pub attachments: u64,
    /// Token revocations copied, so logged-out tokens stay logged out.
    pub revoked_tokens: u64,
    /// Attachment files copied (by `Journal::copy_into`; [`copy_all`] copies rows).
    pub files: u64,
    /// Files the rows name that the source's folder did not hold (lost before the copy).
    pub missing_files: u64,
}

/// Why [`copy_all`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The target already holds a journal; copying into it would mix two.
    #[error("the target database already holds a journal; copy into an empty one")]
    TargetNotEmpty,
    /// Reading or writing failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Copies a whole journal from one store to another, empty one: users (hashes, roles,
/// password-change times), every entry with its history (revision ids, numbers and
/// times kept), the trash with its history, attachment rows, revoked tokens, and the
/// JWT secret, so that tokens issued before the move keep working after it.
pub async fn copy_all(from: &dyn Store, to: &dyn Store) -> Result<CopyReport, CopyError> {
    if !to.users_after(None, 1).await?.is_empty() {
        return Err(CopyError::TargetNotEmpty);
    }
    let secret = from.jwt_secret(&JwtSecret::generate_bytes()).await?;
    if to.jwt_secret(&secret).await? != secret {
        return Err(CopyError::TargetNotEmpty);
    }
    let mut report = CopyReport::default();
    let mut after = None;
    loop {
        let users = from.users_after(after.as_ref(), BATCH as u32).await?;
        let Some(last) = users.last() else { break };
        after = Some(last.profile.id);
        for user in &users {
            to.insert_user(user).await?;
            if user.profile.role != Role::User {
                to.set_role(&user.profile.email, user.profile.role).await?;
            }
            report.users += 1;
            copy_entries(from, to, user.profile.id, &mut report).await?;
        }
    }
    let mut after = None;
    loop {
        let attachments = from.attachments_after(after.as_ref(), BATCH as u32).await?;
        let Some((last, _)) = attachments.last() else {
            break;
        };
        after = Some(last.id);
        for (attachment, deleted_at) in &attachments {
            to.copy_attachment(attachment, *deleted_at).await?;
            report.attachments += 1;
        }
    }
    for (jti, expires) in from.revoked_tokens().await? {
        to.revoke_token(&jti, expires).await?;
        report.revoked_tokens += 1;
    }
    Ok(report)
}

/// One author's entries and trash, each with its whole history, through the import's
/// batch write: ids, revision ids and dates as they are.
async fn copy_entries(
    from: &dyn Store,
    to: &dyn Store,
    author: crate::domain::UserId,
    report: &mut CopyReport,
) -> Result<(), CopyError> {
    let mut cursor = None;
    loop {
        let page = page(1, cursor)?;
        let read = from
            .entries_by_author(&author, Visibility::All, &EntryFilter::default(), page)
            .await?;
        let Some(last) = read.items.last() else { break };
        cursor = Some(Cursor::new(last.date, last.id));
        let done = read.items.len() < BATCH as usize;
        let mut rows = Vec::with_capacity(read.items.len());
        for entry in read.items {
            rows.push(row(from, entry, None).await?);
        }
        report.entries += stored(to, &rows, &mut report.revisions).await?;
        if done {
            break;
        }
    }
    for number in 1.. {
        let page = page(number, None)?;
        let read = from.trash(&author, page).await?;
        let done = read.items.len() < BATCH as usize;
        let mut rows = Vec::with_capacity(read.items.len());
        for trashed in read.items {
            rows.push(row(from, trashed.entry, Some(trashed.deleted_at)).await?);
        }
        report.trashed += stored(to, &rows, &mut report.revisions).await?;
        if done {
            break;
        }
    }
    Ok(())
}

/// Writes rows to the target, counting their revisions; answers how many were stored.
async fn stored(to: &dyn Store, rows: &[ImportRow], revisions: &mut u64) -> Result<u64, CopyError> {
    if rows.is_empty() {
        return Ok(0);
    }
    let outcomes = to.import_entries(rows).await?;
    let mut n = 0;
    for (row, outcome) in rows.iter().zip(outcomes) {
        if let ImportOutcome::Stored { id, .. } = outcome {
            debug_assert_eq!(id, row.entry.id, "an empty target keeps every id");
            n += 1;
            *revisions += row.history.len() as u64;
        }
    }
    Ok(n)
}

/// An entry as the import's batch write takes it: its history as it is, its ids kept
/// (the target is empty), and no "same entry" range, so two entries alike both go.
async fn row(
    from: &dyn Store,
    entry: Entry,
    deleted_at: Option<crate::domain::Timestamp>,
) -> Result<ImportRow, CopyError> {
    let history = all_revisions(from, &entry.id).await?;
    Ok(ImportRow {
        fresh_id: entry.id,
        same_from: entry.date,
        same_until: entry.date,
        fresh_revision_ids: HashMap::new(),
        history,
        deleted_at,
        entry,
        attachments: Vec::new(),
    })
}

/// Every revision of an entry, oldest first.
pub(crate) async fn all_revisions(
    from: &dyn Store,
    id: &EntryId,
) -> Result<Vec<Revision>, StoreError> {
    let mut newest_first = Vec::new();
    for number in 1.. {
        let page = PageRequest::new(Some(number), Some(BATCH)).map_err(StoreError::internal)?;
        let read = from.revisions(id, page).await?;
        let done = read.items.len() < BATCH as usize;
        newest_first.extend(read.items);
        if done {
            break;
        }
    }
    newest_first.reverse();
    Ok(newest_first)
}
