//! `journal trash`, `journal undelete` and `journal purge`: the entries `journal rm`
//! moved to the trash, taking one back out, and removing one for good. Entries in the
//! trash are in no list or search, so their short ids are looked up in the trash.

use clap::Args;
use journal_core::{EntryId, TrashedEntry};
use serde_json::json;

use super::Ctx;
use super::pages::page_request;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::{short_id, text};

/// `journal trash`: no arguments.
#[derive(Debug, Args)]
#[command(
    after_help = "Entries stay in the trash 30 days (a server's operator may choose another number),\nthen they are purged with their history.\n\nExamples:\n  journal trash\n  journal undelete 3f9a2c\n  journal purge 3f9a2c --yes"
)]
pub struct Trash {}

/// `journal undelete`: the entry to take out of the trash.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal undelete 3f9a2c")]
pub struct Undelete {
    /// The entry's id, or its short id as `journal trash` shows it.
    pub id: String,
}

/// `journal purge`: the entry to remove for good.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal purge 3f9a2c --yes")]
pub struct Purge {
    /// The entry's id, or its short id as `journal trash` shows it.
    pub id: String,
    /// Do not ask for confirmation (needed when not on a terminal).
    #[arg(long, short)]
    pub yes: bool,
}

/// Every entry of the caller's trash, newest deletion first (pages of 100, as deep as
/// pages by number reach).
async fn whole_trash(b: &Backend) -> Result<Vec<TrashedEntry>> {
    let mut all = Vec::new();
    let mut number = 1;
    loop {
        let page = b.trash(page_request(number, 100)?).await?;
        let more =
            page.has_next() && (number as u64 + 1) * 100 <= journal_core::domain::MAX_PAGE_DEPTH;
        all.extend(page.items);
        if !more {
            return Ok(all);
        }
        number += 1;
    }
}

/// The entry of the trash an id names: its whole id, or its short id (or start) among
/// the entries in the trash.
async fn resolve_trashed(b: &Backend, given: &str) -> Result<TrashedEntry> {
    let id = given.trim();
    let trash = whole_trash(b).await?;
    let not_there = || {
        CliError::NotFound(format!(
            "entry {id} is not in your trash (journal trash lists it)"
        ))
    };
    let found: Vec<TrashedEntry> = if let Ok(whole) = id.parse::<EntryId>() {
        trash.into_iter().filter(|t| t.entry.id == whole).collect()
    } else {
        let Some(wanted) = short_id::Given::parse(id) else {
            return Err(not_there());
        };
        trash
            .into_iter()
            .filter(|t| wanted.fits(&t.entry.id.to_string()))
            .collect()
    };
    match found.len() {
        0 => Err(not_there()),
        1 => Ok(found.into_iter().next().expect("one")),
        n => Err(CliError::Usage(format!(
            "{id} fits {n} entries of the trash: {}; give more characters of the one you mean, or its whole id",
            found
                .iter()
                .take(10)
                .map(|t| format!("{} ({})", t.entry.id, output::clip(&t.entry.title, 30)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl Trash {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let trash = whole_trash(b).await?;
        if ctx.json {
            print_json(&json!({ "entries": trash, "total": trash.len() }));
            return Ok(());
        }
        if trash.is_empty() {
            ctx.note("the trash is empty");
            return Ok(());
        }
        print(&table(&trash));
        ctx.note(format!(
            "{} in the trash; journal undelete ID puts one back, journal purge ID removes it for good",
            output::count(trash.len() as u64, "entry", "entries")
        ));
        Ok(())
    }
}

/// `ID  DELETED  TITLE` rows, short ids as long as the trash needs.
fn table(trash: &[TrashedEntry]) -> String {
    let ids: Vec<String> = trash.iter().map(|t| t.entry.id.to_string()).collect();
    let id_width = short_id::len_for(&ids);
    let mut out = format!("{:<id_width$}  {:<16}  TITLE\n", "ID", "DELETED");
    for (t, id) in trash.iter().zip(&ids) {
        out.push_str(&format!(
            "{:<id_width$}  {}  {}\n",
            short_id::tail(id, id_width),
            output::local_time(&t.deleted_at),
            output::clip(&t.entry.title, 60)
        ));
    }
    out
}

impl Undelete {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let trashed = resolve_trashed(b, &self.id).await?;
        let entry = b.untrash(&trashed.entry.id.to_string()).await?;
        if ctx.json {
            print_json(&entry);
        } else if !ctx.quiet {
            print(&format!("entry {} is back from the trash", entry.id));
        }
        Ok(())
    }
}

impl Purge {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let trashed = resolve_trashed(b, &self.id).await?;
        let id = trashed.entry.id.to_string();
        if !self.yes {
            if !text::interactive() {
                return Err(CliError::Usage(
                    "not on a terminal, so not asking; pass --yes to purge without confirmation"
                        .into(),
                ));
            }
            let answer = text::ask(&format!(
                "Delete \"{}\" ({id}) and its history for good? This cannot be undone. [y/N] ",
                trashed.entry.title
            ))?;
            if !matches!(answer.to_lowercase().as_str(), "y" | "yes") {
                if ctx.json {
                    print_json(&json!({ "purged": null }));
                } else {
                    ctx.note("not purged");
                }
                return Ok(());
            }
        }
        b.purge(&id).await?;
        if ctx.json {
            print_json(&json!({ "purged": id }));
        } else if !ctx.quiet {
            print(&format!("entry {id} is purged, with its history"));
        }
        Ok(())
    }
}
