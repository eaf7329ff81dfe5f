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
pub mod tags;
pub mod text;
pub mod transfer;
pub mod when;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

/// Page options shared by the list commands.
#[derive(Debug, Clone, Args)]
pub struct Paging {
    /// The page to show, from 1.
    #[arg(long, default_value_t = 1)]
    pub page: i64,
    /// Entries per page (1 to 100).
    #[arg(long, default_value_t = 10)]
    pub limit: i64,
    /// Walk every page and show all entries.
    #[arg(long, conflicts_with = "page")]
    pub all: bool,
}

/// Which entries a list shows: dates, tags, star, how many.
#[derive(Debug, Clone, Default, Args)]
pub struct Filters {
    /// Only entries dated on or after this local day: 2024-01-02, yesterday, "last monday"…
    #[arg(long, value_name = "WHEN")]
    pub from: Option<String>,
    /// Only entries dated on or before this local day.
    #[arg(long, value_name = "WHEN")]
    pub to: Option<String>,
    /// Only entries dated on this local day.
    #[arg(long, value_name = "WHEN", conflicts_with_all = ["from", "to"])]
    pub on: Option<String>,
    /// Only entries with this tag; repeat it for entries with every one.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only starred entries.
    #[arg(long)]
    pub starred: bool,
    /// Only the newest N entries.
    #[arg(short = 'n', value_name = "N", conflicts_with_all = ["page", "limit", "all"])]
    pub newest: Option<u32>,
}

