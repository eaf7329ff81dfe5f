//! Where the journal lives: a local SQLite file through journal-core (`local`), or a
//! server over HTTP (`remote`). [`Backend`] is the one interface the commands use:
//! every operation of either mode, with the same errors. What both modes answer is the
//! trait `Mode`, implemented once by each; an operation only one mode has answers a
//! usage error in the other ("journal X needs --server", "journal X needs a local
//! database"). The login on a server is in `session`; what only a server or only its
//! database does (tokens, the second factor, administration) is in `accounts`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use journal_core::api::{
    CreateEntryRequest, DeleteAccountRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::transfer::json::ExportDocument;
use journal_core::{
    Entry, EntryId, FilterParams, ImportReport, ImportedEntry, Page, PageRequest, Profile,
    SecurityEvent, TagCount, UserId,
};
use tokio::sync::OnceCell;

use crate::config::{self, Config, normalise_server};
use crate::error::{CliError, Result};

pub use attachments::{AttachmentInfo, Download, FileToAttach, safe_file_name};
pub use history::Conditional;
pub use journal_core::store::redact_url;
pub use local::{MigrateFolders, migrate};
pub use session::{Login, PasswordChanged, Registered};
pub use sync::{Credential, SyncStatus};

mod accounts;
mod attachments;
mod history;
mod local;
mod remote;
mod session;
mod sync;

use local::Local;
use remote::Remote;

/// The journal the commands act on, and the config file that remembers how to reach it
/// (the login on a server, the owner account of each local database).
///
/// Choosing the backend opens nothing: the local database is opened (and its owner
/// account found or created) on first use, or by [`Backend::connect`].
pub struct Backend {
    place: Place,
    config: Mutex<Config>,
    config_path: PathBuf,
    /// `--as EMAIL`: the account to act as on the local database.
    act_as: Option<String>,
    /// `JOURNAL_TOKEN`: on a server, sent instead of the saved login. Never saved.
    env_token: Option<String>,
}

/// Where the journal is.
enum Place {
    /// A SQLite file on this machine, acted on as its owner.
    Local {
        path: PathBuf,
        opened: OnceCell<Local>,
    },
    /// A journal-server, acted on with `JOURNAL_TOKEN` or else the saved token.
    Remote {
        server: String,
        client: OnceCell<Remote>,
    },
}

/// What both modes answer the same way: the caller's profile, entries, tags and
/// security log, on the local database as its owner or on a server with a token.
/// Errors come back as the mode gives them; [`Backend`] adds what the user named.
#[async_trait(?Send)]
trait Mode: history::History + attachments::Attachments {
    /// The caller's profile.
    async fn profile(&self) -> Result<Profile>;
    /// Changes the caller's profile.
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile>;
    /// Deletes the caller's account and entries; `proof` is what a server asks for.
    async fn delete_account(&self, proof: &DeleteAccountRequest) -> Result<()>;
    /// Creates an entry.
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry>;
    /// Imports entries keeping their dates; `progress` is told how many are done.
    async fn import_entries(
        &self,
        entries: Vec<ImportedEntry>,
        progress: &dyn Fn(u64),
    ) -> Result<ImportReport>;
    /// One entry by id.
    async fn entry(&self, id: &str) -> Result<Entry>;
    /// Changes an entry.
    async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry>;
    /// Moves an entry to the trash.
    async fn delete_entry(&self, id: &str) -> Result<()>;
    /// A page of a user's entries (the caller's when `user` is `None`).
    async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>>;
    /// A page of the public feed.
    async fn public_entries(&self, filter: &FilterParams, page: PageRequest)
    -> Result<Page<Entry>>;
    /// A page of the caller's entries matching `q`.
    async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>>;
    /// The caller's tags with their counts.
    async fn tags(&self) -> Result<Vec<TagCount>>;
    /// One page of the caller's security log, newest first.
    async fn security_events(&self, page: PageRequest) -> Result<Page<SecurityEvent>>;
    /// The caller's whole journal as our JSON export, with history and the trash or not.
    async fn export(&self, with_history: bool) -> Result<ExportDocument>;
    /// Our zip export (the JSON export and every attachment's file) written to `out`;
    /// answers how many entries it holds.
    async fn export_archive(&self, with_history: bool, out: std::fs::File) -> Result<usize>;
    /// Imports our zip export at `path`, with its attachments.
    async fn import_archive(&self, path: &Path) -> Result<journal_core::ArchiveReport>;
}

fn needs_server(command: &str) -> CliError {
    CliError::Usage(format!(
        "journal {command} needs --server URL (or journal config set server URL); the local database needs no account"
    ))
}

