//! `journal admin invite`, `invites` and `revoke-invite`: invitations to register, on a
//! server that registers only with one.

use serde_json::json;

use super::super::Ctx;
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

pub(super) async fn invite(ctx: &Ctx, b: &Backend, expires: Option<i64>) -> Result<()> {
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

pub(super) async fn list(ctx: &Ctx, b: &Backend, database_given: bool) -> Result<()> {
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

pub(super) async fn revoke(ctx: &Ctx, b: &Backend, id: &str, database_given: bool) -> Result<()> {
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
