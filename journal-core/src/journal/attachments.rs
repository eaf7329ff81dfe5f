//! Attachments: uploading a file for an entry, reading it back under the entry's
//! visibility, the short-lived links that let a browser's `<img>` read a private one,
//! deleting, and collecting what nothing needs.

use std::path::PathBuf;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt, TryStreamExt};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tracing::{Instrument as _, instrument};

use super::entries::check_author;
use super::{Caller, Journal};
use crate::attachments::{
    Bucket, FileKind, Files, FilesError, dimensions, strip_metadata, thumbnail,
};
use crate::domain::{AttachmentId, EntryId, PageRequest, Timestamp, UserId};
use crate::error::{Error, Result, ValidationError};
use crate::model::{Attachment, Page};
use crate::store::{AttachedTo, StoredAttachment};

/// Where attachment bytes are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum AttachmentPlace {
    /// Beside a SQLite file (`journal.db` → `journal-files/`), in memory for a journal
    /// in memory, and nowhere for PostgreSQL, which needs a place every server shares.
    #[default]
    BesideDatabase,
    /// This folder (`--attachments DIR`).
    Folder(PathBuf),
    /// This S3-compatible bucket (`--attachments s3://BUCKET`).
    Bucket(Bucket),
    /// Nowhere: uploads are refused.
    Off,
}

impl AttachmentPlace {
    /// What an operator names: `s3://BUCKET[/PREFIX][?options]` is a bucket
    /// ([`Bucket::parse`]), anything else a folder. The error is a one-line message.
    pub fn parse(given: &str) -> std::result::Result<AttachmentPlace, String> {
        let given = given.trim();
        if given.is_empty() {
            return Err("an empty place for attachments: name a folder or s3://BUCKET".into());
        }
        if given.contains("://") {
            return Bucket::parse(given).map(AttachmentPlace::Bucket);
        }
        Ok(AttachmentPlace::Folder(PathBuf::from(given)))
    }

    /// The store of files at a place named outright (a folder or a bucket); `None` for
    /// [`AttachmentPlace::BesideDatabase`] and [`AttachmentPlace::Off`], which need a
    /// database to mean anything.
    pub fn files(&self) -> Result<Option<Files>> {
        let files = match self {
            AttachmentPlace::Folder(dir) => Files::folder(dir),
            AttachmentPlace::Bucket(bucket) => Files::bucket(bucket),
            AttachmentPlace::BesideDatabase | AttachmentPlace::Off => return Ok(None),
        };
        files.map(Some).map_err(|e| Error::Config(e.to_string()))
    }
}

impl AttachmentPlace {
    /// Whether the two places hold files in common: one folder inside the other, or
    /// the same bucket with one folder of it inside the other.
    pub fn overlaps(&self, other: &AttachmentPlace) -> bool {
        match (self, other) {
            (AttachmentPlace::Folder(a), AttachmentPlace::Folder(b)) => {
                let full = |dir: &std::path::Path| {
                    dir.canonicalize()
                        .or_else(|_| std::path::absolute(dir))
                        .unwrap_or_else(|_| dir.to_owned())
                };
                let (a, b) = (full(a), full(b));
                a.starts_with(&b) || b.starts_with(&a)
            }
            (AttachmentPlace::Bucket(a), AttachmentPlace::Bucket(b)) => a.overlaps(b),
            (a, b) => a == b,
        }
    }
}

impl std::fmt::Display for AttachmentPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttachmentPlace::BesideDatabase => f.write_str("beside the database"),
            AttachmentPlace::Folder(dir) => write!(f, "{}", dir.display()),
            AttachmentPlace::Bucket(bucket) => write!(f, "{bucket}"),
            AttachmentPlace::Off => f.write_str("nowhere"),
        }
    }
}

/// What attachments may be: where they go and how big.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentOptions {
    /// Where the bytes are kept.
    pub place: AttachmentPlace,
    /// The largest file accepted, in bytes (`--max-attachment`).
    pub max_size: u64,
    /// The space one account may use, each stored file counted once (`None`: no limit).
    pub quota: Option<u64>,
    /// Keep photos' location and other metadata as uploaded (`--keep-photo-metadata`).
    pub keep_photo_metadata: bool,
    /// Where files were kept before `place`, read when `place` lacks one while they are
    /// moved (`--attachments-fallback`): a folder or a bucket.
    pub fallback: Option<AttachmentPlace>,
}