/// Export formats.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// Our JSON export: lossless, `journal import` reads it back.
    Json,
    /// Markdown in one document, for reading and printing.
    Markdown,
    /// A folder (--output DIR) of Markdown files with YAML front matter, one per entry:
    /// lossless, `journal import DIR` reads it back.
    MarkdownDir,
    /// jrnl's JSON export (`jrnl --format json`).
    Jrnl,
    /// Plain text in jrnl's journal format, which `jrnl --import` reads.
    Txt,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a new entry; prints its id.
    #[command(
        after_help = "Examples:\n  journal new \"Walked to the lake\"\n  journal new --title \"Monday\" --public Sunny and warm.\n  printf 'Title line\\n\\nbody\\n' | journal new\n  journal new            # opens $VISUAL / $EDITOR: title on the first line, body below\n  journal new --date \"yesterday 18:00\" --tag walk --star \"Walked to the @lake\"\n\n@word and #word in the text become tags too (journal config set inline_tags false\nturns that off)."
    )]
    New {
        /// The text (the first line is the title unless --title is given).
        text: Vec<String>,
        /// The title.
        #[arg(long, short)]
        title: Option<String>,
        /// Make the entry public.
        #[arg(long)]
        public: bool,
        /// Open the editor even when standard input is piped.
        #[arg(long, short)]
        edit: bool,
        /// A tag; repeat for several.
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// Star the entry.
        #[arg(long)]
        star: bool,
        /// When the entry is about, in local time [default: now]: 2024-01-02 09:30,
        /// 2024-01-02, yesterday, "last monday 9am", "3 days ago", monday.
        #[arg(long, value_name = "WHEN")]
        date: Option<String>,
    },
    /// List your entries (or another user's public ones with --user).
    #[command(
        after_help = "Examples:\n  journal list\n  journal list --page 2 --limit 20\n  journal list --all --json\n  journal list --from \"last monday\" --tag work --starred\n  journal list --on yesterday\n  journal list -n 3"
    )]
    List {
        /// A user: id, id prefix (8 characters or more) or nickname; lists that
        /// user's public entries.
        #[arg(long)]
        user: Option<String>,
        #[command(flatten)]
        filters: Filters,
        #[command(flatten)]
        paging: Paging,
    },
    /// List the public entries of everyone.
    #[command(after_help = "Examples:\n  journal public --limit 5\n  journal public --tag poetry")]
    Public {
        #[command(flatten)]
        filters: Filters,
        #[command(flatten)]
        paging: Paging,
    },
    /// Search your entries (every word must match a word or its start).
    #[command(
        after_help = "Examples:\n  journal search lake walk\n  journal search lake --from 2024-01-01 --to 2024-06-30 --tag walk\n  journal search lake -n 5      # the newest 5 matches"
    )]
    Search {
        /// The words to look for.
        #[arg(required = true)]
        query: Vec<String>,
        #[command(flatten)]
        filters: Filters,
        #[command(flatten)]
        paging: Paging,
    },
    /// List your tags with how many entries have each, most used first.
    #[command(after_help = "Example:\n  journal tags")]
    Tags,
    /// Your entries dated on this day of the year (today by default), in every year.
    #[command(
        name = "on-this-day",
        after_help = "Examples:\n  journal on-this-day\n  journal on-this-day --date 12-25"
    )]
    OnThisDay {
        /// The day, MM-DD [default: today, local time].
        #[arg(long, value_name = "MM-DD")]
        date: Option<String>,
        #[command(flatten)]
        paging: Paging,
    },
    /// Star an entry.
    #[command(after_help = "Example:\n  journal star 0190c3e2")]
    Star {
        /// The entry's id, or its first 8 or more characters.
        id: String,
    },
    /// Take the star off an entry.
    #[command(after_help = "Example:\n  journal unstar 0190c3e2")]
    Unstar {
        /// The entry's id, or its first 8 or more characters.
        id: String,
    },
    /// Add (+tag) or remove (-tag) tags of an entry.
    #[command(
        after_help = "Examples:\n  journal tag 0190c3e2 +work +lake -draft\n  journal tag 0190c3e2 travel        # a tag without + or - is added\n  journal tag 0190c3e2 -q --quiet    # -q removes the tag q; --quiet is the option"
    )]
    Tag {
        /// The entry's id, or its first 8 or more characters.
        id: String,
        /// +TAG to add, -TAG to remove.
        #[arg(required = true, allow_hyphen_values = true, value_name = "+TAG|-TAG")]
        changes: Vec<String>,
    },
    /// Show one entry in full.
    #[command(after_help = "Example:\n  journal show 0190c3e2-5b7a-7d41-9a1e-3f0d2c4b5a69")]
    Show {
        /// The entry's id, or its first 8 or more characters.
        id: String,
    },
    /// Change an entry: in the editor, or with flags.
    #[command(
        after_help = "Examples:\n  journal edit ID                # opens the editor on the date, tags and text\n  journal edit ID --title \"Better title\" --public\n  journal edit ID --date \"2024-01-02 09:30\""
    )]
    Edit {
        /// The entry's id, or its first 8 or more characters.
        id: String,
        /// New title.
        #[arg(long, short)]
        title: Option<String>,
        /// New content.
        #[arg(long, short)]
        content: Option<String>,
        /// Make the entry public.
        #[arg(long, conflicts_with = "private")]
        public: bool,
        /// Make the entry private.
        #[arg(long)]
        private: bool,
        /// New date, in local time: 2024-01-02 09:30, yesterday, "last monday 9am"…
        #[arg(long, value_name = "WHEN")]
        date: Option<String>,
    },
    /// Delete an entry.
    #[command(after_help = "Example:\n  journal rm ID --yes")]
    Rm {
        /// The entry's id, or its first 8 or more characters.
        id: String,
        /// Do not ask for confirmation (needed when not on a terminal).
        #[arg(long, short)]
        yes: bool,
    },
    /// Show your profile, or change it with `profile set`.
    #[command(
        after_help = "Examples:\n  journal profile\n  journal profile set --nickname ada --picture me.png"
    )]
    Profile {
        #[command(subcommand)]
        action: Option<ProfileAction>,
    },
    /// Set your password (in local mode, so the owner can log in when the file is served).
    #[command(
        after_help = "Examples:\n  journal passwd\n  printf 'old\\nnew\\n' | journal --server URL passwd --password-stdin"
    )]
    Passwd {
        /// Read the passwords from standard input, one per line (remote: current, then new).
        #[arg(long)]
        password_stdin: bool,
        /// Keep your personal access tokens working. By default a password change ends
        /// every login session and revokes every access token.
        #[arg(long)]
        keep_access_tokens: bool,
    },
    /// Create an account on the server and log in.
    #[command(
        after_help = "Example:\n  journal --server http://127.0.0.1:5000 register --full-name \"Ada Lovelace\" --email ada@example.com"
    )]
    Register {
        /// Your full name.
        #[arg(long)]
        full_name: Option<String>,
        /// Your display name [default: the part of the e-mail before @].
        #[arg(long)]
        nickname: Option<String>,
        /// Your e-mail address, used to log in.
        #[arg(long)]
        email: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
        /// An invitation code, on a server where registration is by invitation (asked
        /// for on a terminal when the server needs one).
        #[arg(long, value_name = "CODE")]
        invite: Option<String>,
    },
    /// Log in to the server and remember the token.
    #[command(
        after_help = "Examples:\n  journal --server http://127.0.0.1:5000 login --email ada@example.com\n  journal login --email ada@example.com --totp 123456   # an account with a second factor\n\nOn a terminal the two-factor code is asked for when the account needs one."
    )]
    Login {
        /// Your e-mail address.
        #[arg(long)]
        email: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
        /// The two-factor code from your authenticator app (or a recovery code), for an
        /// account with a second factor.
        #[arg(long, value_name = "CODE")]
        totp: Option<String>,
    },
    /// Log out: revoke the token on the server and forget it.
    #[command(after_help = "Example:\n  journal logout")]
    Logout,
    /// Delete your account and all your entries.
    #[command(
        after_help = "Examples:\n  journal delete-account                # asks you to type your e-mail\n  journal delete-account --confirm me@example.com"
    )]
    DeleteAccount {
        /// Your e-mail address, to confirm without a question.
        #[arg(long, value_name = "EMAIL")]
        confirm: Option<String>,
    },
    /// Write every entry of yours to a file or standard output.
    #[command(
        after_help = "Examples:\n  journal export --output journal.json\n  journal export --format markdown > journal.md\n  journal export --format markdown-dir --output notes/\n  journal export --format jrnl --output jrnl.json\n  journal export --format txt > journal.txt"
    )]
    Export {
        /// The format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
        format: ExportFormat,
        /// The file to write [default: standard output]; the folder for markdown-dir.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Import entries: our JSON export, jrnl's, Day One's, or a folder of Markdown files.
    #[command(
        after_help = "Examples:\n  journal import journal.json\n  jrnl --format json > jrnl.json && journal import jrnl.json\n  journal import Journal.json          # Day One's export, unzipped\n  journal import notes/                # Markdown files, with or without front matter"
    )]
    Import {
        /// The file or folder to read (`-` for standard input).
        file: PathBuf,
    },
    /// Personal access tokens, for scripts: make, list and revoke them.
    #[command(
        after_help = "Examples:\n  journal token create backup --expires 90\n  JOURNAL_TOKEN=jpat_... journal export --output backup.json\n  journal token list\n  journal token revoke 0190c3e2"
    )]
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
    /// Your security log: logins (with their address and second factor), attempts the
    /// failed-login throttle refused, the second factor turned on or off, access tokens
    /// made or revoked, password and e-mail changes; the last 90 days, newest first.
    #[command(
        name = "security-log",
        after_help = "Examples:\n  journal security-log\n  journal security-log --page 2 --limit 50\n  journal --json security-log --all"
    )]
    SecurityLog {
        #[command(flatten)]
        paging: Paging,
    },
    /// The second factor: a code from an authenticator app at login.
    #[command(
        name = "2fa",
        after_help = "Examples:\n  journal 2fa enable           # shows a QR code, asks for a code, prints recovery codes\n  journal 2fa disable"
    )]
    TwoFactor {
        #[command(subcommand)]
        action: TwoFactorAction,
    },
    /// Administer a server: its accounts and invitations (as an administrator, with
    /// --server), or its database directly (roles, the first administrator, moving to
    /// PostgreSQL).
    #[command(
        after_help = "Examples:\n  journal admin create-user --database /srv/journal.db --email ada@example.com --admin\n  journal --database /srv/journal.db admin promote ada@example.com\n  journal --database postgres://journal@db/journal admin demote ada@example.com\n  journal admin migrate --from sqlite:/srv/journal.db --to postgres://journal@db/journal\n  journal --server https://journal.example.com admin users\n  journal --server https://journal.example.com admin disable bob@example.com\n  journal --server https://journal.example.com admin invite --expires 3"
    )]
    Admin {
        #[command(subcommand)]
        action: AdminAction,
    },
    /// Show or change the config file.
    #[command(
        after_help = "Examples:\n  journal config show\n  journal config set server http://127.0.0.1:5000\n  journal config unset server\n  journal config set inline_tags false   # @word and #word stay text"
    )]
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Print shell completions.
    #[command(
        after_help = "Example:\n  journal completions bash > ~/.local/share/bash-completion/completions/journal"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `journal profile …`
