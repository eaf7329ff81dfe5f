//! Attachments in both modes: uploading a file for an entry, listing an entry's,
//! reading one's bytes back, deleting one; and, on the database only, collecting what
//! nothing names. Bytes move in chunks both ways, so a file of any size costs the same
//! memory: from disk to the core (locally) or to the request body (remotely), and from
//! the core or the response to wherever `journal get` writes.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use futures_util::stream::{BoxStream, StreamExt, TryStreamExt};
use journal_core::{
    AttachmentId, AttachmentOptions, AttachmentPlace, Collected, EntryId, JournalOptions, Reader,
    Timestamp, UploadRequest,
};
use reqwest::Method;
use reqwest::header::{CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;

use super::local::{Local, open_any_with};
use super::remote::Remote;
use super::{Backend, Place, entry_id, needs_local_database};
use crate::error::{CliError, Result};

/// How much of a file is read at a time.
const CHUNK: usize = 256 * 1024;

/// An attachment as either mode tells it (the API's shape, without its link).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentInfo {
    /// Its id.
    pub id: AttachmentId,
    /// The entry it belongs to; none for an upload not yet attached.
    #[serde(rename = "entryId")]
    pub entry_id: Option<EntryId>,
    /// The file's name as uploaded.
    pub name: String,
    /// Its type, as its bytes say.
    #[serde(rename = "contentType")]
    pub content_type: String,
    /// Bytes stored.
    pub size: u64,
    /// An image's width as displayed, in pixels.
    pub width: Option<u32>,
    /// An image's height as displayed, in pixels.
    pub height: Option<u32>,
    /// SHA-256 of the stored bytes, in lower-case hex.
    pub sha256: String,
    /// When it was uploaded.
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
}

impl From<journal_core::Attachment> for AttachmentInfo {
    fn from(a: journal_core::Attachment) -> AttachmentInfo {
        AttachmentInfo {
            id: a.id,
            entry_id: a.entry_id,
            name: a.name,
            content_type: a.content_type,
            size: a.size,
            width: a.width,
            height: a.height,
            sha256: a.sha256,
            created_at: a.created_at,
        }
    }
}

/// An attachment's bytes on their way: its name (for a file named after it), its size
/// when known, and the bytes as they come.
pub struct Download {
    /// The attachment's name, safe as a file name in the current folder.
    pub name: String,
    /// Its length in bytes, when the mode says.
    pub size: Option<u64>,
    /// The bytes.
    pub bytes: BoxStream<'static, std::io::Result<Bytes>>,
}

/// A file to attach, checked: it exists, is a file and can be read.
#[derive(Clone, Debug)]
pub struct FileToAttach {
    path: PathBuf,
    name: String,
    size: u64,
}

impl FileToAttach {
    /// Checks that `path` is a file this user can read; its name is its last part.
    pub async fn check(path: &Path) -> Result<FileToAttach> {
        let shown = path.display();
        let cannot = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => CliError::NotFound(format!("{shown}: no such file")),
            std::io::ErrorKind::PermissionDenied => {
                CliError::Forbidden(format!("{shown}: permission denied"))
            }
            _ => CliError::other(format_args!("cannot read {shown}"), e),
        };
        // Looked at before it is opened: opening a named pipe waits for a writer, and a
        // device (`/dev/zero`) never ends.
        let meta = tokio::fs::metadata(path).await.map_err(cannot)?;
        if meta.is_dir() {
            return Err(CliError::Usage(format!(
                "{shown} is a folder; attach the files in it"
            )));
        }
        if !meta.is_file() {
            return Err(CliError::Usage(format!(
                "{shown} is not a regular file (a pipe or a device); save it to a file and attach that"
            )));
        }
        tokio::fs::File::open(path).await.map_err(cannot)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".to_owned());
        Ok(FileToAttach {
            path: path.to_owned(),
            name,
            size: meta.len(),
        })
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn open(&self) -> Result<tokio::fs::File> {
        tokio::fs::File::open(&self.path)
            .await
            .map_err(|e| CliError::other(format_args!("cannot read {}", self.path.display()), e))
    }
}

