//! Our zip export (`transfer::journal_zip`): written streaming, file by file, and read
//! back through the shared importer with its attachments' files; Day One's `.zip`
//! export is read the same way, with its photos (`transfer::archive`).
//!
//! An imported attachment keeps its id when no attachment has it, so the entries'
//! `attachment:ID` links still resolve; one the caller has already with the same
//! SHA-256 (the same archive imported again) is not stored twice; an id someone else
//! has (or that names another file) gives the attachment a new id made from the old
//! one and the caller's (the same at every import, so a second import into that
//! account finds the files and the entries' texts alike), and every `attachment:OLD`
//! of its entry's text and history becomes `attachment:NEW` before the entry is
//! stored. Files are stored first, unattached, then the entries in one transaction
//! that also attaches the files to them: when the entries are refused, the files
//! stored for them are taken back (an import stopped in between, at its deadline or by
//! a crash, leaves unattached uploads, which a retry finds and attaches, and the
//! collection removes after a day); a file whose entries were there already is not
//! kept.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, Write};

use bytes::Bytes;
use futures_util::StreamExt;
use tracing::instrument;

use super::{Caller, Journal, UploadRequest};
use crate::domain::{AttachmentId, UserId};
use crate::error::{Error, Result};
use crate::transfer::archive::{Archive, ArchivedFile};
use crate::transfer::journal_zip;
use crate::transfer::json::ExportDocument;

use super::import::ImportReport;

/// What a pipe to the zip writer carries.
enum Piece {
    /// A new file in the archive: its name, whether to compress it, whether it may
    /// pass 4 GiB.
    Start(String, bool, bool),
    /// The next bytes of the current file.
    Bytes(Bytes),
}

/// Files waiting for the writer: a few chunks, so memory stays bounded.
const PIPE: usize = 4;

/// What an archive's import did.
#[derive(Clone, Debug, Default)]
pub struct ArchiveReport {
    /// The entries', as for any import.
    pub report: ImportReport,
    /// Attachments stored anew.
    pub attachments: usize,
    /// Attachments the journal had already (by id and SHA-256).
    pub attachments_present: usize,
    /// Attachments given a new id, their id being someone else's.
    pub attachments_renamed: usize,
    /// What was left out on the way, one sentence each.
    pub notes: Vec<String>,
}

