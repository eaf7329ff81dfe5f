//! `journal admin users`, `disable`, `enable`, `reset-2fa` and `create-user`: the
//! server's accounts, found by e-mail address, user id or id prefix.

use journal_core::api::RegisterRequest;
use journal_core::{AdminUser, Role, UserId};
use serde_json::json;

use super::super::Ctx;
use super::super::login::NewAccount;
use super::super::pages::page_request;
use super::super::prompt::{
    email_rule, full_name_rule, new_password_from_line, new_password_from_terminal, nickname_rule,
    required, stdin_or_terminal,
};
use super::super::resolve::looks_like_prefix;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

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
        let request = page_request(page, LIMIT)?;
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

/// `journal admin users`: every account on the server.
pub(super) async fn list(ctx: &Ctx, b: &Backend) -> Result<()> {
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

/// The account `given` names on the server, for an administrator's command: the
/// login is checked before the accounts are read.
async fn server_user(b: &Backend, command: &str, given: &str) -> Result<AdminUser> {
    b.require_login()?;
    find_user(b, command, given).await
}

/// `journal admin reset-2fa`: as an administrator on a server, or on the database.
pub(super) async fn reset_totp(
    ctx: &Ctx,
    b: &Backend,
    given: &str,
    database_given: bool,
) -> Result<()> {
    let command = "admin reset-2fa";
    let (id, email) = if b.require_server(command).is_ok() {
        let user = server_user(b, command, given).await?;
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

/// `journal admin disable|enable`: by e-mail on the database when one was named,
/// else as an administrator on the server.
pub(super) async fn set_disabled(
    ctx: &Ctx,
    b: &Backend,
    given: &str,
    disabled: bool,
    database_given: bool,
) -> Result<()> {
    let command = if disabled {
        "admin disable"
    } else {
        "admin enable"
    };
    if database_given {
        return set_disabled_on_database(ctx, b, command, given, disabled).await;
    }
    b.require_server(command)?;
    let user = server_user(b, command, given).await?;
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

/// `journal admin create-user`: an account made directly in the database.
pub(super) async fn create(
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

/// `journal admin disable|enable EMAIL --database …`: by e-mail, on the database.
async fn set_disabled_on_database(
    ctx: &Ctx,
    b: &Backend,
    command: &str,
    email: &str,
    disabled: bool,
) -> Result<()> {
    b.require_database(command)?;
    let id = b.set_disabled_on_database(email, disabled).await?;
    let email = email.trim().to_lowercase();
    if ctx.json {
        print_json(&json!({ "id": id, "email": email, "disabled": disabled }));
    } else if !ctx.quiet {
        print(&if disabled {
            format!(
                "disabled {email}: they cannot log in and their tokens stop working, on every server using this database"
            )
        } else {
            format!("enabled {email}: they can log in again")
        });
    }
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
}