#[derive(Debug, Subcommand)]
pub enum ProfileAction {
    /// Change fields of your profile.
    #[command(
        after_help = "Example:\n  journal profile set --full-name \"Ada King\" --private --picture me.png"
    )]
    Set {
        /// New full name.
        #[arg(long)]
        full_name: Option<String>,
        /// New nickname.
        #[arg(long)]
        nickname: Option<String>,
        /// New e-mail address.
        #[arg(long)]
        email: Option<String>,
        /// Hide your entries from everyone else.
        #[arg(long, conflicts_with = "not_private")]
        private: bool,
        /// Show your public entries to others.
        #[arg(long)]
        not_private: bool,
        /// A PNG, JPEG, GIF or WebP picture (type read from the content).
        #[arg(long, value_name = "FILE", conflicts_with = "remove_picture")]
        picture: Option<PathBuf>,
        /// Remove the picture.
        #[arg(long)]
        remove_picture: bool,
    },
}

/// `journal token …`
#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Make a token; its secret is printed this once.
    #[command(
        after_help = "Examples:\n  journal token create backup\n  journal token create \"phone sync\" --expires 30\n  TOKEN=$(journal token create backup -q)"
    )]
    Create {
        /// What the token is for (1 to 100 characters), to tell it apart in the list.
        name: String,
        /// Days until it stops working (1 to 3650) [default: never].
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(i64).range(1..=3650))]
        expires: Option<i64>,
    },
    /// List your tokens (never their secrets).
    #[command(after_help = "Example:\n  journal token list --json")]
    List,
    /// Revoke a token: it stops working at once.
    #[command(after_help = "Example:\n  journal token revoke 0190c3e2")]
    Revoke {
        /// The token's id, or its first 8 or more characters.
        id: String,
    },
}

