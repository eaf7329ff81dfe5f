//! `journal register`, `journal login` and `journal logout`: the login on a server.

use clap::Args;
use journal_core::api::RegisterRequest;
use serde_json::json;

use super::Ctx;
use super::prompt::{
    ask_code, email_rule, full_name_rule, new_password_from_line, new_password_from_terminal,
    nickname_rule, required, stdin_or_terminal, typed_code,
};
use crate::backend::{self, Backend};
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal register`: the new account (asked for on a terminal when not given).
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  journal --server http://127.0.0.1:5000 register --full-name \"Ada Lovelace\" --email ada@example.com"
)]
pub struct Register {
    /// Your full name.
    #[arg(long)]
    pub full_name: Option<String>,
    /// Your display name [default: the part of the e-mail before @].
    #[arg(long)]
    pub nickname: Option<String>,
    /// Your e-mail address, used to log in.
    #[arg(long)]
    pub email: Option<String>,
    /// Read the password from the first line of standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// An invitation code, on a server where registration is by invitation (asked
    /// for on a terminal when the server needs one).
    #[arg(long, value_name = "CODE")]
    pub invite: Option<String>,
}

impl Register {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let account = NewAccount {
            full_name: self.full_name,
            nickname: self.nickname,
            email: self.email,
            invite: self.invite,
        };
        register(ctx, b, account, self.password_stdin).await
    }
}

/// `journal login`: the account (the password is asked for or read from standard input).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal --server http://127.0.0.1:5000 login --email ada@example.com\n  journal login --email ada@example.com --totp 123456   # an account with a second factor\n\nOn a terminal the two-factor code is asked for when the account needs one."
)]
pub struct Login {
    /// Your e-mail address.
    #[arg(long)]
    pub email: Option<String>,
    /// Read the password from the first line of standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// The two-factor code from your authenticator app (or a recovery code), for an
    /// account with a second factor.
    #[arg(long, value_name = "CODE")]
    pub totp: Option<String>,
}

impl Login {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        login(ctx, b, self.email, self.password_stdin, self.totp).await
    }
}

/// `journal logout`: takes no arguments.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  journal logout")]
pub struct Logout {}

impl Logout {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        logout(ctx, b).await
    }
}

/// What `journal register` was given besides the password.
pub(super) struct NewAccount {
    pub(super) full_name: Option<String>,
    pub(super) nickname: Option<String>,
    pub(super) email: Option<String>,
    pub(super) invite: Option<String>,
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
pub(super) const CODE_TRIES: usize = 3;

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
    let mut code = totp.map(|c| typed_code(&c));
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
        code = Some(ask_code("Two-factor code (or a recovery code): ")?);
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
