//! `journal export` and `journal import`: the caller's entries to and from files, in
//! our JSON, jrnl's, Day One's and Markdown.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use journal_core::transfer;
use serde_json::json;

use super::Ctx;
use super::pages::{NO_FILTER, Order, all_pages};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::text;

/// Export formats.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// Our JSON export: lossless, `journal import` reads it back.
    Json,
    /// Markdown in one document, for reading and printing.
    Markdown,
    /// A folder (--output DIR) of Markdown files with YAML front matter, one per entry:
    /// lossless, `journal import DIR` reads it back.
    MarkdownDir,
    /// jrnl's JSON export (`jrnl --format json`).
    Jrnl,
    /// Plain text in jrnl's journal format, which `jrnl --import` reads.
    Txt,
    /// A .zip archive (--output FILE) of our JSON export and every attachment's file:
    /// lossless, `journal import FILE.zip` reads it back.
    Zip,
}

/// `journal export`: the format and where to write.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal export --output journal.json\n  journal export --format markdown > journal.md\n  journal export --format markdown-dir --output notes/\n  journal export --format jrnl --output jrnl.json\n  journal export --format txt > journal.txt"
)]
pub struct Export {
    /// The format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
    pub format: ExportFormat,
    /// The file to write [default: standard output]; the folder for markdown-dir.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Leave out each entry's revisions and the trash (the JSON export has them;
    /// the other formats never do).
    #[arg(long)]
    pub no_history: bool,
}

impl Export {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        if let ExportFormat::Zip = self.format {
            return export_zip(ctx, b, !self.no_history, self.output.as_deref()).await;
        }
        if let ExportFormat::Json = self.format {
            return export_json(ctx, b, !self.no_history, self.output.as_deref()).await;
        }
        export(ctx, b, self.format, self.output.as_deref()).await
    }
}

/// `journal import`: what to read.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal import journal.json\n  jrnl --format json > jrnl.json && journal import jrnl.json\n  journal import Journal.json          # Day One's export, unzipped\n  journal import notes/                # Markdown files, with or without front matter"
)]
pub struct Import {
    /// The file or folder to read (`-` for standard input).
    pub file: PathBuf,
}

impl Import {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        // A failed import into a journal it had to create leaves no empty file.
        b.leaving_no_new_database(async {
            b.connect().await?;
            import(ctx, b, &self.file).await
        })
        .await
    }
}

async fn export(
    ctx: &Ctx,
    b: &Backend,
    format: ExportFormat,
    output_path: Option<&Path>,
) -> Result<()> {
    // Checked before reading the journal, which can take a while.
    if let ExportFormat::MarkdownDir = format {
        match output_path {
            None => {
                return Err(CliError::Usage(
                    "--format markdown-dir writes one file per entry: pass --output DIR".into(),
                ));
            }
            Some(dir) if dir.exists() && !dir.is_dir() => {
                return Err(CliError::Usage(format!(
                    "--output {} is a file; markdown-dir writes into a folder",
                    dir.display()
                )));
            }
            Some(_) => {}
        }
    }
    if let ExportFormat::MarkdownDir = format {
        let dir = output_path.unwrap_or(Path::new("."));
        return export_markdown_dir(ctx, b, dir).await;
    }
    let entries = all_pages(ctx, "exporting", Order::Newest, |page| {
        b.user_entries(None, &NO_FILTER, page)
    })
    .await?;
    let zone = crate::transfer::local_zone();
    let text = match format {
        // `run` writes the JSON export itself, with history; this is it without.
        ExportFormat::Json => transfer::json::export(&entries),
        ExportFormat::Markdown => transfer::markdown::document(&entries, &zone),
        ExportFormat::Jrnl => {
            ctx.note(transfer::jrnl::JSON_KEEPS);
            transfer::jrnl::export_json(&entries, &zone)
        }
        ExportFormat::Txt => {
            ctx.note(transfer::jrnl::TEXT_KEEPS);
            // The tags the text shows are those `journal import` finds in it again.
            let inline = b.config().inline_tags();
            let rule: &transfer::InlineTags = &crate::transfer::inline_tags;
            transfer::jrnl::export_text(&entries, &zone, inline.then_some(rule))
        }
        ExportFormat::Zip | ExportFormat::MarkdownDir => {
            unreachable!("written above, from the zip export")
        }
    };
    match output_path {
        None => print(&text),
        Some(path) => {
            crate::private_files::write(path, format!("{}\n", text.trim_end()).as_bytes())
                .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
            exported(ctx, entries.len(), path);
        }
    }
    Ok(())
}

