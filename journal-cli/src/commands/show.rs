//! `journal show`: one entry in full.

use clap::Args;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::Result;
use crate::output::{self, print, print_json};

/// `journal show`: the entry to show.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal show 0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a69")]
pub struct Show {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
}

impl Show {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let entry = b.entry(&id).await?;
        if ctx.json {
            print_json(&entry);
        } else {
            print(&output::entry_details(&entry));
        }
        Ok(())
    }
}
