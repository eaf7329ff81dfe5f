//! Where attachment bytes live: an object store, through the `object_store` crate's one
//! interface. A local folder by default (beside the SQLite file, or `--attachments`),
//! memory for a `:memory:` journal, or an S3-compatible bucket ([`super::Bucket`]):
//! three configurations of the same interface, not three code paths. While files move
//! from one store to another, a second store may stand behind the first: what the first
//! lacks is read from it ([`Files::with_fallback`]).
//!
//! Objects are named `{author}/{sha256}` (and `{author}/{sha256}.thumb` for a
//! thumbnail): the same photo attached twice by one person is stored once, and nothing
//! is shared across people, so nobody learns that someone else holds a file. An upload
//! streams into `uploads/{random}` while it is hashed, then is renamed to its name: a
//! reader never sees half a file under a final name, and a crash leaves only an
//! `uploads/` object, which the collection removes.

use std::ops::Range;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use sha2::{Digest, Sha256};

use super::Bucket;
use crate::domain::UserId;

/// Where new uploads are written before they get their name.
const UPLOADS: &str = "uploads";

/// The object store holding attachment bytes. Cheap to clone.
#[derive(Clone)]
pub struct Files {
    store: Arc<dyn ObjectStore>,
    /// The folder, for a local store: files are made readable by their owner only.
    folder: Option<PathBuf>,
    /// Where it is, for messages: the folder or the bucket's URL.
    place: String,
    /// The store files are moving from: read when this one lacks an object, never
    /// written (`--attachments-fallback`).
    fallback: Option<Arc<Files>>,
}

/// Why the store of files failed: the operator's problem, never the client's.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The folder cannot be made or used.
    #[error("the attachments folder {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The object store failed.
    #[error(transparent)]
    Store(#[from] object_store::Error),
    /// An object's bytes are not those its name says (a damaged copy).
    #[error("the file {name} does not hold what its name says: it is damaged")]
    Damaged {
        /// The object's name.
        name: String,
    },
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Files")
            .field("place", &self.place)
            .field("fallback", &self.fallback)
            .finish()
    }
}