/// Our JSON export, with each entry's revisions and the trash unless left out.
async fn export_json(
    ctx: &Ctx,
    b: &Backend,
    with_history: bool,
    output_path: Option<&Path>,
) -> Result<()> {
    let document = b.export(with_history).await?;
    let text = document.to_json();
    match output_path {
        None => print(&text),
        Some(path) => {
            crate::private_files::write(path, format!("{text}\n").as_bytes())
                .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
            exported(ctx, document.entries.len(), path);
            let trash = document.trash.as_ref().filter(|t| !t.is_empty());
            if let (Some(trash), false) = (trash, ctx.json) {
                ctx.note(format!(
                    "with each entry's history, and {} in the trash",
                    output::count(trash.len() as u64, "entry", "entries")
                ));
            }
        }
    }
    Ok(())
}

/// Our zip export: the JSON export and every attachment's file, into a file (never to
/// a terminal).
async fn export_zip(
    ctx: &Ctx,
    b: &Backend,
    with_history: bool,
    output_path: Option<&Path>,
) -> Result<()> {
    let Some(path) = output_path else {
        return Err(CliError::Usage(
            "--format zip writes an archive: pass --output FILE.zip".into(),
        ));
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options
        .open(path)
        .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
    let count = b.export_archive(with_history, file).await?;
    exported(ctx, count, path);
    Ok(())
}

fn exported(ctx: &Ctx, count: usize, path: &Path) {
    if ctx.json {
        print_json(&json!({ "exported": count, "output": path }));
    } else {
        ctx.note(format!(
            "exported {} to {}",
            output::count(count as u64, "entry", "entries"),
            path.display()
        ));
    }
}

/// One Markdown file per entry in `dir` (created, mode 0700, if missing), each entry's
/// attachments under `dir/attachments/`: read from the zip export, so a remote journal
/// writes the same folder. A file of the same name is replaced, by a new file of mode
/// 0600; other files are left alone.
async fn export_markdown_dir(ctx: &Ctx, b: &Backend, dir: &Path) -> Result<()> {
    crate::private_files::create_dir_all(dir).map_err(|e| {
        CliError::other(
            format_args!("cannot create the folder {}", dir.display()),
            e,
        )
    })?;
    let archive =
        tempfile::tempfile().map_err(|e| CliError::other("cannot make a temporary file", e))?;
    let copy = archive
        .try_clone()
        .map_err(|e| CliError::other("cannot make a temporary file", e))?;
    let bar = output::progress(None, ctx.quiet, "exporting");
    b.export_archive(false, copy).await?;
    bar.set_message("writing");
    let (folder, zone) = (dir.to_owned(), crate::transfer::local_zone());
    let count = tokio::task::spawn_blocking(move || {
        crate::transfer::folder_files::write_folder(archive, &folder, &zone)
    })
    .await
    .map_err(|e| CliError::other("cannot write the folder", std::io::Error::other(e)))??;
    bar.finish_and_clear();
    exported(ctx, count, dir);
    Ok(())
}

/// Reads what `journal import` was given: a folder or `.md` file of Markdown, a Day
/// One `.zip`, jrnl's text, or JSON (Journal's, jrnl's, Day One's), from a file or
/// standard input; the format by the name, else by the first bytes.
fn read_import(file: &Path, inline_tags: bool) -> Result<(transfer::Imported, String)> {
    let source = if file == Path::new("-") {
        "standard input".to_owned()
    } else {
        file.display().to_string()
    };
    let options = crate::transfer::options(&source, inline_tags);
    if file.is_dir() || crate::transfer::is_markdown_file(file) {
        return Ok((crate::transfer::read_markdown(file, &options)?, source));
    }
    let bytes = if file == Path::new("-") {
        text::piped_stdin()?.unwrap_or_default().into_bytes()
    } else {
        std::fs::read(file)
            .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?
    };
    let extension = file
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let format = match extension.as_deref() {
        Some("zip") => transfer::Format::DayOneZip,
        Some("txt") => transfer::Format::JrnlText,
        Some("json") => transfer::Format::Json,
        _ => transfer::Format::guess(&bytes),
    };
    let imported =
        transfer::read(format, &bytes, &options).map_err(|e| CliError::Invalid(e.message))?;
    Ok((imported, source))
}

/// Whether `file` is a `.zip` archive (ours or Day One's), imported with its files.
fn is_archive(file: &Path) -> bool {
    file.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
        && file.is_file()
}

/// `journal import FILE.zip` of our zip export or Day One's: entries and attachments.
async fn import_archive(
    ctx: &Ctx,
    b: &Backend,
    archive: &Path,
    file: &Path,
    mut notes: Vec<String>,
) -> Result<()> {
    let mut done = b.import_archive(archive).await?;
    // A folder is packed into a temporary archive: its notes name the folder.
    let (packed, given) = (archive.display().to_string(), file.display().to_string());
    notes.extend(done.notes.drain(..).map(|n| n.replace(&packed, &given)));
    done.notes = notes;
    let report = done.report;
    for note in &done.notes {
        ctx.note(note);
    }
    if ctx.json {
        let ids: Vec<String> = report.created.iter().map(|e| e.id.to_string()).collect();
        print_json(&json!({
            "imported": report.created.len(),
            "trashed": report.trashed,
            "skipped": report.skipped,
            "attachments": done.attachments,
            "ids": ids,
            "notes": done.notes,
        }));
    } else if !ctx.quiet {
        print(&format!(
            "imported {} and {} from {}; skipped {} already present",
            output::count(report.created.len() as u64, "entry", "entries"),
            output::count(done.attachments as u64, "attachment", "attachments"),
            file.display(),
            output::count(report.skipped as u64, "entry", "entries"),
        ));
    }
    Ok(())
}

async fn import(ctx: &Ctx, b: &Backend, file: &Path) -> Result<()> {
    if is_archive(file) {
        return import_archive(ctx, b, file, file, Vec::new()).await;
    }
    let (imported, source) = if file.is_dir() {
        let source = file.display().to_string();
        let options = crate::transfer::options(&source, b.config().inline_tags());
        let (imported, listed) = crate::transfer::read_markdown_folder(file, &options)?;
        if !listed.is_empty() {
            // Entries with files: packed as our archive, imported as one.
            let packed = tempfile::Builder::new()
                .suffix(".zip")
                .tempfile()
                .map_err(|e| CliError::other("cannot make a temporary file", e))?;
            let out = packed
                .reopen()
                .map_err(|e| CliError::other("cannot make a temporary file", e))?;
            crate::transfer::folder_files::pack(&imported.items, &listed, out)?;
            return import_archive(ctx, b, packed.path(), file, imported.notes).await;
        }
        (imported, source)
    } else {
        read_import(file, b.config().inline_tags())?
    };
    // Idempotent: the journal skips an entry it has (by id, or by title, text and
    // date), so importing a file twice adds nothing the second time.
    let total = imported.items.len();
    let entries = imported.items;
    let report = if entries.is_empty() {
        journal_core::ImportReport::default()
    } else {
        let bar = output::progress(Some(total as u64), ctx.quiet, "importing");
        let report = b.import_entries(entries, &|done| bar.inc(done)).await?;
        bar.finish_and_clear();
        report
    };
    let (created, skipped, report_trashed) = (report.created, report.skipped, report.trashed);
    for note in &imported.notes {
        ctx.note(note);
    }
    if ctx.json {
        let ids: Vec<String> = created.iter().map(|e| e.id.to_string()).collect();
        print_json(&json!({
            "imported": created.len(),
            "trashed": report_trashed,
            "skipped": skipped,
            "ids": ids,
            "notes": imported.notes,
        }));
    } else if !ctx.quiet {
        let mut line = format!(
            "imported {} from {source}",
            output::count(created.len() as u64, "entry", "entries")
        );
        if report_trashed > 0 {
            line.push_str(&format!(
                "; put {} back in the trash",
                output::count(report_trashed as u64, "entry", "entries")
            ));
        }
        if skipped > 0 {
            line.push_str(&format!(
                "; skipped {} already present",
                output::count(skipped as u64, "entry", "entries")
            ));
        }
        print(&line);
    }
    Ok(())
}