/// 25 MiB: a phone's photo or a short recording, with room to spare.
pub const DEFAULT_MAX_ATTACHMENT: u64 = 25 * 1024 * 1024;

/// A photo is read whole to take its metadata out; past this it is refused, whatever
/// `max_size` allows (other files stream and may be as large as it says).
pub const MAX_PHOTO_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes of image work all requests together may hold in memory: photos being read
/// whole and thumbnails being decoded wait for room rather than grow the server.
pub(crate) const IMAGE_MEMORY: usize = 512 * 1024 * 1024;

/// What a thumbnail's decoding may take (the decoder's own cap).
const THUMBNAIL_MEMORY: u32 = 512 * 1024 * 1024;

/// Bytes read before deciding what a file is.
const SNIFF_BYTES: usize = crate::attachments::SNIFF_LEN;

/// An upload not attached to an entry within this is collected.
pub const UNATTACHED_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// The collection spares files written this recently: an upload stores its file, then
/// its row, and may take up to `--upload-timeout` to arrive.
pub const COLLECT_SPARES: Duration = Duration::from_secs(60 * 60);

/// How long a link to a private entry's attachment works.
pub const LINK_MINUTES: u64 = 15;

impl Default for AttachmentOptions {
    fn default() -> Self {
        AttachmentOptions {
            place: AttachmentPlace::BesideDatabase,
            max_size: DEFAULT_MAX_ATTACHMENT,
            quota: None,
            keep_photo_metadata: false,
            fallback: None,
        }
    }
}

impl AttachmentOptions {
    /// The store of files these options name for a database URL.
    pub(crate) fn files_for(&self, database_url: &str) -> Result<Option<Files>> {
        let files = match &self.place {
            AttachmentPlace::BesideDatabase => {
                let path = database_url.strip_prefix("sqlite:").unwrap_or(database_url);
                if database_url.starts_with("postgres") {
                    None
                } else if path.is_empty() || path == ":memory:" {
                    Some(Files::memory())
                } else {
                    AttachmentPlace::Folder(beside(std::path::Path::new(path))).files()?
                }
            }
            place => place.files()?,
        };
        let Some(files) = files else {
            return Ok(None);
        };
        match &self.fallback {
            None => Ok(Some(files)),
            Some(old) => {
                let old = old.files()?.ok_or_else(|| {
                    Error::Config(
                        "the fallback of attachments must be a folder or s3://BUCKET".into(),
                    )
                })?;
                Ok(Some(files.with_fallback(old)))
            }
        }
    }
}

/// `journal.db` → `journal-files/`, in the same folder.
fn beside(database: &std::path::Path) -> PathBuf {
    let stem = database
        .file_stem()
        .map_or_else(|| "journal".into(), |s| s.to_string_lossy().into_owned());
    database.with_file_name(format!("{stem}-files"))
}

/// An upload as the client describes it.
#[derive(Clone, Debug, Default)]
pub struct UploadRequest {
    /// The file's name (`?name=`); only its last path part is kept.
    pub name: Option<String>,
    /// The entry it is for (`?entryId=`, or the path).
    pub entry_id: Option<EntryId>,
    /// `Content-Length`, when the client sent one: refused at once when too large.
    pub declared_size: Option<u64>,
}

/// An attachment's bytes, as read back.
pub struct AttachmentBody {
    /// The attachment.
    pub attachment: Attachment,
    /// What the bytes are: the attachment's type, or JPEG for a thumbnail.
    pub content_type: String,
    /// The whole object's length (of the thumbnail, for one).
    pub total: u64,
    /// The bytes asked for.
    pub bytes: BoxStream<'static, std::io::Result<Bytes>>,
}

impl std::fmt::Debug for AttachmentBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttachmentBody")
            .field("attachment", &self.attachment)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

/// Who reads an attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// Nobody in particular: a plain link, without a token.
    Anonymous,
    /// The bearer of a token: its author reads it always.
    Token(UserId),
    /// The reader a signed link names: its author reads it while the entry is live.
    Link(UserId),
}

