//! `journal star` and `journal unstar`.

use clap::Args;
use journal_core::api::UpdateEntryRequest;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::Result;
use crate::output::{print, print_json};

/// `journal star`: the entry to star.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal star 0190c3e2")]
pub struct Star {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
}

impl Star {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        set_star(ctx, b, &id, true).await
    }
}

/// `journal unstar`: the entry to take the star off.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal unstar 0190c3e2")]
pub struct Unstar {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
}

impl Unstar {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        set_star(ctx, b, &id, false).await
    }
}

/// Stars or unstars an entry; one already so is left alone (its `updatedAt` too).
async fn set_star(ctx: &Ctx, b: &Backend, id: &str, starred: bool) -> Result<()> {
    let current = b.entry(id).await?;
    let word = if starred { "starred" } else { "not starred" };
    let entry = if current.starred == starred {
        ctx.note(format!("entry {id} is already {word}"));
        current
    } else {
        let request = UpdateEntryRequest {
            starred: Some(starred),
            ..Default::default()
        };
        b.update_entry(id, &request).await?
    };
    if ctx.json {
        print_json(&entry);
    } else if !ctx.quiet {
        print(&format!("entry {} is {word}", entry.id));
    }
    Ok(())
}
