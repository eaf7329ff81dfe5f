//! `journal edit`: change an entry in the editor (date, tags, title and text), or with
//! flags. An edit in the editor is sent with the revision it opened, so it never
//! overwrites a change made meanwhile: it is merged with it instead.

use clap::Args;
use journal_core::api::UpdateEntryRequest;
use journal_core::{Entry, Timestamp, diff};

use super::Ctx;
use super::resolve::resolve_entry;
use super::rules::check_entry_change;
use crate::backend::{Backend, Conditional};
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::{tags, text, when};

/// `journal edit`: the entry and the changes given as flags.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal edit ID                # opens the editor on the date, tags and text\n  journal edit ID --title \"Better title\" --public\n  journal edit ID --date \"2024-01-02 09:30\"\n  journal edit ID --file draft.txt   # the editor's text from a file (a kept draft)"
)]
pub struct Edit {
    /// The entry's id, or its short id (its last 6 or more characters, as tables show it).
    pub id: String,
    /// New title.
    #[arg(long, short)]
    pub title: Option<String>,
    /// New content.
    #[arg(long, short)]
    pub content: Option<String>,
    /// Make the entry public.
    #[arg(long, conflicts_with = "private")]
    pub public: bool,
    /// Make the entry private.
    #[arg(long)]
    pub private: bool,
    /// New date, in local time: 2024-01-02 09:30, yesterday, "last monday 9am"…
    #[arg(long, value_name = "WHEN")]
    pub date: Option<String>,
    /// Apply this file's text as if typed in the editor (the date and tags header, the
    /// title, the text): what a failed edit kept as a draft. `-` reads standard input.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["title", "content", "public", "private", "date"]
    )]
    pub file: Option<std::path::PathBuf>,
}

impl Edit {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let date = self
            .date
            .as_deref()
            .map(|d| when::instant("--date", d))
            .transpose()?;
        b.connect().await?;
        let id = resolve_entry(b, &self.id).await?;
        let visibility = match (self.public, self.private) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        let changes = FlagChanges {
            title: self.title,
            content: self.content,
            is_public: visibility,
            date,
        };
        match self.file {
            Some(file) => edit_from_file(ctx, b, &id, &file).await,
            None => {
                let id = EditedId {
                    typed: self.id,
                    full: id,
                };
                edit(ctx, b, &id, changes).await
            }
        }
    }
}

/// The changes `journal edit` takes as flags.
struct FlagChanges {
    title: Option<String>,
    content: Option<String>,
    is_public: Option<bool>,
    date: Option<Timestamp>,
}

impl FlagChanges {
    fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.content.is_none()
            && self.is_public.is_none()
            && self.date.is_none()
    }
}

/// The text `journal edit` opens: the date and tags between `---` lines, as in a
/// Markdown file's front matter, then the title and the content.
fn editor_text(e: &Entry) -> String {
    format!(
        "---\ndate: {}\ntags: {}\n---\n{}\n\n{}",
        output::local_time(&e.date),
        e.tags.join(", "),
        e.title,
        e.content
    )
}

/// What the user left in the editor's header; `None` where a line is gone (unchanged).
struct EditedHeader {
    date: Option<String>,
    tags: Option<Vec<String>>,
}

/// Splits edited text into its header and the title and content below it. Text
/// without the header (deleted, or written by a script) changes only title and content.
fn read_editor_text(text: &str) -> Result<(EditedHeader, &str)> {
    let mut header = EditedHeader {
        date: None,
        tags: None,
    };
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((header, text));
    };
    // The header ends at the next `---` line; without one, there is no header.
    let mut at = 0;
    let mut close = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            close = Some((at, at + line.len()));
            break;
        }
        at += line.len();
    }
    let Some((end, body_start)) = close else {
        return Ok((header, text));
    };
    let (lines, body) = (&rest[..end], &rest[body_start..]);
    for line in lines.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let unknown = || {
            CliError::Usage(format!(
                "the editor text's header line {line:?} is not one of date: and tags:"
            ))
        };
        let (key, value) = line.split_once(':').ok_or_else(unknown)?;
        let value = value.trim();
        match key.trim().to_lowercase().as_str() {
            "date" => header.date = Some(value.to_owned()),
            "tags" => {
                header.tags = Some(
                    value
                        .split([',', ' '])
                        .filter(|t| !t.trim().is_empty())
                        .map(|t| tags::parse_arg("tags:", t))
                        .collect::<Result<_>>()?,
                );
            }
            _ => return Err(unknown()),
        }
    }
    Ok((header, body))
}

