//! The commands, written once against [`Backend`].

use std::collections::HashSet;
use std::path::Path;

use base64::Engine as _;
use clap::CommandFactory;
use journal_core::api::{
    CreateEntryRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{Cursor, Entry, EntryId, Page, PageRequest, Role, Timestamp};
use serde_json::json;

use crate::backend::{self, Backend};
use crate::config::{self, Config, normalise_server};
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::text;
use crate::{AdminAction, Cli, Command, ConfigAction, ExportFormat, Paging, ProfileAction};

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
pub async fn run(cli: Cli) -> Result<()> {
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
    .acting_as(cli.as_email.clone())?;
    let ctx = &Ctx {
        json: cli.json,
        quiet: cli.quiet,
    };
    match cli.command {
        Command::Completions { .. } => Ok(()),
        Command::Config { action } => config_command(ctx, b, action),
        Command::Admin { action } => admin(ctx, b, action).await,
        Command::Register {
            full_name,
            nickname,
            email,
            password_stdin,
        } => register(ctx, b, full_name, nickname, email, password_stdin).await,
        Command::Login {
            email,
            password_stdin,
        } => login(ctx, b, email, password_stdin).await,
        Command::Logout => logout(ctx, b).await,
        Command::Passwd { password_stdin } => passwd(ctx, b, password_stdin).await,
        Command::New {
            text,
            title,
            public,
            edit,
        } => {
            b.connect().await?;
            new_entry(ctx, b, text, title, public, edit).await
        }
        Command::List { user, paging } => {
            b.connect().await?;
            let user = match user {
                Some(who) => Some(resolve_user(b, &who).await?),
                None => None,
            };
            let user = user.as_deref();
            list(ctx, &paging, Order::Newest, false, |page| {
                b.user_entries(user, page)
            })
            .await
        }
        Command::Public { paging } => {
            b.connect().await?;
            list(ctx, &paging, Order::Newest, true, |page| {
                b.public_entries(page)
            })
            .await
        }
        Command::Search { query, paging } => {
            b.connect().await?;
            let q = query.join(" ");
            list(ctx, &paging, Order::Ranked, false, |page| {
                b.search(&q, page)
            })
            .await
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
        } => {
            b.connect().await?;
            let id = resolve_entry(b, &id).await?;
            let visibility = match (public, private) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            edit(ctx, b, &id, title, content, visibility).await
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
                    };
                    let p = b.update_profile(&request).await?;
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

async fn new_entry(
    ctx: &Ctx,
    b: &Backend,
    words: Vec<String>,
    title: Option<String>,
    public: bool,
    force_editor: bool,
) -> Result<()> {
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
            let (title, content) = match title {
                Some(title) => (title, text.trim_end().to_owned()),
                None => title_from_text(&text),
            };
            (entry_request(title, content, public), None)
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
            (entry_request(title, content, public), Some(edited))
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
        .map_err(|e| CliError::Invalid(e.to_string()))
}

/// The same for a change to an entry.
fn check_entry_change(request: &UpdateEntryRequest) -> Result<()> {
    journal_core::input::EntryChanges::try_from(request)
        .map(|_| ())
        .map_err(|e| CliError::Invalid(e.to_string()))
}

// ----- ids and users -------------------------------------------------------------------

/// The shortest id prefix accepted.
const MIN_PREFIX: usize = 8;

fn looks_like_prefix(text: &str) -> bool {
    text.chars().count() >= MIN_PREFIX && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

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
    let mut found =
        matching(all_pages(&QUIET, "", Order::Newest, |page| b.user_entries(None, page)).await?);
    if found.is_empty() {
        found =
            matching(all_pages(&QUIET, "", Order::Newest, |page| b.public_entries(page)).await?);
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
    for e in all_pages(&QUIET, "", Order::Newest, |page| b.public_entries(page)).await? {
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

async fn edit(
    ctx: &Ctx,
    b: &Backend,
    id: &str,
    title: Option<String>,
    content: Option<String>,
    is_public: Option<bool>,
) -> Result<()> {
    let mut typed = None;
    let request = if title.is_none() && content.is_none() && is_public.is_none() {
        let current = b.entry(id).await?;
        let before = format!("{}\n\n{}", current.title, current.content);
        let after = text::edit(&before)?;
        typed = Some(after.clone());
        if after.trim().is_empty() {
            return Err(CliError::Aborted(
                "the editor buffer is empty; the entry was not changed".into(),
            ));
        }
        let (new_title, new_content) = text::split_title(&after);
        if new_title == current.title && new_content == current.content.trim_end() {
            ctx.note("no changes");
            if ctx.json {
                print_json(&current);
            }
            return Ok(());
        }
        UpdateEntryRequest {
            title: (new_title != current.title).then_some(new_title),
            content: (new_content != current.content).then_some(new_content),
            is_public: None,
            ..Default::default()
        }
    } else {
        UpdateEntryRequest {
            title,
            content,
            is_public,
            ..Default::default()
        }
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

/// Walks every page of a list (limit 100 each), with a progress bar.
/// How a list is ordered, which decides how to read all of it.
#[derive(Clone, Copy)]
enum Order {
    /// Newest first: read page after page by cursor.
    Newest,
    /// Best match first (search): read by page number.
    Ranked,
}

async fn all_pages<F, Fut>(ctx: &Ctx, what: &str, order: Order, fetch: F) -> Result<Vec<Entry>>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    let mut entries: Vec<Entry> = Vec::new();
    let mut number = 1;
    let mut bar = None;
    loop {
        // Newest-first lists continue after the last entry read (any depth, at the
        // cost of a first page); ranked search results go by page number.
        let cursor = match order {
            Order::Newest => entries.last().map(|e| Cursor::new(e.created_at, e.id)),
            Order::Ranked => None,
        };
        let page = fetch(page_request(number, 100)?.continuing(cursor)).await?;
        let bar = bar.get_or_insert_with(|| output::progress(Some(page.total), ctx.quiet, what));
        let done = page.items.is_empty() || !page.has_next();
        bar.inc(page.items.len() as u64);
        entries.extend(page.items);
        if done {
            bar.finish_and_clear();
            return Ok(entries);
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
    page: u64,
    pages: u64,
    limit: u64,
}

async fn list<F, Fut>(
    ctx: &Ctx,
    paging: &Paging,
    order: Order,
    with_author: bool,
    fetch: F,
) -> Result<()>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    let (entries, total, page, pages, limit) = if paging.all {
        let entries = all_pages(ctx, "reading", order, fetch).await?;
        let total = entries.len() as u64;
        (entries, total, 1, 1, total)
    } else {
        let page = fetch(page_request(paging.page, paging.limit)?).await?;
        let pages = page.page_count();
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
                format!("no entries on page {page} of {pages} ({total} in all)")
            });
        }
        return Ok(());
    }
    print(&output::entry_table(&entries, with_author));
    if ctx.quiet {
        return Ok(());
    }
    let counted = output::count(total, "entry", "entries");
    if paging.all {
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
    let entries = all_pages(ctx, "exporting", Order::Newest, |page| {
        b.user_entries(None, page)
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
        ExportFormat::Markdown => crate::transfer::markdown(&entries),
    };
    match output_path {
        None => print(&text),
        Some(path) => {
            crate::private_files::write(path, format!("{}\n", text.trim_end()).as_bytes())
                .map_err(|e| CliError::other(format_args!("cannot write {}", path.display()), e))?;
            if ctx.json {
                print_json(&json!({ "exported": entries.len(), "output": path }));
            } else {
                ctx.note(format!(
                    "exported {} to {}",
                    output::count(entries.len() as u64, "entry", "entries"),
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

async fn import(ctx: &Ctx, b: &Backend, file: &Path) -> Result<()> {
    let (text, source) = if file == Path::new("-") {
        (
            text::piped_stdin()?.unwrap_or_default(),
            "standard input".to_owned(),
        )
    } else {
        (
            std::fs::read_to_string(file)
                .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?,
            file.display().to_string(),
        )
    };
    let items = crate::transfer::parse_import(&text, &source)?;
    // Idempotent: an entry already here (same id, or same title, content and date) is
    // skipped, so importing a file twice adds nothing the second time.
    let existing = all_pages(&QUIET, "", Order::Newest, |page| b.user_entries(None, page)).await?;
    let ids: HashSet<String> = existing.iter().map(|e| e.id.to_string()).collect();
    let key = |title: &str, content: &str, created: Timestamp| {
        (
            title.trim().to_owned(),
            content.to_owned(),
            created.as_millis(),
        )
    };
    let present: HashSet<(String, String, i64)> = existing
        .iter()
        .map(|e| key(&e.title, &e.content, e.created_at))
        .collect();
    let total = items.len();
    let entries: Vec<_> = items
        .into_iter()
        .filter(|item| {
            let same_id = item.id.as_deref().is_some_and(|id| ids.contains(id.trim()));
            let r = &item.entry.request;
            let same_text = present.contains(&key(
                r.title.as_deref().unwrap_or(""),
                r.content.as_deref().unwrap_or(""),
                item.entry.created_at,
            ));
            !(same_id || same_text)
        })
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
    if ctx.json {
        let ids: Vec<String> = created.iter().map(|e| e.id.to_string()).collect();
        print_json(&json!({ "imported": created.len(), "skipped": skipped, "ids": ids }));
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

async fn register(
    ctx: &Ctx,
    b: &Backend,
    full_name: Option<String>,
    nickname: Option<String>,
    email: Option<String>,
    password_stdin: bool,
) -> Result<()> {
    let server = b.require_server("register")?;
    let email = required(email, "--email", "E-mail: ", email_rule)?;
    let full_name = required(full_name, "--full-name", "Full name: ", full_name_rule)?;
    let nickname = match nickname {
        Some(n) => required(Some(n), "--nickname", "Nickname: ", nickname_rule)?,
        None => email.split('@').next().unwrap_or(email.as_str()).to_owned(),
    };
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => new_password_from_line(&mut lines, "the password")?,
        None => new_password_from_terminal()?,
    };
    let user_id = b
        .register(&RegisterRequest {
            full_name: Some(full_name),
            nickname: Some(nickname),
            email: Some(email.clone()),
            password: Some(password),
        })
        .await?;
    if ctx.json {
        print_json(&json!({ "userId": user_id, "server": server }));
    } else {
        ctx.note(format!("registered and logged in to {server} as {email}"));
        print(&user_id.to_string());
    }
    Ok(())
}

async fn login(ctx: &Ctx, b: &Backend, email: Option<String>, password_stdin: bool) -> Result<()> {
    let server = b.require_server("login")?;
    let email = required(email, "--email", "E-mail: ", |_| Ok(()))?;
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => lines.next("the password")?,
        None => text::ask_password("Password: ")?,
    };
    b.login(&email, password).await?;
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

async fn passwd(ctx: &Ctx, b: &Backend, password_stdin: bool) -> Result<()> {
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
    let changed = b.change_password(current.as_deref(), &new).await?;
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
    b.delete_account().await?;
    if ctx.json {
        print_json(&json!({ "deleted": profile.id }));
    } else if !ctx.quiet {
        print(&format!("deleted the account {}", profile.email));
    }
    Ok(())
}

async fn admin(ctx: &Ctx, b: &Backend, action: AdminAction) -> Result<()> {
    let (email, role) = match action {
        AdminAction::Promote { email } => (email, Role::Admin),
        AdminAction::Demote { email } => (email, Role::User),
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

fn config_command(ctx: &Ctx, b: &Backend, action: ConfigAction) -> Result<()> {
    let config = b.config();
    let config_path = b.config_path();
    let check_key = |key: &str| {
        if key == "server" {
            Ok(())
        } else {
            Err(CliError::Usage(format!(
                "unknown config key {key:?}; the only key is server"
            )))
        }
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
            });
            if ctx.json {
                print_json(&value);
            } else {
                print(&format!(
                    "file:    {}\nserver:  {}\nlogin:   {}",
                    config_path.display(),
                    config.server.as_deref().unwrap_or("(none: local mode)"),
                    config
                        .session
                        .as_ref()
                        .map(|s| format!("{} on {}", s.email, s.server))
                        .unwrap_or_else(|| "(not logged in)".into())
                ));
            }
            Ok(())
        }
        ConfigAction::Set { key, value } => {
            check_key(&key)?;
            let url = normalise_server(&value);
            backend::check_server_url(&url)?;
            b.change_config(|config| config.server = Some(url))?;
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
        ConfigAction::Unset { key } => {
            check_key(&key)?;
            b.change_config(|config| config.server = None)?;
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
    }
}
