//! `journal token`: personal access tokens, for scripts.

use clap::{Args, Subcommand};
use journal_core::AccessToken;
use journal_core::api::CreateAccessTokenRequest;
use serde_json::json;

use super::resolve::{MIN_PREFIX, looks_like_prefix};
use super::{Ctx, confirm};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// `journal token`: what to do with tokens.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal token create backup --expires 90\n  JOURNAL_TOKEN=jpat_... journal export --output backup.json\n  journal token list\n  journal token revoke 0190c3e2"
)]
pub struct Token {
    /// What to do.
    #[command(subcommand)]
    pub action: TokenAction,
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

impl Token {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        token(ctx, b, self.action).await
    }
}

async fn token(ctx: &Ctx, b: &Backend, action: TokenAction) -> Result<()> {
    match action {
        TokenAction::Create { name, expires } => {
            let server = b.require_server("token create")?.to_owned();
            let made = confirm::confirmed(Default::default(), |proof| {
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