/// Tags the text gained in an edit: inline tags in the new text that the old one did
/// not have. Only those are added, so a tag removed from an entry on purpose does not
/// come back from its text.
fn new_inline_tags(old: (&str, &str), new: (&str, &str)) -> Vec<String> {
    let before = tags::inline(&format!("{}\n{}", old.0, old.1));
    tags::inline(&format!("{}\n{}", new.0, new.1))
        .into_iter()
        .filter(|t| !before.contains(t))
        .collect()
}

/// The change an edit in the editor makes to `current`; `None` when nothing changed.
fn editor_change(
    current: &Entry,
    edited: &str,
    inline: bool,
) -> Result<Option<UpdateEntryRequest>> {
    let (header, body) = read_editor_text(edited)?;
    let (new_title, new_content) = text::split_title(body);
    if new_title.is_empty() {
        return Err(CliError::Invalid(
            "title: is required; write it on the first line below the header".into(),
        ));
    }
    let mut new_tags = header.tags.unwrap_or_else(|| current.tags.clone());
    if inline {
        let gained = new_inline_tags(
            (&current.title, &current.content),
            (&new_title, &new_content),
        );
        new_tags = tags::union(&new_tags, &gained);
    }
    let new_tags = tags::union(&new_tags, &[]);
    let shown_date = output::local_time(&current.date);
    let new_date = match header.date.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(d) if d == shown_date => None,
        Some(d) => Some(when::instant("date:", d)?),
    };
    let title_changed = new_title != current.title;
    let content_changed = new_content != current.content.trim_end();
    let tags_changed = new_tags != current.tags;
    if !title_changed && !content_changed && !tags_changed && new_date.is_none() {
        return Ok(None);
    }
    Ok(Some(UpdateEntryRequest {
        title: title_changed.then_some(new_title),
        content: content_changed.then_some(new_content),
        tags: tags_changed.then_some(new_tags),
        date: new_date.map(|d| d.to_string()),
        ..Default::default()
    }))
}

/// `error` with where the edited text was kept, and the command that applies it to the
/// same entry once fixed: this very command line (the same server or database, config
/// and options) with the entry's whole id for the one typed (a short id could come to
/// fit a newer entry too) and `--file DRAFT`, which reads the text as if typed in the
/// editor.
fn keep_edit_draft(error: CliError, typed: &str, id: &EditedId) -> CliError {
    match text::save_draft(typed) {
        Some(path) => {
            let mut command = vec!["journal".to_owned()];
            let mut id_swapped = false;
            for arg in std::env::args_os().skip(1) {
                let arg = arg.to_string_lossy();
                if !id_swapped && arg.trim() == id.typed.trim() {
                    id_swapped = true;
                    command.push(shell_word(&id.full));
                } else {
                    command.push(shell_word(&arg));
                }
            }
            command.extend(["--file".to_owned(), shell_word(&path.display().to_string())]);
            error.with_note(format!(
                "your text is saved in {}; fix it there, then apply it to this entry with: {}",
                path.display(),
                command.join(" ")
            ))
        }
        None => error.with_note("your text could not be saved"),
    }
}

/// The entry being edited: the id as typed, and the whole id it names.
struct EditedId {
    typed: String,
    full: String,
}

