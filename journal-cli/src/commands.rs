//! The commands, written once against [`Backend`].

use std::collections::HashSet;
use std::path::Path;

use base64::Engine as _;
use clap::CommandFactory;
use journal_core::api::{
    CreateEntryRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::domain::MAX_PAGE_DEPTH;
use journal_core::filter::MonthDay;
use journal_core::{Cursor, Entry, EntryId, FilterParams, Page, PageRequest, Role, Timestamp};
use serde_json::json;

use crate::backend::{self, Backend};
use crate::config::{self, Config, normalise_server};
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::{
    AdminAction, Cli, Command, ConfigAction, ExportFormat, Filters, Paging, ProfileAction,
};
use crate::{tags, text, when};

mod accounts;
mod admin;
mod confirm;
mod security_log;

/// Everything a command needs besides its own arguments.
struct Ctx {
    json: bool,
    quiet: bool,
}

impl Ctx {
    fn note(&self, message: impl AsRef<str>) {
        if !self.quiet && !self.json {
            eprintln!("{}", message.as_ref());
        }
    }
}

/// Runs a parsed command line.
pub async fn run(mut cli: Cli) -> Result<()> {
    cli.take_options_from_tag_changes()?;
    if let Command::Completions { shell } = &cli.command {
        let mut command = Cli::command();
        let mut out = Vec::new();
        clap_complete::generate(*shell, &mut command, "journal", &mut out);
        print(&String::from_utf8_lossy(&out));
        return Ok(());
    }
    let config_path = match &cli.config {
        Some(path) => path.clone(),
        None => config::default_config_path()?,
    };
    let config = Config::load(&config_path)?;
    // The server's name for the same setting works here too.
    let database = cli.database.clone().or_else(|| {
        std::env::var_os("JOURNAL_DATABASE_URL")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    });
    let b = &Backend::choose(
        cli.local,
        cli.server.as_deref(),
        database.as_deref(),
        config,
        config_path,
    )?
    .acting_as(cli.as_email.clone())?
    .with_token(std::env::var("JOURNAL_TOKEN").ok());
    let ctx = &Ctx {
        json: cli.json,
        quiet: cli.quiet,
    };
    match cli.command {
        Command::Completions { .. } => Ok(()),
        Command::Config { action } => config_command(ctx, b, action),
        Command::Admin { action } => admin(ctx, b, action, database.is_some()).await,
        Command::Token { action } => accounts::token(ctx, b, action).await,
        Command::TwoFactor { action } => accounts::two_factor(ctx, b, action).await,
        Command::SecurityLog { paging } => security_log::run(ctx, b, paging).await,
        Command::Register {
            full_name,
            nickname,
            email,
            password_stdin,
            invite,
        } => {
            let account = NewAccount {
                full_name,
                nickname,
                email,
                invite,
            };
            register(ctx, b, account, password_stdin).await
        }
        Command::Login {
            email,
            password_stdin,
            totp,
        } => login(ctx, b, email, password_stdin, totp).await,
        Command::Logout => logout(ctx, b).await,
        Command::Passwd {
            password_stdin,
            keep_access_tokens,
        } => passwd(ctx, b, password_stdin, keep_access_tokens).await,
        Command::New {
            text,
            title,
            public,
            edit,
            tags,
            star,
            date,
        } => {
            // Bad flags are refused before the journal is opened or the editor started.
            let meta = EntryMeta::from_flags(&tags, star, date.as_deref())?;
            b.connect().await?;
            new_entry(ctx, b, text, title, public, edit, meta).await
        }
        Command::List {
            user,
            filters,
            paging,
        } => {
            let filter = filter_params(&filters)?;
            b.connect().await?;
            let user = match user {
                Some(who) => Some(resolve_user(b, &who).await?),
                None => None,
            };
            let user = user.as_deref();
            list(ctx, &paging, filters.newest, Order::Newest, false, |page| {
                b.user_entries(user, &filter, page)
            })
            .await
        }
        Command::Public { filters, paging } => {
            let filter = filter_params(&filters)?;
            b.connect().await?;
            list(ctx, &paging, filters.newest, Order::Newest, true, |page| {
                b.public_entries(&filter, page)
            })
            .await
        }
        Command::Search {
            query,
            filters,
            paging,
        } => {
            let filter = filter_params(&filters)?;
            b.connect().await?;
            let q = query.join(" ");
            list(ctx, &paging, filters.newest, Order::Ranked, false, |page| {
                b.search(&q, &filter, page)
            })
            .await
        }
        Command::Tags => {
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
        Command::OnThisDay { date, paging } => {
            let day = match date {
                Some(text) => text
                    .trim()
                    .parse::<MonthDay>()
                    .map_err(|e| CliError::Usage(format!("--date {}", e.message)))?,
                None => {
                    let today = chrono::Local::now().date_naive();
                    MonthDay::new(
                        chrono::Datelike::month(&today),
                        chrono::Datelike::day(&today),
                    )
                    .ok_or_else(|| CliError::Other("today has no month and day".into()))?
                }
            };
            let filter = FilterParams {
                day: Some(day.to_string()),
                tz: Some(when::local_zone()),
                ..FilterParams::default()
            };
            b.connect().await?;
            list(ctx, &paging, None, Order::Newest, false, |page| {
                b.user_entries(None, &filter, page)
            })
            .await
        }
        Command::Star { id } => {
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            set_star(ctx, b, &id, true).await
        }
        Command::Unstar { id } => {
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            set_star(ctx, b, &id, false).await
        }
        Command::Tag { id, changes } => {
            let changes = tag_changes(&changes)?;
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            retag(ctx, b, &id, &changes).await
        }
        Command::Show { id } => {
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            let entry = b.entry(&id).await?;
            if ctx.json {
                print_json(&entry);
            } else {
                print(&output::entry_details(&entry));
            }
            Ok(())
        }
        Command::Edit {
            id,
            title,
            content,
            public,
            private,
            date,
        } => {
            let date = date
                .as_deref()
                .map(|d| when::instant("--date", d))
                .transpose()?;
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            let visibility = match (public, private) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            let changes = FlagChanges {
                title,
                content,
                is_public: visibility,
                date,
            };
            edit(ctx, b, &id, changes).await
        }
        Command::Rm { id, yes } => {
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            remove(ctx, b, &id, yes).await
        }
        Command::Profile { action } => {
            b.connect().await?;
            match action {
                None => {
                    let p = b.profile().await?;
                    show_profile(ctx, &p);
                    Ok(())
                }
                Some(ProfileAction::Set {
                    full_name,
                    nickname,
                    email,
                    private,
                    not_private,
                    picture,
                    remove_picture,
                }) => {
                    let profile_pic = match picture {
                        Some(path) => Some(data_uri(&path)?),
                        None if remove_picture => Some(String::new()),
                        None => None,
                    };
                    if full_name.is_none()
                        && nickname.is_none()
                        && email.is_none()
                        && profile_pic.is_none()
                        && !private
                        && !not_private
                    {
                        return Err(CliError::Usage(
                            "nothing to change; pass at least one of --full-name, --nickname, --email, --private or --not-private, --picture or --remove-picture".into(),
                        ));
                    }
                    let request = UpdateProfileRequest {
                        full_name,
                        nickname,
                        email,
                        profile_pic,
                        is_private: match (private, not_private) {
                            (true, _) => Some(true),
                            (_, true) => Some(false),
                            _ => None,
                        },
                        ..Default::default()
                    };
                    // A new e-mail address is a new login: the server may want the
                    // password for it.
                    let p = confirm::confirmed(Default::default(), |proof| {
                        let request = UpdateProfileRequest {
                            password: proof.password,
                            totp: proof.totp,
                            ..request.clone()
                        };
                        async move { b.update_profile(&request).await }
                    })
                    .await?;
                    ctx.note("profile updated");
                    show_profile(ctx, &p);
                    Ok(())
                }
            }
        }
        Command::DeleteAccount { confirm } => delete_account(ctx, b, confirm).await,
        Command::Export { format, output } => {
            b.connect().await?;
            export(ctx, b, format, output.as_deref()).await
        }
        Command::Import { file } => {
            b.connect().await?;
            import(ctx, b, &file).await
        }
    }
}

// ----- entries -------------------------------------------------------------------------

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

async fn new_entry(
    ctx: &Ctx,
    b: &Backend,
    words: Vec<String>,
    title: Option<String>,
    public: bool,
    force_editor: bool,
    meta: EntryMeta,
) -> Result<()> {
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
    if ctx.json {
        print_json(&entry);
    } else {
        print(&entry.id.to_string());
    }
    Ok(())
}

fn entry_request(title: String, content: String, public: bool) -> CreateEntryRequest {
    CreateEntryRequest {
        title: Some(title),
        content: Some(content),
        is_public: Some(public),
        ..Default::default()
    }
}

/// The journal's rules for a new entry, checked here so that both modes refuse it with
/// the same message (a server would refuse a large body before reading it).
fn check_new_entry(request: &CreateEntryRequest) -> Result<()> {
    journal_core::input::NewEntry::try_from(request)
        .map(|_| ())
        .map_err(rule_broken)
}

/// The same for a change to an entry.
fn check_entry_change(request: &UpdateEntryRequest) -> Result<()> {
    journal_core::input::EntryChanges::try_from(request)
        .map(|_| ())
        .map_err(rule_broken)
}

/// A broken rule in the user's words: the date came from `--date`.
fn rule_broken(e: journal_core::ValidationError) -> CliError {
    match e.field {
        "date" => CliError::Invalid(format!("--date {}", e.message)),
        _ => CliError::Invalid(e.to_string()),
    }
}

// ----- ids and users -------------------------------------------------------------------

/// The shortest id prefix accepted.
const MIN_PREFIX: usize = 8;

fn looks_like_prefix(text: &str) -> bool {
    text.chars().count() >= MIN_PREFIX && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The filter that keeps every entry.
static NO_FILTER: std::sync::LazyLock<FilterParams> =
    std::sync::LazyLock::new(FilterParams::default);

/// A quiet context, for reading lists on the way to something else.
const QUIET: Ctx = Ctx {
    json: false,
    quiet: true,
};

/// The entry an id or id prefix (8 characters or more) names: among the caller's entries
/// first, then the public feed. An ambiguous prefix lists the candidates.
async fn resolve_entry(b: &Backend, given: &str) -> Result<String> {
    let id = given.trim();
    if id.parse::<EntryId>().is_ok() {
        return Ok(id.to_owned());
    }
    if !looks_like_prefix(id) {
        return Err(CliError::NotFound(format!(
            "entry {id} not found (give its id, or at least its first {MIN_PREFIX} characters)"
        )));
    }
    let prefix = id.to_lowercase();
    let matching = |entries: Vec<Entry>| -> Vec<Entry> {
        entries
            .into_iter()
            .filter(|e| e.id.to_string().starts_with(&prefix))
            .collect()
    };
    let mut found = matching(
        all_pages(&QUIET, "", Order::Newest, |page| {
            b.user_entries(None, &NO_FILTER, page)
        })
        .await?,
    );
    if found.is_empty() {
        found = matching(
            all_pages(&QUIET, "", Order::Newest, |page| {
                b.public_entries(&NO_FILTER, page)
            })
            .await?,
        );
    }
    match found.as_slice() {
        [] => Err(CliError::NotFound(format!("no entry id starts with {id}"))),
        [one] => Ok(one.id.to_string()),
        many => Err(CliError::Usage(format!(
            "{id} is the start of {} entry ids: {}; give more characters",
            many.len(),
            many.iter()
                .take(10)
                .map(|e| format!("{} ({})", e.id, output::clip(&e.title, 30)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The user a `--user` value names: an id, an id prefix (8 characters or more), or a
/// nickname, found among the caller and the authors of the public feed. An ambiguous
/// one lists the candidates.
async fn resolve_user(b: &Backend, given: &str) -> Result<String> {
    let who = given.trim();
    if who.parse::<journal_core::UserId>().is_ok() {
        return Ok(who.to_owned());
    }
    let lower = who.to_lowercase();
    let is_prefix = looks_like_prefix(who);
    let fits = |id: &str, name: &str| {
        name.to_lowercase() == lower || (is_prefix && id.starts_with(&lower))
    };
    // (id, nickname) of every candidate, once each.
    let mut found: Vec<(String, String)> = Vec::new();
    let me = b.profile().await?;
    if fits(&me.id.to_string(), &me.nickname) {
        found.push((me.id.to_string(), me.nickname.clone()));
    }
    for e in all_pages(&QUIET, "", Order::Newest, |page| {
        b.public_entries(&NO_FILTER, page)
    })
    .await?
    {
        let id = e.author_id.to_string();
        if fits(&id, &e.author_name) && !found.iter().any(|(known, _)| *known == id) {
            found.push((id, e.author_name));
        }
    }
    match found.as_slice() {
        [] => Err(CliError::NotFound(format!(
            "user {who} not found (give a user id, its first {MIN_PREFIX} characters, or the nickname of an author of public entries)"
        ))),
        [(id, _)] => Ok(id.clone()),
        many => Err(CliError::Usage(format!(
            "{who} names {} users: {}; give a user id instead",
            many.len(),
            many.iter()
                .map(|(id, name)| format!("{id} ({name})"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
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

async fn edit(ctx: &Ctx, b: &Backend, id: &str, changes: FlagChanges) -> Result<()> {
    let inline = b.config().inline_tags();
    let mut typed = None;
    let request = if changes.is_empty() {
        let current = b.entry(id).await?;
        let after = text::edit(&editor_text(&current))?;
        if after.trim().is_empty() {
            return Err(CliError::Aborted(
                "the editor buffer is empty; the entry was not changed".into(),
            ));
        }
        typed = Some(after.clone());
        match editor_change(&current, &after, inline) {
            Ok(Some(request)) => request,
            Ok(None) => {
                ctx.note("no changes");
                if ctx.json {
                    print_json(&current);
                }
                return Ok(());
            }
            Err(e) => return Err(text::keep_draft(e, &after)),
        }
    } else {
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
    let updated = match check_entry_change(&request) {
        Ok(()) => b.update_entry(id, &request).await,
        Err(e) => Err(e),
    };
    let entry = match (updated, typed) {
        (Ok(entry), _) => entry,
        (Err(e), Some(typed)) => return Err(text::keep_draft(e, &typed)),
        (Err(e), None) => return Err(e),
    };
    if ctx.json {
        print_json(&entry);
    } else if !ctx.quiet {
        print(&format!("updated entry {}", entry.id));
    }
    Ok(())
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

async fn remove(ctx: &Ctx, b: &Backend, id: &str, yes: bool) -> Result<()> {
    if !yes {
        if !text::interactive() {
            return Err(CliError::Usage(
                "not on a terminal, so not asking; pass --yes to delete without confirmation"
                    .into(),
            ));
        }
        let entry = b.entry(id).await?;
        let answer = text::ask(&format!(
            "Delete \"{}\" ({})? [y/N] ",
            entry.title, entry.id
        ))?;
        if !matches!(answer.to_lowercase().as_str(), "y" | "yes") {
            // A decision, not an error.
            if ctx.json {
                print_json(&json!({ "deleted": null }));
            } else {
                ctx.note("not deleted");
            }
            return Ok(());
        }
    }
    b.delete_entry(id).await?;
    if ctx.json {
        print_json(&json!({ "deleted": id.trim() }));
    } else if !ctx.quiet {
        print(&format!("deleted entry {}", id.trim()));
    }
    Ok(())
}

/// How a list is ordered, which decides how to read all of it.
#[derive(Clone, Copy)]
enum Order {
    /// Newest first: read page after page by cursor.
    Newest,
    /// Best match first (search): read by page number.
    Ranked,
}

/// What a walk through the pages of a list found.
struct Walk {
    entries: Vec<Entry>,
    /// How many entries the list has in all (at least, when `at_least`).
    total: u64,
    at_least: bool,
}

/// Walks every page of a list (limit 100 each), with a progress bar; `all_pages` reads
/// them all, [`walk`] stops once it has `cap` entries. Ranked lists (search) are read
/// by page number, which reaches only the first [`MAX_PAGE_DEPTH`] entries.
async fn all_pages<F, Fut>(ctx: &Ctx, what: &str, order: Order, fetch: F) -> Result<Vec<Entry>>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    Ok(walk(ctx, what, order, None, fetch).await?.entries)
}

async fn walk<F, Fut>(
    ctx: &Ctx,
    what: &str,
    order: Order,
    cap: Option<usize>,
    fetch: F,
) -> Result<Walk>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    // A few entries wanted: ask for no more.
    let limit = cap.map_or(100, |c| c.clamp(1, 100) as i64);
    let mut entries: Vec<Entry> = Vec::new();
    let mut number = 1;
    let mut bar = None;
    loop {
        // Newest-first lists continue after the last entry read (any depth, at the
        // cost of a first page); ranked search results go by page number.
        let cursor = match order {
            Order::Newest => entries.last().map(|e| Cursor::new(e.date, e.id)),
            Order::Ranked => None,
        };
        let page = fetch(page_request(number, limit)?.continuing(cursor)).await?;
        let (total, at_least) = (page.total, page.total_is_lower_bound);
        let bar = bar.get_or_insert_with(|| {
            let len = cap.map_or(total, |c| total.min(c as u64));
            // A lower-bound total would fill the bar before the end.
            let len =
                (!page.total_is_lower_bound || cap.is_some_and(|c| len == c as u64)).then_some(len);
            output::progress(len, ctx.quiet, what)
        });
        let mut done = page.items.is_empty() || !page.has_next();
        bar.inc(page.items.len() as u64);
        entries.extend(page.items);
        if cap.is_some_and(|c| entries.len() >= c) {
            done = true;
        }
        let next_too_deep =
            matches!(order, Order::Ranked) && (number as u64 + 1) * limit as u64 > MAX_PAGE_DEPTH;
        if !done && next_too_deep {
            ctx.note(format!(
                "showing the best {MAX_PAGE_DEPTH} of {total} matches; add words or filters to narrow the search"
            ));
            done = true;
        }
        if done {
            bar.finish_and_clear();
            return Ok(Walk {
                entries,
                total,
                at_least,
            });
        }
        number += 1;
    }
}

fn page_request(page: i64, limit: i64) -> Result<PageRequest> {
    PageRequest::new(Some(page), Some(limit)).map_err(|e| CliError::Invalid(e.to_string()))
}

/// A list as `--json` prints it: the entries in the API's shape and field order.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    entries: &'a [Entry],
    total: u64,
    /// False when the list has at least `total` entries (and `pages` pages).
    #[serde(rename = "totalExact")]
    total_exact: bool,
    page: u64,
    pages: u64,
    limit: u64,
}

/// The filter of a list from its flags. Every value is checked here, so both modes
/// refuse a bad one with the same message, naming the flag, before anything is read.
/// Days are local: they go to the server as `YYYY-MM-DD` with the local zone as `tz`.
fn filter_params(filters: &Filters) -> Result<FilterParams> {
    if filters.newest == Some(0) {
        return Err(CliError::Usage("-n 0 shows nothing; give 1 or more".into()));
    }
    let day = |flag: &str, value: &Option<String>| -> Result<Option<chrono::NaiveDate>> {
        value.as_deref().map(|v| when::day(flag, v)).transpose()
    };
    let (from, to) = match &filters.on {
        Some(_) => (day("--on", &filters.on)?, day("--on", &filters.on)?),
        None => (day("--from", &filters.from)?, day("--to", &filters.to)?),
    };
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err(CliError::Usage(format!(
            "--from {from} is after --to {to}; swap them, or leave one out"
        )));
    }
    let iso = |d: chrono::NaiveDate| d.format("%Y-%m-%d").to_string();
    let params = FilterParams {
        from: from.map(iso),
        to: to.map(iso),
        tags: filters
            .tags
            .iter()
            .map(|t| tags::parse_arg("--tag", t))
            .collect::<Result<_>>()?,
        starred: filters.starred.then(|| "true".to_owned()),
        day: None,
        tz: (from.is_some() || to.is_some()).then(when::local_zone),
    };
    journal_core::EntryFilter::parse(&params).map_err(|e| {
        let flag = match e.field {
            "from" => "--from",
            "to" => "--to",
            "tag" => "--tag",
            "starred" => "--starred",
            other => other,
        };
        CliError::Usage(format!("{flag}: {}", e.message))
    })?;
    Ok(params)
}

async fn list<F, Fut>(
    ctx: &Ctx,
    paging: &Paging,
    newest: Option<u32>,
    order: Order,
    with_author: bool,
    fetch: F,
) -> Result<()>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    // Set when the server counted the list only up to a cap: it has at least `total`.
    let mut at_least = false;
    let (entries, total, page, pages, limit) = if let Some(n) = newest {
        let n = n as usize;
        let (cap, what) = match order {
            Order::Newest => (Some(n), "reading"),
            // The newest matches can be anywhere in a ranked list.
            Order::Ranked => (None, "searching"),
        };
        let Walk {
            mut entries,
            total,
            at_least: lower_bound,
        } = walk(ctx, what, order, cap, fetch).await?;
        at_least = lower_bound;
        entries.sort_by(|a, b| b.date.cmp(&a.date).then(b.id.cmp(&a.id)));
        entries.truncate(n);
        (entries, total, 1, 1, n as u64)
    } else if paging.all {
        let entries = all_pages(ctx, "reading", order, fetch).await?;
        let total = entries.len() as u64;
        (entries, total, 1, 1, total)
    } else {
        let page = fetch(page_request(paging.page, paging.limit)?).await?;
        let pages = page.page_count();
        at_least = page.total_is_lower_bound;
        (
            page.items,
            page.total,
            u64::from(page.page),
            pages,
            u64::from(page.limit),
        )
    };
    if ctx.json {
        print_json(&ListJson {
            entries: &entries,
            total,
            total_exact: !at_least,
            page,
            pages,
            limit,
        });
        return Ok(());
    }
    if entries.is_empty() {
        if !ctx.quiet {
            print(&if total == 0 {
                "no entries".to_owned()
            } else {
                let plus = if at_least { "+" } else { "" };
                format!("no entries on page {page} of {pages}{plus} ({total}{plus} in all)")
            });
        }
        return Ok(());
    }
    print(&output::entry_table(&entries, with_author));
    if ctx.quiet {
        return Ok(());
    }
    let mut counted = output::count(total, "entry", "entries");
    let mut pages = pages.to_string();
    if at_least {
        counted = format!("at least {counted}");
        pages.push('+');
    }
    if newest.is_some() {
        print(&format!("the newest {} of {counted}", entries.len()));
    } else if paging.all {
        print(&counted);
    } else {
        print(&format!("page {page} of {pages}, {counted}"));
    }
    Ok(())
}

// ----- export and import ---------------------------------------------------------------

async fn export(
    ctx: &Ctx,
    b: &Backend,
    format: ExportFormat,
    output_path: Option<&Path>,
) -> Result<()> {
    // Checked before reading the journal, which can take a while.
    if let ExportFormat::MarkdownDir = format {
        match output_path {
            None => {
                return Err(CliError::Usage(
                    "--format markdown-dir writes one file per entry: pass --output DIR".into(),
                ));
            }
            Some(dir) if dir.exists() && !dir.is_dir() => {
                return Err(CliError::Usage(format!(
                    "--output {} is a file; markdown-dir writes into a folder",
                    dir.display()
                )));
            }
            Some(_) => {}
        }
    }
    let entries = all_pages(ctx, "exporting", Order::Newest, |page| {
        b.user_entries(None, &NO_FILTER, page)
    })
    .await?;
    let text = match format {
        ExportFormat::Json => serde_json::to_string_pretty(&crate::transfer::Export {
            format: crate::transfer::FORMAT_NAME,
            version: 1,
            exported_at: Timestamp::now(),
            entries: &entries,
        })
        .map_err(|e| CliError::other("cannot encode the export", e))?,
        ExportFormat::Markdown => crate::transfer::markdown::reading(&entries),
        ExportFormat::Jrnl => crate::transfer::jrnl::export_json(&entries),
        ExportFormat::Txt => crate::transfer::jrnl::export_text(&entries),
        ExportFormat::MarkdownDir => {
            let dir = output_path.unwrap_or(Path::new("."));
            export_markdown_dir(ctx, &entries, dir)?;
            return Ok(());
        }
    };
    match output_path {
        None => print(&text),
        Some(path) => {
            crate::private_files::write(path, format!("{}\n", text.trim_end()).as_bytes())
                .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
            exported(ctx, entries.len(), path);
        }
    }
    Ok(())
}

fn exported(ctx: &Ctx, count: usize, path: &Path) {
    if ctx.json {
        print_json(&json!({ "exported": count, "output": path }));
    } else {
        ctx.note(format!(
            "exported {} to {}",
            output::count(count as u64, "entry", "entries"),
            path.display()
        ));
    }
}

/// One Markdown file per entry in `dir` (created, mode 0700, if missing). A file of
/// the same name is replaced, by a new file of mode 0600; other files are left alone.
fn export_markdown_dir(ctx: &Ctx, entries: &[Entry], dir: &Path) -> Result<()> {
    crate::private_files::create_dir_all(dir).map_err(|e| {
        CliError::other(
            format_args!("cannot create the folder {}", dir.display()),
            e,
        )
    })?;
    let bar = output::progress(Some(entries.len() as u64), ctx.quiet, "writing");
    for (entry, name) in entries
        .iter()
        .zip(crate::transfer::markdown::file_names(entries))
    {
        let path = dir.join(name);
        crate::private_files::replace(
            &path,
            crate::transfer::markdown::file_text(entry).as_bytes(),
        )
        .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    exported(ctx, entries.len(), dir);
    Ok(())
}

/// Reads what `journal import` was given: JSON from a file or standard input, or
/// Markdown from a folder or a `.md` file.
fn read_import(file: &Path, inline_tags: bool) -> Result<(crate::transfer::Imported, String)> {
    if file == Path::new("-") {
        let text = text::piped_stdin()?.unwrap_or_default();
        let source = "standard input".to_owned();
        return Ok((crate::transfer::parse_import(&text, &source)?, source));
    }
    let source = file.display().to_string();
    if file.is_dir() || crate::transfer::markdown::is_markdown_file(file) {
        return Ok((crate::transfer::markdown::read(file, inline_tags)?, source));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?;
    Ok((crate::transfer::parse_import(&text, &source)?, source))
}

/// When an entry to import is already in the journal: the same id, or the same title
/// and content with the same creation time or the same date to the minute (what
/// jrnl's format keeps of a date).
struct AlreadyThere {
    ids: HashSet<String>,
    created: HashSet<(String, String, i64)>,
    dated: HashSet<(String, String, i64)>,
}

fn minute(t: Timestamp) -> i64 {
    t.as_millis().div_euclid(60_000)
}

impl AlreadyThere {
    fn new(existing: &[Entry]) -> AlreadyThere {
        let key = |e: &Entry, at: i64| (e.title.trim().to_owned(), e.content.clone(), at);
        AlreadyThere {
            ids: existing.iter().map(|e| e.id.to_string()).collect(),
            created: existing
                .iter()
                .map(|e| key(e, e.created_at.as_millis()))
                .collect(),
            dated: existing.iter().map(|e| key(e, minute(e.date))).collect(),
        }
    }

    fn contains(&self, item: &crate::transfer::ImportItem) -> bool {
        if item
            .id
            .as_deref()
            .is_some_and(|id| self.ids.contains(id.trim()))
        {
            return true;
        }
        let r = &item.entry.request;
        let title = r.title.as_deref().unwrap_or("").trim().to_owned();
        let content = r.content.as_deref().unwrap_or("").to_owned();
        let date = r
            .date
            .as_deref()
            .and_then(|d| Timestamp::parse(d).ok())
            .unwrap_or(item.entry.created_at);
        self.created.contains(&(
            title.clone(),
            content.clone(),
            item.entry.created_at.as_millis(),
        )) || self.dated.contains(&(title, content, minute(date)))
    }
}

async fn import(ctx: &Ctx, b: &Backend, file: &Path) -> Result<()> {
    let (imported, source) = read_import(file, b.config().inline_tags())?;
    // Idempotent: an entry already here is skipped, so importing a file twice adds
    // nothing the second time.
    let existing = all_pages(&QUIET, "", Order::Newest, |page| {
        b.user_entries(None, &NO_FILTER, page)
    })
    .await?;
    let there = AlreadyThere::new(&existing);
    let total = imported.items.len();
    let entries: Vec<_> = imported
        .items
        .into_iter()
        .filter(|item| !there.contains(item))
        .map(|item| item.entry)
        .collect();
    let skipped = total - entries.len();
    let created = if entries.is_empty() {
        Vec::new()
    } else {
        let bar = output::progress(Some(entries.len() as u64), ctx.quiet, "importing");
        let created = b.import_entries(entries, &|done| bar.inc(done)).await?;
        bar.finish_and_clear();
        created
    };
    for note in &imported.notes {
        ctx.note(note);
    }
    if ctx.json {
        let ids: Vec<String> = created.iter().map(|e| e.id.to_string()).collect();
        print_json(&json!({
            "imported": created.len(),
            "skipped": skipped,
            "ids": ids,
            "notes": imported.notes,
        }));
    } else if !ctx.quiet {
        let mut line = format!(
            "imported {} from {source}",
            output::count(created.len() as u64, "entry", "entries")
        );
        if skipped > 0 {
            line.push_str(&format!(
                "; skipped {} already present",
                output::count(skipped as u64, "entry", "entries")
            ));
        }
        print(&line);
    }
    Ok(())
}

// ----- accounts ------------------------------------------------------------------------

fn show_profile(ctx: &Ctx, p: &journal_core::Profile) {
    if ctx.json {
        print_json(p);
    } else {
        print(&output::profile_details(p));
    }
}

/// A picture file as a data URI, its type read from its content.
fn data_uri(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
    let kind = infer::get(&bytes)
        .map(|k| k.mime_type())
        .filter(|m| matches!(*m, "image/png" | "image/jpeg" | "image/gif" | "image/webp"))
        .ok_or_else(|| {
            CliError::Invalid(format!(
                "{} is not a PNG, JPEG, GIF or WebP picture",
                path.display()
            ))
        })?;
    Ok(format!(
        "data:{kind};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

/// A rule an answer must meet, from journal-core (the server applies the same).
type Rule = fn(&str) -> std::result::Result<(), journal_core::ValidationError>;

/// A value from its flag (checked at once), else asked on a terminal until it meets
/// `rule`: a wrong answer is said at once and asked again, not after every question.
fn required(value: Option<String>, flag: &str, question: &str, rule: Rule) -> Result<String> {
    let explain = |e: journal_core::ValidationError| format!("{flag}: {}", e.message);
    match value.filter(|v| !v.trim().is_empty()) {
        Some(v) => {
            rule(&v).map_err(|e| CliError::Invalid(explain(e)))?;
            Ok(v)
        }
        None if text::interactive() => loop {
            let answer = text::ask(question)?;
            match rule(&answer) {
                Ok(()) => return Ok(answer),
                Err(e) => eprintln!("{}; try again", explain(e)),
            }
        },
        None => Err(CliError::Usage(format!("{flag} is required"))),
    }
}

fn email_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::Email::parse(v).map(|_| ())
}
fn full_name_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::FullName::parse(v).map(|_| ())
}
fn nickname_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::Nickname::parse(v).map(|_| ())
}

/// The password rules (length, not a common password), in words.
fn check_new_password(password: &str) -> std::result::Result<(), String> {
    journal_core::domain::Password::parse(password)
        .map(|_| ())
        .map_err(|e| format!("the new password {}", e.message))
}

/// A new password from standard input, checked before anything is sent.
fn new_password_from_line(lines: &mut text::StdinLines, what: &str) -> Result<String> {
    let password = lines.next(what)?;
    check_new_password(&password).map_err(CliError::Invalid)?;
    Ok(password)
}

/// A new password asked twice on the terminal; one that breaks a rule is refused as
/// soon as it is typed, and asked again.
fn new_password_from_terminal() -> Result<String> {
    loop {
        let first = text::ask_password("New password: ")?;
        if let Err(why) = check_new_password(&first) {
            eprintln!("{why}; try again");
            continue;
        }
        let second = text::ask_password("New password again: ")?;
        if first != second {
            eprintln!("the two passwords differ; try again");
            continue;
        }
        return Ok(first);
    }
}

fn stdin_or_terminal(password_stdin: bool) -> Result<Option<text::StdinLines>> {
    if password_stdin {
        return Ok(Some(text::StdinLines::read()?));
    }
    if !text::interactive() {
        return Err(CliError::Usage(
            "not on a terminal, so cannot ask for a password; use --password-stdin".into(),
        ));
    }
    Ok(None)
}

/// What `journal register` was given besides the password.
struct NewAccount {
    full_name: Option<String>,
    nickname: Option<String>,
    email: Option<String>,
    invite: Option<String>,
}

async fn register(ctx: &Ctx, b: &Backend, given: NewAccount, password_stdin: bool) -> Result<()> {
    let server = b.require_server("register")?;
    let email = required(given.email, "--email", "E-mail: ", email_rule)?;
    let full_name = required(
        given.full_name,
        "--full-name",
        "Full name: ",
        full_name_rule,
    )?;
    let nickname = match given.nickname {
        Some(n) => required(Some(n), "--nickname", "Nickname: ", nickname_rule)?,
        None => email.split('@').next().unwrap_or(email.as_str()).to_owned(),
    };
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => new_password_from_line(&mut lines, "the password")?,
        None => new_password_from_terminal()?,
    };
    let mut request = RegisterRequest {
        full_name: Some(full_name),
        nickname: Some(nickname),
        email: Some(email.clone()),
        password: Some(password),
        invite_code: given.invite.filter(|c| !c.trim().is_empty()),
    };
    let user_id = loop {
        match b.register(&request).await? {
            backend::Registered::Done(id) => break id,
            // Known only once the server answers: it has no way to say so beforehand.
            backend::Registered::NeedsInvite if text::interactive() => {
                let code = text::ask(&format!(
                    "{server} registers only with an invitation. Invitation code: "
                ))?;
                if code.is_empty() {
                    return Err(CliError::Aborted(
                        "no invitation code given; not registered".into(),
                    ));
                }
                request.invite_code = Some(code);
            }
            backend::Registered::NeedsInvite => {
                return Err(CliError::Forbidden(format!(
                    "{server} registers only with an invitation; pass --invite CODE (an administrator makes one with journal admin invite)"
                )));
            }
        }
    };
    if ctx.json {
        print_json(&json!({ "userId": user_id, "server": server }));
    } else {
        ctx.note(format!("registered and logged in to {server} as {email}"));
        print(&user_id.to_string());
    }
    Ok(())
}

/// Wrong two-factor codes typed at a terminal before login gives up (each counts
/// against the account's failed logins on the server).
const CODE_TRIES: usize = 3;

async fn login(
    ctx: &Ctx,
    b: &Backend,
    email: Option<String>,
    password_stdin: bool,
    totp: Option<String>,
) -> Result<()> {
    let server = b.require_server("login")?;
    let email = required(email, "--email", "E-mail: ", |_| Ok(()))?;
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => lines.next("the password")?,
        None => text::ask_password("Password: ")?,
    };
    let mut code = totp.map(|c| accounts::typed_code(&c));
    let wrong_code = CliError::from(journal_core::Error::InvalidSecondFactor).to_string();
    // Codes typed at the terminal (not --totp): a typo is asked for again, a few times.
    let mut typed = 0;
    loop {
        match b.login(&email, &password, code.as_deref()).await {
            Ok(backend::Login::Done) => break,
            Ok(backend::Login::NeedsSecondFactor) if code.is_none() && text::interactive() => {}
            Ok(backend::Login::NeedsSecondFactor) => {
                return Err(journal_core::Error::SecondFactorRequired.into());
            }
            Err(CliError::Auth(why)) if typed > 0 && typed < CODE_TRIES && why == wrong_code => {
                eprintln!("{why}; try again");
            }
            Err(e) => return Err(e),
        }
        code = Some(accounts::ask_code(
            "Two-factor code (or a recovery code): ",
        )?);
        typed += 1;
    }
    if ctx.json {
        print_json(&json!({ "loggedIn": true, "server": server, "email": email }));
    } else if !ctx.quiet {
        print(&format!("logged in to {server} as {email}"));
    }
    Ok(())
}

async fn logout(ctx: &Ctx, b: &Backend) -> Result<()> {
    let server = b.logout().await?;
    if ctx.json {
        print_json(&json!({ "loggedOut": true, "server": server }));
    } else if !ctx.quiet {
        print(&format!("logged out of {server}"));
    }
    Ok(())
}

async fn passwd(
    ctx: &Ctx,
    b: &Backend,
    password_stdin: bool,
    keep_access_tokens: bool,
) -> Result<()> {
    let mut lines = stdin_or_terminal(password_stdin)?;
    let (current, new) = if b.password_change_needs_current() {
        match &mut lines {
            Some(lines) => (
                Some(lines.next("the current password")?),
                new_password_from_line(lines, "the new password")?,
            ),
            None => (
                Some(text::ask_password("Current password: ")?),
                new_password_from_terminal()?,
            ),
        }
    } else {
        let new = match &mut lines {
            Some(lines) => new_password_from_line(lines, "the new password")?,
            None => new_password_from_terminal()?,
        };
        (None, new)
    };
    let given = confirm::Confirmation {
        password: current.clone(),
        totp: None,
    };
    let changed = confirm::confirmed(given, |proof| {
        let (current, new) = (current.clone(), new.clone());
        async move {
            b.change_password(current.as_deref(), &new, proof.totp, keep_access_tokens)
                .await
        }
    })
    .await?;
    if ctx.json {
        print_json(&json!({
            "passwordChanged": true,
            "email": changed.email,
            "loggedIn": changed.logged_in,
        }));
    } else if !ctx.quiet || !changed.logged_in {
        print(&changed.note);
    }
    Ok(())
}

async fn delete_account(ctx: &Ctx, b: &Backend, confirm: Option<String>) -> Result<()> {
    b.connect().await?;
    let profile = b.profile().await?;
    let typed = match confirm {
        Some(email) => email,
        None if text::interactive() => text::ask(&format!(
            "This deletes the account {} and all its entries. Type its e-mail to confirm: ",
            profile.email
        ))?,
        None => {
            return Err(CliError::Usage(
                "not on a terminal, so not asking; pass --confirm EMAIL".into(),
            ));
        }
    };
    if typed.trim().to_lowercase() != profile.email {
        return Err(CliError::Aborted(
            "the e-mail does not match; the account was not deleted".into(),
        ));
    }
    confirm::confirmed(Default::default(), |proof| async move {
        b.delete_account(&journal_core::api::DeleteAccountRequest {
            password: proof.password,
            totp: proof.totp,
        })
        .await
    })
    .await?;
    if ctx.json {
        print_json(&json!({ "deleted": profile.id }));
    } else if !ctx.quiet {
        print(&format!("deleted the account {}", profile.email));
    }
    Ok(())
}

/// `journal admin …`; `database_given` says whether a database was named (by flag or
/// variable), which `create-user` needs rather than the personal default.
async fn admin(ctx: &Ctx, b: &Backend, action: AdminAction, database_given: bool) -> Result<()> {
    let (email, role) = match action {
        AdminAction::Promote { email } => (email, Role::Admin),
        AdminAction::Demote { email } => (email, Role::User),
        AdminAction::Users => return accounts::admin_users(ctx, b).await,
        AdminAction::Disable { email } if database_given => {
            return admin::set_disabled_on_database(ctx, b, &email, true).await;
        }
        AdminAction::Enable { email } if database_given => {
            return admin::set_disabled_on_database(ctx, b, &email, false).await;
        }
        AdminAction::Disable { email } => {
            return accounts::admin_set_disabled(ctx, b, &email, true).await;
        }
        AdminAction::Enable { email } => {
            return accounts::admin_set_disabled(ctx, b, &email, false).await;
        }
        AdminAction::Invite { expires } => return accounts::admin_invite(ctx, b, expires).await,
        AdminAction::Invites => return admin::invites(ctx, b, database_given).await,
        AdminAction::RevokeInvite { id } => {
            return admin::revoke_invite(ctx, b, &id, database_given).await;
        }
        AdminAction::ResetTwoFactor { email } => {
            return accounts::admin_reset_totp(ctx, b, &email, database_given).await;
        }
        AdminAction::CreateUser {
            email,
            name,
            nickname,
            admin,
            password_stdin,
        } => {
            if !database_given {
                return Err(CliError::Usage(
                    "journal admin create-user needs --database PATH (the server's database: a SQLite file or postgres://…)".into(),
                ));
            }
            let given = NewAccount {
                full_name: name,
                nickname,
                email,
                invite: None,
            };
            let role = if admin { Role::Admin } else { Role::User };
            return accounts::create_user(ctx, b, given, role, password_stdin).await;
        }
        AdminAction::Migrate { from, to } => {
            let report = backend::migrate(&from, &to).await?;
            if ctx.json {
                print_json(&json!({
                    "users": report.users,
                    "entries": report.entries,
                    "revokedTokens": report.revoked_tokens,
                }));
            } else if !ctx.quiet {
                print(&format!(
                    "copied {}, {} and {} to {}",
                    output::count(report.users, "user", "users"),
                    output::count(report.entries, "entry", "entries"),
                    output::count(
                        report.revoked_tokens,
                        "token revocation",
                        "token revocations"
                    ),
                    backend::redact_url(&to)
                ));
            }
            return Ok(());
        }
    };
    b.set_role(&email, role).await?;
    if ctx.json {
        print_json(&json!({ "email": email.trim().to_lowercase(), "role": role.as_str() }));
    } else if !ctx.quiet {
        print(&format!("{} is now {}", email.trim(), role.as_str()));
    }
    Ok(())
}

/// The keys `journal config set` takes.
enum ConfigKey {
    Server,
    InlineTags,
}

fn config_command(ctx: &Ctx, b: &Backend, action: ConfigAction) -> Result<()> {
    let config = b.config();
    let config_path = b.config_path();
    let check_key = |key: &str| match key.replace('-', "_").as_str() {
        "server" => Ok(ConfigKey::Server),
        "inline_tags" => Ok(ConfigKey::InlineTags),
        _ => Err(CliError::Usage(format!(
            "unknown config key {key:?}; the keys are server and inline_tags"
        ))),
    };
    match action {
        ConfigAction::Show => {
            let session = config
                .session
                .as_ref()
                .map(|s| json!({ "server": s.server, "email": s.email, "token": "(set)" }));
            let value = json!({
                "file": config_path,
                "server": config.server,
                "session": session,
                "owners": config.owners,
                "inline_tags": config.inline_tags(),
            });
            if ctx.json {
                print_json(&value);
            } else {
                print(&format!(
                    "file:    {}\nserver:  {}\nlogin:   {}\ninline:  {}",
                    config_path.display(),
                    config.server.as_deref().unwrap_or("(none: local mode)"),
                    config
                        .session
                        .as_ref()
                        .map(|s| format!("{} on {}", s.email, s.server))
                        .unwrap_or_else(|| "(not logged in)".into()),
                    if config.inline_tags() {
                        "on (@word and #word become tags)"
                    } else {
                        "off"
                    }
                ));
            }
            Ok(())
        }
        ConfigAction::Set { key, value } => {
            match check_key(&key)? {
                ConfigKey::Server => {
                    let url = normalise_server(&value);
                    backend::check_server_url(&url)?;
                    b.change_config(|config| config.server = Some(url))?;
                }
                ConfigKey::InlineTags => {
                    let on = match value.trim().to_lowercase().as_str() {
                        "true" | "yes" | "on" => true,
                        "false" | "no" | "off" => false,
                        _ => {
                            return Err(CliError::Usage(format!(
                                "inline_tags is true or false, not {value:?}"
                            )));
                        }
                    };
                    b.change_config(|config| config.inline_tags = Some(on))?;
                }
            }
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
        ConfigAction::Unset { key } => {
            match check_key(&key)? {
                ConfigKey::Server => b.change_config(|config| config.server = None)?,
                ConfigKey::InlineTags => b.change_config(|config| config.inline_tags = None)?,
            }
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
    }
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
