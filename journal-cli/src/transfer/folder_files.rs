//! A Markdown folder's attachments. `journal export --format markdown-dir` writes each
//! entry's files under `attachments/` beside the entries, linked from their text, by
//! way of the zip export (so local and remote journals write the same folder);
//! `journal import FOLDER` takes them back by packing the folder as such an archive,
//! so the files go through the journal's one importer of archives: ids kept when free,
//! nothing stored twice when the folder is imported again.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use journal_core::model::Entry;
use journal_core::transfer::json::{ExportDocument, FORMAT_NAME, VERSION};
use journal_core::transfer::{ImportedEntry, journal_zip, markdown};
use journal_core::{AttachmentId, Timestamp, Zone};
use sha2::{Digest, Sha256};

use crate::error::{CliError, Result};

fn failed(what: impl std::fmt::Display) -> impl Fn(std::io::Error) -> CliError {
    move |e| CliError::other(format_args!("{what}"), e)
}

fn unreadable(e: impl std::fmt::Display) -> CliError {
    CliError::Invalid(format!("the journal's archive cannot be read ({e})"))
}

/// Writes one Markdown file per entry of our zip export `archive` into `dir`, each
/// entry's attachments at their `attachments/ID-name`. Answers how many entries.
pub fn write_folder(archive: std::fs::File, dir: &Path, zone: &Zone) -> Result<usize> {
    let mut zip = zip::ZipArchive::new(archive).map_err(unreadable)?;
    let document: ExportDocument =
        serde_json::from_reader(zip.by_name(journal_zip::DOCUMENT).map_err(unreadable)?)
            .map_err(unreadable)?;
    let entries: Vec<Entry> = document.entries.iter().map(|e| e.entry.clone()).collect();
    let names = markdown::file_names(&entries, zone);
    let mut written = HashSet::new();
    for (exported, name) in document.entries.iter().zip(names) {
        for a in &exported.attachments {
            let relative = markdown::attachment_path(&a.id, &a.name);
            if !written.insert(relative.clone()) {
                continue;
            }
            let path = dir.join(&relative);
            if let Some(folder) = path.parent() {
                crate::private_files::create_dir_all(folder)
                    .map_err(failed(format_args!("cannot create {}", folder.display())))?;
            }
            let mut file = zip
                .by_name(&journal_zip::file_name(&a.id))
                .map_err(unreadable)?;
            crate::private_files::replace_from(&path, &mut file)
                .map_err(failed(format_args!("cannot write {}", path.display())))?;
        }
        let text = if exported.attachments.is_empty() {
            markdown::file_text(&exported.entry, zone)
        } else {
            markdown::file_text_with_attachments(&exported.entry, zone, &exported.attachments)
        };
        let path = dir.join(name);
        crate::private_files::replace(&path, text.as_bytes())
            .map_err(failed(format_args!("cannot write {}", path.display())))?;
    }
    Ok(document.entries.len())
}

/// A file a Markdown file's front matter lists: its entry (an index into what was
/// read), the path as written, and where it is.
#[derive(Debug)]
pub struct Listed {
    pub entry: usize,
    pub written: String,
    pub path: PathBuf,
}

/// Where a listed attachment of the Markdown file `md` is: relative to the file's
/// folder, inside `root`, a file. `None` for any other path (`../x`, `/etc/x`, a link
/// leading out of the folder): the folder may be anyone's.
pub fn resolve(root: &Path, md: &Path, written: &str) -> Option<PathBuf> {
    let relative = Path::new(written);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let path = std::fs::canonicalize(md.parent()?.join(relative)).ok()?;
    (path.starts_with(root) && path.is_file()).then_some(path)
}

/// The id and name a folder export gave a file (`attachments/ID-name`); for a path
/// written by hand, the file's own name and an id made from the link as written and
/// the file's SHA-256: the same at every import, so the entry's text is the same and
/// importing the folder again finds it (a new id each time made it a new entry).
fn id_and_name(written: &str, path: &Path, sha256: &str) -> (AttachmentId, String) {
    let base = written.rsplit('/').next().unwrap_or(written);
    if let Some((id, name)) = base.get(..36).zip(base.get(37..))
        && base.as_bytes().get(36) == Some(&b'-')
        && let Ok(id) = id.parse::<AttachmentId>()
        && !name.is_empty()
    {
        return (id, name.to_owned());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| base.to_owned());
    let id = AttachmentId::derived(&[b"folder-file:", sha256.as_bytes(), b":", written.as_bytes()]);
    (id, name)
}

/// SHA-256 and size of a file, read in chunks.
fn digest(path: &Path) -> Result<(String, u64)> {
    let mut file = std::fs::File::open(path)
        .map_err(failed(format_args!("cannot read {}", path.display())))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(failed(format_args!("cannot read {}", path.display())))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        size += n as u64;
    }
    let hex = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((hex, size))
}

/// Packs `entries` and their listed files as our zip export into `out`: each listed
/// path in an entry's text becomes its `attachment:ID` link again.
pub fn pack(entries: &[ImportedEntry], listed: &[Listed], out: std::fs::File) -> Result<()> {
    let mut documents = Vec::with_capacity(entries.len());
    let mut files: Vec<(AttachmentId, &Path)> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let mut entry = entry.clone();
        let mut attachments = Vec::new();
        for l in listed.iter().filter(|l| l.entry == i) {
            let (sha256, size) = digest(&l.path)?;
            let (id, name) = id_and_name(&l.written, &l.path, &sha256);
            if let Some(content) = entry.request.content.as_mut() {
                *content = content.replace(&l.written, &format!("attachment:{id}"));
            }
            attachments.push(serde_json::json!({
                "id": id.to_string(), "name": name, "contentType": "application/octet-stream",
                "size": size, "sha256": sha256, "createdAt": entry.created_at,
            }));
            files.push((id, &l.path));
        }
        let mut document = serde_json::to_value(journal_core::api::ImportEntryRequest {
            id: entry.id.clone(),
            ..journal_core::api::ImportEntryRequest::with_times(
                entry.request.clone(),
                Some(entry.created_at.to_string()),
                entry.updated_at.map(|t: Timestamp| t.to_string()),
            )
        })
        .map_err(unreadable)?;
        document["attachments"] = serde_json::Value::Array(attachments);
        documents.push(document);
    }
    // "format" first: a reader tells our archive from Day One's by the document's start.
    let document = format!(
        "{{\"format\":{},\"version\":{VERSION},\"entries\":{}}}",
        serde_json::Value::from(FORMAT_NAME),
        serde_json::Value::Array(documents)
    );
    let packing = |e: zip::result::ZipError| {
        CliError::other("cannot pack the folder", std::io::Error::other(e))
    };
    let mut zip = zip::ZipWriter::new(out);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file(journal_zip::DOCUMENT, stored.large_file(false))
        .map_err(packing)?;
    zip.write_all(document.to_string().as_bytes())
        .map_err(failed("cannot pack the folder"))?;
    let mut seen = HashSet::new();
    for (id, path) in files {
        if !seen.insert(id) {
            continue;
        }
        let large = std::fs::metadata(path).map(|m| m.len() >= u64::from(u32::MAX));
        zip.start_file(
            journal_zip::file_name(&id.to_string()),
            stored.large_file(large.unwrap_or(true)),
        )
        .map_err(packing)?;
        let mut file = std::fs::File::open(path)
            .map_err(failed(format_args!("cannot read {}", path.display())))?;
        std::io::copy(&mut file, &mut zip).map_err(failed("cannot pack the folder"))?;
    }
    zip.finish().map_err(packing)?;
    Ok(())
}
