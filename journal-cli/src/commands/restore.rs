//! `journal restore`: make an old revision's state the entry's current one. It is a
//! new revision: the ones in between stay in the history.

use clap::Args;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::Result;
use crate::output::{print, print_json};

/// `journal restore`: the entry and the revision to bring back.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  journal restore 3f9a2c 2    # the entry as it was at revision 2, as a new revision"
)]
pub struct Restore {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// The revision whose title, text, tags, star, date and visibility come back
    /// (`journal history ID` lists them).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub revision: u32,
}

impl Restore {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let before = b.entry(&id).await?;
        let entry = b.restore_revision(&id, self.revision).await?;
        if ctx.json {
            print_json(&entry);
        } else if !ctx.quiet {
            if entry.revision == before.revision {
                print(&format!(
                    "entry {} is already as it was at revision {}; nothing changed",
                    entry.id, self.revision
                ));
            } else {
                print(&format!(
                    "entry {} is as it was at revision {}, now as revision {}",
                    entry.id, self.revision, entry.revision
                ));
            }
            // Visibility comes back with the rest: say so when it changed, since it
            // decides who reads the entry.
            if entry.is_public != before.is_public {
                ctx.note(if entry.is_public {
                    "it is public again, as it was then (journal edit ID --private hides it)"
                } else {
                    "it is private again, as it was then"
                });
            }
        }
        Ok(())
    }
}
