//! `journal history`: an entry's revisions, newest first, each with a one-line summary
//! of what it changed from the one before.

use clap::Args;
use journal_core::{Revision, diff};
use serde::Serialize;

use super::Ctx;
use super::pages::page_request;
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// `journal history`: the entry and which of its revisions to list.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal history 3f9a2c\n  journal show 3f9a2c --revision 2\n  journal diff 3f9a2c 2\n  journal restore 3f9a2c 2"
)]
pub struct History {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// The page to show, from 1.
    #[arg(long, default_value_t = 1)]
    pub page: i64,
    /// Revisions per page (1 to 20).
    #[arg(long, default_value_t = 20)]
    pub limit: i64,
}

/// One line of `journal history --json`: the revision and its summary.
#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    revision: &'a Revision,
    summary: String,
}

/// What `journal history --json` prints.
#[derive(Serialize)]
struct HistoryJson<'a> {
    revisions: Vec<Line<'a>>,
    total: u64,
    page: u32,
    pages: u64,
    limit: u32,
}

impl History {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let request = page_request(self.page, self.limit)?;
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let page = b.revisions(&id, request).await?;
        let mut summaries = Vec::with_capacity(page.items.len());
        for (i, revision) in page.items.iter().enumerate() {
            // Newest first: the parent is the next one, or the first of the next page.
            let parent = match page.items.get(i + 1) {
                Some(next) if next.revision + 1 == revision.revision => Some(next.clone()),
                _ if revision.revision > 1 => parent_of(b, &id, revision).await?,
                _ => None,
            };
            summaries.push(summary(parent.as_ref(), revision));
        }
        let pages = page.page_count();
        if ctx.json {
            print_json(&HistoryJson {
                revisions: page
                    .items
                    .iter()
                    .zip(summaries)
                    .map(|(revision, summary)| Line { revision, summary })
                    .collect(),
                total: page.total,
                page: page.page,
                pages,
                limit: page.limit,
            });
            return Ok(());
        }
        if page.items.is_empty() {
            ctx.note(format!(
                "page {} of {pages}: no revisions here ({})",
                page.page,
                output::count(page.total, "revision", "revisions")
            ));
            return Ok(());
        }
        print(&table(&page.items, &summaries));
        ctx.note(format!(
            "page {} of {pages}, {}; journal show {} --revision N shows one, journal diff {} N what changed since",
            page.page,
            output::count(page.total, "revision", "revisions"),
            self.id.trim(),
            self.id.trim(),
        ));
        Ok(())
    }
}

/// The revision before `revision`, or `None` when it is no longer kept.
async fn parent_of(b: &Backend, id: &str, revision: &Revision) -> Result<Option<Revision>> {
    match b.revision(id, revision.revision - 1).await {
        Ok(parent) => Ok(Some(parent)),
        Err(CliError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `REV  EDITED  VIA  CHANGE` rows.
fn table(revisions: &[Revision], summaries: &[String]) -> String {
    let number_width = revisions
        .iter()
        .map(|r| r.revision.to_string().len())
        .max()
        .unwrap_or(1)
        .max(3);
    let mut out = format!(
        "{:>number_width$}  {:<16}  {:<6}  CHANGE\n",
        "REV", "EDITED", "VIA"
    );
    for (r, summary) in revisions.iter().zip(summaries) {
        out.push_str(&format!(
            "{:>number_width$}  {}  {:<6}  {}\n",
            r.revision,
            output::local_time(&r.edited_at),
            r.edited_via.as_str(),
            summary
        ));
    }
    out
}

/// What `revision` changed from `parent`, on one line: the words of the text added and
/// removed, then each other field that changed. The first revision is "created"; one
/// whose parent is no longer kept says so.
pub(super) fn summary(parent: Option<&Revision>, revision: &Revision) -> String {
    let Some(old) = parent else {
        return if revision.revision == 1 {
            format!(
                "created, {}",
                output::count(
                    revision.content.split_whitespace().count() as u64,
                    "word",
                    "words"
                )
            )
        } else {
            "(the revision before is no longer kept)".into()
        };
    };
    let parts = field_changes(old, revision);
    if parts.is_empty() {
        "no change".into()
    } else {
        parts.join(", ")
    }
}

/// Each field that differs from `old` to `new`, in a few words; the text as
/// `diff::summary`'s `+3 −2 words`.
pub(super) fn field_changes(old: &Revision, new: &Revision) -> Vec<String> {
    let mut parts = Vec::new();
    if old.content != new.content {
        parts.push(diff::summary(&old.content, &new.content));
    }
    if old.title != new.title {
        parts.push(format!("title \"{}\"", output::clip(&new.title, 40)));
    }
    parts.extend(other_changes(old, new));
    parts
}

/// Each field other than the title and the text that differs from `old` to `new`.
pub(super) fn other_changes(old: &Revision, new: &Revision) -> Vec<String> {
    let mut parts = Vec::new();
    let added: Vec<String> = new
        .tags
        .iter()
        .filter(|t| !old.tags.contains(t))
        .map(|t| format!("+{t}"))
        .collect();
    let removed: Vec<String> = old
        .tags
        .iter()
        .filter(|t| !new.tags.contains(t))
        .map(|t| format!("-{t}"))
        .collect();
    if !added.is_empty() || !removed.is_empty() {
        parts.push(format!("tags {}", [added, removed].concat().join(" ")));
    }
    if old.is_public != new.is_public {
        parts.push(if new.is_public { "public" } else { "private" }.into());
    }
    if old.starred != new.starred {
        parts.push(if new.starred { "starred" } else { "unstarred" }.into());
    }
    if old.date != new.date {
        parts.push(format!("date {}", output::local_time(&new.date)));
    }
    parts
}
