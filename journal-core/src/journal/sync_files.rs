//! Attachments in a sync (docs/design/sync.md, "Files"): each side tells the other an
//! entry's attachments by id and SHA-256; a file travels only when the other side has
//! no attachment of its owner with those bytes, and keeps its attachment's id.
//! Deletions travel as the deleted attachments' rows; an attachment one side never
//! listed is left as it is (it comes to the other side with that side's next sync).

use std::collections::{HashMap, HashSet};

use bytes::Bytes;
use futures_util::Stream;
use tracing::instrument;

use super::attachments::{UploadRequest, file_name};
use super::{Caller, Journal};
use crate::api::PushAttachmentRequest;
use crate::domain::{AttachmentId, EntryId, Timestamp};
use crate::error::{Error, Result, ValidationError};
use crate::model::{Attachment, SyncAttachment};
use crate::store::StoredAttachment;

/// Most attachments one push or one question about missing files names.
pub const SYNC_FILES_MAX: usize = 5_000;

/// What bringing an entry's attachments to a replica's list did.
#[derive(Debug, Default)]
pub struct FilesApplied {
    /// Whether an attachment was added or deleted here.
    pub changed: bool,
    /// Attachments whose files this side lacks: they must be sent, then applied again.
    pub missing: Vec<SyncAttachment>,
    /// Attachments left out because their id is another account's.
    pub refused: Vec<AttachmentId>,
}

/// A pushed change's attachments, checked: a bad one is `400` naming it.
pub(super) fn checked_files(
    change: usize,
    files: &[PushAttachmentRequest],
) -> std::result::Result<Vec<SyncAttachment>, ValidationError> {
    files
        .iter()
        .enumerate()
        .map(|(n, f)| {
            let fail = |field: &'static str, m: &str| {
                ValidationError::new(
                    field,
                    format!("change {change}: attachment {}: {field}: {m}", n + 1),
                )
            };
            let id: AttachmentId =
                f.id.as_deref()
                    .ok_or_else(|| fail("id", "is required"))?
                    .parse()
                    .map_err(|_| fail("id", "must be a UUID in canonical form"))?;
            let sha256 = checked_sha(f.sha256.as_deref()).map_err(|m| fail("sha256", m))?;
            let time = |field: &'static str, value: Option<&str>| {
                value
                    .map(|v| Timestamp::parse(v).map_err(|e| fail(field, &e.message)))
                    .transpose()
            };
            let name = f.name.clone().unwrap_or_default();
            if name.chars().count() > 255 {
                return Err(fail("name", "must be at most 255 characters"));
            }
            Ok(SyncAttachment {
                id,
                name,
                sha256,
                size: 0,
                created_at: time("createdAt", f.created_at.as_deref())?
                    .unwrap_or_else(Timestamp::now),
                deleted_at: time("deletedAt", f.deleted_at.as_deref())?,
            })
        })
        .collect()
}

/// A SHA-256 as 64 lower-case hex digits.
fn checked_sha(sha: Option<&str>) -> std::result::Result<String, &'static str> {
    let sha = sha.ok_or("is required")?;
    if sha.len() != 64 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("must be 64 lower-case hex digits");
    }
    Ok(sha.to_owned())
}

/// What the journal has of some listed attachments: their rows by id, and the caller's
/// attachments of their files by hash (a live one first). Two reads, whatever the number.
struct Known {
    rows: HashMap<AttachmentId, StoredAttachment>,
    files: HashMap<String, Attachment>,
}

impl Journal {
    async fn known(&self, caller: &Caller, listed: &[&SyncAttachment]) -> Result<Known> {
        let ids: Vec<AttachmentId> = listed.iter().map(|f| f.id).collect();
        let mut shas: Vec<String> = listed.iter().map(|f| f.sha256.clone()).collect();
        shas.sort();
        shas.dedup();
        let rows = self
            .store_ref()
            .attachments_by_ids(&ids)
            .await?
            .into_iter()
            .map(|s| (s.attachment.id, s))
            .collect();
        let mut files = HashMap::new();
        for a in self
            .store_ref()
            .author_files(&caller.user_id, &shas)
            .await?
        {
            files.entry(a.sha256.clone()).or_insert(a);
        }
        Ok(Known { rows, files })
    }

