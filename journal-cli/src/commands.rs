//! The commands, written once against [`Backend`].

use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::CommandFactory;
use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, LoginRequest, RegisterRequest, UpdateEntryRequest,
    UpdateProfileRequest,
};
use journal_core::{Entry, Page, PageRequest, Role, Timestamp};
use serde_json::json;

use crate::backend::{self, Backend, Local, Remote};
use crate::config::{self, Config, Session, normalise_server};
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::text;
use crate::{AdminAction, Cli, Command, ConfigAction, ExportFormat, Paging, ProfileAction};

/// Where the journal is.
enum Mode {
    Local(PathBuf),
    Remote(String),
}

/// Everything a command needs besides its own arguments.
struct Ctx {
    json: bool,
    quiet: bool,
    config: Config,
    config_path: PathBuf,
    mode: Mode,
}

impl Ctx {
    fn note(&self, message: impl AsRef<str>) {
        if !self.quiet && !self.json {
            eprintln!("{}", message.as_ref());
        }
    }

    fn save_config(&self) -> Result<()> {
        self.config.save(&self.config_path)
    }

    fn remote_only(&self, command: &str) -> Result<&str> {
        match &self.mode {
            Mode::Remote(url) => Ok(url),
            Mode::Local(_) => Err(CliError::Usage(format!(
                "journal {command} talks to a server; pass --server URL or run journal config set server URL (the local database needs no account)"
            ))),
        }
    }

    fn local_only(&self, command: &str) -> Result<&Path> {
        match &self.mode {
            Mode::Local(path) => Ok(path),
            Mode::Remote(_) => Err(CliError::Usage(format!(
                "journal {command} works on a database file only; drop --server (or use --local) and pass --database PATH"
            ))),
        }
    }

