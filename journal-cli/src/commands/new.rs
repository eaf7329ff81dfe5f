//! `journal new`: write an entry from arguments, piped text or the editor.

use clap::Args;
use journal_core::api::CreateEntryRequest;
use journal_core::{Entry, Timestamp};

use super::Ctx;
use super::attach::{check_files, line};
use super::rules::check_new_entry;
use crate::backend::{AttachmentInfo, Backend, FileToAttach};
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::{tags, text, when};

/// `journal new`: the text and what goes with it.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal new \"Walked to the lake\"\n  journal new --title \"Monday\" --public Sunny and warm.\n  printf 'Title line\\n\\nbody\\n' | journal new\n  journal new            # opens $VISUAL / $EDITOR: title on the first line, body below\n  journal new --date \"yesterday 18:00\" --tag walk --star \"Walked to the @lake\"\n  journal new --attach lake.jpg --attach map.pdf \"Walked to the lake\"\n\n@word and #word in the text become tags too (journal config set inline_tags false\nturns that off)."
)]
pub struct New {
    /// The text (the first line is the title unless --title is given).
    pub text: Vec<String>,
    /// The title.
    #[arg(long, short)]
    pub title: Option<String>,
    /// Make the entry public.
    #[arg(long)]
    pub public: bool,
    /// Open the editor even when standard input is piped.
    #[arg(long, short)]
    pub edit: bool,
    /// A tag; repeat for several.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Star the entry.
    #[arg(long)]
    pub star: bool,
    /// When the entry is about, in local time [default: now]: 2024-01-02 09:30,
    /// 2024-01-02, yesterday, "last monday 9am", "3 days ago", monday.
    #[arg(long, value_name = "WHEN")]
    pub date: Option<String>,
    /// A file to attach once the entry is made; repeat for several.
    #[arg(long = "attach", value_name = "FILE")]
    pub attach: Vec<std::path::PathBuf>,
}

impl New {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        // Bad flags are refused before the journal is opened or the editor started.
        let meta = EntryMeta::from_flags(&self.tags, self.star, self.date.as_deref())?;
        // So are files that cannot be read: no entry is made without its files.
        let files = check_files(&self.attach).await?;
        b.connect().await?;
        let entry = new_entry(b, self.text, self.title, self.public, self.edit, meta).await?;
        if ctx.json {
            let mut attachments = Vec::with_capacity(files.len());
            for file in &files {
                attachments.push(attach_to_new(b, &entry, file).await?);
            }
            let mut shown = serde_json::to_value(&entry)
                .map_err(|e| CliError::other("cannot encode the entry as JSON", e))?;
            if !files.is_empty() {
                shown["attachments"] = serde_json::to_value(&attachments)
                    .map_err(|e| CliError::other("cannot encode the attachments as JSON", e))?;
            }
            print_json(&shown);
            return Ok(());
        }
        // The id first, on its own line, as scripts read it; each file on stderr.
        print(&entry.id.to_string());
        for file in &files {
            let a = attach_to_new(b, &entry, file).await?;
            ctx.note(format!("attached {}", line(&a)));
        }
        Ok(())
    }
}

/// Attaches a file to the entry just made; a refusal says that the entry is there.
async fn attach_to_new(b: &Backend, entry: &Entry, file: &FileToAttach) -> Result<AttachmentInfo> {
    let id = entry.id.to_string();
    b.upload_attachment(&id, file).await.map_err(|e| {
        e.with_note(format!(
            "entry {id} was made without this file (journal attach {id} FILE adds it)"
        ))
    })
}

/// What `journal new` takes besides the text: tags, a star, a date.
struct EntryMeta {
    tags: Vec<String>,
    starred: bool,
    date: Option<Timestamp>,
}

impl EntryMeta {
    fn from_flags(tag_flags: &[String], star: bool, date: Option<&str>) -> Result<EntryMeta> {
        Ok(EntryMeta {
            tags: tag_flags
                .iter()
                .map(|t| tags::parse_arg("--tag", t))
                .collect::<Result<_>>()?,
            starred: star,
            date: date.map(|d| when::instant("--date", d)).transpose()?,
        })
    }

    /// `request` with these tags (and the inline ones of `typed`, the text as the user
    /// typed it, before a leading `#` of the title is taken off), star and date.
    fn apply(&self, mut request: CreateEntryRequest, typed: Option<&str>) -> CreateEntryRequest {
        let mut all = self.tags.clone();
        if let Some(text) = typed {
            all = tags::union(&all, &tags::inline(text));
        }
        request.tags = (!all.is_empty()).then_some(all);
        request.starred = self.starred.then_some(true);
        request.date = self.date.map(|d| d.to_string());
        request
    }
}

/// Makes the entry from the text, the editor or standard input.
async fn new_entry(
    b: &Backend,
    words: Vec<String>,
    title: Option<String>,
    public: bool,
    force_editor: bool,
    meta: EntryMeta,
) -> Result<Entry> {
    let inline = b.config().inline_tags();
    let from_args = (!words.is_empty()).then(|| words.join(" "));
    let source = match from_args {
        Some(text) => Some(text),
        None if force_editor => None,
        // Standard input that is not a terminal is the text, even when it is empty:
        // an editor on a pipe cannot work.
        None => match text::piped_stdin()? {
            Some(text) if text.trim().is_empty() => {
                return Err(CliError::Usage(
                    "standard input is empty; nothing was created (pipe in the text, give it as arguments, or use --edit for the editor)".into(),
                ));
            }
            other => other,
        },
    };
    let (request, typed) = match source {
        Some(text) => {
            let typed = match &title {
                Some(title) => format!("{title}\n{text}"),
                None => text.clone(),
            };
            let (title, content) = match title {
                Some(title) => (title, text.trim_end().to_owned()),
                None => title_from_text(&text),
            };
            let request = entry_request(title, content, public);
            (meta.apply(request, inline.then_some(&typed)), None)
        }
        None => {
            // Fail before the user types anything when the write cannot work.
            b.require_login()?;
            let template = title.map(|t| format!("{t}\n\n")).unwrap_or_default();
            let edited = text::edit(&template)?;
            if edited.trim().is_empty() {
                return Err(CliError::Aborted(
                    "the editor buffer is empty; nothing was created".into(),
                ));
            }
            // Editor text is read like piped text.
            let (title, content) = title_from_text(&edited);
            let request = entry_request(title, content, public);
            (meta.apply(request, inline.then_some(&edited)), Some(edited))
        }
    };
    let created = match check_new_entry(&request) {
        Ok(()) => b.create_entry(&request).await,
        Err(e) => Err(e),
    };
    let entry = match (created, typed) {
        (Ok(entry), _) => entry,
        (Err(e), Some(typed)) => return Err(text::keep_draft(e, &typed)),
        (Err(e), None) => return Err(e),
    };
    Ok(entry)
}

fn entry_request(title: String, content: String, public: bool) -> CreateEntryRequest {
    CreateEntryRequest {
        title: Some(title),
        content: Some(content),
        is_public: Some(public),
        ..Default::default()
    }
}

/// Title and body from free text: the first line is the title; a first line too long
/// for a title gives a shortened title and the whole text as the body.
fn title_from_text(text: &str) -> (String, String) {
    let (first, rest) = text::split_title(text);
    if first.chars().count() > 200 {
        (text::short_title(&first), text.trim().to_owned())
    } else {
        (first, rest)
    }
}