impl Reader {
    fn user(&self) -> Option<&UserId> {
        match self {
            Reader::Anonymous => None,
            Reader::Token(u) | Reader::Link(u) => Some(u),
        }
    }
}

/// The space an account's attachments take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttachmentUsage {
    /// Bytes used, each stored file counted once (as the quota counts them).
    pub used: u64,
    /// The most the account may use (`--attachment-quota`); `None`: no limit.
    pub quota: Option<u64>,
}

/// What a collection removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// Attachment rows nothing needed.
    pub rows: u64,
    /// Objects no row named.
    pub objects: u64,
}

/// A store that fails is unavailable (503): a bucket out of reach, a folder on a disk
/// that went away. A damaged file or a folder that cannot be used is a fault (500).
pub(super) fn files_error(e: FilesError) -> Error {
    match e {
        FilesError::Store(_) => Error::FilesUnavailable(e.into()),
        other => Error::internal(other),
    }
}

fn io_error(e: FilesError) -> std::io::Error {
    std::io::Error::other(e)
}

/// The name kept for a file: its last path part, without control characters or the
/// marks that turn text around (`\u{202E}gpj.exe` shows as "exe.jpg"), at most 255
/// characters; "file" when nothing is left.
pub(super) fn file_name(given: Option<&str>) -> String {
    let last = given.unwrap_or("").rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = last
        .chars()
        .filter(|c| !c.is_control() && !is_direction_mark(*c))
        .take(255)
        .collect();
    let clean = clean.trim();
    if clean.is_empty() || clean == "." || clean == ".." {
        "file".to_owned()
    } else {
        clean.to_owned()
    }
}

/// Unicode's marks and overrides of writing direction (U+200E, U+200F, U+061C,
/// U+202A–U+202E, U+2066–U+2069).
fn is_direction_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A size as people read it: "25.0 MiB", "4 KiB", "300 bytes".
fn mib(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{} KiB", bytes / 1024),
        _ => format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0)),
    }
}

impl Journal {
    fn files(&self) -> Result<&Files> {
        self.inner.files.as_ref().ok_or(Error::AttachmentsOff)
    }

    /// The store of attachment bytes, when there is one (backups, the collection).
    pub fn attachment_files(&self) -> Option<&Files> {
        self.inner.files.as_ref()
    }

