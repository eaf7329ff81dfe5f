//! The account commands of a public server: `token`, `2fa`, and `admin users`,
//! `disable`, `enable`, `invite` and `create-user`.

use journal_core::api::{CreateAccessTokenRequest, RegisterRequest};
use journal_core::{AccessToken, AdminUser, Role, UserId};
use serde_json::json;

use super::{
    Ctx, MIN_PREFIX, NewAccount, email_rule, full_name_rule, looks_like_prefix,
    new_password_from_line, new_password_from_terminal, nickname_rule, required, stdin_or_terminal,
};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::text;
use crate::{TokenAction, TwoFactorAction};

// ----- personal access tokens ----------------------------------------------------------

pub(super) async fn token(ctx: &Ctx, b: &Backend, action: TokenAction) -> Result<()> {
    match action {
        TokenAction::Create { name, expires } => {
            let server = b.require_server("token create")?.to_owned();
            let made = super::confirm::confirmed(Default::default(), |proof| {
                let request = CreateAccessTokenRequest {
                    name: Some(name.clone()),
                    expires_in_days: expires,
                    password: proof.password,
                    totp: proof.totp,
                };
                async move { b.create_access_token(&request).await }
            })
            .await?;
            if ctx.json {
                print_json(&made);
                return Ok(());
            }
            ctx.note(format!(
                "made the token {:?} ({}); copy it now, it is not shown again:",
                made.name,
                match &made.expires_at {
                    Some(at) => format!("expires {}", output::local_time(at)),
                    None => "never expires".to_owned(),
                }
            ));
            // Alone on stdout, so `$(journal token create NAME -q)` is the token.
            print(&made.token);
            ctx.note(format!(
                "Use it instead of a login, e.g. in a script:\n  JOURNAL_TOKEN=jpat_… journal --server {server} list\nIt works for entries and the profile; revoke it with journal token revoke {}",
                made.id
            ));
            Ok(())
        }
        TokenAction::List => {
            let tokens = b.access_tokens("token list").await?;
            if ctx.json {
                print_json(&tokens);
            } else if tokens.is_empty() {
                if !ctx.quiet {
                    print("no tokens (journal token create NAME makes one)");
                }
            } else {
                print(&output::token_table(&tokens));
            }
            Ok(())
        }
        TokenAction::Revoke { id } => {
            b.require_server("token revoke")?;
            let tokens = b.access_tokens("token revoke").await?;
            let token = find_token(&tokens, &id)?;
            b.revoke_access_token(&token.id.to_string()).await?;
            if ctx.json {
                print_json(&json!({ "revoked": token.id, "name": token.name }));
            } else if !ctx.quiet {
                print(&format!(
                    "revoked the token {:?} ({}): it no longer works",
                    token.name, token.id
                ));
            }
            Ok(())
        }
    }
}

