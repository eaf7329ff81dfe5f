//! `journal admin`: administer a server. Its accounts and invitations as an
//! administrator over HTTP (`--server`), or directly on its database (`--database`),
//! as the operator does when no administrator can log in; roles, the move to
//! PostgreSQL and moving attachment files only on the database and its stores.

use clap::{Args, Subcommand};
use journal_core::{AttachmentPlace, Role};
use serde_json::json;

use super::Ctx;
use super::login::NewAccount;
use crate::backend::{self, Backend};
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

mod invites;
mod move_files;
mod users;

/// `journal admin`: what to do.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal admin create-user --database /srv/journal.db --email ada@example.com --admin\n  journal --database /srv/journal.db admin promote ada@example.com\n  journal --database postgres://journal@db/journal admin demote ada@example.com\n  journal admin migrate --from sqlite:/srv/journal.db --to postgres://journal@db/journal\n  journal --server https://journal.example.com admin users\n  journal --server https://journal.example.com admin disable bob@example.com\n  journal --server https://journal.example.com admin invite --expires 3"
)]
pub struct Admin {
    /// What to do.
    #[command(subcommand)]
    pub action: AdminAction,
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
    /// Copy a whole journal (users, entries and the trash with their history,
    /// attachments and their files, tokens' secret and revocations) into an empty
    /// database, e.g. from SQLite to PostgreSQL. The source is not changed.
    #[command(
        after_help = "Examples:\n  journal admin migrate --from sqlite:/srv/journal.db --to postgres://journal@db/journal --attachments /srv/journal-files\n  journal admin migrate --from /srv/journal.db --to postgres://journal@db/journal --attachments s3://journal-files\n  journal admin migrate --from /srv/journal.db --to /backup/journal.db"
    )]
    Migrate {
        /// The database to copy: `sqlite:PATH`, a file path, or `postgres://…`.
        #[arg(long, value_name = "URL")]
        from: String,
        /// The empty database to fill: `postgres://…`, `sqlite:PATH` or a file path.
        #[arg(long, value_name = "URL")]
        to: String,
        /// Where the target keeps attachment files: the --attachments its servers will
        /// use, a folder or s3://BUCKET [default: beside a SQLite target, journal.db →
        /// journal-files/; a PostgreSQL target with attachments needs it].
        #[arg(
            long,
            visible_alias = "attachments-dir",
            value_name = "DIR|s3://BUCKET"
        )]
        attachments: Option<String>,
        /// The source's attachments, when the source is on PostgreSQL (its servers'
        /// --attachments) [default: beside a SQLite source].
        #[arg(
            long,
            visible_alias = "from-attachments-dir",
            value_name = "DIR|s3://BUCKET"
        )]
        from_attachments: Option<String>,
    },
    /// Copy every attachment file from one store to another (a folder to a bucket, a
    /// bucket to another), checking each copy by its SHA-256, while servers keep
    /// running with `--attachments NEW --attachments-fallback OLD`. A file the target
    /// already holds whole is not copied again, so a move stopped partway goes on where
    /// it stopped. The source is not changed. Bucket credentials come from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    #[command(
        name = "move-attachments",
        after_help = "Examples:\n  journal admin move-attachments --from /srv/journal-files --to 's3://journal?endpoint=http://garage:3900&region=garage'\n  journal admin move-attachments --from s3://old-bucket --to s3://new-bucket/journal"
    )]
    MoveAttachments {
        /// Where the files are now: a folder or s3://BUCKET[/PREFIX][?options].
        #[arg(long, value_name = "DIR|s3://BUCKET")]
        from: String,
        /// Where they go: a folder or s3://BUCKET[/PREFIX][?options].
        #[arg(long, value_name = "DIR|s3://BUCKET")]
        to: String,
        /// Files copied at once.
        #[arg(long, default_value_t = journal_core::attachments::MOVE_JOBS as u16, value_parser = clap::value_parser!(u16).range(1..=64))]
        jobs: u16,
    },
    /// Remove attachments nothing needs (of purged entries, deleted ones no kept
    /// revision names, uploads never attached within a day) and every stored file no
    /// attachment names, on the local journal or a server's database (--database).
    /// Never while a server uploads to the same place: it spares no file, not even
    /// one still arriving (a server collects by itself, sparing young files).
    #[command(after_help = "Examples:
  journal admin gc
  journal admin gc --database /srv/journal.db
  journal admin gc --database postgres://journal@db/journal --attachments /srv/journal-files
  journal admin gc --database postgres://journal@db/journal --attachments s3://journal-files")]
    Gc {
        /// The attachments of a journal on PostgreSQL (the server's --attachments: a
        /// folder or s3://BUCKET) [default: beside the SQLite file, journal.db →
        /// journal-files/].
        #[arg(
            long,
            visible_alias = "attachments-dir",
            value_name = "DIR|s3://BUCKET"
        )]
        attachments: Option<String>,
    },
}

