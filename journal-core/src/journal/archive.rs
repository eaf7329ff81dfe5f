//! Our zip export (`transfer::journal_zip`): written streaming, file by file, and read
//! back through the shared importer with its attachments' files.
//!
//! An imported attachment keeps its id when no attachment has it, so the entries'
//! `attachment:ID` links still resolve; one the caller has already with the same
//! SHA-256 (the same archive imported again) is not stored twice; an id someone else
//! has (or that names another file) gives the attachment a new id, and every
//! `attachment:OLD` of its entry's text and history becomes `attachment:NEW` before
//! the entry is stored. Files are stored first, unattached, then the entries in one
//! transaction, then the files are attached: a failure leaves only unattached uploads,
//! which the collection removes after a day.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, Write};

use bytes::Bytes;
use futures_util::StreamExt;
use tracing::instrument;

use super::{Caller, Journal, UploadRequest};
use crate::domain::AttachmentId;
use crate::error::{Error, Result};
use crate::transfer::journal_zip::{self, Archive, ArchivedFile};
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
                .map_err(Error::internal)?
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
                let chunk = chunk.map_err(Error::internal)?;
                tx.send(Piece::Bytes(chunk)).await.map_err(closed)?;
            }
        }
        Ok(())
    }

    /// Imports our zip export for the caller: its entries through the shared importer,
    /// its attachments' files stored for the caller (as uploads are: metadata out of
    /// photos, the size limit and the caller's space apply) and attached to them.
    /// Importing the same archive again adds nothing.
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
            let archive = journal_zip::read_archive(&mut zip, &from)?;
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

        // Which id each attachment is stored under, and which must be stored.
        let mut to_store: Vec<(ArchivedFile, AttachmentId)> = Vec::new();
        let mut attach: Vec<(usize, AttachmentId)> = Vec::new();
        let mut taken_here: HashMap<AttachmentId, String> = HashMap::new();
        for file in files {
            let id = if let Some(sha) = taken_here.get(&file.id) {
                // The archive lists it twice (an entry and its copy): stored once.
                if *sha == file.attachment.sha256 {
                    attach.push((file.entry, file.id));
                    continue;
                }
                None
            } else {
                match self.store_ref().attachment(&file.id).await? {
                    None => Some(file.id),
                    Some(s)
                        if s.attachment.author_id == caller.user_id
                            && s.attachment.sha256 == file.attachment.sha256
                            && !s.deleted =>
                    {
                        result.attachments_present += 1;
                        attach.push((file.entry, file.id));
                        continue;
                    }
                    Some(_) => None,
                }
            };
            let id = id.unwrap_or_else(|| {
                let new = AttachmentId::generate();
                rename_link(&mut imported.items[file.entry], &file.id, &new);
                result.attachments_renamed += 1;
                new
            });
            taken_here.insert(id, file.attachment.sha256.clone());
            attach.push((file.entry, id));
            to_store.push((file, id));
        }

        let max = self.inner.attachments.max_size;
        for (file, id) in to_store {
            let archived = file.id;
            let from = source.clone();
            let (bytes, back) = tokio::task::spawn_blocking(move || {
                let bytes = journal_zip::read_file(&mut zip, &archived, max, &from);
                (bytes, zip)
            })
            .await
            .map_err(Error::internal)?;
            zip = back;
            let bytes = bytes?;
            let request = UploadRequest {
                name: Some(file.attachment.name.clone()),
                entry_id: None,
                declared_size: Some(bytes.len() as u64),
            };
            let body = futures_util::stream::iter([Ok(Bytes::from(bytes))]);
            self.store_upload(caller, &request, body, id, file.attachment.created_at)
                .await
                .map_err(|e| match e {
                    Error::TooLarge(m) => Error::TooLarge(format!(
                        "{source}: attachment {:?}: {m}",
                        file.attachment.name
                    )),
                    Error::OverQuota(m) => Error::OverQuota(format!(
                        "{source}: attachment {:?}: {m}",
                        file.attachment.name
                    )),
                    other => other,
                })?;
            result.attachments += 1;
        }

        let report = self.import_entries(caller, imported.items).await?;
        for (given, entry) in &report.stored {
            let ids: Vec<AttachmentId> = attach
                .iter()
                .filter(|(e, _)| e == given)
                .map(|(_, id)| *id)
                .collect();
            if !ids.is_empty() {
                self.store_ref()
                    .attach(&caller.user_id, entry, &ids)
                    .await?;
            }
        }
        result.report = report;
        Ok(result)
    }
}

/// `attachment:OLD` → `attachment:NEW` in an entry's text and history.
fn rename_link(entry: &mut crate::transfer::ImportedEntry, old: &AttachmentId, new: &AttachmentId) {
    let (from, to) = (format!("attachment:{old}"), format!("attachment:{new}"));
    let texts = std::iter::once(&mut entry.request.content)
        .chain(entry.revisions.iter_mut().map(|r| &mut r.content));
    for text in texts.flatten() {
        if text.contains(&from) {
            *text = text.replace(&from, &to);
        }
    }
}
