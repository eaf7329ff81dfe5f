//! `journal config`: show or change the config file.

use clap::{Args, Subcommand};
use serde_json::json;

use super::Ctx;
use crate::backend::{self, Backend};
use crate::config::normalise_server;
use crate::error::{CliError, Result};
use crate::output::{print, print_json};

/// `journal config`: what to do with the config.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal config show\n  journal config set server http://127.0.0.1:5000\n  journal config unset server\n  journal config set inline_tags false   # @word and #word stay text\n  journal config set sync.auto true      # sync a linked journal after each change"
)]
pub struct Config {
    /// What to do.
    #[command(subcommand)]
    pub action: ConfigAction,
}

/// `journal config …`
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Show the config (the token is never shown).
    Show,
    /// Set a key: `server URL`, `inline_tags true|false`, or `sync.auto true|false`.
    Set {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// Remove a key (`server`, `inline_tags`, `sync.auto`).
    Unset {
        /// The key.
        key: String,
    },
}

impl Config {
    pub(super) fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        config_command(ctx, b, self.action)
    }
}

/// The keys `journal config set` takes.
enum ConfigKey {
    Server,
    InlineTags,
    SyncAuto,
}

fn config_command(ctx: &Ctx, b: &Backend, action: ConfigAction) -> Result<()> {
    let config = b.config();
    let config_path = b.config_path();
    let check_key = |key: &str| match key.replace(['-', '.'], "_").as_str() {
        "server" => Ok(ConfigKey::Server),
        "inline_tags" => Ok(ConfigKey::InlineTags),
        "sync_auto" => Ok(ConfigKey::SyncAuto),
        _ => Err(CliError::Usage(format!(
            "unknown config key {key:?}; the keys are server, inline_tags and sync.auto"
        ))),
    };
    match action {
        ConfigAction::Show => {
            let sessions: Vec<_> = config
                .sessions
                .iter()
                .map(|(server, s)| json!({ "server": server, "email": s.email, "token": "(set)" }))
                .collect();
            let value = json!({
                "file": config_path,
                "server": config.server,
                "sessions": sessions,
                "owners": config.owners,
                "inline_tags": config.inline_tags(),
                "sync.auto": config.sync_auto(),
            });
            if ctx.json {
                print_json(&value);
            } else {
                let logins: Vec<String> = config
                    .sessions
                    .iter()
                    .map(|(server, s)| format!("{} on {server}", s.email))
                    .collect();
                print(&format!(
                    "file:    {}\nserver:  {}\nlogin:   {}\ninline:  {}\nsync:    {}",
                    config_path.display(),
                    config.server.as_deref().unwrap_or("(none: local mode)"),
                    if logins.is_empty() {
                        "(not logged in)".to_owned()
                    } else {
                        logins.join("\n         ")
                    },
                    if config.inline_tags() {
                        "on (@word and #word become tags)"
                    } else {
                        "off"
                    },
                    if config.sync_auto() {
                        "after each change (sync.auto), when linked and the server answers"
                    } else {
                        "when journal sync is run"
                    }
                ));
            }
            Ok(())
        }
        ConfigAction::Set { key, value } => {
            match check_key(&key)? {
                ConfigKey::Server => {
                    let url = normalise_server(&value);
                    backend::check_server_url(&url)?;
                    b.change_config(|config| config.server = Some(url))?;
                }
                ConfigKey::InlineTags => {
                    let on = switch("inline_tags", &value)?;
                    b.change_config(|config| config.inline_tags = Some(on))?;
                }
                ConfigKey::SyncAuto => {
                    let on = switch("sync.auto", &value)?;
                    b.change_config(|config| config.sync_auto = Some(on))?;
                }
            }
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
        ConfigAction::Unset { key } => {
            match check_key(&key)? {
                ConfigKey::Server => b.change_config(|config| config.server = None)?,
                ConfigKey::InlineTags => b.change_config(|config| config.inline_tags = None)?,
                ConfigKey::SyncAuto => b.change_config(|config| config.sync_auto = None)?,
            }
            ctx.note(format!("saved to {}", config_path.display()));
            Ok(())
        }
    }
}

/// A yes-or-no setting's value.
fn switch(key: &str, value: &str) -> Result<bool> {
    match value.trim().to_lowercase().as_str() {
        "true" | "yes" | "on" => Ok(true),
        "false" | "no" | "off" => Ok(false),
        _ => Err(CliError::Usage(format!(
            "{key} is true or false, not {value:?}"
        ))),
    }
}