    /// The attachments of `wanted` (each `{"id", "sha256"}`) whose files this journal
    /// lacks for the caller (`POST /api/sync/files/missing`): none of the caller's
    /// attachments has that id or those bytes. A replica sends those, and only those.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn missing_files(
        &self,
        caller: &Caller,
        wanted: &[PushAttachmentRequest],
    ) -> Result<Vec<AttachmentId>> {
        if wanted.len() > SYNC_FILES_MAX {
            return Err(ValidationError::new(
                "attachments",
                format!("at most {SYNC_FILES_MAX} at a time"),
            )
            .into());
        }
        let wanted = checked_files(1, wanted)?;
        let known = self
            .known(caller, &wanted.iter().collect::<Vec<_>>())
            .await?;
        let mut missing = Vec::new();
        for file in &wanted {
            // Another account's id is as unknown as any: nobody learns of another's
            // attachments here (sending its file is refused).
            let ours = known
                .rows
                .get(&file.id)
                .is_some_and(|s| s.attachment.author_id == caller.user_id);
            if !ours && !known.files.contains_key(&file.sha256) && !missing.contains(&file.id) {
                missing.push(file.id);
            }
        }
        Ok(missing)
    }

    /// Stores the file of one of the caller's attachments that a replica sends
    /// (`PUT /api/sync/files/{id}`), under the attachment's id, with every rule of an
    /// upload (its type by its bytes, photos' metadata out, the size limit, the
    /// caller's space). It waits unattached until the push that lists it attaches it.
    /// Sending it again changes nothing; an id of another account's attachment is
    /// refused.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, attachment = %id))]
    pub async fn receive_file<S>(
        &self,
        caller: &Caller,
        id: AttachmentId,
        request: &UploadRequest,
        body: S,
    ) -> Result<Attachment>
    where
        S: Stream<Item = std::io::Result<Bytes>> + Send + Unpin,
    {
        if let Some(stored) = self.store_ref().attachment(&id).await? {
            if stored.attachment.author_id != caller.user_id {
                return Err(Error::Conflict(
                    "another account has an attachment with this id: nothing was stored".into(),
                ));
            }
            return Ok(stored.attachment);
        }
        let request = UploadRequest {
            entry_id: None,
            ..request.clone()
        };
        // Dated when it came: an upload waiting for its push has the collection's full
        // day (`UNATTACHED_FOR`) whatever the replica's clock says.
        self.store_upload(caller, &request, body, id, Timestamp::now())
            .await
    }

    /// Brings the attachments of the caller's entry `entry` to what a replica lists
    /// (a push's, or a pull's): an attachment listed and not here is added when this
    /// journal has its file (an upload [`Journal::receive_file`] took, or another
    /// attachment of the same bytes), else it is `missing`; one listed as deleted is
    /// deleted here. Applying the same list twice changes nothing.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, entry = %entry))]
    pub async fn apply_files(
        &self,
        caller: &Caller,
        entry: EntryId,
        files: &[SyncAttachment],
    ) -> Result<FilesApplied> {
        let mut applied = self
            .apply_files_of(caller, &[(entry, files.to_vec())])
            .await?;
        Ok(applied.pop().unwrap_or_default())
    }

    /// Moves the caller's entry `entry` to the end of their change feed, with nothing
    /// else changed: a replica does this for a change the other side refused (a file
    /// it lacked or would not take), so that its next sync sends the change again.
    pub async fn mark_for_sync(&self, caller: &Caller, entry: &EntryId) -> Result<()> {
        match self.store_ref().entries_anywhere(&[*entry]).await?.pop() {
            Some((e, _)) if e.author_id == caller.user_id => {
                Ok(self.store_ref().mark_changed(entry).await?)
            }
            _ => Err(Error::NotFound { kind: "entry" }),
        }
    }

    /// [`Journal::apply_files`] for several entries at once (a push's): the journal is
    /// read once for all of them. An attachment listed twice is applied once.
    pub(super) async fn apply_files_of(
        &self,
        caller: &Caller,
        lists: &[(EntryId, Vec<SyncAttachment>)],
    ) -> Result<Vec<FilesApplied>> {
        let listed: Vec<&SyncAttachment> = lists.iter().flat_map(|(_, f)| f).collect();
        let known = self.known(caller, &listed).await?;
        let mut seen: HashSet<AttachmentId> = HashSet::new();
        let mut results = Vec::with_capacity(lists.len());
        for (entry, files) in lists {
            let mut applied = FilesApplied::default();
            for file in files {
                if !seen.insert(file.id) {
                    continue;
                }
                self.apply_file(caller, *entry, file, &known, &mut applied)
                    .await?;
            }
            results.push(applied);
        }
        Ok(results)
    }

    async fn apply_file(
        &self,
        caller: &Caller,
        entry: EntryId,
        file: &SyncAttachment,
        known: &Known,
        applied: &mut FilesApplied,
    ) -> Result<()> {
        match known.rows.get(&file.id) {
            Some(stored) if stored.attachment.author_id != caller.user_id => {
                applied.refused.push(file.id);
            }
            Some(stored) if stored.deleted => {}
            Some(stored) => {
                if let Some(at) = file.deleted_at {
                    applied.changed |= self.store_ref().delete_attachment(&file.id, at).await?;
                } else if stored.attachment.entry_id.is_none() {
                    applied.changed |= self
                        .store_ref()
                        .attach(&caller.user_id, &entry, &[file.id])
                        .await?
                        > 0;
                }
            }
            None if file.deleted_at.is_some() => {}
            None => {
                let Some(same) = known.files.get(&file.sha256) else {
                    applied.missing.push(file.clone());
                    return Ok(());
                };
                // The bytes are here already: what they are was read from them when
                // they came, never taken from the replica's word.
                let attachment = Attachment {
                    id: file.id,
                    entry_id: Some(entry),
                    author_id: caller.user_id,
                    name: file_name(Some(&file.name)),
                    created_at: file.created_at,
                    ..same.clone()
                };
                self.store_ref().insert_attachment(&attachment).await?;
                applied.changed = true;
            }
        }
        Ok(())
    }
}
