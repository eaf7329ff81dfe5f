//! The config file: the server to use, a login per server, the local owner accounts,
//! and whether inline `@tags` count.
//!
//! JSON in the platform config directory (`~/.config/journal/config.json` on Linux),
//! written with mode 0600 because it holds a token.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

/// A login on a server, kept under the server's URL.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct Session {
    /// The token. Never printed.
    pub token: String,
    /// The e-mail address logged in with.
    pub email: String,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("token", &"<redacted>")
            .field("email", &self.email)
            .finish()
    }
}

/// The one login older versions kept, with the server in it; read, never written.
#[derive(Clone, Default, Deserialize)]
struct OneSession {
    server: String,
    token: String,
    email: String,
}

/// What the config file holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(from = "ConfigFile")]
pub struct Config {
    /// The server to use when neither `--server` nor `JOURNAL_SERVER` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// One login per server, by the server's URL (without trailing slashes): logging
    /// in to one server keeps the others' logins, and `--server URL` uses URL's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sessions: BTreeMap<String, Session>,
    /// The local owner's user id, by database file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub owners: BTreeMap<String, String>,
    /// False to keep `@word` and `#word` in the text from becoming tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_tags: Option<bool>,
    /// True to sync a linked local journal after each command that changes it
    /// (`sync.auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_auto: Option<bool>,
}

/// The config file as read: [`Config`], and the single `session` of older versions,
/// which joins `sessions` (and is written there from then on).
#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default)]
    server: Option<String>,
    #[serde(default)]
    session: Option<OneSession>,
    #[serde(default)]
    sessions: BTreeMap<String, Session>,
    #[serde(default)]
    owners: BTreeMap<String, String>,
    #[serde(default)]
    inline_tags: Option<bool>,
    #[serde(default)]
    sync_auto: Option<bool>,
}

impl From<ConfigFile> for Config {
    fn from(file: ConfigFile) -> Config {
        let mut sessions: BTreeMap<String, Session> = file
            .sessions
            .into_iter()
            .map(|(server, s)| (normalise_server(&server), s))
            .collect();
        if let Some(old) = file.session {
            sessions
                .entry(normalise_server(&old.server))
                .or_insert(Session {
                    token: old.token,
                    email: old.email,
                });
        }
        Config {
            server: file.server,
            sessions,
            owners: file.owners,
            inline_tags: file.inline_tags,
            sync_auto: file.sync_auto,
        }
    }
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

    /// Whether a linked local journal syncs after each change (off unless set).
    pub fn sync_auto(&self) -> bool {
        self.sync_auto.unwrap_or(false)
    }

    /// The login saved for this server, if any.
    pub fn session_for(&self, server: &str) -> Option<&Session> {
        self.sessions.get(&normalise_server(server))
    }

    /// The login saved for this server, to change.
    pub fn session_for_mut(&mut self, server: &str) -> Option<&mut Session> {
        self.sessions.get_mut(&normalise_server(server))
    }

    /// Saves a login for this server, replacing only that server's.
    pub fn set_session(&mut self, server: &str, session: Session) {
        self.sessions.insert(normalise_server(server), session);
    }

    /// Forgets this server's login; the other servers' stay.
    pub fn forget_session(&mut self, server: &str) {
        self.sessions.remove(&normalise_server(server));
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