/// `word` as one word for a POSIX shell: as it is when it is plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=,+%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `journal edit ID --file FILE`: the file's text applied as an edit in the editor
/// would be. A failure leaves the file as it is, to fix and run again.
async fn edit_from_file(ctx: &Ctx, b: &Backend, id: &str, file: &std::path::Path) -> Result<()> {
    let typed = if file == std::path::Path::new("-") {
        text::piped_stdin()?.ok_or_else(|| {
            CliError::Usage("--file - reads standard input, which is a terminal".into())
        })?
    } else {
        std::fs::read_to_string(file)
            .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?
    };
    if typed.trim().is_empty() {
        return Err(CliError::Usage(format!(
            "{} is empty; the entry was not changed",
            file.display()
        )));
    }
    // A kept draft of a clash may still hold both sides: never store the markers.
    if has_merge_markers(&typed) {
        return Err(CliError::Usage(format!(
            "{} still has merge markers (<<<<<<< yours … >>>>>>> current); keep what you want of each side, delete the marker lines, and run this again",
            file.display()
        )));
    }
    let current = b.entry(id).await?;
    let unchanged = |e: CliError| {
        if file == std::path::Path::new("-") {
            e
        } else {
            e.with_note(format!(
                "{} is unchanged; fix it and run this again",
                file.display()
            ))
        }
    };
    let request = match editor_change(&current, &typed, b.config().inline_tags()) {
        Ok(Some(request)) => request,
        Ok(None) => {
            ctx.note("no changes");
            if ctx.json {
                print_json(&current);
            }
            return Ok(());
        }
        Err(e) => return Err(unchanged(e)),
    };
    check_entry_change(&request).map_err(unchanged)?;
    let entry = match b
        .update_entry_if(id, &request, current.revision_id)
        .await
        .map_err(unchanged)?
    {
        Conditional::Written(entry) => entry,
        // Changed between the read just above and the write: read it again.
        Conditional::Stale(now) => {
            return Err(unchanged(CliError::Conflict(format!(
                "entry {id} changed while this ran (it is now at revision {}); nothing was changed",
                now.revision
            ))));
        }
    };
    updated(ctx, &entry);
    Ok(())
}

fn updated(ctx: &Ctx, entry: &Entry) {
    if ctx.json {
        print_json(entry);
    } else if !ctx.quiet {
        print(&format!("updated entry {}", entry.id));
    }
}

/// `journal edit ID` in the editor. The change is sent with the revision the editor
/// opened (`If-Match`); when the entry changed meanwhile, nothing is written, the typed
/// text is kept as a draft, and the editor opens again on a three-way merge of the edit
/// with the entry as it is now, until a write goes through or the person gives up.
async fn edit_in_editor(ctx: &Ctx, b: &Backend, edited: &EditedId) -> Result<()> {
    let id = edited.full.as_str();
    let inline = b.config().inline_tags();
    let mut base = b.entry(id).await?;
    let mut opened = editor_text(&base);
    // After a clash: the draft holding what was typed, and whether the merge marked
    // lines both sides changed.
    let mut clash: Option<(Option<std::path::PathBuf>, bool)> = None;
    loop {
        let kept = |e: CliError| match &clash {
            Some((Some(path), _)) => e.with_note(format!(
                "your text from before is saved in {}",
                path.display()
            )),
            _ => e,
        };
        let typed = text::edit(&opened).map_err(kept)?;
        if typed.trim().is_empty() {
            return Err(kept(CliError::Aborted(
                "the editor buffer is empty; the entry was not changed".into(),
            )));
        }
        if matches!(clash, Some((_, true))) && has_merge_markers(&typed) {
            return Err(keep_edit_draft(
                CliError::Usage(
                    "the text still has merge markers (<<<<<<< yours … >>>>>>> current); keep what you want of each side and delete the marker lines".into(),
                ),
                &typed,
                edited,
            ));
        }
        let request = match editor_change(&base, &typed, inline) {
            Ok(Some(request)) => request,
            Ok(None) => {
                ctx.note("no changes");
                if ctx.json {
                    print_json(&base);
                }
                return Ok(());
            }
            Err(e) => return Err(keep_edit_draft(e, &typed, edited)),
        };
        let written = match check_entry_change(&request) {
            Ok(()) => b.update_entry_if(id, &request, base.revision_id).await,
            Err(e) => Err(e),
        };
        let current = match written {
            Ok(Conditional::Written(entry)) => {
                updated(ctx, &entry);
                return Ok(());
            }
            Ok(Conditional::Stale(current)) => current,
            Err(e) => return Err(keep_edit_draft(e, &typed, edited)),
        };
        let draft = text::save_draft(&typed);
        // Editors end a file with a line break the opened text did not have: without
        // one on every side, a change to the last line would clash with that break.
        let lines = |text: String| {
            if text.ends_with('\n') {
                text
            } else {
                text + "\n"
            }
        };
        let merged = diff::merge(
            &lines(editor_text(&base)),
            &lines(typed.clone()),
            &lines(editor_text(&current)),
        );
        eprintln!(
            "{}",
            clash_message(current.revision, merged.conflicts, draft.as_deref())
        );
        opened = merged.text;
        clash = Some((draft, merged.conflicts));
        base = *current;
    }
}

