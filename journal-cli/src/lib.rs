//! # journal-cli
//!
//! The `journal` command: a terminal journal on a local SQLite file (the default), or on
//! a journal-server with `--server URL`. The commands are written once against
//! [`backend::Backend`]; errors are one [`error::CliError`] mapped once to exit codes.

pub mod backend;
pub mod commands;
pub mod config;
pub mod error;
pub mod output;
mod private_files;
pub mod short_id;
pub mod tags;
pub mod text;
pub mod transfer;
pub mod when;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use error::{CliError, Result};

/// A terminal journal, local by default, remote with --server.
#[derive(Debug, Parser)]
#[command(
    name = "journal",
    version,
    about = "A terminal journal: local by default, remote with --server",
    after_help = "Examples:\n  journal new \"Walked to the lake\"\n  journal list --all\n  journal --server http://127.0.0.1:5000 login --email me@example.com\n\nOn a server, a token in JOURNAL_TOKEN (journal token create makes one) is used instead of\nthe saved login.\n\nExit codes: 0 ok, 1 other failure, 2 usage or invalid input, 3 not found or forbidden,\n4 authentication, 5 cannot reach the server."
)]
pub struct Cli {
    /// Print machine-readable JSON instead of tables and messages.
    #[arg(long, global = true)]
    pub json: bool,

    /// Print only the results: no notes, confirmations or progress bars.
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// The local SQLite database file [default: the platform data directory]. The
    /// server's variable `JOURNAL_DATABASE_URL` is taken too.
    #[arg(long, global = true, env = "JOURNAL_DATABASE", value_name = "PATH")]
    pub database: Option<PathBuf>,

    /// Use the journal-server at this URL instead of the local database.
    #[arg(long, global = true, env = "JOURNAL_SERVER", value_name = "URL")]
    pub server: Option<String>,

    /// Use the local database even when a server is configured.
    #[arg(long, global = true, conflicts_with = "server")]
    pub local: bool,

    /// On a local database: act as the account with this e-mail address (created if
    /// there is none). Needed on a database that already has other accounts.
    #[arg(long = "as", global = true, value_name = "EMAIL")]
    pub as_email: Option<String>,

    /// The config file [default: the platform config directory].
    #[arg(long, global = true, env = "JOURNAL_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands, each defined in its file under [`commands`]; the doc comment of each
/// variant is the command's one-line help.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a new entry; prints its id.
    New(commands::new::New),
    /// List your entries (or another user's public ones with --user).
    List(commands::list::List),
    /// List the public entries of everyone.
    Public(commands::list::Public),
    /// Search your entries (every word must match a word or its start).
    Search(commands::search::Search),
    /// List your tags with how many entries have each, most used first.
    Tags(commands::tags::Tags),
    /// Your entries dated on this day of the year (today by default), in every year.
    #[command(name = "on-this-day")]
    OnThisDay(commands::on_this_day::OnThisDay),
    /// Star an entry.
    Star(commands::star::Star),
    /// Take the star off an entry.
    Unstar(commands::star::Unstar),
    /// Add (+tag) or remove (-tag) tags of an entry.
    Tag(commands::tags::Tag),
    /// Show one entry in full.
    Show(commands::show::Show),
    /// Change an entry: in the editor, or with flags.
    Edit(commands::edit::Edit),
    /// Move an entry to the trash (journal undelete brings it back).
    Rm(commands::rm::Rm),
    /// An entry's revisions, newest first, with what each changed.
    History(commands::history::History),
    /// What changed between two revisions of an entry (the last change by default).
    Diff(commands::diff::Diff),
    /// Make an old revision's state the entry's current one (as a new revision).
    Restore(commands::restore::Restore),
    /// Attach files (photos, recordings, PDF, text) to an entry; one line for each.
    Attach(commands::attach::Attach),
    /// List an entry's attachments.
    Attachments(commands::attachments::ListAttachments),
    /// Write an attachment's bytes to a file or standard output.
    Get(commands::get::Get),
    /// Delete an attachment.
    Detach(commands::detach::Detach),
    /// List the entries in the trash, newest deletion first.
    Trash(commands::trash::Trash),
    /// Take an entry out of the trash, back where it was.
    Undelete(commands::trash::Undelete),
    /// Remove an entry of the trash, with its history, for good.
    Purge(commands::trash::Purge),
    /// Show your profile, or change it with `profile set`.
    Profile(commands::profile::Profile),
    /// Set your password (in local mode, so the owner can log in when the file is served).
    Passwd(commands::account::Passwd),
    /// Create an account on the server and log in.
    Register(commands::login::Register),
    /// Log in to the server and remember the token.
    Login(commands::login::Login),
    /// Log out: revoke the token on the server and forget it.
    Logout(commands::login::Logout),
    /// Keep this local journal and your account on a server alike: send what changed
    /// here, bring what changed there, merge what changed on both.
    Sync(commands::sync::Sync),
    /// Entries whose text a sync could not merge: each kept one side's, the other is in
    /// its history.
    Conflicts(commands::conflicts::Conflicts),
    /// Settle an entry's sync conflict: keep its text, or take the one set aside.
    Resolve(commands::conflicts::Resolve),
    /// Delete your account and all your entries.
    DeleteAccount(commands::account::DeleteAccount),
    /// Write every entry of yours to a file or standard output.
    Export(commands::transfer::Export),
    /// Import entries: our JSON export, jrnl's, Day One's, or a folder of Markdown files.
    Import(commands::transfer::Import),
    /// Personal access tokens, for scripts: make, list and revoke them.
    Token(commands::token::Token),
    /// Your security log: logins (with their address and second factor), attempts the
    /// failed-login throttle refused, the second factor turned on or off, access tokens
    /// made or revoked, password and e-mail changes; the last 90 days, newest first.
    #[command(name = "security-log")]
    SecurityLog(commands::security_log::SecurityLog),
    /// The second factor: a code from an authenticator app at login.
    #[command(name = "2fa")]
    TwoFactor(commands::two_factor::TwoFactor),
    /// Administer a server: its accounts and invitations (as an administrator, with
    /// --server), or its database directly (roles, the first administrator, moving to
    /// PostgreSQL).
    Admin(commands::admin::Admin),
    /// Show or change the config file.
    Config(commands::config::Config),
    /// Print shell completions.
    Completions(commands::completions::Completions),
}

impl Command {
    /// Whether the command can change the journal's entries (what `sync.auto` syncs
    /// after).
    pub fn changes_entries(&self) -> bool {
        matches!(
            self,
            Command::New(_)
                | Command::Edit(_)
                | Command::Rm(_)
                | Command::Star(_)
                | Command::Unstar(_)
                | Command::Tag(_)
                | Command::Restore(_)
                | Command::Attach(_)
                | Command::Detach(_)
                | Command::Undelete(_)
                | Command::Purge(_)
                | Command::Import(_)
                | Command::Resolve(_)
        )
    }
}

/// Parses the command line and runs it; returns the process exit code.
pub fn main_exit_code() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                error::exit::USAGE
            } else {
                0
            };
            let _ = e.print();
            return code;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return error::exit::OTHER;
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(()) => error::exit::OK,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