/// `journal 2fa …`
#[derive(Debug, Subcommand)]
pub enum TwoFactorAction {
    /// Turn the second factor on: shows the secret as a QR code for an authenticator
    /// app, asks for a code from it, and prints recovery codes once.
    #[command(
        after_help = "Examples:\n  journal 2fa enable\n\n  # Off a terminal, in two steps: the first prints the secret (--json: \"secret\",\n  # \"otpauthUrl\"), the second confirms a code from it.\n  journal 2fa enable --json\n  journal 2fa enable --code 123456"
    )]
    Enable {
        /// A code from the authenticator app, confirming the secret set up by an earlier
        /// `journal 2fa enable` (without this flag, a new secret is set up first).
        #[arg(long, value_name = "CODE")]
        code: Option<String>,
    },
    /// Turn the second factor off (needs the password and a code or a recovery code).
    #[command(
        after_help = "Examples:\n  journal 2fa disable\n  printf 'password\\n' | journal 2fa disable --password-stdin --code 123456"
    )]
    Disable {
        /// A code from the authenticator app, or a recovery code.
        #[arg(long, value_name = "CODE")]
        code: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
}

/// `journal admin …`
#[derive(Debug, Subcommand)]
pub enum AdminAction {
    /// List the server's accounts (as an administrator, with --server).
    #[command(
        after_help = "Example:\n  journal --server https://journal.example.com admin users --json"
    )]
    Users,
    /// Disable an account: it cannot log in, its tokens stop working and its entries
    /// leave the feed, until it is enabled again (as an administrator, with --server;
    /// or directly on the server's database with --database).
    #[command(after_help = "Example:\n  journal admin disable bob@example.com")]
    Disable {
        /// The user's e-mail address (or user id).
        email: String,
    },
    /// Enable a disabled account again (as an administrator, with --server; or
    /// directly on the server's database with --database, when no administrator can
    /// log in).
    #[command(
        after_help = "Examples:\n  journal admin enable bob@example.com\n  journal admin enable --database /srv/journal.db ada@example.com"
    )]
    Enable {
        /// The user's e-mail address (or user id).
        email: String,
    },
    /// Make an invitation to register, good for one account (as an administrator, with
    /// --server); prints its code.
    #[command(after_help = "Example:\n  journal admin invite --expires 3")]
    Invite {
        /// Days until it stops working (1 to 30) [default: 7].
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(i64).range(1..=30))]
        expires: Option<i64>,
    },
    /// List the invitations that still work, with who made them and until when (as an
    /// administrator, with --server; or on the server's database with --database).
    #[command(after_help = "Example:\n  journal admin invites --json")]
    Invites,
    /// Revoke an unused invitation by the id `journal admin invites` shows, or by its
    /// code (as an administrator, with --server; or on the server's database with
    /// --database).
    #[command(
        name = "revoke-invite",
        after_help = "Example:\n  journal admin revoke-invite 3f2a9c01b7de4a55"
    )]
    RevokeInvite {
        /// The invitation's id (or its code).
        id: String,
    },
    /// Create an account directly in a server's database (--database PATH or
    /// postgres://…), whatever its registration policy: how a closed or invite-only
    /// server gets its first administrator.
    #[command(
        name = "create-user",
        after_help = "Examples:\n  journal admin create-user --database /srv/journal.db --email ada@example.com --name \"Ada Lovelace\" --admin\n  printf 'a long passphrase\\n' | journal admin create-user --database /srv/journal.db --email bob@example.com --password-stdin"
    )]
    CreateUser {
        /// The e-mail address, used to log in.
        #[arg(long)]
        email: Option<String>,
        /// The full name [default: from the e-mail, ada.lovelace@… gives Ada Lovelace].
        #[arg(long, alias = "full-name")]
        name: Option<String>,
        /// The display name [default: the part of the e-mail before @].
        #[arg(long)]
        nickname: Option<String>,
        /// Make the account an administrator.
        #[arg(long)]
        admin: bool,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Turn off a user's second factor (they lost it, or a stolen login turned on one
    /// they never had) and sign them out everywhere: as an administrator with --server,
    /// or directly on the server's database (--database), for when no administrator can
    /// log in.
    #[command(
        name = "reset-2fa",
        after_help = "Examples:\n  journal --server https://journal.example.com admin reset-2fa bob@example.com\n  journal admin reset-2fa --database /srv/journal.db bob@example.com"
    )]
    ResetTwoFactor {
        /// The user's e-mail address (or user id, with --server).
        email: String,
    },
    /// Grant the admin role.
    Promote {
        /// The user's e-mail address.
        email: String,
    },
    /// Withdraw the admin role.
    Demote {
        /// The user's e-mail address.
        email: String,
    },
    /// Copy a whole journal (users, entries, tokens' secret and revocations) into an
    /// empty database, e.g. from SQLite to PostgreSQL. The source is not changed.
    #[command(
        after_help = "Example:\n  journal admin migrate --from sqlite:/srv/journal.db --to postgres://journal@db/journal"
    )]
    Migrate {
        /// The database to copy: `sqlite:PATH`, a file path, or `postgres://…`.
        #[arg(long, value_name = "URL")]
        from: String,
        /// The empty database to fill: `postgres://…`, `sqlite:PATH` or a file path.
        #[arg(long, value_name = "URL")]
        to: String,
    },
}

