//! The config file: the server to use, the session token, the local owner accounts,
//! and whether inline `@tags` count.
//!
//! JSON in the platform config directory (`~/.config/journal/config.json` on Linux),
//! written with mode 0600 because it holds a token.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

/// A login on a server.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Session {
    /// The server the token was issued by.
    pub server: String,
    /// The token. Never printed.
    pub token: String,
    /// The e-mail address logged in with.
    pub email: String,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("server", &self.server)
            .field("token", &"<redacted>")
            .field("email", &self.email)
            .finish()
    }
}

/// What the config file holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Config {
    /// The server to use when neither `--server` nor `JOURNAL_SERVER` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The current login, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<Session>,
    /// The local owner's user id, by database file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub owners: BTreeMap<String, String>,
    /// False to keep `@word` and `#word` in the text from becoming tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_tags: Option<bool>,
}

impl Config {
    /// Reads the config file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<Config> {
        match std::fs::read_to_string(path) {
            Ok(text) if text.trim().is_empty() => Ok(Config::default()),
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                CliError::Other(format!(
                    "the config file {} is not valid ({e}); fix or remove it",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(CliError::other(
                format_args!("cannot read the config file {}", path.display()),
                e,
            )),
        }
    }

    /// Writes the config file (mode 0600), creating its directory.
    pub fn save(&self, path: &Path) -> Result<()> {
        let fail = |e: std::io::Error| {
            CliError::other(
                format_args!("cannot write the config file {}", path.display()),
                e,
            )
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::private_files::create_dir_all(dir).map_err(fail)?;
        }
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| CliError::other("cannot encode the config", e))?;
        // Write a sibling file of our own (mode 0600, a unique name, so two commands
        // saving at once do not share it), then rename it over: never a moment where
        // the token sits in a world-readable or half-written file.
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut tmp = tempfile::Builder::new()
            .prefix(".journal.json.")
            .tempfile_in(dir)
            .map_err(fail)?;
        {
            use std::io::Write;
            tmp.write_all(text.as_bytes()).map_err(fail)?;
            tmp.write_all(b"\n").map_err(fail)?;
        }
        tmp.persist(path).map_err(|e| fail(e.error))?;
        Ok(())
    }

    /// Whether `@word` and `#word` in an entry's text become tags (yes unless turned off).
    pub fn inline_tags(&self) -> bool {
        self.inline_tags.unwrap_or(true)
    }

    /// The session for this server, if the saved one belongs to it.
    pub fn session_for(&self, server: &str) -> Option<&Session> {
        self.session
            .as_ref()
            .filter(|s| normalise_server(&s.server) == normalise_server(server))
    }
}

/// A server URL without its trailing slashes.
pub fn normalise_server(url: &str) -> String {
    url.trim().trim_end_matches('/').to_owned()
}

fn project_dirs() -> Result<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "journal").ok_or_else(|| {
        CliError::Other(
            "cannot find a home directory; pass --database and --config explicitly".into(),
        )
    })
}

/// The default config file.
pub fn default_config_path() -> Result<PathBuf> {
    Ok(project_dirs()?.config_dir().join("config.json"))
}

/// The default database file.
pub fn default_database_path() -> Result<PathBuf> {
    Ok(project_dirs()?.data_dir().join("journal.db"))
}
