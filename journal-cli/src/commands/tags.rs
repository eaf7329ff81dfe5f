//! `journal tags` (the caller's tags with their counts) and `journal tag` (add and
//! remove tags of an entry).

use std::path::PathBuf;

use clap::Args;
use journal_core::api::UpdateEntryRequest;

use super::Ctx;
use super::resolve::resolve_entry;
use super::rules::check_entry_change;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::{Cli, Command, tags};

/// `journal tags`: takes no arguments.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal tags")]
pub struct Tags {}

impl Tags {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let tags = b.tags().await?;
        if ctx.json {
            print_json(&tags);
        } else if tags.is_empty() {
            if !ctx.quiet {
                print("no tags");
            }
        } else {
            print(&output::tag_table(&tags));
        }
        Ok(())
    }
}

/// `journal tag`: the entry and the tags to add and remove.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal tag 0190c3e2 +work +lake -draft\n  journal tag 0190c3e2 travel        # a tag without + or - is added\n  journal tag 0190c3e2 -q --quiet    # -q removes the tag q; --quiet is the option"
)]
pub struct Tag {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// +TAG to add, -TAG to remove.
    #[arg(required = true, allow_hyphen_values = true, value_name = "+TAG|-TAG")]
    pub changes: Vec<String>,
}

impl Tag {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let changes = tag_changes(&self.changes)?;
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        retag(ctx, b, &id, &changes).await
    }
}

/// One change of `journal tag`: add or remove a tag.
enum TagChange {
    Add(String),
    Remove(String),
}

/// `+tag`, `-tag` and `tag` (added), each checked before anything is read or written.
fn tag_changes(given: &[String]) -> Result<Vec<TagChange>> {
    given
        .iter()
        .map(|g| {
            let g = g.trim();
            let check = |t: &str| tags::parse_arg("journal tag:", t);
            Ok(match (g.strip_prefix('+'), g.strip_prefix('-')) {
                (Some(t), _) => TagChange::Add(check(t)?),
                (_, Some(t)) => TagChange::Remove(check(t)?),
                _ => TagChange::Add(check(g)?),
            })
        })
        .collect()
}

/// Adds and removes tags of an entry: read, change, write back.
async fn retag(ctx: &Ctx, b: &Backend, id: &str, changes: &[TagChange]) -> Result<()> {
    let current = b.entry(id).await?;
    let mut new_tags = current.tags.clone();
    for change in changes {
        match change {
            TagChange::Add(t) => new_tags = tags::union(&new_tags, std::slice::from_ref(t)),
            TagChange::Remove(t) => new_tags.retain(|have| have != t),
        }
    }
    let entry = if new_tags == current.tags {
        ctx.note("no changes");
        current
    } else {
        let request = UpdateEntryRequest {
            tags: Some(new_tags),
            ..Default::default()
        };
        check_entry_change(&request)?;
        b.update_entry(id, &request).await?
    };
    if ctx.json {
        print_json(&entry);
    } else if !ctx.quiet {
        print(&format!(
            "entry {} tags: {}",
            entry.id,
            if entry.tags.is_empty() {
                "(none)".to_owned()
            } else {
                entry.tags.join(", ")
            }
        ));
    }
    Ok(())
}

impl Cli {
    /// `journal tag ID +a -b` takes values that start with `-`, and with them any option
    /// written after the tags: the global options are taken back out of the tags here
    /// (`-q` stays the tag q: write `--quiet`). Another `--option` is refused, rather
    /// than read as the removal of a tag `-option`.
    pub fn take_options_from_tag_changes(&mut self) -> Result<()> {
        let Command::Tag(Tag { changes, .. }) = &mut self.command else {
            return Ok(());
        };
        let mut kept = Vec::with_capacity(changes.len());
        let mut given = std::mem::take(changes).into_iter();
        while let Some(arg) = given.next() {
            if !arg.starts_with("--") {
                kept.push(arg);
                continue;
            }
            let (name, inline_value) = match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (arg.clone(), None),
            };
            let mut value = || {
                inline_value
                    .clone()
                    .or_else(|| given.next())
                    .ok_or_else(|| CliError::Usage(format!("{name} needs a value")))
            };
            match name.as_str() {
                "--json" => self.json = true,
                "--quiet" => self.quiet = true,
                "--local" => self.local = true,
                "--config" => self.config = Some(PathBuf::from(value()?)),
                "--database" => self.database = Some(PathBuf::from(value()?)),
                "--server" => self.server = Some(value()?),
                "--as" => self.as_email = Some(value()?),
                _ => {
                    return Err(CliError::Usage(format!(
                        "journal tag: {arg} is neither +TAG nor -TAG nor an option journal knows"
                    )));
                }
            }
        }
        if kept.is_empty() {
            return Err(CliError::Usage(
                "journal tag needs at least one +TAG or -TAG after the entry id".into(),
            ));
        }
        let Command::Tag(Tag { changes, .. }) = &mut self.command else {
            return Ok(());
        };
        *changes = kept;
        Ok(())
    }
}