impl Journal {
    /// Writes the caller's journal as our zip export to `out`: `journal.json` (with
    /// history unless left out) and every attachment's file, each streamed from the
    /// store into the archive, never whole in memory. Answers the document written.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn export_archive(
        &self,
        caller: &Caller,
        with_history: bool,
        out: std::fs::File,
    ) -> Result<ExportDocument> {
        let document = self.export(caller, with_history).await?;
        let json = Bytes::from(document.to_json().into_bytes());
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Piece>(PIPE);
        let writer = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let mut zip = zip::ZipWriter::new(out);
            while let Some(piece) = rx.blocking_recv() {
                match piece {
                    Piece::Start(name, deflate, large) => {
                        let method = if deflate {
                            zip::CompressionMethod::Deflated
                        } else {
                            // Photos and recordings are compressed already.
                            zip::CompressionMethod::Stored
                        };
                        let options = zip::write::SimpleFileOptions::default()
                            .compression_method(method)
                            .large_file(large)
                            .unix_permissions(0o600);
                        zip.start_file(name, options)
                            .map_err(std::io::Error::other)?;
                    }
                    Piece::Bytes(b) => zip.write_all(&b)?,
                }
            }
            zip.finish().map_err(std::io::Error::other)?.sync_all()
        });
        let sent = self.send_pieces(caller, &document, json, &tx).await;
        drop(tx);
        let written = writer.await.map_err(Error::internal)?;
        // The writer's failure explains a pipe that closed early; report it first.
        written.map_err(Error::internal)?;
        sent?;
        Ok(document)
    }

    async fn send_pieces(
        &self,
        caller: &Caller,
        document: &ExportDocument,
        json: Bytes,
        tx: &tokio::sync::mpsc::Sender<Piece>,
    ) -> Result<()> {
        let closed = |_| Error::internal("the archive's writer stopped");
        tx.send(Piece::Start(journal_zip::DOCUMENT.into(), true, false))
            .await
            .map_err(closed)?;
        tx.send(Piece::Bytes(json)).await.map_err(closed)?;
        let all = document
            .entries
            .iter()
            .chain(document.trash.iter().flatten())
            .flat_map(|e| &e.attachments);
        let mut seen = HashSet::new();
        for attachment in all {
            if !seen.insert(&attachment.id) {
                continue;
            }
            let files = self.attachment_files().ok_or(Error::AttachmentsOff)?;
            let (_, mut stream) = files
                .get(&caller.user_id, &attachment.sha256, false, None)
                .await
                .map_err(super::attachments::files_error)?
                .ok_or_else(|| {
                    Error::internal(format!(
                        "the file of attachment {} is missing",
                        attachment.id
                    ))
                })?;
            let name = journal_zip::file_name(&attachment.id);
            let large = attachment.size >= u64::from(u32::MAX);
            tx.send(Piece::Start(name, false, large))
                .await
                .map_err(closed)?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(super::attachments::files_error)?;
                tx.send(Piece::Bytes(chunk)).await.map_err(closed)?;
            }
        }
        Ok(())
    }

    /// Imports an archive for the caller, ours or Day One's: its entries through the
    /// shared importer, its files stored for the caller (as uploads are: metadata out
    /// of photos, the size limit and the caller's space apply) and attached to them. A
    /// file of a type the journal does not take, or past its size limit, is left out
    /// with its link, and said so. Importing the same archive again adds nothing.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn import_archive<R>(
        &self,
        caller: &Caller,
        reader: R,
        source: String,
    ) -> Result<ArchiveReport>
    where
        R: Read + Seek + Send + 'static,
    {
        let from = source.clone();
        let (archive, mut zip) = tokio::task::spawn_blocking(move || {
            let mut zip = zip::ZipArchive::new(reader).map_err(|e| {
                crate::transfer::invalid(format!("{from} is not a readable .zip archive ({e})"))
            })?;
            let archive = if journal_zip::is_ours(&mut zip) {
                journal_zip::read_archive(&mut zip, &from)?
            } else {
                crate::transfer::day_one_zip::read_archive(&mut zip, &from)?
            };
            Ok::<_, crate::error::ValidationError>((archive, zip))
        })
        .await
        .map_err(Error::internal)??;
        let Archive {
            mut imported,
            files,
        } = archive;
        if !files.is_empty() && self.attachment_files().is_none() {
            return Err(Error::AttachmentsOff);
        }
        let mut result = ArchiveReport {
            notes: std::mem::take(&mut imported.notes),
            ..ArchiveReport::default()
        };

        // Which id each file is stored under, and which must be stored.
        let mut to_store: Vec<(ArchivedFile, AttachmentId)> = Vec::new();
        let mut attach: Vec<(usize, AttachmentId)> = Vec::new();
        let mut taken_here: HashMap<AttachmentId, Option<String>> = HashMap::new();
        for file in files {
            // Our archive's id when free; else (someone else has it, or the archive is
            // another app's) one made from it and the caller's, the same each import,
            // so importing again finds the file and the entry's text is the same.
            let mut candidates = vec![own_id(&caller.user_id, &file.id)];
            if file.kept {
                candidates.insert(0, file.id);
            }
            let mut placed = None;
            for wanted in candidates {
                if let Some(sha) = taken_here.get(&wanted) {
                    // The archive lists it twice (an entry and its copy): stored once.
                    if *sha == file.sha256 {
                        placed = Some((wanted, false));
                        break;
                    }
                    continue;
                }
                match self.store_ref().attachment(&wanted).await? {
                    None => {
                        placed = Some((wanted, true));
                        break;
                    }
                    Some(s)
                        if s.attachment.author_id == caller.user_id
                            && file
                                .sha256
                                .as_ref()
                                .is_none_or(|sha| *sha == s.attachment.sha256)
                            && !s.deleted =>
                    {
                        result.attachments_present += 1;
                        placed = Some((wanted, false));
                        break;
                    }
                    Some(_) => {}
                }
            }
            let (id, store) = placed.unwrap_or_else(|| (AttachmentId::generate(), true));
            if id != file.id && file.kept {
                result.attachments_renamed += 1;
            }
            rename_link(&mut imported.items[file.entry], &file.id, &id);
            attach.push((file.entry, id));
            if store {
                taken_here.insert(id, file.sha256.clone());
                to_store.push((file, id));
            }
        }

        let max = self.inner.attachments.max_size;
        // Files stored so far: taken back if the import fails after them.
        let mut stored: Vec<AttachmentId> = Vec::new();
        let imported_whole = async {
            let mut left_out = Vec::new();
            for (file, id) in to_store {
                let path = file.path.clone();
                let from = source.clone();
                let (bytes, back) = tokio::task::spawn_blocking(move || {
                    let bytes = crate::transfer::archive::read_file(&mut zip, &path, max, &from);
                    (bytes, zip)
                })
                .await
                .map_err(Error::internal)?;
                zip = back;
                let Some(bytes) = bytes? else {
                    left_out.push((
                        file,
                        id,
                        format!("larger than the {max} bytes an attachment may hold"),
                    ));
                    continue;
                };
                let request = UploadRequest {
                    name: Some(file.name.clone()),
                    entry_id: None,
                    declared_size: Some(bytes.len() as u64),
                };
                let body = futures_util::stream::iter([Ok(Bytes::from(bytes))]);
                let created_at = file
                    .created_at
                    .unwrap_or(imported.items[file.entry].created_at);
                match self
                    .store_upload(caller, &request, body, id, created_at)
                    .await
                {
                    Ok(_) => stored.push(id),
                    Err(Error::UnsupportedType(m) | Error::TooLarge(m)) => {
                        left_out.push((file, id, m))
                    }
                    Err(Error::OverQuota(m)) => {
                        return Err(Error::OverQuota(format!(
                            "{source}: attachment {:?}: {m}",
                            file.name
                        )));
                    }
                    Err(other) => return Err(other),
                }
            }
            let gone: HashSet<AttachmentId> = left_out.iter().map(|(_, id, _)| *id).collect();
            // Every entry that links one (an entry and its copy may share one file).
            for (entry, id) in attach.iter().filter(|(_, a)| gone.contains(a)) {
                drop_link(&mut imported.items[*entry], id);
            }
            attach.retain(|(_, a)| !gone.contains(a));
            for (file, _, why) in left_out {
                result
                    .notes
                    .push(format!("left out {:?} of {source}: {why}", file.name));
            }

            self.import_entries_attaching(caller, imported.items, &attach)
                .await
        }
        .await;
        let report = match imported_whole {
            Ok(report) => report,
            Err(e) => {
                // Nothing of a refused archive stays: not its entries (one transaction),
                // nor the files stored before the entries were checked.
                for id in &stored {
                    if let Err(cleanup) = self.store_ref().discard_upload(id).await {
                        tracing::warn!(error = %cleanup, "could not take back a file of a refused archive; the collection will");
                    }
                }
                return Err(e);
            }
        };
        // A file stored for entries the journal had already (the archive imported
        // again into another account, whose copies took new ids) is not kept.
        let kept: HashSet<usize> = report.stored.iter().map(|(given, _)| *given).collect();
        let attached: HashSet<AttachmentId> = attach
            .iter()
            .filter(|(entry, _)| kept.contains(entry))
            .map(|(_, id)| *id)
            .collect();
        for id in stored {
            if attached.contains(&id) {
                result.attachments += 1;
            } else {
                self.store_ref().discard_upload(&id).await?;
            }
        }
        result.report = report;
        Ok(result)
    }
}