/// A file read as a stream of chunks.
fn chunks(file: tokio::fs::File) -> BoxStream<'static, std::io::Result<Bytes>> {
    futures_util::stream::try_unfold(file, |mut file| async move {
        let mut buffer = BytesMut::with_capacity(CHUNK);
        let n = file.read_buf(&mut buffer).await?;
        Ok((n > 0).then(|| (buffer.freeze(), file)))
    })
    .boxed()
}

fn attachment_id(id: &str) -> Result<AttachmentId> {
    id.trim()
        .parse()
        .map_err(|_| CliError::NotFound(format!("attachment {} not found", id.trim())))
}

/// A name from elsewhere made safe to write in the current folder: its last path part,
/// without control characters, never empty, `.` or `..`.
pub fn safe_file_name(given: &str) -> String {
    let last = given.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = last.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    if clean.is_empty() || clean == "." || clean == ".." {
        "attachment".to_owned()
    } else {
        clean.to_owned()
    }
}

/// The attachment operations each mode answers.
#[async_trait(?Send)]
pub(super) trait Attachments {
    /// Uploads a file for the entry `entry`.
    async fn upload(&self, entry: &str, file: &FileToAttach) -> Result<AttachmentInfo>;
    /// An entry's attachments, oldest first.
    async fn entry_attachments(&self, entry: &str) -> Result<Vec<AttachmentInfo>>;
    /// An attachment's bytes.
    async fn download(&self, id: &str) -> Result<Download>;
    /// Deletes an attachment.
    async fn delete_attachment(&self, id: &str) -> Result<()>;
}

impl Local {
    /// The core's refusal, naming the folder's trouble when the files are out of reach.
    fn files_error(&self, e: journal_core::Error) -> CliError {
        match (&e, &self.files_trouble) {
            (journal_core::Error::AttachmentsOff, Some(why)) => {
                CliError::Other(format!("the attachments cannot be reached: {why}"))
            }
            _ => e.into(),
        }
    }
}

#[async_trait(?Send)]
impl Attachments for Local {
    async fn upload(&self, entry: &str, file: &FileToAttach) -> Result<AttachmentInfo> {
        let request = UploadRequest {
            name: Some(file.name.clone()),
            entry_id: Some(entry_id(entry)?),
            declared_size: Some(file.size),
        };
        let body = chunks(file.open().await?);
        Ok(self
            .journal
            .upload_attachment(&self.caller, &request, body)
            .await
            .map_err(|e| self.files_error(e))?
            .into())
    }
    async fn entry_attachments(&self, entry: &str) -> Result<Vec<AttachmentInfo>> {
        Ok(self
            .journal
            .entry_attachments(&self.caller, &entry_id(entry)?)
            .await?
            .into_iter()
            .map(AttachmentInfo::from)
            .collect())
    }
    async fn download(&self, id: &str) -> Result<Download> {
        let reader = Reader::Token(*self.caller.user_id());
        let body = self
            .journal
            .attachment_body(reader, &attachment_id(id)?, false, None)
            .await
            .map_err(|e| self.files_error(e))?;
        Ok(Download {
            name: safe_file_name(&body.attachment.name),
            size: Some(body.total),
            bytes: body.bytes,
        })
    }
    async fn delete_attachment(&self, id: &str) -> Result<()> {
        Ok(self
            .journal
            .delete_attachment(&self.caller, &attachment_id(id)?)
            .await?)
    }
}

