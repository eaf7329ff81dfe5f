//! Moving every attachment file from one store to another (a folder to a bucket, one
//! bucket to another) while servers keep running: each object is copied under its own
//! name, read back and checked by SHA-256, and one already there and sound is left as
//! it is, so that a move stopped partway goes on where it stopped.
//!
//! The source is never changed: it is removed by hand once the servers no longer read
//! it (docs/OPERATIONS.md, "Moving attachments").

use futures_util::StreamExt;

use super::{Files, FilesError};

/// Objects copied at once, by default: a bucket answers each request in milliseconds,
/// and the copies wait on it, not on this machine.
pub const MOVE_JOBS: usize = 8;

/// What happened to one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    /// Copied, read back and found whole.
    Copied {
        /// Its name in both stores.
        name: String,
        /// Its size.
        bytes: u64,
    },
    /// The target holds it already, with the same bytes: not copied again.
    AlreadyThere {
        /// Its name.
        name: String,
    },
    /// Not moved: the object is damaged at the source, the copy did not read back as
    /// written, or a store failed. The rest of the move goes on.
    Failed {
        /// Its name.
        name: String,
        /// Why, in a few words.
        why: String,
    },
}

/// What a move did, object by object counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveReport {
    /// Objects copied and checked.
    pub copied: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Objects the target held already, sound.
    pub already_there: u64,
    /// Objects not moved, with why.
    pub failed: Vec<(String, String)>,
}

impl MoveReport {
    fn add(&mut self, moved: &Moved) {
        match moved {
            Moved::Copied { bytes, .. } => {
                self.copied += 1;
                self.bytes += bytes;
            }
            Moved::AlreadyThere { .. } => self.already_there += 1,
            Moved::Failed { name, why } => self.failed.push((name.clone(), why.clone())),
        }
    }
}

/// Copies every attachment file of `from` into `to` (`author/sha256` and its
/// thumbnail), `jobs` at a time, calling `each` as each is done. Uploads still arriving
/// (`uploads/…`) are left, not being attachments yet, and so is anything else a shared
/// bucket or folder holds.
///
/// Fails only when `from` cannot be listed; an object that cannot be moved is reported
/// in [`MoveReport::failed`] and the rest are moved.
pub async fn move_files(
    from: &Files,
    to: &Files,
    jobs: usize,
    mut each: impl FnMut(&Moved),
) -> Result<MoveReport, FilesError> {
    let names: Vec<String> = from
        .names()
        .await?
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| super::is_journal_object(name) && !name.starts_with("uploads/"))
        .collect();
    let mut moves = futures_util::stream::iter(names)
        .map(|name| move_one(from, to, name))
        .buffer_unordered(jobs.max(1));
    let mut report = MoveReport::default();
    while let Some(moved) = moves.next().await {
        each(&moved);
        report.add(&moved);
    }
    Ok(report)
}

async fn move_one(from: &Files, to: &Files, name: String) -> Moved {
    match try_move(from, to, &name).await {
        Ok(moved) => moved,
        Err(e) => Moved::Failed {
            name,
            why: e.to_string(),
        },
    }
}

async fn try_move(from: &Files, to: &Files, name: &str) -> Result<Moved, FilesError> {
    // An original is named for its SHA-256; a thumbnail is checked against the source.
    let named_for = named_sha256(name);
    let expected = match named_for {
        Some(sha256) => Some(sha256.to_owned()),
        None => from.digest(name).await?,
    };
    let Some(expected) = expected else {
        return Ok(failed(name, "gone from the source while the move ran"));
    };
    if to.digest(name).await?.as_deref() == Some(expected.as_str()) {
        return Ok(Moved::AlreadyThere {
            name: name.to_owned(),
        });
    }
    let bytes = match to.copy_named(from, name, &expected).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(failed(name, "gone from the source while the move ran")),
        // Checked before the copy took the name: nothing damaged is ever served.
        Err(FilesError::Damaged { .. }) => {
            return Ok(failed(
                name,
                match named_for {
                    Some(_) => "damaged at the source: its bytes are not what its name says",
                    None => "changed at the source while it was copied",
                },
            ));
        }
        Err(e) => return Err(e),
    };
    if to.digest(name).await?.as_deref() != Some(expected.as_str()) {
        // The target holds other bytes than were written (a store that damages what
        // it keeps): they go, so that a fallback or the next run serves the file.
        to.delete(name).await?;
        return Ok(failed(
            name,
            "the copy does not read back as it was written",
        ));
    }
    Ok(Moved::Copied {
        name: name.to_owned(),
        bytes,
    })
}

fn failed(name: &str, why: &str) -> Moved {
    Moved::Failed {
        name: name.to_owned(),
        why: why.to_owned(),
    }
}

/// The SHA-256 an original's name (`author/sha256`) gives it.
fn named_sha256(name: &str) -> Option<&str> {
    let (_, last) = name.rsplit_once('/')?;
    (last.len() == 64 && last.bytes().all(|b| b.is_ascii_hexdigit())).then_some(last)
}
