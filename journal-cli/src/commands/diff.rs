//! `journal diff`: what changed between two revisions of an entry, word by word; in
//! colour on a terminal, with `[-removed-]` and `{+added+}` markers elsewhere (as
//! `git diff --word-diff=plain` writes them).

use std::io::IsTerminal;

use clap::Args;
use journal_core::Revision;
use journal_core::diff::{self, Change, ChangeOp};
use serde::Serialize;

use super::Ctx;
use super::history::{field_changes, other_changes};
use super::resolve::resolve_entry;
use crate::backend::Backend;
use crate::error::Result;
use crate::output::{self, print, print_json};

/// `journal diff`: the entry and the two revisions to compare.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal diff 3f9a2c         # the last change: the revision before vs the current one\n  journal diff 3f9a2c 2       # revision 2 vs the current one\n  journal diff 3f9a2c 2 4     # revision 2 vs revision 4\n\nOn a terminal, removed words are red and added ones green (NO_COLOR=1 turns colour\noff); elsewhere they are written [-like this-] and {+like this+}."
)]
pub struct Diff {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// The older revision [default: the one before the current one].
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub from: Option<u32>,
    /// The newer revision [default: the current one].
    #[arg(value_name = "M", requires = "from", value_parser = clap::value_parser!(u32).range(1..))]
    pub to: Option<u32>,
}

/// What `journal diff --json` prints: the API's `…/revisions/{n}/diff` shape.
#[derive(Serialize)]
struct DiffJson {
    from: u32,
    to: u32,
    title: Vec<Change>,
    content: Vec<Change>,
}

impl Diff {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let current = b.entry(&id).await?.revision;
        let (from, to) = match (self.from, self.to) {
            (None, _) => (current.saturating_sub(1).max(1), current),
            (Some(n), None) => (n, current),
            (Some(n), Some(m)) => (n, m),
        };
        let old = b.revision(&id, from).await?;
        let new = b.revision(&id, to).await?;
        let title = diff::words(&old.title, &new.title);
        let content = diff::words(&old.content, &new.content);
        if ctx.json {
            print_json(&DiffJson {
                from,
                to,
                title,
                content,
            });
            return Ok(());
        }
        let style = if colour() {
            Style::Colour
        } else {
            Style::Plain
        };
        print(&render(&old, &new, &title, &content, style));
        if from == to {
            ctx.note(if current == 1 {
                "the entry has one revision, so there is nothing to compare it with"
            } else {
                "a revision compared with itself"
            });
        }
        Ok(())
    }
}

/// True when the output is a terminal that takes colour: not piped, `NO_COLOR` unset
/// (no-color.org) and `TERM` not `dumb`.
fn colour() -> bool {
    std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// How changed words are shown.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    /// Red and green, for a terminal.
    Colour,
    /// `[-removed-]` and `{+added+}`, for a file or a pipe.
    Plain,
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The changes as text: the same text, removed and added runs marked.
fn marked(changes: &[Change], style: Style) -> String {
    let mut out = String::new();
    for c in changes {
        match (c.op, style) {
            (ChangeOp::Same, _) => out.push_str(&c.text),
            (ChangeOp::Removed, Style::Plain) => out.push_str(&format!("[-{}-]", c.text)),
            (ChangeOp::Added, Style::Plain) => out.push_str(&format!("{{+{}+}}", c.text)),
            // Per line, so a pager that starts mid-change still colours the rest.
            (ChangeOp::Removed, Style::Colour) => out.push_str(&painted(&c.text, RED)),
            (ChangeOp::Added, Style::Colour) => out.push_str(&painted(&c.text, GREEN)),
        }
    }
    out
}

fn painted(text: &str, colour: &str) -> String {
    text.split_inclusive('\n')
        .map(|part| {
            let (line, end) = match part.strip_suffix('\n') {
                Some(line) => (line, "\n"),
                None => (part, ""),
            };
            if line.is_empty() {
                end.to_owned()
            } else {
                format!("{colour}{line}{RESET}{end}")
            }
        })
        .collect()
}

/// The whole diff: which revisions, the fields that changed, the title and the text.
fn render(
    old: &Revision,
    new: &Revision,
    title: &[Change],
    content: &[Change],
    style: Style,
) -> String {
    let heading = format!(
        "revision {} ({}) → revision {} ({})",
        old.revision,
        output::local_time(&old.edited_at),
        new.revision,
        output::local_time(&new.edited_at)
    );
    let mut out = match style {
        Style::Colour => format!("{BOLD}{heading}{RESET}\n"),
        Style::Plain => format!("{heading}\n"),
    };
    if field_changes(old, new).is_empty() {
        out.push_str("no differences\n");
        return out;
    }
    // The other fields in words; the title and the text shown marked below.
    for line in other_changes(old, new) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&marked(title, style));
    out.push_str("\n\n");
    out.push_str(marked(content, style).trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_markers_show_what_went_and_what_came() {
        let changes = diff::words("the cat sat", "the dog sat");
        assert_eq!(marked(&changes, Style::Plain), "the [-cat-]{+dog+} sat");
        let coloured = marked(&changes, Style::Colour);
        assert!(
            coloured.contains(&format!("{RED}cat{RESET}")),
            "{coloured:?}"
        );
        assert!(
            coloured.contains(&format!("{GREEN}dog{RESET}")),
            "{coloured:?}"
        );
    }

    #[test]
    fn colour_stops_at_each_line_end() {
        assert_eq!(
            painted("a\nb", RED),
            format!("{RED}a{RESET}\n{RED}b{RESET}")
        );
        assert_eq!(painted("\n", GREEN), "\n");
    }
}