/// The token an id or id prefix (8 characters or more) names among the caller's.
fn find_token<'t>(tokens: &'t [AccessToken], given: &str) -> Result<&'t AccessToken> {
    let id = given.trim().to_lowercase();
    if !looks_like_prefix(&id) {
        return Err(CliError::NotFound(format!(
            "token {} not found (give its id, or at least its first {MIN_PREFIX} characters: journal token list shows them)",
            given.trim()
        )));
    }
    let found: Vec<&AccessToken> = tokens
        .iter()
        .filter(|t| t.id.to_string().starts_with(&id))
        .collect();
    match found.as_slice() {
        [] if id.parse::<journal_core::AccessTokenId>().is_ok() => Err(CliError::NotFound(
            format!("token {id} not found among yours (journal token list shows them)"),
        )),
        [] => Err(CliError::NotFound(format!(
            "no token of yours has an id starting with {id} (journal token list shows them)"
        ))),
        [one] => Ok(one),
        many => Err(CliError::Usage(format!(
            "{id} is the start of {} token ids: {}; give more characters",
            many.len(),
            many.iter()
                .map(|t| format!("{} ({})", t.id, output::clip(&t.name, 30)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

// ----- the second factor ---------------------------------------------------------------

/// A code as typed: `123 456` is `123456`. Recovery codes keep their dashes.
pub(super) fn typed_code(code: &str) -> String {
    code.split_whitespace().collect()
}

/// Asks for a code on the terminal (shown as typed: it works once).
pub(super) fn ask_code(question: &str) -> Result<String> {
    loop {
        let code = typed_code(&text::ask(question)?);
        if !code.is_empty() {
            return Ok(code);
        }
    }
}

/// The setup's secret as a QR code of Unicode half blocks, two rows of modules to a
/// line so that it fits a terminal. Light modules are drawn as blocks, dark ones left
/// blank: on the usual dark terminal background that reads as dark on light, which
/// is what authenticator apps scan best.
fn qr_code(text: &str) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<Dense1x2>()
            .dark_color(Dense1x2::Light)
            .light_color(Dense1x2::Dark)
            .quiet_zone(true)
            .build(),
    )
}

pub(super) async fn two_factor(ctx: &Ctx, b: &Backend, action: TwoFactorAction) -> Result<()> {
    match action {
        TwoFactorAction::Enable { code: Some(code) } => {
            b.require_server("2fa enable")?;
            b.require_login()?;
            enable(ctx, b, &typed_code(&code)).await
        }
        TwoFactorAction::Enable { code: None } => {
            b.require_server("2fa enable")?;
            b.require_login()?;
            let setup = b.setup_totp().await?;
            // Scripts (and --json) get the secret and confirm it in a second step.
            let ask = text::interactive() && !ctx.json;
            if ctx.json {
                print_json(&json!({
                    "enabled": false,
                    "secret": setup.secret,
                    "otpauthUrl": setup.otpauth_url,
                }));
                return Ok(());
            }
            ctx.note("Scan this QR code with an authenticator app (or type the secret into it):");
            if let Some(qr) = qr_code(&setup.otpauth_url) {
                print(&qr);
            }
            print(&format!(
                "secret:  {}\nurl:     {}",
                setup.secret, setup.otpauth_url
            ));
            if !ask {
                ctx.note(
                    "The second factor is not on yet: confirm a code from the app with journal 2fa enable --code CODE",
                );
                return Ok(());
            }
            let mut tries = 0;
            loop {
                let code = ask_code("Code from the app: ")?;
                match enable(ctx, b, &code).await {
                    Err(CliError::Invalid(why)) if tries + 1 < super::CODE_TRIES => {
                        eprintln!("{why}");
                        tries += 1;
                    }
                    other => return other,
                }
            }
        }
        TwoFactorAction::Disable {
            code,
            password_stdin,
        } => {
            b.require_server("2fa disable")?;
            b.require_login()?;
            if code.is_none() && !text::interactive() {
                return Err(CliError::Usage(
                    "not on a terminal, so cannot ask for the code; pass --code CODE (a code from the app, or a recovery code)".into(),
                ));
            }
            let password = match stdin_or_terminal(password_stdin)? {
                Some(mut lines) => lines.next("the password")?,
                None => text::ask_password("Password: ")?,
            };
            let code = match code {
                Some(code) => typed_code(&code),
                None => ask_code("Code from the app (or a recovery code): ")?,
            };
            b.disable_totp(&password, &code).await?;
            if ctx.json {
                print_json(&json!({ "enabled": false }));
            } else if !ctx.quiet {
                print("the second factor is off: login needs only the password");
            }
            Ok(())
        }
    }
}

/// Confirms the secret set up with a code, and shows the recovery codes this once.
async fn enable(ctx: &Ctx, b: &Backend, code: &str) -> Result<()> {
    let codes = super::confirm::confirmed(Default::default(), |proof| async move {
        b.enable_totp(code, proof.password).await
    })
    .await?
    .recovery_codes;
    if ctx.json {
        print_json(&json!({ "enabled": true, "recoveryCodes": codes }));
        return Ok(());
    }
    ctx.note(format!(
        "The second factor is on: login asks for a code from the app.\nThese {} recovery codes are shown only now. Store them somewhere safe (a password manager,\non paper): each works once in place of a code if you lose the app.",
        codes.len()
    ));
    print(&codes.join("\n"));
    Ok(())
}

// ----- administrators ------------------------------------------------------------------

/// Every account on the server, oldest first, a page at a time. `stop` ends the walk
/// early once it has what it looks for.
async fn walk_users(
    b: &Backend,
    command: &str,
    mut stop: impl FnMut(&AdminUser) -> bool,
) -> Result<Vec<AdminUser>> {
    const LIMIT: i64 = 100;
    let mut users = Vec::new();
    for page in 1.. {
        let request = super::page_request(page, LIMIT)?;
        let got = b.admin_users(command, request).await?;
        let done = got.items.len() < LIMIT as usize || (page * LIMIT) as u64 >= got.total;
        for user in got.items {
            let found = stop(&user);
            users.push(user);
            if found {
                return Ok(users);
            }
        }
        if done {
            break;
        }
    }
    Ok(users)
}

pub(super) async fn admin_users(ctx: &Ctx, b: &Backend) -> Result<()> {
    let users = walk_users(b, "admin users", |_| false).await?;
    if ctx.json {
        print_json(&users);
    } else {
        print(&output::user_table(&users));
        ctx.note(output::count(users.len() as u64, "account", "accounts"));
    }
    Ok(())
}

/// The account an e-mail address, a user id or an id prefix names.
async fn find_user(b: &Backend, command: &str, given: &str) -> Result<AdminUser> {
    let who = given.trim().to_lowercase();
    if who.is_empty() {
        return Err(CliError::Usage(format!(
            "journal {command} needs the user's e-mail address"
        )));
    }
    let exact_id = who.parse::<UserId>().ok();
    let by_email = who.contains('@');
    let by_prefix = !by_email && exact_id.is_none() && looks_like_prefix(&who);
    if !by_email && exact_id.is_none() && !by_prefix {
        return Err(CliError::Usage(format!(
            "{given:?} is not an e-mail address or a user id"
        )));
    }
    let fits = |u: &AdminUser| {
        if by_email {
            u.profile.email == who
        } else if let Some(id) = &exact_id {
            u.profile.id == *id
        } else {
            u.profile.id.to_string().starts_with(&who)
        }
    };
    // A prefix may fit several: read them all to tell. An address or id is one.
    let users = walk_users(b, command, |u| !by_prefix && fits(u)).await?;
    let found: Vec<AdminUser> = users.into_iter().filter(|u| fits(u)).collect();
    match <[AdminUser; 1]>::try_from(found) {
        Ok([one]) => Ok(one),
        Err(found) if found.is_empty() => Err(CliError::NotFound(format!(
            "no account {} on this server (journal admin users lists them)",
            given.trim()
        ))),
        Err(found) => Err(CliError::Usage(format!(
            "{} is the start of {} user ids: {}; give more characters",
            given.trim(),
            found.len(),
            found
                .iter()
                .map(|u| format!("{} ({})", u.profile.id, u.profile.email))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

pub(super) async fn admin_reset_totp(
    ctx: &Ctx,
    b: &Backend,
    given: &str,
    database_given: bool,
) -> Result<()> {
    let command = "admin reset-2fa";
    let (id, email) = if b.require_server(command).is_ok() {
        b.require_login()?;
        let user = find_user(b, command, given).await?;
        (Some(user.profile.id), user.profile.email)
    } else if database_given {
        (None, given.trim().to_owned())
    } else {
        return Err(CliError::Usage(
            "journal admin reset-2fa needs --server URL (as an administrator) or --database PATH (the server's database)".into(),
        ));
    };
    b.admin_reset_totp(id.as_ref(), &email).await?;
    if ctx.json {
        print_json(&json!({ "email": email, "secondFactor": false, "signedOut": true }));
    } else if !ctx.quiet {
        print(&format!(
            "turned off the second factor of {email} and signed them out everywhere; they log in with their password alone"
        ));
    }
    Ok(())
}

pub(super) async fn admin_set_disabled(
    ctx: &Ctx,
    b: &Backend,
    given: &str,
    disabled: bool,
) -> Result<()> {
    let command = if disabled {
        "admin disable"
    } else {
        "admin enable"
    };
    b.require_server(command)?;
    b.require_login()?;
    let user = find_user(b, command, given).await?;
    let email = &user.profile.email;
    let changed = user.disabled != disabled;
    if changed {
        b.admin_set_disabled(command, &user.profile.id, disabled)
            .await
            .map_err(|e| e.about_user(email))?;
    }
    if ctx.json {
        print_json(&json!({
            "id": user.profile.id,
            "email": email,
            "disabled": disabled,
            "changed": changed,
        }));
    } else if !ctx.quiet {
        print(&match (changed, disabled) {
            (false, true) => format!("{email} was already disabled"),
            (false, false) => format!("{email} was not disabled"),
            (true, true) => format!(
                "disabled {email}: they cannot log in, their tokens stop working and their entries leave the feed (journal admin enable {email} undoes it)"
            ),
            (true, false) => {
                format!("enabled {email}: they can log in again and their entries are back")
            }
        });
    }
    Ok(())
}

pub(super) async fn admin_invite(ctx: &Ctx, b: &Backend, expires: Option<i64>) -> Result<()> {
    let server = b.require_server("admin invite")?.to_owned();
    b.require_login()?;
    let invite = b.create_invite(expires).await?;
    if ctx.json {
        print_json(&invite);
        return Ok(());
    }
    print(&invite.code);
    ctx.note(format!(
        "An invitation for one account, until {}. The newcomer registers with\n  journal --server {server} register --invite {}",
        output::local_time(&invite.expires_at),
        invite.code
    ));
    Ok(())
}

/// A full name from an e-mail's local part: `ada.lovelace` gives `Ada Lovelace`.
fn name_from_email(local: &str) -> String {
    local
        .split(['.', '_', '-', '+'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) async fn create_user(
    ctx: &Ctx,
    b: &Backend,
    given: NewAccount,
    role: Role,
    password_stdin: bool,
) -> Result<()> {
    b.require_database("admin create-user")?;
    let email = required(given.email, "--email", "E-mail: ", email_rule)?;
    let local = email
        .trim()
        .split('@')
        .next()
        .unwrap_or_default()
        .to_owned();
    let full_name = match given.full_name {
        Some(name) => required(Some(name), "--name", "Full name: ", full_name_rule)?,
        None => Some(name_from_email(&local))
            .filter(|n| full_name_rule(n).is_ok())
            .unwrap_or_else(|| local.clone()),
    };
    let nickname = match given.nickname {
        Some(n) => required(Some(n), "--nickname", "Nickname: ", nickname_rule)?,
        None => local,
    };
    let password = match stdin_or_terminal(password_stdin)? {
        Some(mut lines) => new_password_from_line(&mut lines, "the password")?,
        None => new_password_from_terminal()?,
    };
    let request = RegisterRequest {
        full_name: Some(full_name.clone()),
        nickname: Some(nickname),
        email: Some(email.clone()),
        password: Some(password),
        invite_code: None,
    };
    let id = b.create_account(&request, role).await?;
    let email = email.trim().to_lowercase();
    if ctx.json {
        print_json(&json!({ "userId": id, "email": email, "role": role.as_str() }));
        return Ok(());
    }
    ctx.note(format!(
        "created {} {email} ({full_name}); once the server runs on this database, log in with\n  journal --server URL login --email {email}",
        if role == Role::Admin {
            "the administrator"
        } else {
            "the account"
        }
    ));
    print(&id.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_name_is_made_from_the_e_mail() {
        assert_eq!(name_from_email("ada.lovelace"), "Ada Lovelace");
        assert_eq!(name_from_email("bob"), "Bob");
        assert_eq!(name_from_email("j_doe-2+news"), "J Doe 2 News");
        assert_eq!(name_from_email("élodie"), "Élodie");
        assert_eq!(name_from_email("..."), "");
    }

    #[test]
    fn codes_lose_their_spaces() {
        assert_eq!(typed_code(" 123 456 "), "123456");
        assert_eq!(typed_code("abcde-fghij"), "abcde-fghij");
    }

    #[test]
    fn the_qr_code_is_half_blocks() {
        let qr = qr_code("otpauth://totp/Journal:a@example.com?secret=JBSWY3DPEHPK3PXP").unwrap();
        assert!(qr.contains('\u{2588}'), "{qr}");
        assert!(qr.contains('\u{2580}') || qr.contains('\u{2584}'), "{qr}");
        let lines: Vec<&str> = qr.lines().collect();
        // Two rows of modules to a line: about half as many lines as columns.
        let width = lines[0].chars().count();
        assert!(
            lines.len() <= width / 2 + 1,
            "{} lines of {width}",
            lines.len()
        );
    }
}