/// The id a file of another app's archive (which names it by `given`) is stored under
/// for `user`: the same each import, so importing again finds it, and another user's
/// never, so no one learns from an id what someone else holds.
fn own_id(user: &UserId, given: &AttachmentId) -> AttachmentId {
    AttachmentId::derived(&[user.as_uuid().as_bytes(), given.as_uuid().as_bytes()])
}

/// Takes every link to attachment `id` (`![…](attachment:ID)`, `[…](attachment:ID)`)
/// out of an entry's text and history: its file was left out.
fn drop_link(entry: &mut crate::transfer::ImportedEntry, id: &AttachmentId) {
    let target = format!("](attachment:{id})");
    let texts = std::iter::once(&mut entry.request.content)
        .chain(entry.revisions.iter_mut().map(|r| &mut r.content));
    for text in texts.flatten() {
        while let Some(at) = text.find(&target) {
            let Some(mut start) = text[..at].rfind('[') else {
                break;
            };
            if text[..start].ends_with('!') {
                start -= 1;
            }
            text.replace_range(start..at + target.len(), "");
        }
    }
}

/// `attachment:OLD` → `attachment:NEW` in an entry's text and history.
fn rename_link(entry: &mut crate::transfer::ImportedEntry, old: &AttachmentId, new: &AttachmentId) {
    if old == new {
        return;
    }
    let (from, to) = (format!("attachment:{old}"), format!("attachment:{new}"));
    let texts = std::iter::once(&mut entry.request.content)
        .chain(entry.revisions.iter_mut().map(|r| &mut r.content));
    for text in texts.flatten() {
        if text.contains(&from) {
            *text = text.replace(&from, &to);
        }
    }
}
