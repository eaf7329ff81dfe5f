//! The commands, one file each, written once against [`Backend`]: each holds its
//! arguments (a `#[derive(Args)]` struct, named for the command) and their `run`.
//! What several share lives in files named for it: reading and printing lists
//! ([`pages`]), what an id prefix names (`resolve`), asking the user (`prompt`), the
//! entry rules (`rules`), confirming a step (`confirm`).

use crate::backend::Backend;
use crate::error::Result;
use crate::{Cli, Command};

pub mod account;
pub mod admin;
pub mod attach;
pub mod attachments;
pub mod completions;
pub mod config;
mod confirm;
pub mod conflicts;
pub mod detach;
pub mod diff;
pub mod edit;
pub mod get;
pub mod history;
pub mod list;
pub mod login;
pub mod new;
pub mod on_this_day;
pub mod pages;
pub mod profile;
mod prompt;
mod resolve;
pub mod restore;
pub mod rm;
mod rules;
pub mod search;
pub mod security_log;
pub mod show;
pub mod star;
pub mod sync;
pub mod tags;
pub mod token;
pub mod transfer;
pub mod trash;
pub mod two_factor;

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

/// A quiet context, for reading lists on the way to something else.
const QUIET: Ctx = Ctx {
    json: false,
    quiet: true,
};

/// Runs a parsed command line.
pub async fn run(mut cli: Cli) -> Result<()> {
    cli.take_options_from_tag_changes()?;
    if let Command::Completions(completions) = &cli.command {
        completions.run();
        return Ok(());
    }
    let config_path = match &cli.config {
        Some(path) => path.clone(),
        None => crate::config::default_config_path()?,
    };
    let config = crate::config::Config::load(&config_path)?;
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
    let changes_entries = cli.command.changes_entries();
    let done = match cli.command {
        Command::Completions(_) => Ok(()),
        Command::Config(c) => c.run(ctx, b),
        Command::Admin(c) => c.run(ctx, b, database.is_some()).await,
        Command::Token(c) => c.run(ctx, b).await,
        Command::TwoFactor(c) => c.run(ctx, b).await,
        Command::SecurityLog(c) => c.run(ctx, b).await,
        Command::Register(c) => c.run(ctx, b).await,
        Command::Login(c) => c.run(ctx, b).await,
        Command::Sync(c) => c.run(ctx, b).await,
        Command::Conflicts(c) => c.run(ctx, b).await,
        Command::Resolve(c) => c.run(ctx, b).await,
        Command::Logout(c) => c.run(ctx, b).await,
        Command::Passwd(c) => c.run(ctx, b).await,
        Command::New(c) => c.run(ctx, b).await,
        Command::List(c) => c.run(ctx, b).await,
        Command::Public(c) => c.run(ctx, b).await,
        Command::Search(c) => c.run(ctx, b).await,
        Command::Tags(c) => c.run(ctx, b).await,
        Command::OnThisDay(c) => c.run(ctx, b).await,
        Command::Star(c) => c.run(ctx, b).await,
        Command::Unstar(c) => c.run(ctx, b).await,
        Command::Tag(c) => c.run(ctx, b).await,
        Command::Show(c) => c.run(ctx, b).await,
        Command::Edit(c) => c.run(ctx, b).await,
        Command::Rm(c) => c.run(ctx, b).await,
        Command::History(c) => c.run(ctx, b).await,
        Command::Diff(c) => c.run(ctx, b).await,
        Command::Restore(c) => c.run(ctx, b).await,
        Command::Attach(c) => c.run(ctx, b).await,
        Command::Attachments(c) => c.run(ctx, b).await,
        Command::Get(c) => c.run(ctx, b).await,
        Command::Detach(c) => c.run(ctx, b).await,
        Command::Trash(c) => c.run(ctx, b).await,
        Command::Undelete(c) => c.run(ctx, b).await,
        Command::Purge(c) => c.run(ctx, b).await,
        Command::Profile(c) => c.run(ctx, b).await,
        Command::DeleteAccount(c) => c.run(ctx, b).await,
        Command::Export(c) => c.run(ctx, b).await,
        Command::Import(c) => c.run(ctx, b).await,
    };
    if done.is_ok() && changes_entries {
        sync::after_change(ctx, b).await;
    }
    done
}