    async fn backend(&mut self) -> Result<Backend> {
        match &self.mode {
            Mode::Local(path) => {
                let (local, changed) = Local::open(path, &mut self.config).await?;
                if changed {
                    self.save_config()?;
                }
                Ok(Backend::Local(local))
            }
            Mode::Remote(url) => {
                let token = self.config.session_for(url).map(|s| s.token.clone());
                Ok(Backend::Remote(Remote::new(url, token)?))
            }
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
    let server = cli
        .server
        .clone()
        .filter(|s| !s.trim().is_empty())
        .map(|s| normalise_server(&s));
    let mode = if cli.local {
        Mode::Local(database_path(&cli)?)
    } else if let Some(url) = server {
        Mode::Remote(url)
    } else if cli.database.is_some() {
        Mode::Local(database_path(&cli)?)
    } else if let Some(url) = config.server.clone() {
        Mode::Remote(url)
    } else {
        Mode::Local(database_path(&cli)?)
    };
    let mut ctx = Ctx {
        json: cli.json,
        quiet: cli.quiet,
        config,
        config_path,
        mode,
    };
    match cli.command {
        Command::Completions { .. } => Ok(()),
        Command::Config { action } => config_command(&mut ctx, action),
        Command::Admin { action } => admin(&ctx, action).await,
        Command::Register {
            full_name,
            nickname,
            email,
            password_stdin,
        } => register(&mut ctx, full_name, nickname, email, password_stdin).await,
        Command::Login {
            email,
            password_stdin,
        } => login(&mut ctx, email, password_stdin).await,
        Command::Logout => logout(&mut ctx).await,
        Command::Passwd { password_stdin } => passwd(&mut ctx, password_stdin).await,
        Command::New {
            text,
            title,
            public,
            edit,
        } => {
            let b = ctx.backend().await?;
            new_entry(&ctx, &b, text, title, public, edit).await
        }
        Command::List { user, paging } => {
            let b = ctx.backend().await?;
            let user = user.as_deref();
            list(&ctx, &paging, |page| b.user_entries(user, page)).await
        }
        Command::Public { paging } => {
            let b = ctx.backend().await?;
            list(&ctx, &paging, |page| b.public_entries(page)).await
        }
        Command::Search { query, paging } => {
            let b = ctx.backend().await?;
            let q = query.join(" ");
            list(&ctx, &paging, |page| b.search(&q, page)).await
        }
        Command::Show { id } => {
            let b = ctx.backend().await?;
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
            let b = ctx.backend().await?;
            let visibility = match (public, private) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            };
            edit(&ctx, &b, &id, title, content, visibility).await
        }
        Command::Rm { id, yes } => {
            let b = ctx.backend().await?;
            remove(&ctx, &b, &id, yes).await
        }
        Command::Profile { action } => {
            let b = ctx.backend().await?;
            match action {
                None => {
                    let p = b.profile().await?;
                    show_profile(&ctx, &p);
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
                    if let (Backend::Remote(_), Some(new_email), Some(session)) =
                        (&b, &request.email, ctx.config.session.as_mut())
                    {
                        session.email = new_email.trim().to_lowercase();
                        ctx.save_config()?;
                    }
                    ctx.note("profile updated");
                    show_profile(&ctx, &p);
                    Ok(())
                }
            }
        }
        Command::DeleteAccount { confirm } => delete_account(&mut ctx, confirm).await,
        Command::Export { format, output } => {
            let b = ctx.backend().await?;
            export(&ctx, &b, format, output.as_deref()).await
        }
        Command::Import { file } => {
            let b = ctx.backend().await?;
            import(&ctx, &b, &file).await
        }
    }
}

fn database_path(cli: &Cli) -> Result<PathBuf> {
    match &cli.database {
        Some(path) => Ok(path.clone()),
        None => config::default_database_path(),
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
async fn all_pages<F, Fut>(ctx: &Ctx, what: &str, fetch: F) -> Result<Vec<Entry>>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    let mut entries = Vec::new();
    let mut number = 1;
    let mut bar = None;
    loop {
        let page = fetch(page_request(number, 100)?).await?;
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

async fn list<F, Fut>(ctx: &Ctx, paging: &Paging, fetch: F) -> Result<()>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    let (entries, total, page, pages, limit) = if paging.all {
        let entries = all_pages(ctx, "reading", fetch).await?;
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
    let entries = all_pages(ctx, "exporting", |page| b.user_entries(None, page)).await?;
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
            std::fs::write(path, format!("{}\n", text.trim_end()))
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

/// Splits entries into runs of at most `MAX_IMPORT_BATCH` entries and about `bytes` of
/// text each (a single larger entry goes alone).
fn import_batches(
    entries: &[journal_core::ImportedEntry],
    bytes: usize,
) -> Vec<&[journal_core::ImportedEntry]> {
    let mut batches = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, e) in entries.iter().enumerate() {
        let len = e.request.title.as_deref().map_or(0, str::len)
            + e.request.content.as_deref().map_or(0, str::len)
            + 128;
        if i > start && (size + len > bytes || i - start == journal_core::MAX_IMPORT_BATCH) {
            batches.push(&entries[start..i]);
            (start, size) = (i, 0);
        }
        size += len;
    }
    if start < entries.len() {
        batches.push(&entries[start..]);
    }
    batches
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
    let created = match b {
        Backend::Local(local) => {
            let created = local.import_entries(entries).await?;
            bar.inc(created.len() as u64);
            created
        }
        Backend::Remote(remote) => {
            // Batches small enough for the server's body limit (1 MiB by default); each
            // batch is all or nothing on the server.
            let mut created = Vec::with_capacity(entries.len());
            for batch in import_batches(&entries, 256 * 1024) {
                created.extend(remote.import_batch(batch).await?);
                bar.inc(batch.len() as u64);
            }
            created
        }
    };
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
    ctx: &mut Ctx,
    full_name: Option<String>,
    nickname: Option<String>,
    email: Option<String>,
    password_stdin: bool,
) -> Result<()> {
    let server = ctx.remote_only("register")?.to_owned();
    let email = required(email, "--email", "E-mail: ")?;
    let full_name = required(full_name, "--full-name", "Full name: ")?;
    let nickname =
        nickname.unwrap_or_else(|| email.split('@').next().unwrap_or(email.as_str()).to_owned());
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => lines.next("the password")?,
        None => new_password_from_terminal()?,
    };
    let remote = Remote::new(&server, None)?;
    let user_id = remote
        .register(&RegisterRequest {
            full_name: Some(full_name),
            nickname: Some(nickname),
            email: Some(email.clone()),
            password: Some(password.clone()),
        })
        .await?;
    let token = remote
        .login(&LoginRequest {
            email: Some(email.clone()),
            password: Some(password),
        })
        .await?;
    remember_login(ctx, &server, token, &email)?;
    if ctx.json {
        print_json(&json!({ "userId": user_id, "server": server }));
    } else {
        ctx.note(format!("registered and logged in to {server} as {email}"));
        print(&user_id.to_string());
    }
    Ok(())
}

fn remember_login(ctx: &mut Ctx, server: &str, token: String, email: &str) -> Result<()> {
    ctx.config.session = Some(Session {
        server: server.to_owned(),
        token,
        email: email.trim().to_lowercase(),
    });
    ctx.save_config()
}

async fn login(ctx: &mut Ctx, email: Option<String>, password_stdin: bool) -> Result<()> {
    let server = ctx.remote_only("login")?.to_owned();
    let email = required(email, "--email", "E-mail: ")?;
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => lines.next("the password")?,
        None => text::ask_password("Password: ")?,
    };
    let remote = Remote::new(&server, None)?;
    let token = remote
        .login(&LoginRequest {
            email: Some(email.clone()),
            password: Some(password),
        })
        .await?;
    remember_login(ctx, &server, token, &email)?;
    if ctx.json {
        print_json(&json!({ "loggedIn": true, "server": server, "email": email }));
    } else if !ctx.quiet {
        print(&format!("logged in to {server} as {email}"));
    }
    Ok(())
}

async fn logout(ctx: &mut Ctx) -> Result<()> {
    let server = ctx.remote_only("logout")?.to_owned();
    let Some(session) = ctx.config.session_for(&server).cloned() else {
        return Err(CliError::Auth(format!(
            "not logged in to {server}; run journal login"
        )));
    };
    let remote = Remote::new(&server, Some(session.token))?;
    // Forget the token even when the server already refuses it.
    let revoked = remote.logout().await;
    ctx.config.session = None;
    ctx.save_config()?;
    match revoked {
        Ok(()) | Err(CliError::Auth(_)) => {}
        Err(e) => return Err(e),
    }
    if ctx.json {
        print_json(&json!({ "loggedOut": true, "server": server }));
    } else if !ctx.quiet {
        print(&format!("logged out of {server}"));
    }
    Ok(())
}

async fn passwd(ctx: &mut Ctx, password_stdin: bool) -> Result<()> {
    let mut lines = stdin_or_terminal(password_stdin)?;
    match &ctx.mode {
        Mode::Local(_) => {
            let new = match &mut lines {
                Some(lines) => lines.next("the new password")?,
                None => new_password_from_terminal()?,
            };
            let b = ctx.backend().await?;
            let Backend::Local(local) = &b else {
                return Err(CliError::Other("expected the local database".into()));
            };
            local.set_password(&new).await?;
            let email = b.profile().await?.email;
            if ctx.json {
                print_json(&json!({ "passwordChanged": true, "email": email }));
            } else if !ctx.quiet {
                print(&format!(
                    "password set; when this database is served, log in as {email}"
                ));
            }
        }
        Mode::Remote(server) => {
            let server = server.clone();
            let (current, new) = match &mut lines {
                Some(lines) => (
                    lines.next("the current password")?,
                    lines.next("the new password")?,
                ),
                None => (
                    text::ask_password("Current password: ")?,
                    new_password_from_terminal()?,
                ),
            };
            let session = ctx.config.session_for(&server).cloned().ok_or_else(|| {
                CliError::Auth(format!("not logged in to {server}; run journal login"))
            })?;
            let remote = Remote::new(&server, Some(session.token.clone()))?;
            remote
                .change_password(&ChangePasswordRequest {
                    password: Some(current),
                    new_password: Some(new.clone()),
                })
                .await?;
            // The old token stopped working; log in again with the new password.
            let token = remote
                .login(&LoginRequest {
                    email: Some(session.email.clone()),
                    password: Some(new),
                })
                .await?;
            remember_login(ctx, &server, token, &session.email)?;
            if ctx.json {
                print_json(&json!({ "passwordChanged": true, "email": session.email }));
            } else if !ctx.quiet {
                print("password changed; still logged in");
            }
        }
    }
    Ok(())
}

async fn delete_account(ctx: &mut Ctx, confirm: Option<String>) -> Result<()> {
    let b = ctx.backend().await?;
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
    match &b {
        Backend::Remote(_) => ctx.config.session = None,
        Backend::Local(_) => {
            let id = profile.id.to_string();
            ctx.config.owners.retain(|_, owner| *owner != id);
        }
    }
    ctx.save_config()?;
    if ctx.json {
        print_json(&json!({ "deleted": profile.id }));
    } else if !ctx.quiet {
        print(&format!("deleted the account {}", profile.email));
    }
    Ok(())
}

async fn admin(ctx: &Ctx, action: AdminAction) -> Result<()> {
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
    let path = ctx.local_only("admin")?;
    backend::set_role(&path.display().to_string(), &email, role).await?;
    if ctx.json {
        print_json(&json!({ "email": email.trim().to_lowercase(), "role": role.as_str() }));
    } else if !ctx.quiet {
        print(&format!("{} is now {}", email.trim(), role.as_str()));
    }
    Ok(())
}

fn config_command(ctx: &mut Ctx, action: ConfigAction) -> Result<()> {
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
            let session = ctx
                .config
                .session
                .as_ref()
                .map(|s| json!({ "server": s.server, "email": s.email, "token": "(set)" }));
            let value = json!({
                "file": ctx.config_path,
                "server": ctx.config.server,
                "session": session,
                "owners": ctx.config.owners,
            });
            if ctx.json {
                print_json(&value);
            } else {
                print(&format!(
                    "file:    {}\nserver:  {}\nlogin:   {}",
                    ctx.config_path.display(),
                    ctx.config.server.as_deref().unwrap_or("(none: local mode)"),
                    ctx.config
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
            Remote::new(&url, None)?;
            ctx.config.server = Some(url);
            ctx.save_config()?;
            ctx.note(format!("saved to {}", ctx.config_path.display()));
            Ok(())
        }
        ConfigAction::Unset { key } => {
            check_key(&key)?;
            ctx.config.server = None;
            ctx.save_config()?;
            ctx.note(format!("saved to {}", ctx.config_path.display()));
            Ok(())
        }
    }
}
