//! `journal passwd` and `journal delete-account`: the caller's own account.

use clap::Args;
use serde_json::json;

use super::prompt::{new_password_from_line, new_password_from_terminal, stdin_or_terminal};
use super::{Ctx, confirm};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal passwd`: where the passwords come from, and what to keep.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal passwd\n  printf 'old\\nnew\\n' | journal --server URL passwd --password-stdin"
)]
pub struct Passwd {
    /// Read the passwords from standard input, one per line (remote: current, then new).
    #[arg(long)]
    pub password_stdin: bool,
    /// Keep your personal access tokens working. By default a password change ends
    /// every login session and revokes every access token.
    #[arg(long)]
    pub keep_access_tokens: bool,
}

impl Passwd {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        passwd(ctx, b, self.password_stdin, self.keep_access_tokens).await
    }
}

/// `journal delete-account`: the confirmation, when not asked for.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal delete-account                # asks you to type your e-mail\n  journal delete-account --confirm me@example.com"
)]
pub struct DeleteAccount {
    /// Your e-mail address, to confirm without a question.
    #[arg(long, value_name = "EMAIL")]
    pub confirm: Option<String>,
}

impl DeleteAccount {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        delete_account(ctx, b, self.confirm).await
    }
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
