//! `journal attach`: upload files to an entry, one line for each as it is stored. Also
//! what `journal new --attach` uses once its entry exists.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::{AttachmentInfo, Backend, FileToAttach};
use crate::error::Result;
use crate::output::{self, print, print_json};

/// `journal attach`: the entry and the files.
#[derive(Debug, Args)]
#[command(
    after_help = "Photos (JPEG, PNG, WebP, GIF), recordings (MP3, M4A, OGG, WAV, FLAC), PDF and plain\ntext are accepted, decided by the bytes, not the name; photos lose their location and\nother metadata. A file may be at most 25 MiB unless the server says otherwise.\n\nExamples:\n  journal attach 3f9a2c lake.jpg notes.pdf\n  journal new --attach lake.jpg \"Walked to the lake\""
)]
pub struct Attach {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// The files to attach.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

impl Attach {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        // Every file is checked before anything is sent: a typo in the last name does
        // not leave the others half attached.
        let files = check_files(&self.files).await?;
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let mut attached = Vec::with_capacity(files.len());
        for file in &files {
            let a = b.upload_attachment(&id, file).await?;
            if !ctx.json {
                print(&line(&a));
            }
            attached.push(a);
        }
        if ctx.json {
            print_json(&attached);
        }
        Ok(())
    }
}

/// Checks that each file exists and can be read, before anything is sent.
pub(super) async fn check_files(paths: &[PathBuf]) -> Result<Vec<FileToAttach>> {
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        files.push(FileToAttach::check(path).await?);
    }
    Ok(files)
}

/// `ID  NAME  SIZE  TYPE`: one stored file.
pub(super) fn line(a: &AttachmentInfo) -> String {
    format!(
        "{}  {}  {}  {}",
        a.id,
        a.name,
        output::size(a.size),
        a.content_type
    )
}
