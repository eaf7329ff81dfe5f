//! The commands, written once against [`Backend`].

use std::path::Path;

use base64::Engine as _;
use clap::CommandFactory;
use journal_core::api::{
    CreateEntryRequest, RegisterRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{Cursor, Entry, Page, PageRequest, Role, Timestamp};
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
    )?;
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
            let user = user.as_deref();
            list(ctx, &paging, Order::Newest, |page| {
                b.user_entries(user, page)
            })
            .await
        }
        Command::Public { paging } => {
            b.connect().await?;
            list(ctx, &paging, Order::Newest, |page| b.public_entries(page)).await
        }
        Command::Search { query, paging } => {
            b.connect().await?;
            let q = query.join(" ");
            list(ctx, &paging, Order::Ranked, |page| b.search(&q, page)).await
        }
        Command::Show { id } => {
            b.connect().await?;
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
            let visibility = match (public, private) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            edit(ctx, b, &id, title, content, visibility).await
        }
        Command::Rm { id, yes } => {
            b.connect().await?;
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
        None => text::piped_stdin()?.filter(|t| !t.trim().is_empty()),
    };
    let (title, content) = match (source, title) {
        (Some(text), Some(title)) => (title, text.trim_end().to_owned()),
        (Some(text), None) => title_from_text(&text),
        (None, title) => {
            let template = title.map(|t| format!("{t}\n\n")).unwrap_or_default();
            let edited = text::edit(&template)?;
            if edited.trim().is_empty() {
                return Err(CliError::Aborted(
                    "the editor buffer is empty; nothing was created".into(),
                ));
            }
            text::split_title(&edited)
        }
    };
    let entry = b
        .create_entry(&CreateEntryRequest {
            title: Some(title),
            content: Some(content),
            is_public: Some(public),
        })
        .await?;
    if ctx.json {
        print_json(&entry);
    } else {
        print(&entry.id.to_string());
    }
    Ok(())
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
    let request = if title.is_none() && content.is_none() && is_public.is_none() {
        let current = b.entry(id).await?;
        let before = format!("{}\n\n{}", current.title, current.content);
        let after = text::edit(&before)?;
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
        }
    } else {
        UpdateEntryRequest {
            title,
            content,
            is_public,
        }
    };
    let entry = b.update_entry(id, &request).await?;
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
            return Err(CliError::Aborted("not deleted".into()));
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

async fn list<F, Fut>(ctx: &Ctx, paging: &Paging, order: Order, fetch: F) -> Result<()>
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
        print_json(&json!({
            "entries": entries,
            "total": total,
            "page": page,
            "pages": pages,
            "limit": limit,
        }));
        return Ok(());
    }
    if entries.is_empty() {
        print(&if total == 0 {
            "no entries".to_owned()
        } else {
            format!("no entries on page {page} of {pages} ({total} in all)")
        });
        return Ok(());
    }
    print(&output::entry_table(&entries));
    let plural = if total == 1 { "entry" } else { "entries" };
    if paging.all {
        print(&format!("{total} {plural}"));
    } else {
        print(&format!("page {page} of {pages}, {total} {plural}"));
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
                    "exported {} entries to {}",
                    entries.len(),
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
    let entries = crate::transfer::parse_import(&text, &source)?;
    let bar = output::progress(Some(entries.len() as u64), ctx.quiet, "importing");
    let created = b.import_entries(entries, &|done| bar.inc(done)).await?;
    bar.finish_and_clear();
    if ctx.json {
        let ids: Vec<String> = created.iter().map(|e| e.id.to_string()).collect();
        print_json(&json!({ "imported": created.len(), "ids": ids }));
    } else if !ctx.quiet {
        print(&format!("imported {} entries from {source}", created.len()));
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

fn required(value: Option<String>, flag: &str, question: &str) -> Result<String> {
    match value.filter(|v| !v.trim().is_empty()) {
        Some(v) => Ok(v),
        None if text::interactive() => text::ask(question),
        None => Err(CliError::Usage(format!("{flag} is required"))),
    }
}

fn new_password_from_terminal() -> Result<String> {
    let first = text::ask_password("New password: ")?;
    let second = text::ask_password("New password again: ")?;
    if first != second {
        return Err(CliError::Usage(
            "the two passwords differ; nothing changed".into(),
        ));
    }
    Ok(first)
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
    let email = required(email, "--email", "E-mail: ")?;
    let full_name = required(full_name, "--full-name", "Full name: ")?;
    let nickname =
        nickname.unwrap_or_else(|| email.split('@').next().unwrap_or(email.as_str()).to_owned());
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => lines.next("the password")?,
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
    let email = required(email, "--email", "E-mail: ")?;
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
                lines.next("the new password")?,
            ),
            None => (
                Some(text::ask_password("Current password: ")?),
                new_password_from_terminal()?,
            ),
        }
    } else {
        let new = match &mut lines {
            Some(lines) => lines.next("the new password")?,
            None => new_password_from_terminal()?,
        };
        (None, new)
    };
    let changed = b.change_password(current.as_deref(), &new).await?;
    if ctx.json {
        print_json(&json!({ "passwordChanged": true, "email": changed.email }));
    } else if !ctx.quiet {
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
                    "copied {} users, {} entries and {} token revocations to {}",
                    report.users,
                    report.entries,
                    report.revoked_tokens,
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