/// `journal config …`
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Show the config (the token is never shown).
    Show,
    /// Set a key: `server URL`, or `inline_tags true|false`.
    Set {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// Remove a key (`server`, `inline_tags`).
    Unset {
        /// The key.
        key: String,
    },
}

impl Cli {
    /// `journal tag ID +a -b` takes values that start with `-`, and with them any option
    /// written after the tags: the global options are taken back out of the tags here
    /// (`-q` stays the tag q: write `--quiet`). Another `--option` is refused, rather
    /// than read as the removal of a tag `-option`.
    pub fn take_options_from_tag_changes(&mut self) -> Result<()> {
        let Command::Tag { changes, .. } = &mut self.command else {
            return Ok(());
        };
        let mut kept = Vec::with_capacity(changes.len());
        let mut given = std::mem::take(changes).into_iter();
        while let Some(arg) = given.next() {
            if !arg.starts_with("--") {
                kept.push(arg);
                continue;
            }
            let (name, inline_value) = match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (arg.clone(), None),
            };
            let mut value = || {
                inline_value
                    .clone()
                    .or_else(|| given.next())
                    .ok_or_else(|| CliError::Usage(format!("{name} needs a value")))
            };
            match name.as_str() {
                "--json" => self.json = true,
                "--quiet" => self.quiet = true,
                "--local" => self.local = true,
                "--config" => self.config = Some(PathBuf::from(value()?)),
                "--database" => self.database = Some(PathBuf::from(value()?)),
                "--server" => self.server = Some(value()?),
                "--as" => self.as_email = Some(value()?),
                _ => {
                    return Err(CliError::Usage(format!(
                        "journal tag: {arg} is neither +TAG nor -TAG nor an option journal knows"
                    )));
                }
            }
        }
        if kept.is_empty() {
            return Err(CliError::Usage(
                "journal tag needs at least one +TAG or -TAG after the entry id".into(),
            ));
        }
        let Command::Tag { changes, .. } = &mut self.command else {
            return Ok(());
        };
        *changes = kept;
        Ok(())
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
