//! `journal admin move-attachments --from … --to …`: every attachment file copied from
//! one store to another and checked, as servers keep running on the new store with the
//! old one as their fallback.

use std::time::{Duration, Instant};

use journal_core::AttachmentPlace;
use journal_core::attachments::{Moved, move_files};
use serde_json::json;

use super::Ctx;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// How often a long move says how far it got, on standard error.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

pub(super) async fn move_attachments(
    ctx: &Ctx,
    from: &AttachmentPlace,
    to: &AttachmentPlace,
    jobs: usize,
) -> Result<()> {
    if from.overlaps(to) {
        return Err(CliError::Usage(format!(
            "--from and --to overlap ({from} and {to}): one holds the other's files, so \
             a move would copy files into themselves"
        )));
    }
    let source = open(from, "--from")?;
    let target = open(to, "--to")?;
    let started = Instant::now();
    let mut last_said = Instant::now();
    let mut done = 0u64;
    let report = move_files(&source, &target, jobs, |moved| {
        done += 1;
        if let Moved::Failed { name, why } = moved {
            ctx.note(format!("not moved: {name}: {why}"));
        }
        if last_said.elapsed() >= PROGRESS_EVERY {
            last_said = Instant::now();
            ctx.note(format!("… {} so far", output::count(done, "file", "files")));
        }
    })
    .await
    .map_err(|e| CliError::other(format!("cannot list the files of {from}"), e))?;
    if ctx.json {
        print_json(&json!({
            "copied": report.copied,
            "bytes": report.bytes,
            "alreadyThere": report.already_there,
            "failed": report.failed.iter().map(|(name, why)| json!({ "name": name, "why": why })).collect::<Vec<_>>(),
            "seconds": started.elapsed().as_secs_f64(),
        }));
    } else if !ctx.quiet {
        print(&format!(
            "copied {} ({}) from {from} to {to}, each checked by its SHA-256; {} already there{}",
            output::count(report.copied, "file", "files"),
            output::size(report.bytes),
            report.already_there,
            if report.failed.is_empty() {
                String::new()
            } else {
                format!("; {} not moved", report.failed.len())
            }
        ));
    }
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Other(format!(
            "{} not moved (listed above); run the same command again once the cause is mended: \
             what was moved is not copied twice",
            output::count(report.failed.len() as u64, "file was", "files were")
        )))
    }
}

/// The store at a place named on the command line.
fn open(place: &AttachmentPlace, flag: &str) -> Result<journal_core::attachments::Files> {
    // A folder is made when missing: right for the target, a typo for the source.
    if let AttachmentPlace::Folder(dir) = place
        && flag == "--from"
        && !dir.is_dir()
    {
        return Err(CliError::Usage(format!(
            "{flag} {}: no such folder",
            dir.display()
        )));
    }
    match place.files() {
        Ok(Some(files)) => Ok(files),
        Ok(None) => Err(CliError::Usage(format!(
            "{flag}: name a folder or s3://BUCKET"
        ))),
        Err(e) => Err(CliError::Usage(format!("{flag} {place}: {e}"))),
    }
}
