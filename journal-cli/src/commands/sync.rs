//! `journal sync`: keep this local journal and an account on a server alike. The first
//! sync links them (`--remote URL`); every one after sends what changed here, brings
//! what changed there, merges what changed on both sides, and says what it did.

use clap::Args;
use serde_json::json;

use super::Ctx;
use super::prompt::{ask_code, required, stdin_or_terminal, typed_code};
use journal_core::sync_client::SyncReport;

use crate::backend::{Backend, Credential};
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal sync`: how to link, or what to show.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  journal sync --remote https://journal.example.com --email ada@example.com
  JOURNAL_TOKEN=… journal sync --remote https://journal.example.com
  journal sync                 # after linking: send and bring the changes
  journal sync --status        # the link and what is waiting to be sent
  journal sync --unlink        # forget the link (both journals keep their entries)

The first sync logs in once and keeps an access token named for this machine in a
file of mode 0600 beside the journal; later syncs use it.")]
pub struct Sync {
    /// Link this journal to your account on this server, then sync (the first time).
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,
    /// Log in with this e-mail address (the password is asked for, or read with
    /// --password-stdin), and keep an access token made for this machine.
    #[arg(long)]
    pub email: Option<String>,
    /// Read the password from the first line of standard input.
    #[arg(long, requires = "email")]
    pub password_stdin: bool,
    /// The two-factor code, for an account with a second factor.
    #[arg(long, value_name = "CODE", requires = "email")]
    pub totp: Option<String>,
    /// Read an access token from the first line of standard input (never as an
    /// argument: other users see arguments in `ps`). JOURNAL_TOKEN works too.
    #[arg(long, conflicts_with = "email")]
    pub token_stdin: bool,
    /// Show the link and what is waiting to be sent; sync nothing.
    #[arg(long, conflicts_with_all = ["unlink", "remote", "email", "token_stdin"])]
    pub status: bool,
    /// Forget the link and its saved credential; both journals keep their entries.
    #[arg(long, conflicts_with_all = ["remote", "email", "token_stdin"])]
    pub unlink: bool,
    /// Go on without asking when the server deleted many entries (more than 50, or
    /// more than a fifth of the journal).
    #[arg(long)]
    pub yes: bool,
}

impl Sync {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        if self.status {
            return status(ctx, b).await;
        }
        if self.unlink {
            let was = b.sync_unlink().await?;
            if ctx.json {
                print_json(&json!({ "unlinked": was }));
            } else if !ctx.quiet {
                match was {
                    Some(remote) => print(&format!("unlinked from {remote}")),
                    None => print("this journal was not linked"),
                }
            }
            return Ok(());
        }
        let mut credential = self.credential(b)?;
        let yes = self.yes;
        let confirm = move |question: &str| {
            yes || (text::interactive()
                && text::ask(&format!("{question} [y/N] "))
                    .is_ok_and(|a| matches!(a.trim(), "y" | "Y" | "yes")))
        };
        let needs_code = CliError::from(journal_core::Error::SecondFactorRequired).to_string();
        let (remote, report) = loop {
            match b
                .sync(self.remote.as_deref(), credential.clone(), &confirm)
                .await
            {
                // Asked for on a terminal, as `journal login` does.
                Err(CliError::Auth(why)) if why == needs_code && text::interactive() => {
                    if let Credential::Password { totp, .. } = &mut credential {
                        *totp = Some(ask_code("Two-factor code (or a recovery code): ")?);
                        continue;
                    }
                    return Err(CliError::Auth(why));
                }
                other => break other?,
            }
        };
        show(ctx, &remote, &report);
        Ok(())
    }

    /// How this sync logs in: a token given, a password, or the saved token.
    fn credential(&self, b: &Backend) -> Result<Credential> {
        if self.token_stdin {
            let mut lines = text::StdinLines::read()?;
            return Ok(Credential::Token(lines.next("the access token")?));
        }
        if let Some(email) = &self.email {
            let email = required(Some(email.clone()), "--email", "E-mail: ", |_| Ok(()))?;
            let password = match stdin_or_terminal(self.password_stdin)? {
                Some(mut lines) => lines.next("the password")?,
                None => text::ask_password("Password: ")?,
            };
            let totp = self.totp.as_deref().map(typed_code);
            return Ok(Credential::Password {
                email,
                password,
                totp,
            });
        }
        if let Some(token) = b.env_token() {
            return Ok(Credential::Token(token.to_owned()));
        }
        if self.remote.is_some() {
            return Err(CliError::Usage(
                "linking needs a login: --email ADDRESS (the password is asked for), \
                 --token-stdin, or JOURNAL_TOKEN"
                    .into(),
            ));
        }
        Ok(Credential::Saved)
    }
}

fn show(ctx: &Ctx, remote: &str, report: &SyncReport) {
    let ids = |list: &[(journal_core::EntryId, String)]| -> Vec<serde_json::Value> {
        list.iter()
            .map(|(id, why)| json!({ "id": id, "message": why }))
            .collect()
    };
    if ctx.json {
        print_json(&json!({
            "remote": remote, "sent": report.sent, "received": report.received,
            "merged": report.merged, "conflicts": ids(&report.conflicts),
            "kept": ids(&report.kept), "refused": ids(&report.refused),
        }));
        return;
    }
    if ctx.quiet {
        return;
    }
    print(&format!(
        "{} sent, {} received, {} merged, {} conflicts",
        report.sent,
        report.received,
        report.merged,
        report.conflicts.len()
    ));
    for (what, list) in [
        ("conflict", &report.conflicts),
        ("kept", &report.kept),
        ("refused", &report.refused),
    ] {
        for (id, why) in list {
            print(&format!("{what} {id}: {why}"));
        }
    }
}

async fn status(ctx: &Ctx, b: &Backend) -> Result<()> {
    let status = b.sync_status().await?;
    if ctx.json {
        print_json(&json!({
            "remote": status.link.as_ref().map(|l| l.remote.clone()),
            "account": status.link.as_ref().map(|l| l.account_id),
            "lastSync": status.link.as_ref().and_then(|l| l.last_sync),
            "pending": status.pending, "entriesInSync": status.agreed,
        }));
        return Ok(());
    }
    match status.link {
        None => print("not linked; journal sync --remote URL links this journal to a server"),
        Some(link) => {
            print(&format!("linked to {}", link.remote));
            match link.last_sync {
                Some(at) => print(&format!("last sync: {at}")),
                None => print("never synced to the end"),
            }
            print(&format!(
                "{} waiting to be sent; {} in sync",
                crate::output::count(status.pending, "local change", "local changes"),
                crate::output::count(status.agreed, "entry", "entries")
            ));
        }
    }
    Ok(())
}

/// How long `sync.auto` waits for the server before leaving the sync to the next one.
const AUTO_SYNC_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// `sync.auto`: after a command changed a linked local journal, syncs it with the saved
/// credential. Never asks (many deletions wait for `journal sync`), and never fails the
/// command: a server that does not answer is told on standard error, and the change
/// waits for the next sync.
pub(super) async fn after_change(ctx: &Ctx, b: &Backend) {
    if !b.config().sync_auto() || !b.sync_linked() {
        return;
    }
    let never_ask = |_: &str| false;
    let synced = tokio::time::timeout(AUTO_SYNC_WAIT, b.sync(None, Credential::Saved, &never_ask));
    match synced.await {
        Ok(Ok((remote, report))) => ctx.note(format!(
            "synced with {remote}: {} sent, {} received, {} merged, {} conflicts",
            report.sent,
            report.received,
            report.merged,
            report.conflicts.len()
        )),
        Ok(Err(e)) => eprintln!("sync.auto: not synced ({e}); journal sync sends it later"),
        Err(_) => eprintln!(
            "sync.auto: the server did not answer within {} s; journal sync sends it later",
            AUTO_SYNC_WAIT.as_secs()
        ),
    }
}