fn needs_local_database(command: &str) -> CliError {
    CliError::Usage(format!(
        "journal {command} needs a local database: drop --server (or use --local) and pass --database PATH"
    ))
}

fn not_logged_in(server: &str) -> CliError {
    CliError::Auth(format!("not logged in to {server}; run journal login"))
}

impl Backend {
    /// Chooses the journal: the local database with `local`; else the server `server`;
    /// else the database `database`; else the server in the config file; else the
    /// default database. Opens nothing yet.
    pub fn choose(
        local: bool,
        server: Option<&str>,
        database: Option<&Path>,
        config: Config,
        config_path: PathBuf,
    ) -> Result<Backend> {
        let database_path = || match database {
            Some(path) => Ok(path.to_owned()),
            None => config::default_database_path(),
        };
        let server = server
            .filter(|s| !s.trim().is_empty())
            .map(normalise_server);
        let local_at = |path| Place::Local {
            path,
            opened: OnceCell::new(),
        };
        let remote_at = |server| Place::Remote {
            server,
            client: OnceCell::new(),
        };
        let place = if local {
            local_at(database_path()?)
        } else if let Some(url) = server {
            remote_at(url)
        } else if database.is_some() {
            local_at(database_path()?)
        } else if let Some(url) = config.server.clone() {
            remote_at(url)
        } else {
            local_at(database_path()?)
        };
        Ok(Backend {
            place,
            config: Mutex::new(config),
            config_path,
            act_as: None,
            env_token: None,
        })
    }

    /// Uses `token` (from `JOURNAL_TOKEN`) on the server instead of the saved login. It
    /// is never printed or saved; the local database needs none and ignores it.
    pub fn with_token(mut self, token: Option<String>) -> Backend {
        self.env_token = token.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        self
    }

    /// `JOURNAL_TOKEN`, if given.
    pub fn env_token(&self) -> Option<&str> {
        self.env_token.as_deref()
    }

    /// Acts as the account with this e-mail address on the local database (`--as`),
    /// creating it as a local owner account if there is none.
    pub fn acting_as(mut self, email: Option<String>) -> Result<Backend> {
        let Some(email) = email.filter(|e| !e.trim().is_empty()) else {
            return Ok(self);
        };
        if let Place::Remote { .. } = self.place {
            return Err(CliError::Usage(
                "--as EMAIL picks the account on a local database; on a server, journal login --email EMAIL".into(),
            ));
        }
        self.act_as = Some(email.trim().to_lowercase());
        Ok(self)
    }

    // ----- the config file -------------------------------------------------------------

    /// The config file.
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    /// The config as it is now.
    pub fn config(&self) -> Config {
        self.lock_config().clone()
    }

    /// Changes the config and saves it.
    pub fn change_config(&self, change: impl FnOnce(&mut Config)) -> Result<()> {
        let mut config = self.lock_config();
        change(&mut config);
        config.save(&self.config_path)
    }