    /// Stores an uploaded file for the caller, for one of their entries or for an entry
    /// not yet saved (attached when an entry's text names `attachment:ID`, else
    /// collected after a day). Its type is decided by its bytes; a photo loses its
    /// location and other metadata (unless the server keeps them); it streams to the
    /// store, so memory stays bounded whatever its size.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn upload_attachment<S>(
        &self,
        caller: &Caller,
        request: &UploadRequest,
        body: S,
    ) -> Result<Attachment>
    where
        S: Stream<Item = std::io::Result<Bytes>> + Send + Unpin,
    {
        self.store_upload(
            caller,
            request,
            body,
            AttachmentId::generate(),
            Timestamp::now(),
        )
        .await
    }

    /// [`Journal::upload_attachment`] under a given id and upload time (an import keeps
    /// both).
    pub(super) async fn store_upload<S>(
        &self,
        caller: &Caller,
        request: &UploadRequest,
        body: S,
        id: AttachmentId,
        created_at: Timestamp,
    ) -> Result<Attachment>
    where
        S: Stream<Item = std::io::Result<Bytes>> + Send + Unpin,
    {
        let files = self.files()?.clone();
        let options = &self.inner.attachments;
        if let Some(entry) = &request.entry_id {
            let stored = self.store_ref().entry(entry).await?;
            check_author(caller, stored.as_ref(), false)?;
        }
        let used = self.store_ref().attachment_bytes(&caller.user_id).await?;
        let room = options.quota.map(|q| q.saturating_sub(used));
        let refuse = |size: u64| -> Result<()> {
            if size > options.max_size {
                return Err(Error::TooLarge(format!(
                    "a file may be at most {} (this one is larger)",
                    mib(options.max_size)
                )));
            }
            if let (Some(room), Some(quota)) = (room, options.quota)
                && size > room
            {
                return Err(Error::OverQuota(format!(
                    "this file does not fit in your space: you use {} of {}; delete \
                     attachments you no longer need, or ask the operator for more",
                    mib(used),
                    mib(quota)
                )));
            }
            Ok(())
        };
        if let Some(size) = request.declared_size {
            refuse(size)?;
        }

        let mut body = body;
        let mut head = BytesMut::new();
        while head.len() < SNIFF_BYTES {
            match body.next().await {
                Some(chunk) => head.extend_from_slice(&chunk.map_err(Error::internal)?),
                None => break,
            }
            refuse(head.len() as u64)?;
        }
        if head.is_empty() {
            return Err(ValidationError::new("body", "the file is empty").into());
        }
        let kind = FileKind::sniff(&head).ok_or_else(|| {
            Error::UnsupportedType(
                "this kind of file is not accepted: attach photos (JPEG, PNG, WebP, GIF), \
                 recordings (MP3, M4A, OGG, WAV, FLAC), PDF or plain text"
                    .into(),
            )
        })?;
        let strip = kind.strips_metadata() && !options.keep_photo_metadata;
        if kind.has_unstrippable_metadata() && !options.keep_photo_metadata {
            return Err(Error::UnsupportedType(
                "HEIC photos are not accepted here, because their location could not be \
                 removed: export the photo as JPEG first (on an iPhone: Settings → Camera → \
                 Formats → Most Compatible)"
                    .into(),
            ));
        }

        let (sha256, size, (width, height)) = if kind.is_image() {
            // A photo is read whole: its metadata is taken out before anything is stored.
            // Twice its size in memory at most (the bytes, then the stripped copy).
            let room = |n: usize| u32::try_from(2 * n).unwrap_or(u32::MAX);
            let mut held = self
                .inner
                .image_memory
                .clone()
                .acquire_many_owned(room(head.len()))
                .await
                .map_err(Error::internal)?;
            let mut whole = head;
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(Error::internal)?;
                held.merge(
                    self.inner
                        .image_memory
                        .clone()
                        .acquire_many_owned(room(chunk.len()))
                        .await
                        .map_err(Error::internal)?,
                );
                whole.extend_from_slice(&chunk);
                refuse(whole.len() as u64)?;
                if whole.len() as u64 > MAX_PHOTO_BYTES {
                    return Err(Error::TooLarge(format!(
                        "a photo may be at most {}",
                        mib(MAX_PHOTO_BYTES)
                    )));
                }
            }
            let whole = whole.freeze();
            let (bytes, size_on_screen) = tokio::task::spawn_blocking(move || {
                let bytes = if strip {
                    Bytes::from(strip_metadata(&kind, &whole).map_err(|e| e.to_string())?)
                } else {
                    whole
                };
                let dims = dimensions(&kind, &bytes);
                // A photo's header says its size; one that cannot say it (six bytes of
                // `GIF89a`) is no photo to show. HEIC has no decoder here to ask.
                if dims.is_none() && kind.image_format().is_some() {
                    return Err(format!(
                        "its {} header does not give a width and height",
                        kind.extension().to_ascii_uppercase()
                    ));
                }
                Ok::<_, String>((bytes, dims))
            })
            .await
            .map_err(Error::internal)?
            .map_err(|why| Error::UnsupportedType(format!("this photo cannot be read: {why}")))?;
            let size = bytes.len() as u64;
            refuse(size)?;
            let sha256 = files
                .put_whole(&caller.user_id, bytes)
                .await
                .map_err(files_error)?;
            (
                sha256,
                size,
                size_on_screen.map_or((None, None), |(w, h)| (Some(w), Some(h))),
            )
        } else {
            let mut upload = files.begin().await.map_err(files_error)?;
            let mut next = Some(Ok(head.freeze()));
            let written = loop {
                let chunk = match next.take() {
                    Some(chunk) => chunk,
                    None => match body.next().await {
                        Some(chunk) => chunk,
                        None => break Ok(()),
                    },
                };
                let step = match chunk {
                    Ok(chunk) => match refuse(upload.size() + chunk.len() as u64) {
                        Ok(()) => upload.write(chunk).await.map_err(files_error),
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(Error::internal(e)),
                };
                if let Err(e) = step {
                    break Err(e);
                }
            };
            if let Err(e) = written {
                upload.abort().await;
                return Err(e);
            }
            let size = upload.size();
            let sha256 = upload
                .finish(&files, &caller.user_id)
                .await
                .map_err(files_error)?;
            (sha256, size, (None, None))
        };

        let attachment = Attachment {
            id,
            entry_id: request.entry_id,
            author_id: caller.user_id,
            name: file_name(request.name.as_deref()),
            content_type: kind.mime().to_owned(),
            size,
            width,
            height,
            sha256,
            created_at,
        };
        self.store_ref().insert_attachment(&attachment).await?;
        Ok(attachment)
    }

    /// An attachment the reader may read: its author with a token always, and by a
    /// link while the entry is live; anyone while its entry is live and public and its
    /// author's profile public; nobody else (404, as for an unknown id). Checked on
    /// every read, so a link stops working the moment the entry turns private or goes.
    pub async fn attachment(&self, reader: Reader, id: &AttachmentId) -> Result<Attachment> {
        Ok(self.readable(reader, id).await?.attachment)
    }

    async fn readable(&self, reader: Reader, id: &AttachmentId) -> Result<StoredAttachment> {
        let stored = self
            .store_ref()
            .attachment(id)
            .await?
            .ok_or(Error::NotFound { kind: "attachment" })?;
        // Deleted is gone for every reader; the row stays only for the collection.
        if stored.deleted {
            return Err(Error::NotFound { kind: "attachment" });
        }
        let author = reader.user() == Some(&stored.attachment.author_id);
        let live = !stored.deleted && matches!(stored.entry, Some(AttachedTo::Live { .. }));
        let by_author = match reader {
            Reader::Token(_) => author,
            Reader::Link(_) => author && (live || stored.entry.is_none() && !stored.deleted),
            Reader::Anonymous => false,
        };
        if by_author || stored.readable_by_anyone() {
            Ok(stored)
        } else {
            Err(Error::NotFound { kind: "attachment" })
        }
    }

    /// Whether anyone may read this attachment by its plain link (a public entry's).
    pub async fn attachment_is_public(&self, id: &AttachmentId) -> Result<bool> {
        Ok(self.readable(Reader::Anonymous, id).await.is_ok())
    }

    /// An attachment's bytes (its thumbnail, with `thumbnail`, for an image), or the
    /// `range` of them, when the reader may read it (see [`Journal::attachment`]).
    pub async fn attachment_body(
        &self,
        reader: Reader,
        id: &AttachmentId,
        thumbnail_wanted: bool,
        range: Option<std::ops::Range<u64>>,
    ) -> Result<AttachmentBody> {
        let attachment = self.readable(reader, id).await?.attachment;
        let files = self.files()?;
        let author = attachment.author_id;
        let mut content_type = attachment.content_type.clone();
        let mut thumb = false;
        if thumbnail_wanted && attachment.width.is_some() {
            // An image too large or too damaged to make smaller is served as it is.
            if let Some(small) = self.make_thumbnail(files, &attachment).await? {
                content_type = small;
                thumb = true;
            }
        }
        let (total, stream) = files
            .get(&author, &attachment.sha256, thumb, range)
            .await
            .map_err(files_error)?
            .ok_or_else(|| Error::internal(format!("the file of attachment {id} is missing")))?;
        Ok(AttachmentBody {
            attachment,
            content_type,
            total,
            bytes: stream.map(|r| r.map_err(io_error)).boxed(),
        })
    }

    /// Makes an image's thumbnail once (later reads find it stored); answers its type,
    /// or `None` when the image cannot be made smaller (past [`MAX_PIXELS`], or not
    /// decodable). The work runs to its end and is kept even when the request that
    /// asked for it is dropped at its deadline, so a slow image is decoded once.
    async fn make_thumbnail(
        &self,
        files: &Files,
        attachment: &Attachment,
    ) -> Result<Option<String>> {
        let author = attachment.author_id;
        if let Some((_, head)) = files
            .get(&author, &attachment.sha256, true, Some(0..16))
            .await
            .map_err(files_error)?
        {
            let head: Vec<Bytes> = head.try_collect().await.map_err(files_error)?;
            let kind = FileKind::sniff(&head.concat())
                .ok_or_else(|| Error::internal("a stored thumbnail is no longer recognised"))?;
            return Ok(Some(kind.mime().to_owned()));
        }
        let Some(bytes) = files
            .read_whole(&author, &attachment.sha256)
            .await
            .map_err(files_error)?
        else {
            return Err(Error::internal("an attachment's file is missing"));
        };
        let Some(kind) = FileKind::sniff(&bytes) else {
            return Err(Error::internal(
                "a stored attachment is no longer recognised",
            ));
        };
        let (files, memory, sha256) = (
            files.clone(),
            self.inner.image_memory.clone(),
            attachment.sha256.clone(),
        );
        let work = tokio::spawn(
            async move {
                let _held = memory
                    .acquire_many_owned(THUMBNAIL_MEMORY)
                    .await
                    .map_err(Error::internal)?;
                let small = tokio::task::spawn_blocking(move || thumbnail(&kind, &bytes))
                    .await
                    .map_err(Error::internal)?;
                match small {
                    Ok(Some(small)) => {
                        let mime = small.kind.mime().to_owned();
                        files
                            .put_thumbnail(&author, &sha256, small.bytes)
                            .await
                            .map_err(files_error)?;
                        Ok(Some(mime))
                    }
                    Ok(None) => Ok(None),
                    Err(e) => {
                        tracing::debug!(error = %e, "no thumbnail; the image is served as it is");
                        Ok(None)
                    }
                }
            }
            .in_current_span(),
        );
        work.await.map_err(Error::internal)?
    }

    /// The attachments of an entry the caller may see, oldest first.
    pub async fn entry_attachments(
        &self,
        caller: &Caller,
        entry: &EntryId,
    ) -> Result<Vec<Attachment>> {
        self.entry(caller, entry).await?;
        Ok(self.store_ref().entry_attachments(entry).await?)
    }

    /// The attachments of `entries`, a list the caller was just given, in the entries'
    /// order, each entry's oldest first: one query for the whole list. Whether anyone
    /// may read each by its plain link is in [`StoredAttachment::readable_by_anyone`].
    pub async fn attachments_of_entries(
        &self,
        entries: &[crate::model::Entry],
    ) -> Result<Vec<Vec<StoredAttachment>>> {
        let ids: Vec<EntryId> = entries.iter().map(|e| e.id).collect();
        let mut by_entry: std::collections::HashMap<EntryId, Vec<StoredAttachment>> =
            std::collections::HashMap::new();
        for a in self.store_ref().attachments_of_entries(&ids).await? {
            if let Some(entry) = a.attachment.entry_id {
                by_entry.entry(entry).or_default().push(a);
            }
        }
        Ok(ids
            .iter()
            .map(|id| by_entry.remove(id).unwrap_or_default())
            .collect())
    }

    /// The caller's attachments (attached or not, deleted ones aside), newest first.
    pub async fn my_attachments(
        &self,
        caller: &Caller,
        page: PageRequest,
    ) -> Result<Page<StoredAttachment>> {
        Ok(self
            .store_ref()
            .author_attachments(&caller.user_id, page)
            .await?)
    }

    /// The space the caller's attachments take, and the most they may take.
    pub async fn attachment_usage(&self, caller: &Caller) -> Result<AttachmentUsage> {
        Ok(AttachmentUsage {
            used: self.store_ref().attachment_bytes(&caller.user_id).await?,
            quota: self.inner.attachments.quota,
        })
    }

    /// Attaches the caller's unattached uploads that `text` names (`attachment:ID`) to
    /// their entry: the editor uploads a pasted photo before the entry exists.
    pub(super) async fn attach_named(
        &self,
        caller: &Caller,
        entry: &EntryId,
        text: &str,
    ) -> Result<()> {
        let ids = named_attachments(text);
        if !ids.is_empty() {
            self.store_ref()
                .attach(&caller.user_id, entry, &ids)
                .await?;
        }
        Ok(())
    }

    /// Deletes the caller's attachment: it leaves its entry at once; its file goes at
    /// the collection once no kept revision of the entry can name it.
    pub async fn delete_attachment(&self, caller: &Caller, id: &AttachmentId) -> Result<()> {
        let stored = self.readable(Reader::Token(caller.user_id), id).await?;
        if stored.attachment.author_id != caller.user_id {
            return Err(Error::Forbidden(
                "only the author may delete an attachment".into(),
            ));
        }
        if self
            .store_ref()
            .delete_attachment(id, Timestamp::now())
            .await?
        {
            Ok(())
        } else {
            Err(Error::NotFound { kind: "attachment" })
        }
    }

    /// Removes attachment rows nothing needs (uploads never attached within a day,
    /// attachments of purged entries, deleted ones no kept revision can name) and the
    /// objects no row names, sparing those written within `spare` ([`COLLECT_SPARES`]
    /// when several processes may be uploading; zero when none is).
    pub async fn collect_attachments(&self, spare: Duration) -> Result<Collected> {
        let Some(files) = self.attachment_files() else {
            return Ok(Collected::default());
        };
        let now = Timestamp::now();
        let before = Timestamp::from_millis(
            now.as_millis() - i64::try_from(UNATTACHED_FOR.as_millis()).unwrap_or(i64::MAX),
        );
        let rows = self.store_ref().collect_attachments(before).await?;
        // Objects first, then the rows: a file stored after the listing is not in it,
        // and every store writes its file anew before its row (see `Files::put_whole`),
        // so a file older than the upload time and named by no row is named by none.
        let listed = files.names().await.map_err(files_error)?;
        let named: std::collections::HashSet<String> = self
            .store_ref()
            .attachment_objects()
            .await?
            .into_iter()
            .collect();
        let young = Timestamp::from_millis(
            now.as_millis() - i64::try_from(spare.as_millis()).unwrap_or(i64::MAX),
        );
        let mut objects = 0;
        for (name, written) in listed {
            if !crate::attachments::is_journal_object(&name) {
                continue;
            }
            let base = name.strip_suffix(".thumb").unwrap_or(&name);
            // An upload still streaming is in `uploads/`; one a crash left there is old.
            let unnamed = name.starts_with("uploads/") || !named.contains(base);
            if unnamed && written < young {
                files.delete(&name).await.map_err(files_error)?;
                objects += 1;
            }
        }
        Ok(Collected { rows, objects })
    }

    /// A link that lets `reader` read a private entry's attachment for
    /// [`LINK_MINUTES`]: the query string after `?`.
    pub fn attachment_link(&self, reader: &UserId, id: &AttachmentId) -> String {
        // From the end of the current minute: the same link all minute long, so a
        // rendered list holding it is reused, and it still works for the full time.
        let minute_end = (Timestamp::now().as_millis() / 1000 / 60 + 1) * 60;
        let expires = minute_end + (LINK_MINUTES * 60) as i64;
        let signature = self.link_signature(reader, id, expires);
        format!("reader={reader}&expires={expires}&sig={signature}")
    }

    /// The reader a link names, if its signature holds and it has not expired.
    pub fn link_reader(
        &self,
        id: &AttachmentId,
        reader: &str,
        expires: i64,
        signature: &str,
    ) -> Option<UserId> {
        let reader: UserId = reader.parse().ok()?;
        if expires < Timestamp::now().as_millis() / 1000 {
            return None;
        }
        let expected = self.link_signature(&reader, id, expires);
        // Compared in constant time: the signature is a secret's work.
        let same = expected.len() == signature.len()
            && expected
                .bytes()
                .zip(signature.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        same.then_some(reader)
    }

    fn link_signature(&self, reader: &UserId, id: &AttachmentId, expires: i64) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.inner.link_key)
            .expect("HMAC takes a key of any length");
        mac.update(format!("{id}\n{reader}\n{expires}").as_bytes());
        let bytes = mac.finalize().into_bytes();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The attachment ids a text names as `attachment:ID`, each once.
pub(crate) fn named_attachments(text: &str) -> Vec<AttachmentId> {
    let mut ids = Vec::new();
    for (at, _) in text.match_indices("attachment:") {
        let rest = &text[at + "attachment:".len()..];
        if let Some(id) = rest.get(..36).and_then(|s| s.parse::<AttachmentId>().ok())
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    ids
}