impl Files {
    /// A local folder, made (mode 0700) if missing.
    pub fn folder(dir: &FsPath) -> Result<Files, FilesError> {
        let failed = |source| FilesError::Folder {
            path: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(failed)?;
        owner_only(dir, 0o700).map_err(failed)?;
        let store = LocalFileSystem::new_with_prefix(dir)?;
        Ok(Files {
            store: Arc::new(store),
            folder: Some(dir.to_owned()),
            place: dir.display().to_string(),
            fallback: None,
        })
    }

    /// An S3-compatible bucket. Nothing is asked of it yet: a bucket out of reach fails
    /// the requests that need it (503), not the server's start.
    pub fn bucket(bucket: &Bucket) -> Result<Files, FilesError> {
        Ok(Files {
            store: bucket.open()?,
            folder: None,
            place: bucket.to_string(),
            fallback: None,
        })
    }

    /// In memory: for a journal in memory, gone with it.
    pub fn memory() -> Files {
        Files {
            store: Arc::new(InMemory::new()),
            folder: None,
            place: "memory".to_owned(),
            fallback: None,
        }
    }

    /// These files, reading from `old` what they lack: while files are copied from
    /// `old` (`journal admin move-attachments`), every attachment stays readable.
    /// Writes and deletions go to these files only.
    pub fn with_fallback(self, old: Files) -> Files {
        Files {
            fallback: Some(Arc::new(old)),
            ..self
        }
    }

    /// Where they are: the folder, or the bucket's URL (which holds no secret).
    pub fn place(&self) -> &str {
        &self.place
    }

    /// The folder, for a local store.
    pub fn folder_path(&self) -> Option<&FsPath> {
        self.folder.as_deref()
    }

    fn name(author: &UserId, sha256: &str, thumbnail: bool) -> Path {
        let suffix = if thumbnail { ".thumb" } else { "" };
        Path::from(format!("{author}/{sha256}{suffix}"))
    }

    /// Stores `bytes` whole (a photo, after its metadata went); answers their SHA-256.
    pub(crate) async fn put_whole(
        &self,
        author: &UserId,
        bytes: Bytes,
    ) -> Result<String, FilesError> {
        let sha256 = hex(&Sha256::digest(&bytes));
        let name = Files::name(author, &sha256, false);
        // Written even when the same file is there: its time is then new, and the
        // collection, which spares young files, cannot take it before its row is in.
        self.store.put(&name, PutPayload::from(bytes)).await?;
        self.protect(&name).await?;
        Ok(sha256)
    }

    /// Starts a streamed upload.
    pub(crate) async fn begin(&self) -> Result<Upload, FilesError> {
        let staging = Path::from(format!("{UPLOADS}/{}", uuid::Uuid::now_v7()));
        let upload = self.store.put_multipart(&staging).await?;
        Ok(Upload {
            writer: WriteMultipart::new(upload),
            staging,
            hasher: Sha256::new(),
            size: 0,
        })
    }

    /// Stores a thumbnail of the object `sha256`.
    pub(crate) async fn put_thumbnail(
        &self,
        author: &UserId,
        sha256: &str,
        bytes: Vec<u8>,
    ) -> Result<(), FilesError> {
        let name = Files::name(author, sha256, true);
        self.store.put(&name, PutPayload::from(bytes)).await?;
        self.protect(&name).await
    }

    /// The bytes of an object (its thumbnail, with `thumbnail`), or of `range` of them:
    /// its whole length and the stream. `None` when there is no such object.
    pub(crate) async fn get(
        &self,
        author: &UserId,
        sha256: &str,
        thumbnail: bool,
        range: Option<Range<u64>>,
    ) -> Result<Option<(u64, BoxStream<'static, Result<Bytes, FilesError>>)>, FilesError> {
        let name = Files::name(author, sha256, thumbnail);
        let options = GetOptions {
            range: range.clone().map(GetRange::Bounded),
            ..GetOptions::default()
        };
        match self.store.get_opts(&name, options).await {
            Ok(got) => {
                let length = got.meta.size;
                let stream = got.into_stream().map(|r| r.map_err(FilesError::from));
                Ok(Some((length, stream.boxed())))
            }
            Err(object_store::Error::NotFound { .. }) => match &self.fallback {
                Some(old) => Box::pin(old.get(author, sha256, thumbnail, range)).await,
                None => Ok(None),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// An object's bytes, whole.
    pub(crate) async fn read_whole(
        &self,
        author: &UserId,
        sha256: &str,
    ) -> Result<Option<Bytes>, FilesError> {
        let name = Files::name(author, sha256, false);
        match self.store.get(&name).await {
            Ok(got) => Ok(Some(got.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => match &self.fallback {
                Some(old) => Box::pin(old.read_whole(author, sha256)).await,
                None => Ok(None),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// Copies the object `author/sha256` into another store, streamed so that memory
    /// stays bounded; false when this store has no such object. The copy is checked
    /// against its name before it takes it: a file damaged on the way is not kept.
    pub(crate) async fn copy_object(
        &self,
        to: &Files,
        author: &UserId,
        sha256: &str,
    ) -> Result<bool, FilesError> {
        let name = Files::name(author, sha256, false);
        Ok(to.copy_named(self, name.as_ref(), sha256).await?.is_some())
    }

    /// The SHA-256 of the object `name` (a name [`Files::names`] gave) as this store
    /// holds it, read whole; `None` when it has no such object. The fallback is not read.
    pub(super) async fn digest(&self, name: &str) -> Result<Option<String>, FilesError> {
        let got = match self.store.get(&Path::from(name)).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut bytes = got.into_stream();
        let mut hasher = Sha256::new();
        while let Some(chunk) = bytes.next().await {
            hasher.update(&chunk?);
        }
        Ok(Some(hex(&hasher.finalize())))
    }

    /// Copies the object `name` of `from` (or, lacking it, of its fallback) into this store under
    /// the same name, streamed through a staging name so that no reader sees half of
    /// it; answers the size of what was copied, `None` when `from` has no such object.
    /// Bytes that are not of the SHA-256 `expected` are not kept ([`FilesError::Damaged`]).
    pub(super) async fn copy_named(
        &self,
        from: &Files,
        name: &str,
        expected: &str,
    ) -> Result<Option<u64>, FilesError> {
        let got = match from.store.get(&Path::from(name)).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => {
                return match &from.fallback {
                    Some(old) => Box::pin(self.copy_named(old, name, expected)).await,
                    None => Ok(None),
                };
            }
            Err(e) => return Err(e.into()),
        };
        let mut bytes = got.into_stream();
        let mut upload = self.begin().await?;
        while let Some(chunk) = bytes.next().await {
            let written = match chunk {
                Ok(chunk) => upload.write(chunk).await,
                Err(e) => Err(e.into()),
            };
            if let Err(e) = written {
                upload.abort().await;
                return Err(e);
            }
        }
        let size = upload.size();
        upload
            .finish_named(self, |_| Path::from(name), Some(expected))
            .await?;
        Ok(Some(size))
    }

    /// Every object's name (`author/sha256`, `author/sha256.thumb`, `uploads/…`), with
    /// when it was last written: of this store, never of its fallback, which only the
    /// move reads.
    pub(crate) async fn names(
        &self,
    ) -> Result<Vec<(String, crate::domain::Timestamp)>, FilesError> {
        let mut listed = self.store.list(None);
        let mut names = Vec::new();
        while let Some(meta) = listed.next().await {
            let meta = meta?;
            let at = crate::domain::Timestamp::from_millis(meta.last_modified.timestamp_millis());
            names.push((meta.location.to_string(), at));
        }
        Ok(names)
    }

    /// Deletes an object by the name [`Files::names`] gave; an object already gone is
    /// not an error.
    pub(crate) async fn delete(&self, name: &str) -> Result<(), FilesError> {
        match self.store.delete(&Path::from(name)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Makes a local file readable and writable by its owner only.
    async fn protect(&self, name: &Path) -> Result<(), FilesError> {
        let Some(folder) = &self.folder else {
            return Ok(());
        };
        let path = folder.join(name.as_ref());
        tokio::task::spawn_blocking(move || {
            // The author's folder too, which the object store makes with the umask's
            // mode (0755): the journal's folder is 0700 already, this one is the same.
            if let Some(author) = path.parent() {
                owner_only(author, 0o700).map_err(|e| (author.to_owned(), e))?;
            }
            owner_only(&path, 0o600).map_err(|e| (path, e))
        })
        .await
        .map_err(|e| FilesError::Folder {
            path: folder.clone(),
            source: std::io::Error::other(e),
        })?
        .map_err(|(path, source)| FilesError::Folder { path, source })
    }
}

/// An upload being streamed into the store.
pub(crate) struct Upload {
    writer: WriteMultipart,
    staging: Path,
    hasher: Sha256,
    size: u64,
}

impl Upload {
    /// Bytes written so far.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Writes the next bytes, waiting while the store is behind so that memory stays
    /// bounded whatever the file's size.
    pub(crate) async fn write(&mut self, chunk: Bytes) -> Result<(), FilesError> {
        self.writer.wait_for_capacity(2).await?;
        self.hasher.update(&chunk);
        self.size += chunk.len() as u64;
        self.writer.put(chunk);
        Ok(())
    }

    /// Finishes it and gives it its name; answers its SHA-256.
    pub(crate) async fn finish(self, files: &Files, author: &UserId) -> Result<String, FilesError> {
        self.finish_named(files, |sha256| Files::name(author, sha256, false), None)
            .await
    }

    /// Finishes it under the name `name` makes of its SHA-256; answers the SHA-256.
    /// With `expected`, bytes of another SHA-256 never get the name: they are removed,
    /// and the error says the file is damaged.
    async fn finish_named(
        self,
        files: &Files,
        name: impl FnOnce(&str) -> Path,
        expected: Option<&str>,
    ) -> Result<String, FilesError> {
        self.writer.finish().await?;
        let sha256 = hex(&self.hasher.finalize());
        let name = name(&sha256);
        if expected.is_some_and(|expected| expected != sha256) {
            files.delete(self.staging.as_ref()).await?;
            return Err(FilesError::Damaged {
                name: name.to_string(),
            });
        }
        // Over the same file, if it is there: its time is then new (see `put_whole`).
        files.store.rename(&self.staging, &name).await?;
        files.protect(&name).await?;
        Ok(sha256)
    }

    /// Gives up: nothing is kept.
    pub(crate) async fn abort(self) {
        if let Err(e) = self.writer.abort().await {
            tracing::warn!(error = %e, "an abandoned upload left a part behind; the collection removes it");
        }
    }
}

/// Whether `name` is one this journal gives objects: `{author}/{sha256}`,
/// `{author}/{sha256}.thumb`, or `uploads/{id}`. The collection and the move touch no
/// other, so a bucket or folder shared with anything else keeps what is not theirs.
pub(crate) fn is_journal_object(name: &str) -> bool {
    let Some((first, rest)) = name.split_once('/') else {
        return false;
    };
    if first == UPLOADS {
        return !rest.is_empty() && !rest.contains('/');
    }
    let sha256 = rest.strip_suffix(".thumb").unwrap_or(rest);
    first.parse::<UserId>().is_ok()
        && sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(unix)]
fn owner_only(path: &FsPath, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn owner_only(_: &FsPath, _: u32) -> std::io::Result<()> {
    Ok(())
}
