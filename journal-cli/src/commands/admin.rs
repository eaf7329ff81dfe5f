//! Administrators' commands that work both ways: over a server as an administrator
//! (`--server`), or directly on the server's database (`--database`), as the operator
//! does when no administrator can log in: `admin invites`, `admin revoke-invite`, and
//! `admin disable`/`enable` on the database.

use serde_json::json;

use super::Ctx;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// Checks, before anything is opened, that `command` has somewhere to run: the
/// server's database when one was named, else a server and a login.
fn check_place(b: &Backend, command: &str, database_given: bool) -> Result<()> {
    if database_given {
        return b.require_database(command);
    }
    b.require_server(command).map_err(|_| {
        CliError::Usage(format!(
            "journal {command} needs --server URL and an administrator's login, or --database PATH (the server's database: a SQLite file or postgres://…)"
        ))
    })?;
    b.require_login()
}

pub(super) async fn invites(ctx: &Ctx, b: &Backend, database_given: bool) -> Result<()> {
    check_place(b, "admin invites", database_given)?;
    let invites = b.admin_invites().await?;
    if ctx.json {
        print_json(&invites);
    } else if invites.is_empty() {
        ctx.note("no invitation is outstanding (journal admin invite makes one)");
    } else {
        print(&output::invite_table(&invites));
        ctx.note(format!(
            "{}; journal admin revoke-invite ID revokes one",
            output::count(invites.len() as u64, "invitation", "invitations")
        ));
    }
    Ok(())
}

pub(super) async fn revoke_invite(
    ctx: &Ctx,
    b: &Backend,
    id: &str,
    database_given: bool,
) -> Result<()> {
    check_place(b, "admin revoke-invite", database_given)?;
    b.admin_revoke_invite(id).await?;
    if ctx.json {
        print_json(&json!({ "revoked": id.trim() }));
    } else if !ctx.quiet {
        print(&format!(
            "revoked the invitation {}: it no longer registers anyone",
            id.trim()
        ));
    }
    Ok(())
}

/// `journal admin disable|enable EMAIL --database …`: by e-mail, on the database.
pub(super) async fn set_disabled_on_database(
    ctx: &Ctx,
    b: &Backend,
    email: &str,
    disabled: bool,
) -> Result<()> {
    let command = if disabled {
        "admin disable"
    } else {
        "admin enable"
    };
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
