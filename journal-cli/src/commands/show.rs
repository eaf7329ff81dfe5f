//! `journal show`: one entry in full, as it is or at one of its revisions.

use clap::Args;
use journal_core::Entry;

use super::Ctx;
use super::resolve::resolve_entry;
use crate::backend::{AttachmentInfo, Backend};
use crate::error::Result;
use crate::output::{self, print, print_json};

/// `journal show`: the entry to show.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal show 0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a69\n  journal show 3f9a2c --revision 2"
)]
pub struct Show {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// Show the entry as it was at this revision (`journal history ID` lists them).
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub revision: Option<u32>,
}

impl Show {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let entry = b.entry(&id).await?;
        let Some(n) = self.revision else {
            // As the server answers an entry: its fields, then its attachments.
            let attachments = b.entry_attachments(&id).await?;
            if ctx.json {
                #[derive(serde::Serialize)]
                struct Shown<'a> {
                    #[serde(flatten)]
                    entry: &'a Entry,
                    attachments: &'a [AttachmentInfo],
                }
                print_json(&Shown {
                    entry: &entry,
                    attachments: &attachments,
                });
            } else {
                print(&output::entry_details(&entry));
                if !attachments.is_empty() {
                    let listed: Vec<String> = attachments
                        .iter()
                        .map(|a| format!("{} ({})", a.name, output::size(a.size)))
                        .collect();
                    print(&format!("\nattachments: {}", listed.join(", ")));
                }
            }
            return Ok(());
        };
        let revision = b.revision(&id, n).await?;
        if ctx.json {
            print_json(&revision);
            return Ok(());
        }
        let then = Entry {
            updated_at: revision.edited_at,
            ..revision.applied_to(&entry)
        };
        print(&format!(
            "revision {n} of {}, edited {} via {}\n\n{}",
            entry.revision,
            output::local_time(&revision.edited_at),
            revision.edited_via.as_str(),
            output::entry_details(&then)
        ));
        Ok(())
    }
}
