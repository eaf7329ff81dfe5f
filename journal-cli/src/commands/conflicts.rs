//! `journal conflicts` and `journal resolve`: entries whose text a sync could not
//! merge (both sides changed the same lines), and settling one. The entry kept one
//! side's text; the other side's is a revision in its history. A conflict is held
//! where the sync met it: here (while bringing the server's changes) or on the linked
//! server (while sending these); both are listed, and `resolve` settles it where it is.

use clap::Args;
use journal_core::{Conflict, Resolution};
use serde::Serialize;
use serde_json::json;

use super::Ctx;
use super::pages::page_request;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::short_id;

/// `journal conflicts`: no arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  journal conflicts
  journal show 3f9a2c --revision 4      # the text set aside
  journal diff 3f9a2c 4                 # what it changed against the entry now
  journal resolve 3f9a2c --keep current
  journal resolve 3f9a2c --keep other")]
pub struct Conflicts {}

/// `journal resolve`: the entry, and what to keep.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  journal resolve 3f9a2c --keep current   # the entry as it is; the other text stays in its history
  journal resolve 3f9a2c --keep other     # the text set aside, as a new revision
  journal resolve 3f9a2c --keep 4         # the text set aside in revision 4")]
pub struct Resolve {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// What to keep: `current` (the entry as it is), `other` (the text set aside, the
    /// newest if there are several), or the number of the revision set aside, as
    /// `journal conflicts` lists it.
    #[arg(long, value_name = "current|other|N")]
    pub keep: String,
}

/// Where a conflict is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Held {
    /// In this journal.
    Here,
    /// On the server this local journal is linked to.
    Server,
}

/// One line of `journal conflicts --json`.
#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    conflict: &'a Conflict,
    held: Held,
}

/// The conflicts this journal holds and, when it is a local journal linked to a
/// server that answers, the server's; a note says when the server did not answer.
async fn every_conflict(ctx: &Ctx, b: &Backend) -> Result<Vec<(Conflict, Held)>> {
    let page = page_request(1, 100)?;
    let mut all: Vec<(Conflict, Held)> = b
        .conflicts(page)
        .await?
        .items
        .into_iter()
        .map(|c| (c, Held::Here))
        .collect();
    match b.linked_conflicts(page).await {
        Ok(Some((_, theirs))) => all.extend(theirs.items.into_iter().map(|c| (c, Held::Server))),
        Ok(None) => {}
        Err(e) => ctx.note(format!("the linked server's conflicts are not listed: {e}")),
    }
    Ok(all)
}

impl Conflicts {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let all = every_conflict(ctx, b).await?;
        if ctx.json {
            let lines: Vec<Line> = all
                .iter()
                .map(|(conflict, held)| Line {
                    conflict,
                    held: *held,
                })
                .collect();
            print_json(&json!({ "conflicts": lines, "total": lines.len() }));
            return Ok(());
        }
        if all.is_empty() {
            ctx.note("no conflicts: every sync merged");
            return Ok(());
        }
        print(&table(&all));
        ctx.note(format!(
            "{}: each entry kept one side's text, the other is revision REV of its history \
             (journal show ID --revision REV); journal resolve ID --keep current|other settles it",
            output::count(all.len() as u64, "conflict", "conflicts")
        ));
        Ok(())
    }
}

/// `ID  REV  MET  HELD  TITLE` rows.
fn table(all: &[(Conflict, Held)]) -> String {
    let ids: Vec<String> = all.iter().map(|(c, _)| c.entry_id.to_string()).collect();
    let id_width = short_id::len_for(&ids);
    let mut out = format!(
        "{:<id_width$}  {:>4}  {:<16}  {:<6}  TITLE\n",
        "ID", "REV", "MET", "HELD"
    );
    for ((c, held), id) in all.iter().zip(&ids) {
        out.push_str(&format!(
            "{:<id_width$}  {:>4}  {}  {:<6}  {}\n",
            short_id::tail(id, id_width),
            c.revision,
            output::local_time(&c.detected_at),
            match held {
                Held::Here => "here",
                Held::Server => "server",
            },
            output::clip(&c.title, 60)
        ));
    }
    out
}

impl Resolve {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let mine: Vec<(Conflict, Held)> = every_conflict(&super::QUIET, b)
            .await?
            .into_iter()
            .filter(|(c, _)| c.entry_id.to_string() == id)
            .collect();
        // Settled where it is held; one held in both places is settled here first.
        let held = if mine.iter().any(|(_, h)| *h == Held::Here) {
            Held::Here
        } else if let Some((_, h)) = mine.first() {
            *h
        } else {
            return Err(CliError::NotFound(format!(
                "entry {id} has no conflict (journal conflicts lists them)"
            )));
        };
        let open: Vec<&Conflict> = mine
            .iter()
            .filter(|(_, h)| *h == held)
            .map(|(c, _)| c)
            .collect();
        let (resolution, revision) = choose(&self.keep, &open)?;
        let entry = match held {
            Held::Here => b.resolve_conflict(&id, resolution).await?,
            Held::Server => {
                b.resolve_on_linked(&id, resolution)
                    .await?
                    .ok_or_else(|| CliError::NotFound(format!("entry {id} has no conflict")))?
                    .1
            }
        };
        if ctx.json {
            print_json(&json!({ "entry": entry, "held": held, "kept": resolution.to_string() }));
        } else if !ctx.quiet {
            let settled = match (resolution, revision) {
                (Resolution::KeepCurrent, _) => {
                    format!("entry {id} keeps its text; the other stays in its history")
                }
                (Resolution::TakeSetAside(_), n) => format!(
                    "entry {id} now holds the text set aside in revision {n}, as revision {}",
                    entry.revision
                ),
            };
            match held {
                Held::Here => print(&settled),
                Held::Server => print(&format!(
                    "{settled}, on the server; journal sync brings it here"
                )),
            }
        }
        Ok(())
    }
}

/// What `--keep` names among the entry's open conflicts, and the number of the
/// revision it takes (0 for `current`).
fn choose(keep: &str, open: &[&Conflict]) -> Result<(Resolution, u32)> {
    let keep = keep.trim();
    if keep == "current" {
        return Ok((Resolution::KeepCurrent, 0));
    }
    let found = if keep == "other" {
        open.iter().max_by_key(|c| c.revision)
    } else if let Ok(n) = keep.parse::<u32>() {
        open.iter().find(|c| c.revision == n)
    } else if let Ok(Resolution::TakeSetAside(rid)) = keep.parse::<Resolution>() {
        open.iter().find(|c| c.revision_id == rid)
    } else {
        return Err(CliError::Usage(format!(
            "--keep takes current, other, or the number of a revision set aside, not {keep:?}"
        )));
    };
    let Some(c) = found else {
        let listed: Vec<String> = open.iter().map(|c| c.revision.to_string()).collect();
        return Err(CliError::NotFound(format!(
            "no text set aside as revision {keep} (this entry's: {})",
            listed.join(", ")
        )));
    };
    Ok((Resolution::TakeSetAside(c.revision_id), c.revision))
}