    fn lock_config(&self) -> MutexGuard<'_, Config> {
        self.config.lock().unwrap_or_else(|e| e.into_inner())
    }

    // ----- reaching the journal --------------------------------------------------------

    /// Opens the local database (creating it and its owner account on first use) or sets
    /// up the client for the server. Commands call it before asking for anything, so that
    /// a journal that cannot be used fails first.
    pub async fn connect(&self) -> Result<()> {
        self.side().await.map(|_| ())
    }

    /// The journal, ready to use: the local database opened, or the server's client.
    async fn side(&self) -> Result<&dyn Mode> {
        match &self.place {
            Place::Local { path, opened } => Ok(self.local(path, opened).await?),
            Place::Remote { server, client } => Ok(self.remote(server, client).await?),
        }
    }

    async fn local<'a>(&'a self, path: &Path, opened: &'a OnceCell<Local>) -> Result<&'a Local> {
        opened.get_or_try_init(|| self.open_local(path)).await
    }

    async fn remote<'a>(&self, server: &str, client: &'a OnceCell<Remote>) -> Result<&'a Remote> {
        client
            .get_or_try_init(|| async { Remote::new(server, self.bearer(server)) })
            .await
    }

    /// The server's URL, for a command that only works against a server (checked before
    /// the command asks for anything).
    pub fn require_server(&self, command: &str) -> Result<&str> {
        match &self.place {
            Place::Remote { server, .. } => Ok(server),
            Place::Local { .. } => Err(needs_server(command)),
        }
    }

    // ----- the caller's profile and entries --------------------------------------------

    /// The caller's profile.
    pub async fn profile(&self) -> Result<Profile> {
        self.side().await?.profile().await
    }
    /// Changes the caller's profile (and the e-mail of the saved login with it).
    pub async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        let profile = self.side().await?.update_profile(r).await?;
        if let (Place::Remote { server, .. }, Some(new_email)) = (&self.place, &r.email) {
            let mut config = self.lock_config();
            if let Some(session) = config.session_for_mut(server) {
                session.email = new_email.trim().to_lowercase();
                config.save(&self.config_path)?;
            }
        }
        Ok(profile)
    }
    /// Deletes the caller's account and entries, and forgets the login (on a server) or
    /// the owner account (locally).
    pub async fn delete_account(&self, proof: &DeleteAccountRequest) -> Result<()> {
        self.side().await?.delete_account(proof).await?;
        match &self.place {
            Place::Local { opened, .. } => {
                // Opened by `side` above: forget the owner account.
                let id = opened.get().map(|local| local.caller.user_id().to_string());
                self.change_config(|config| {
                    config
                        .owners
                        .retain(|_, owner| Some(&*owner) != id.as_ref())
                })
            }
            Place::Remote { server, .. } => {
                // A JOURNAL_TOKEN was used, not the saved login (which may be another
                // account's): leave that alone.
                if self.env_token.is_some() {
                    return Ok(());
                }
                self.change_config(|config| config.forget_session(server))
            }
        }
    }

    /// Creates an entry.
    pub async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        self.side().await?.create_entry(r).await
    }
    /// Imports entries keeping their dates; `progress` is told how many are done as they
    /// are. Locally all or nothing; on a server in batches small enough for its body
    /// limit, each all or nothing.
    pub async fn import_entries(
        &self,
        entries: Vec<ImportedEntry>,
        progress: &dyn Fn(u64),
    ) -> Result<ImportReport> {
        self.side().await?.import_entries(entries, progress).await
    }
    /// One entry by id.
    pub async fn entry(&self, id: &str) -> Result<Entry> {
        self.side()
            .await?
            .entry(id)
            .await
            .map_err(|e| e.about_entry(id))
    }
    /// Changes an entry.
    pub async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry> {
        self.side()
            .await?
            .update_entry(id, r)
            .await
            .map_err(|e| e.about_entry(id))
    }
    /// Moves an entry to the caller's trash.
    pub async fn delete_entry(&self, id: &str) -> Result<()> {
        self.side()
            .await?
            .delete_entry(id)
            .await
            .map_err(|e| e.about_entry(id))
    }
    /// A page of a user's entries (the caller's when `user` is `None`) that pass `filter`.
    pub async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let result = self.side().await?.user_entries(user, filter, page).await;
        match user {
            Some(who) => result.map_err(|e| e.about_user(who)),
            None => result,
        }
    }
    /// A page of the public feed that passes `filter`.
    pub async fn public_entries(
        &self,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.side().await?.public_entries(filter, page).await
    }
    /// A page of the caller's entries matching `q` that pass `filter`.
    pub async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.side().await?.search(q, filter, page).await
    }
    /// The caller's tags with how many entries have each, most used first.
    pub async fn tags(&self) -> Result<Vec<TagCount>> {
        self.side().await?.tags().await
    }
    /// One page of the caller's security log, newest first.
    pub async fn security_events(&self, page: PageRequest) -> Result<Page<SecurityEvent>> {
        self.side().await?.security_events(page).await
    }
    /// The caller's whole journal as our JSON export: with history, each entry's
    /// revisions and the trash.
    pub async fn export(&self, with_history: bool) -> Result<ExportDocument> {
        self.side().await?.export(with_history).await
    }
    /// Our zip export written to `out`: the JSON export and every attachment's file.
    pub async fn export_archive(&self, with_history: bool, out: std::fs::File) -> Result<usize> {
        self.side().await?.export_archive(with_history, out).await
    }
    /// Imports our zip export, with its attachments.
    pub async fn import_archive(&self, path: &Path) -> Result<journal_core::ArchiveReport> {
        self.side().await?.import_archive(path).await
    }
}

/// Checks a server address given to `journal config set server`.
pub fn check_server_url(url: &str) -> Result<()> {
    Remote::new(url, None).map(|_| ())
}

fn entry_id(id: &str) -> Result<EntryId> {
    id.trim()
        .parse()
        .map_err(|_| CliError::NotFound(format!("entry {id} not found")))
}

fn user_id(id: &str) -> Result<UserId> {
    id.trim()
        .parse()
        .map_err(|_| CliError::NotFound(format!("user {id} not found")))
}