/// What `journal edit` says on stderr when the entry changed while it was edited.
fn clash_message(revision: u32, conflicts: bool, draft: Option<&std::path::Path>) -> String {
    let merged = if conflicts {
        "the editor opens again on your edit merged with it; where you both changed the same lines, both versions are there, yours between <<<<<<< yours and =======, the current one between ======= and >>>>>>> current: keep what you want and delete the marker lines"
    } else {
        "your changes and the other ones touch different lines, so the editor opens again on both merged: check them and save"
    };
    let kept = match draft {
        Some(path) => format!("your text as you wrote it is saved in {}", path.display()),
        None => "your text could not be saved to a file; it is in the editor".into(),
    };
    format!(
        "the entry changed while you were editing it (it is now at revision {revision}), so nothing was written; {merged}. ({kept}.)"
    )
}

/// True when `text` still has a line `diff::merge` marks a clash with.
fn has_merge_markers(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_end();
        line == "<<<<<<< yours" || line == ">>>>>>> current"
    })
}

async fn edit(ctx: &Ctx, b: &Backend, edited: &EditedId, changes: FlagChanges) -> Result<()> {
    if changes.is_empty() {
        return edit_in_editor(ctx, b, edited).await;
    }
    let id = edited.full.as_str();
    let inline = b.config().inline_tags();
    let request = {
        let mut request = UpdateEntryRequest {
            title: changes.title,
            content: changes.content,
            is_public: changes.is_public,
            date: changes.date.map(|d| d.to_string()),
            ..Default::default()
        };
        if inline && (request.title.is_some() || request.content.is_some()) {
            let current = b.entry(id).await?;
            let gained = new_inline_tags(
                (&current.title, &current.content),
                (
                    request.title.as_deref().unwrap_or(&current.title),
                    request.content.as_deref().unwrap_or(&current.content),
                ),
            );
            if !gained.is_empty() {
                request.tags = Some(tags::union(&current.tags, &gained));
            }
        }
        request
    };
    check_entry_change(&request)?;
    let entry = b.update_entry(id, &request).await?;
    updated(ctx, &entry);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_header_gives_date_and_tags_and_the_body_follows() {
        let (header, body) = read_editor_text(
            "---\ndate: 2024-01-02 09:30\ntags: Lake, #walk work\n---\nTitle\n\nBody",
        )
        .unwrap();
        assert_eq!(header.date.as_deref(), Some("2024-01-02 09:30"));
        assert_eq!(header.tags.unwrap(), vec!["lake", "walk", "work"]);
        assert_eq!(body, "Title\n\nBody");

        let (header, body) = read_editor_text("---\r\ntags:\r\n---\r\nTitle\r\n").unwrap();
        assert_eq!(header.tags.unwrap(), Vec::<String>::new());
        assert!(header.date.is_none());
        assert_eq!(body, "Title\r\n");
    }

    #[test]
    fn text_without_a_closed_header_is_all_body() {
        for text in ["Title\n\nBody", "---\nnot closed\nTitle", ""] {
            let (header, body) = read_editor_text(text).unwrap();
            assert!(header.date.is_none() && header.tags.is_none());
            assert_eq!(body, text);
        }
    }

    #[test]
    fn a_header_line_other_than_date_and_tags_is_refused() {
        for text in [
            "---\ntgas: x\n---\nT",
            "---\njust words\n---\nT",
            "---\ntags: a b!\n---\nT",
        ] {
            assert!(read_editor_text(text).is_err(), "{text:?}");
        }
    }
}