#[async_trait(?Send)]
impl Attachments for Remote {
    async fn upload(&self, entry: &str, file: &FileToAttach) -> Result<AttachmentInfo> {
        let entry = entry_id(entry)?;
        let body = reqwest::Body::wrap_stream(chunks(file.open().await?));
        // The length goes first, so a file past the server's limit is refused before
        // its bytes are sent.
        let request = self
            .transfer(
                Method::POST,
                &format!("/api/journal-entries/{entry}/attachments"),
            )?
            .query(&[("name", file.name.as_str())])
            .header(CONTENT_TYPE, "application/octet-stream")
            .header(CONTENT_LENGTH, file.size)
            .body(body);
        let response = match self.send_transfer(request).await {
            Ok(response) => response,
            // A server that refuses a file on its length answers at once and closes
            // the connection; a client still sending meets a broken pipe instead of
            // the answer. Asking again without sending the rest reads the answer.
            Err(lost @ CliError::Connection { .. }) => {
                return Err(self.refusal_of(&entry, file).await.unwrap_or(lost));
            }
            Err(e) => return Err(e),
        };
        response.json().await.map_err(|e| {
            CliError::Other(format!(
                "unexpected answer from {} ({e}); is it a journal-server?",
                self.base()
            ))
        })
    }
    async fn entry_attachments(&self, entry: &str) -> Result<Vec<AttachmentInfo>> {
        let entry = entry_id(entry)?;
        Ok(self
            .call(
                Method::GET,
                &format!("/api/journal-entries/{entry}/attachments"),
                &[],
                None::<&()>,
                true,
            )
            .await?
            .0)
    }
    async fn download(&self, id: &str) -> Result<Download> {
        let id = attachment_id(id)?;
        let request = self.transfer(Method::GET, &format!("/api/attachments/{id}"))?;
        let response = self.send_transfer(request).await?;
        let headers = response.headers();
        let name = headers
            .get(CONTENT_DISPOSITION)
            .and_then(|v| v.to_str().ok())
            .and_then(disposition_name)
            .unwrap_or_else(|| id.to_string());
        let size = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        Ok(Download {
            name: safe_file_name(&name),
            size,
            bytes: response
                .bytes_stream()
                .map_err(std::io::Error::other)
                .boxed(),
        })
    }
    async fn delete_attachment(&self, id: &str) -> Result<()> {
        let id = attachment_id(id)?;
        let _: (serde_json::Value, _) = self
            .call(
                Method::DELETE,
                &format!("/api/attachments/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await?;
        Ok(())
    }
}

impl Remote {
    /// Why the server refuses this upload, when it does so on the length, the entry or
    /// the first bytes: the same request, with the file's start and then nothing more,
    /// so the answer is read rather than a broken pipe. `None` when no refusal comes.
    async fn refusal_of(&self, entry: &EntryId, file: &FileToAttach) -> Option<CliError> {
        let mut start = BytesMut::with_capacity(CHUNK);
        let mut opened = file.open().await.ok()?;
        opened.read_buf(&mut start).await.ok()?;
        let body =
            futures_util::stream::once(async move { Ok::<_, std::io::Error>(start.freeze()) })
                .chain(futures_util::stream::pending());
        let request = self
            .transfer(
                Method::POST,
                &format!("/api/journal-entries/{entry}/attachments"),
            )
            .ok()?
            .query(&[("name", file.name.as_str())])
            .header(CONTENT_TYPE, "application/octet-stream")
            .header(CONTENT_LENGTH, file.size)
            .timeout(std::time::Duration::from_secs(15))
            .body(reqwest::Body::wrap_stream(body));
        match self.send_transfer(request).await {
            Err(CliError::Connection { .. }) | Ok(_) => None,
            Err(refused) => Some(refused),
        }
    }
}

/// The file name a `Content-Disposition` header gives: `filename*=UTF-8''…` (any
/// name, percent-encoded), else `filename="…"`.
fn disposition_name(header: &str) -> Option<String> {
    let params = header.split(';').map(str::trim);
    let mut plain = None;
    for param in params {
        if let Some(encoded) = param.strip_prefix("filename*=") {
            let encoded = encoded.trim();
            let rest = encoded
                .strip_prefix("UTF-8''")
                .or_else(|| encoded.strip_prefix("utf-8''"))?;
            return percent_decode(rest);
        }
        if let Some(quoted) = param.strip_prefix("filename=") {
            plain = Some(quoted.trim().trim_matches('"').to_owned());
        }
    }
    plain
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Backend {
    /// Uploads a checked file for an entry (by its whole id).
    pub async fn upload_attachment(
        &self,
        entry: &str,
        file: &FileToAttach,
    ) -> Result<AttachmentInfo> {
        self.side()
            .await?
            .upload(entry, file)
            .await
            .map_err(|e| about_upload(e, entry, file))
    }
    /// An entry's attachments, oldest first.
    pub async fn entry_attachments(&self, entry: &str) -> Result<Vec<AttachmentInfo>> {
        self.side()
            .await?
            .entry_attachments(entry)
            .await
            .map_err(|e| e.about_entry(entry))
    }
    /// An attachment's bytes, as they come.
    pub async fn download_attachment(&self, id: &str) -> Result<Download> {
        self.side()
            .await?
            .download(id)
            .await
            .map_err(|e| about_attachment(e, id))
    }
    /// Deletes one of the caller's attachments.
    pub async fn delete_attachment(&self, id: &str) -> Result<()> {
        self.side()
            .await?
            .delete_attachment(id)
            .await
            .map_err(|e| about_attachment(e, id))
    }

    /// Removes what no attachment needs (rows of purged entries, uploads never attached,
    /// deleted ones no kept revision names) and every file no row names, sparing none:
    /// on the database itself, with nothing else uploading to its store. On
    /// PostgreSQL, `place` is the server's `--attachments`.
    pub async fn collect_attachments(&self, place: Option<&AttachmentPlace>) -> Result<Collected> {
        let Place::Local { path, .. } = &self.place else {
            return Err(needs_local_database("admin gc"));
        };
        let target = path.display().to_string();
        let options = JournalOptions {
            attachments: AttachmentOptions {
                place: place.cloned().unwrap_or_default(),
                ..AttachmentOptions::default()
            },
            ..super::local::local_options()
        };
        let journal = open_any_with(&target, options).await?;
        if journal.attachment_files().is_none() {
            return Err(CliError::Usage(
                "a journal on PostgreSQL keeps its attachments in the server's --attachments: pass the same folder or bucket to journal admin gc --attachments DIR|s3://BUCKET".into(),
            ));
        }
        Ok(journal
            .collect_attachments(std::time::Duration::ZERO)
            .await?)
    }
}

/// A refused upload named by its file (and a missing entry by its id).
fn about_upload(e: CliError, entry: &str, file: &FileToAttach) -> CliError {
    let shown = file.path.display();
    match e {
        // The file was read already: what is missing is the entry.
        CliError::NotFound(_) => CliError::NotFound(format!("entry {entry} not found")),
        CliError::Invalid(m) => CliError::Invalid(format!("{shown}: {m}")),
        CliError::Other(m) => CliError::Other(format!("{shown}: {m}")),
        other => other.about_entry(entry),
    }
}

fn about_attachment(e: CliError, id: &str) -> CliError {
    match e {
        CliError::NotFound(_) => CliError::NotFound(format!("attachment {} not found", id.trim())),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disposition_gives_the_encoded_name_first() {
        let header =
            "attachment; filename=\"caf_ photo.jpg\"; filename*=UTF-8''caf%C3%A9%20photo.jpg";
        assert_eq!(disposition_name(header).as_deref(), Some("café photo.jpg"));
        assert_eq!(
            disposition_name("inline; filename=\"a.png\"").as_deref(),
            Some("a.png")
        );
        assert_eq!(disposition_name("inline"), None);
    }

    #[test]
    fn a_name_from_elsewhere_cannot_leave_the_folder() {
        assert_eq!(safe_file_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_file_name("..\\x.txt"), "x.txt");
        assert_eq!(safe_file_name(".."), "attachment");
        assert_eq!(safe_file_name("a\u{7}b.txt"), "ab.txt");
        assert_eq!(safe_file_name("dir/"), "attachment");
    }
}