/// A place for attachments given to `flag`: a folder, or `s3://…`. Parsed here, not by
/// clap, whose refusal repeats the value, which may hold a secret.
fn place(flag: &str, given: &str) -> Result<AttachmentPlace> {
    AttachmentPlace::parse(given).map_err(|why| CliError::Usage(format!("{flag}: {why}")))
}

/// The same, for a flag that may be left out.
fn place_if(flag: &str, given: Option<String>) -> Result<Option<AttachmentPlace>> {
    given.map(|given| place(flag, &given)).transpose()
}

impl Admin {
    /// Runs the action; `database_given` says whether a database was named (by flag or
    /// variable), which `create-user` needs rather than the personal default.
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend, database_given: bool) -> Result<()> {
        match self.action {
            AdminAction::Promote { email } => set_role(ctx, b, &email, Role::Admin).await,
            AdminAction::Demote { email } => set_role(ctx, b, &email, Role::User).await,
            AdminAction::Users => users::list(ctx, b).await,
            AdminAction::Disable { email } => {
                users::set_disabled(ctx, b, &email, true, database_given).await
            }
            AdminAction::Enable { email } => {
                users::set_disabled(ctx, b, &email, false, database_given).await
            }
            AdminAction::Invite { expires } => invites::invite(ctx, b, expires).await,
            AdminAction::Invites => invites::list(ctx, b, database_given).await,
            AdminAction::RevokeInvite { id } => invites::revoke(ctx, b, &id, database_given).await,
            AdminAction::ResetTwoFactor { email } => {
                users::reset_totp(ctx, b, &email, database_given).await
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
                users::create(ctx, b, given, role, password_stdin).await
            }
            AdminAction::Migrate {
                from,
                to,
                attachments,
                from_attachments,
            } => {
                let places = backend::MigrateFolders {
                    from: place_if("--from-attachments", from_attachments)?,
                    to: place_if("--attachments", attachments)?,
                };
                migrate(ctx, &from, &to, places).await
            }
            AdminAction::MoveAttachments { from, to, jobs } => {
                let (from, to) = (place("--from", &from)?, place("--to", &to)?);
                move_files::move_attachments(ctx, &from, &to, usize::from(jobs)).await
            }
            AdminAction::Gc { attachments } => {
                let attachments = place_if("--attachments", attachments)?;
                gc(ctx, b, attachments.as_ref()).await
            }
        }
    }
}

/// `journal admin promote|demote EMAIL`, on the database.
async fn set_role(ctx: &Ctx, b: &Backend, email: &str, role: Role) -> Result<()> {
    b.set_role(email, role).await?;
    if ctx.json {
        print_json(&json!({ "email": email.trim().to_lowercase(), "role": role.as_str() }));
    } else if !ctx.quiet {
        print(&format!("{} is now {}", email.trim(), role.as_str()));
    }
    Ok(())
}

/// `journal admin migrate --from … --to …`: both databases are named, in either mode.
async fn migrate(ctx: &Ctx, from: &str, to: &str, dirs: backend::MigrateFolders) -> Result<()> {
    let report = backend::migrate(from, to, dirs).await?;
    if report.missing_files > 0 {
        ctx.note(format!(
            "{} named by attachments {} missing from the source's folder already",
            output::count(report.missing_files, "file", "files"),
            if report.missing_files == 1 {
                "was"
            } else {
                "were"
            }
        ));
    }
    if ctx.json {
        print_json(&json!({
            "users": report.users,
            "entries": report.entries,
            "trashed": report.trashed,
            "revisions": report.revisions,
            "attachments": report.attachments,
            "files": report.files,
            "missingFiles": report.missing_files,
            "revokedTokens": report.revoked_tokens,
        }));
    } else if !ctx.quiet {
        let mut what = vec![
            output::count(report.users, "user", "users"),
            format!(
                "{}{} with {}",
                output::count(report.entries + report.trashed, "entry", "entries"),
                if report.trashed > 0 {
                    format!(" ({} in the trash)", report.trashed)
                } else {
                    String::new()
                },
                output::count(report.revisions, "revision", "revisions")
            ),
        ];
        if report.attachments > 0 {
            what.push(format!(
                "{} ({})",
                output::count(report.attachments, "attachment", "attachments"),
                output::count(report.files, "file", "files")
            ));
        }
        what.push(output::count(
            report.revoked_tokens,
            "token revocation",
            "token revocations",
        ));
        let last = what.pop().unwrap_or_default();
        print(&format!(
            "copied {} and {last} to {}",
            what.join(", "),
            backend::redact_url(to)
        ));
    }
    Ok(())
}

/// `journal admin gc`: on the database, sparing nothing.
async fn gc(ctx: &Ctx, b: &Backend, attachments: Option<&AttachmentPlace>) -> Result<()> {
    let collected = b.collect_attachments(attachments).await?;
    if ctx.json {
        print_json(&json!({ "rows": collected.rows, "files": collected.objects }));
    } else if !ctx.quiet {
        print(&format!(
            "removed {} and {}",
            output::count(collected.rows, "row", "rows"),
            output::count(collected.objects, "file", "files")
        ));
    }
    Ok(())
}
