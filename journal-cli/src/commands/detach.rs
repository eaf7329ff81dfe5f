//! `journal detach`: delete an attachment, asking first on a terminal.

use clap::Args;
use serde_json::json;

use super::Ctx;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal detach`: the attachment to delete.
#[derive(Debug, Args)]
#[command(
    after_help = "The attachment leaves its entry at once; its file is removed once no kept revision\nof the entry names it.\n\nExample:\n  journal detach 0198c3e2-6b1f-7c3a-9d2e-5f4a3b2c1d0e --yes"
)]
pub struct Detach {
    /// The attachment's whole id, as journal attachments shows it.
    pub id: String,
    /// Do not ask for confirmation (needed when not on a terminal).
    #[arg(long, short)]
    pub yes: bool,
}

impl Detach {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let id = self.id.trim();
        if !self.yes {
            if !text::interactive() {
                return Err(CliError::Usage(
                    "not on a terminal, so not asking; pass --yes to delete the attachment without confirmation"
                        .into(),
                ));
            }
            let answer = text::ask(&format!("Delete the attachment {id}? [y/N] "))?;
            if !matches!(answer.to_lowercase().as_str(), "y" | "yes") {
                if ctx.json {
                    print_json(&json!({ "deleted": null }));
                } else {
                    ctx.note("not deleted");
                }
                return Ok(());
            }
        }
        b.connect().await?;
        b.delete_attachment(id).await?;
        if ctx.json {
            print_json(&json!({ "deleted": id }));
        } else if !ctx.quiet {
            print(&format!("attachment {id} is deleted"));
        }
        Ok(())
    }
}
