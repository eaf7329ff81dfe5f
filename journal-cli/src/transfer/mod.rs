//! What `journal import` and `journal export` do with files on this machine: the
//! formats themselves (readers and writers) are journal-core's `transfer`, shared with
//! the server; here are the folder walk (which files of a folder are read, and which
//! links are followed) and the local time zone.

use std::path::{Path, PathBuf};

use journal_core::Timestamp;
use journal_core::Zone;
use journal_core::transfer::{Imported, ReadOptions, markdown};

use crate::error::{CliError, Result};

pub mod folder_files;

/// The zone this machine's dates are in, for formats that write local time.
pub fn local_zone() -> Zone {
    crate::when::local_zone().parse().unwrap_or_default()
}

/// The inline-tag rule of `journal new`, for formats that keep tags in the text.
pub fn inline_tags(text: &str) -> Vec<String> {
    crate::tags::inline(text)
}

/// How this machine reads a file: local time, and inline tags when the config wants them.
pub fn options(source: &str, inline: bool) -> ReadOptions<'_> {
    ReadOptions {
        zone: local_zone(),
        inline_tags: if inline { Some(&inline_tags) } else { None },
        source,
    }
}

fn is_markdown(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// True when `path` names a Markdown file, which `journal import` reads as one.
pub fn is_markdown_file(path: &Path) -> bool {
    is_markdown(path) && path.is_file()
}

/// A Markdown file to import: the path it was found at (its name, for messages and
/// for a title), and the file to read, which differs when the path is a link.
struct Found {
    path: PathBuf,
    read_from: PathBuf,
}

/// What a folder holds to import.
#[derive(Default)]
struct Folder {
    files: Vec<Found>,
    /// Links to files outside the folder, which are not read.
    leaving: Vec<PathBuf>,
}

/// The Markdown files under `dir`, in name order, through its subfolders; hidden files
/// and folders (`.obsidian`, `.git`, `.trash`) are left alone, and links to folders are
/// not followed (they could loop). A link to a file is read only when the file is
/// under `root` (resolved): a shared vault or a downloaded archive could hold a link
/// named `note.md` to `~/.ssh/id_ed25519`, which an import would copy into the journal
/// and perhaps onto a server.
fn markdown_files(root: &Path, dir: &Path, found: &mut Folder) -> Result<()> {
    let fail =
        |e: std::io::Error| CliError::other(format_args!("cannot read {}", dir.display()), e);
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(fail)?
        .collect::<std::io::Result<_>>()
        .map_err(fail)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        // A folder export's files (a text attachment may well be `notes.md`).
        if entry.file_name() == "attachments" && std::fs::canonicalize(dir).is_ok_and(|d| d == root)
        {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(fail)?;
        if kind.is_dir() {
            markdown_files(root, &path, found)?;
            continue;
        }
        if !is_markdown(&path) {
            continue;
        }
        if kind.is_symlink() {
            // A link that leads nowhere, or to a folder, is skipped as before.
            let Ok(target) = std::fs::canonicalize(&path) else {
                continue;
            };
            if !target.starts_with(root) {
                found.leaving.push(path);
            } else if target.is_file() {
                found.files.push(Found {
                    path,
                    read_from: target,
                });
            }
        } else if kind.is_file() {
            found.files.push(Found {
                read_from: path.clone(),
                path,
            });
        }
    }
    Ok(())
}

/// A note naming the links that were not followed out of `root`, if any.
fn leaving_note(root: &Path, leaving: &[PathBuf]) -> Option<String> {
    if leaving.is_empty() {
        return None;
    }
    let shown: Vec<String> = leaving
        .iter()
        .take(10)
        .map(|p| p.display().to_string())
        .collect();
    Some(format!(
        "skipped {} to files outside {} (links are followed only within the folder): {}{}",
        crate::output::count(leaving.len() as u64, "link", "links"),
        root.display(),
        shown.join(", "),
        if leaving.len() > 10 { ", …" } else { "" }
    ))
}

/// Reads a folder of Markdown files (one entry each), or one Markdown file (of one
/// entry or of many, as `journal export --format markdown` writes), to import.
pub fn read_markdown(path: &Path, options: &ReadOptions<'_>) -> Result<Imported> {
    if !path.is_dir() {
        // A file named on the command line is read wherever it is: the person chose it.
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
        return markdown::read_document(&text, options).map_err(|e| CliError::Invalid(e.message));
    }
    Ok(read_markdown_folder(path, options)?.0)
}

/// [`read_markdown`] of a folder, with the files each entry's front matter lists under
/// `attachments` (as `journal export --format markdown-dir` writes them) that are in
/// the folder; a note says how many listed ones are not.
pub fn read_markdown_folder(
    path: &Path,
    options: &ReadOptions<'_>,
) -> Result<(Imported, Vec<folder_files::Listed>)> {
    let mut imported = Imported::default();
    let mut listed = Vec::new();
    let mut missing = 0u64;
    let root = std::fs::canonicalize(path)
        .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
    let mut folder = Folder::default();
    markdown_files(&root, path, &mut folder)?;
    imported.notes.extend(leaving_note(path, &folder.leaving));
    if folder.files.is_empty() {
        return Err(CliError::Invalid(format!(
            "{} holds no Markdown files (.md){}; nothing was imported",
            path.display(),
            if folder.leaving.is_empty() {
                ""
            } else {
                " but links to files outside it"
            }
        )));
    }
    let mut dropped = Vec::new();
    let mut read = std::collections::HashSet::new();
    for Found {
        path: file,
        read_from,
    } in &folder.files
    {
        // A link inside the folder to a file of it is that file: one entry.
        let same = std::fs::canonicalize(read_from).unwrap_or_else(|_| read_from.clone());
        if !read.insert(same) {
            continue;
        }
        let text = std::fs::read_to_string(read_from)
            .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?;
        let modified = std::fs::metadata(read_from)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| {
                Timestamp::from_millis(chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis())
            });
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (item, lost) = markdown::parse_file(&name, &text, modified, options)
            .map_err(|m| CliError::Invalid(format!("{}: {m}", file.display())))?;
        for written in markdown::listed_attachments(&text) {
            match folder_files::resolve(&root, read_from, &written) {
                Some(found) => listed.push(folder_files::Listed {
                    entry: imported.items.len(),
                    written,
                    path: found,
                }),
                None => missing += 1,
            }
        }
        imported.items.push(item);
        dropped.extend(lost);
    }
    imported
        .notes
        .extend(journal_core::transfer::dropped_tags_note(&dropped));
    if missing > 0 {
        imported.notes.push(format!(
            "left out {} the front matter lists but {} does not hold",
            crate::output::count(missing, "attachment", "attachments"),
            path.display()
        ));
    }
    Ok((imported, listed))
}
