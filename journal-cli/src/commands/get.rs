//! `journal get`: an attachment's bytes, to a file or to standard output. A file is
//! written under a temporary name and renamed when whole, so a transfer that fails
//! leaves nothing half written under the name asked for.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::Args;
use futures_util::StreamExt;
use serde_json::json;
use tokio::io::AsyncWriteExt;

use super::Ctx;
use crate::backend::{Backend, Download};
use crate::error::{CliError, Result};
use crate::output::{self, print_json};

/// `journal get`: the attachment and where its bytes go.
#[derive(Debug, Args)]
#[command(
    after_help = "Without -o, the file is written under the attachment's own name in the current folder\n(never over an existing file), or to standard output when that is not a terminal.\n\nExamples:\n  journal get 0198c3e2-6b1f-7c3a-9d2e-5f4a3b2c1d0e\n  journal get 0198c3e2-6b1f-7c3a-9d2e-5f4a3b2c1d0e -o lake.jpg\n  journal get 0198c3e2-6b1f-7c3a-9d2e-5f4a3b2c1d0e -o - | sha256sum"
)]
pub struct Get {
    /// The attachment's whole id, as journal attachments shows it.
    pub id: String,
    /// Where to write it: a file (replaced if it exists), or - for standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Where the bytes go.
enum Target {
    Stdout,
    /// A file named by the user: replaced when it exists.
    Named(PathBuf),
    /// The attachment's own name in the current folder: never replacing a file.
    OwnName,
}

impl Get {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let target = match &self.output {
            Some(path) if path.as_os_str() == "-" => Target::Stdout,
            Some(path) => Target::Named(path.clone()),
            None if !std::io::stdout().is_terminal() => Target::Stdout,
            None => Target::OwnName,
        };
        b.connect().await?;
        let download = b.download_attachment(&self.id).await?;
        let (path, replace) = match target {
            Target::Stdout => return to_stdout(download).await,
            Target::Named(path) => (path, true),
            Target::OwnName => {
                let path = PathBuf::from(&download.name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    return Err(exists(&path));
                }
                (path, false)
            }
        };
        let written = to_file(download, &path, replace).await?;
        if ctx.json {
            print_json(&json!({ "id": self.id.trim(), "path": path, "size": written }));
        } else {
            ctx.note(format!(
                "wrote {} ({})",
                path.display(),
                output::size(written)
            ));
        }
        Ok(())
    }
}

fn exists(path: &Path) -> CliError {
    CliError::Usage(format!(
        "{} already exists; pass -o FILE to write elsewhere (or to replace it)",
        path.display()
    ))
}

fn reading_failed(e: std::io::Error) -> CliError {
    CliError::other("the attachment could not be read", e)
}

/// Checks that the whole attachment came.
fn check_whole(written: u64, size: Option<u64>) -> Result<()> {
    match size {
        Some(size) if size != written => Err(CliError::Other(format!(
            "the transfer stopped after {written} of {size} bytes; try again"
        ))),
        _ => Ok(()),
    }
}

async fn to_stdout(download: Download) -> Result<()> {
    let Download {
        size, mut bytes, ..
    } = download;
    let mut out = tokio::io::stdout();
    let mut written = 0u64;
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk.map_err(reading_failed)?;
        match out.write_all(&chunk).await {
            Ok(()) => written += chunk.len() as u64,
            // A reader that stopped (`journal get ID | head -c 10`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(CliError::other("cannot write to standard output", e)),
        }
    }
    match out.flush().await {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(CliError::other("cannot write to standard output", e));
        }
        _ => {}
    }
    check_whole(written, size)
}

/// Writes the bytes to a temporary file beside `path`, then gives it that name;
/// `replace` says whether an existing file there may go. Answers the bytes written.
async fn to_file(download: Download, path: &Path, replace: bool) -> Result<u64> {
    let Download {
        size, mut bytes, ..
    } = download;
    let folder = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let cannot_write =
        |e: std::io::Error| CliError::other(format_args!("cannot write {}", path.display()), e);
    let temporary = tempfile::Builder::new()
        .prefix(".journal-get-")
        .tempfile_in(folder)
        .map_err(cannot_write)?;
    let mut file = tokio::fs::File::from_std(temporary.reopen().map_err(cannot_write)?);
    let mut written = 0u64;
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk.map_err(reading_failed)?;
        file.write_all(&chunk).await.map_err(cannot_write)?;
        written += chunk.len() as u64;
    }
    file.flush().await.map_err(cannot_write)?;
    drop(file);
    check_whole(written, size)?;
    if replace {
        temporary.persist(path).map_err(|e| cannot_write(e.error))?;
    } else {
        temporary.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                exists(path)
            } else {
                cannot_write(e.error)
            }
        })?;
    }
    Ok(written)
}
