//! `journal rm`: move an entry to the trash, asking first on a terminal.

use clap::Args;
use serde_json::json;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal rm`: the entry to move to the trash.
#[derive(Debug, Args)]
#[command(
    after_help = "The entry goes to the trash: journal undelete ID brings it back, journal purge ID\nremoves it for good, and it is purged by itself after 30 days.\n\nExample:\n  journal rm ID --yes"
)]
pub struct Rm {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// Do not ask for confirmation (needed when not on a terminal).
    #[arg(long, short)]
    pub yes: bool,
}

impl Rm {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        remove(ctx, b, &id, self.yes).await
    }
}

async fn remove(ctx: &Ctx, b: &Backend, id: &str, yes: bool) -> Result<()> {
    if !yes {
        if !text::interactive() {
            return Err(CliError::Usage(
                "not on a terminal, so not asking; pass --yes to move it to the trash without confirmation"
                    .into(),
            ));
        }
        let entry = b.entry(id).await?;
        let answer = text::ask(&format!(
            "Move \"{}\" ({}) to the trash? [y/N] ",
            entry.title, entry.id
        ))?;
        if !matches!(answer.to_lowercase().as_str(), "y" | "yes") {
            // A decision, not an error.
            if ctx.json {
                print_json(&json!({ "deleted": null }));
            } else {
                ctx.note("not deleted");
            }
            return Ok(());
        }
    }
    b.delete_entry(id).await?;
    if ctx.json {
        print_json(&json!({ "deleted": id.trim() }));
    } else if !ctx.quiet {
        let id = id.trim();
        print(&format!(
            "moved entry {id} to the trash; journal undelete {id} brings it back"
        ));
    }
    Ok(())
}
