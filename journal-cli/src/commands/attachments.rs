//! `journal attachments`: an entry's attachments, oldest first.

use clap::Args;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::Result;
use crate::output::{self, print, print_json};

/// `journal attachments`: the entry.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal attachments 3f9a2c\n  journal get 0198c3e2-6b1f-7c3a-9d2e-5f4a3b2c1d0e -o lake.jpg"
)]
pub struct ListAttachments {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
}

impl ListAttachments {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let list = b.entry_attachments(&id).await?;
        if ctx.json {
            print_json(&list);
            return Ok(());
        }
        if list.is_empty() {
            ctx.note(format!(
                "entry {id} has no attachments; journal attach {id} FILE adds one"
            ));
            return Ok(());
        }
        print(&output::attachment_table(&list));
        let total: u64 = list.iter().map(|a| a.size).sum();
        ctx.note(format!(
            "{}, {}; journal get ID writes one to a file",
            output::count(list.len() as u64, "attachment", "attachments"),
            output::size(total)
        ));
        Ok(())
    }
}
