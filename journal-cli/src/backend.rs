//! Where the journal lives: a local SQLite file through journal-core, or a server over
//! HTTP. [`Backend`] is the one interface the commands use: every operation of either
//! mode, with the same errors. An operation only one mode has answers a usage error in
//! the other ("journal X needs --server", "journal X needs a local database").

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, DeleteAccountRequest, ErrorBody,
    ImportEntriesRequest, ImportEntriesResponse, ImportEntryRequest, LoginRequest, LoginResponse,
    MessageResponse, ProfileResponse, RegisterRequest, RegisterResponse, UpdateEntryRequest,
    UpdateProfileRequest,
};
use journal_core::store::{CopyError, CopyReport, DatabaseUrl};
use journal_core::{
    Caller, Entry, EntryFilter, EntryId, FilterParams, ImportedEntry, Journal, JournalOptions,
    Page, PageRequest, Profile, Role, TagCount, TokenRejection, UserId,
};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::OnceCell;

use crate::config::{self, Config, Session, normalise_server};
use crate::error::{CliError, Result, chain};

pub use journal_core::store::redact_url;

mod accounts;
mod security_log;

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

/// One mode, ready to use.
enum Side<'a> {
    Local(&'a Local),
    Remote(&'a Remote),
}

macro_rules! dispatch {
    ($self:ident, $b:ident => $call:expr) => {
        match $self.side().await? {
            Side::Local($b) => $call,
            Side::Remote($b) => $call,
        }
    };
}

/// What a login came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// Logged in; the token is saved.
    Done,
    /// The password is right and the account has a second factor: log in again with
    /// its code.
    NeedsSecondFactor,
}

/// What a registration came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// The account is made and logged in.
    Done(UserId),
    /// The server registers only with an invitation, and none was sent.
    NeedsInvite,
}

/// What [`Backend::change_password`] did.
pub struct PasswordChanged {
    /// The account's e-mail address (to log in with).
    pub email: String,
    /// One sentence for the user about what changed.
    pub note: String,
    /// False when the password changed on a server but logging in again with it failed
    /// (the saved login was then forgotten: the change voided it).
    pub logged_in: bool,
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

    /// The token for requests to `server`: `JOURNAL_TOKEN`, else the saved login.
    fn bearer(&self, server: &str) -> Option<Bearer> {
        match &self.env_token {
            Some(token) => Some(Bearer::Env(token.clone())),
            None => self
                .lock_config()
                .session_for(server)
                .map(|s| Bearer::Saved(s.token.clone())),
        }
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

    fn remember_login(&self, server: &str, token: String, email: &str) -> Result<()> {
        self.change_config(|config| {
            config.session = Some(Session {
                server: server.to_owned(),
                token,
                email: email.trim().to_lowercase(),
            });
        })
    }

    // ----- reaching the journal --------------------------------------------------------

    /// Opens the local database (creating it and its owner account on first use) or sets
    /// up the client for the server. Commands call it before asking for anything, so that
    /// a journal that cannot be used fails first.
    pub async fn connect(&self) -> Result<()> {
        self.side().await.map(|_| ())
    }

    async fn side(&self) -> Result<Side<'_>> {
        match &self.place {
            Place::Local { path, opened } => Ok(Side::Local(self.local(path, opened).await?)),
            Place::Remote { server, client } => Ok(Side::Remote(
                client
                    .get_or_try_init(|| async { Remote::new(server, self.bearer(server)) })
                    .await?,
            )),
        }
    }

    /// The server's URL, for a command that only works against a server (checked before
    /// the command asks for anything).
    pub fn require_server(&self, command: &str) -> Result<&str> {
        match &self.place {
            Place::Remote { server, .. } => Ok(server),
            Place::Local { .. } => Err(needs_server(command)),
        }
    }

    // ----- accounts --------------------------------------------------------------------

    /// Creates an account on the server and logs in to it, remembering the login.
    pub async fn register(&self, request: &RegisterRequest) -> Result<Registered> {
        let server = self.require_server("register")?;
        let remote = Remote::new(server, None)?;
        let Some(user_id) = remote.register(request).await? else {
            return Ok(Registered::NeedsInvite);
        };
        let email = request.email.clone().unwrap_or_default();
        let token = remote
            .login(&LoginRequest {
                email: Some(email.clone()),
                password: request.password.clone(),
                ..Default::default()
            })
            .await?
            .token()?;
        self.remember_login(server, token, &email)?;
        Ok(Registered::Done(user_id))
    }

    /// Logs in to the server with a password and, when the account has a second
    /// factor, its code; remembers the login.
    pub async fn login(&self, email: &str, password: &str, totp: Option<&str>) -> Result<Login> {
        let server = self.require_server("login")?;
        let answer = Remote::new(server, None)?
            .login(&LoginRequest {
                email: Some(email.to_owned()),
                password: Some(password.to_owned()),
                totp: totp.map(str::to_owned),
            })
            .await?;
        match answer {
            LoginAnswer::Token(token) => {
                self.remember_login(server, token, email)?;
                Ok(Login::Done)
            }
            LoginAnswer::NeedsSecondFactor => Ok(Login::NeedsSecondFactor),
        }
    }

    /// Revokes the saved token on the server and forgets it, even when the server
    /// already refuses it. Returns the server's URL.
    pub async fn logout(&self) -> Result<&str> {
        let server = self.require_server("logout")?;
        let session = self
            .lock_config()
            .session_for(server)
            .cloned()
            .ok_or_else(|| not_logged_in(server))?;
        let expiry = token_expiry(&session.token);
        let revoked = Remote::new(server, Some(Bearer::Saved(session.token)))?
            .logout()
            .await;
        self.change_config(|config| config.session = None)?;
        match revoked {
            Ok(()) | Err(CliError::Auth(_)) => Ok(server),
            Err(e) => Err(e.with_note(format!(
                "the token was forgotten here but NOT revoked on the server: it stays valid until {}",
                expiry.map_or_else(
                    || "it expires".to_owned(),
                    |t| format!("{} (local time)", crate::output::local_time(&t))
                )
            ))),
        }
    }

    /// Fails before any question or editor when a command will need a login the
    /// config does not have (remote mode); locally there is nothing to check.
    pub fn require_login(&self) -> Result<()> {
        match &self.place {
            Place::Remote { server, .. } => self
                .bearer(server)
                .map(|_| ())
                .ok_or_else(|| not_logged_in(server)),
            Place::Local { .. } => Ok(()),
        }
    }

    /// True when [`Backend::change_password`] needs the current password: a server
    /// checks it; the local owner, who has the file, needs none.
    pub fn password_change_needs_current(&self) -> bool {
        matches!(self.place, Place::Remote { .. })
    }

    /// Changes the caller's password. On a server, `current` is checked, and the login
    /// is renewed with the new password (the old token stopped working). Locally the
    /// owner's password is set, so the owner can log in when the file is served.
    /// Every login session ends, and every access token unless `keep_access_tokens`;
    /// `totp` is the second factor's code, when the server asks for it.
    pub async fn change_password(
        &self,
        current: Option<&str>,
        new: &str,
        totp: Option<String>,
        keep_access_tokens: bool,
    ) -> Result<PasswordChanged> {
        match &self.place {
            Place::Local { path, opened } => {
                let local = self.local(path, opened).await?;
                local.set_password(new, keep_access_tokens).await?;
                let email = local.profile().await?.email;
                Ok(PasswordChanged {
                    note: format!("password set; when this database is served, log in as {email}"),
                    email,
                    logged_in: true,
                })
            }
            Place::Remote { server, .. } => {
                let session = self
                    .lock_config()
                    .session_for(server)
                    .cloned()
                    .ok_or_else(|| not_logged_in(server))?;
                let remote = Remote::new(server, Some(Bearer::Saved(session.token.clone())))?;
                let changed = remote
                    .change_password(&ChangePasswordRequest {
                        password: current.map(str::to_owned),
                        new_password: Some(new.to_owned()),
                        totp,
                        keep_access_tokens: Some(keep_access_tokens),
                    })
                    .await;
                if let Err(e) = changed {
                    // A 401 here is the current password, unless the login itself is
                    // gone: ask the server which.
                    return Err(match e {
                        CliError::Auth(_) if remote.profile().await.is_ok() => CliError::Auth(
                            "the current password is wrong; the password was not changed".into(),
                        ),
                        other => other,
                    });
                }
                // The change voided the saved token: log in again with the new password.
                // The change is done whatever happens to this login.
                let relogin = remote
                    .login(&LoginRequest {
                        email: Some(session.email.clone()),
                        password: Some(new.to_owned()),
                        ..Default::default()
                    })
                    .await
                    .and_then(LoginAnswer::token);
                match relogin {
                    Ok(token) => {
                        self.remember_login(server, token, &session.email)?;
                        Ok(PasswordChanged {
                            email: session.email,
                            logged_in: true,
                            note: "password changed; still logged in".into(),
                        })
                    }
                    Err(e) => {
                        self.change_config(|config| config.session = None)?;
                        Ok(PasswordChanged {
                            note: format!(
                                "password changed; the automatic login with the new password failed ({e}), so log in again: journal login --email {}",
                                session.email
                            ),
                            email: session.email,
                            logged_in: false,
                        })
                    }
                }
            }
        }
    }

    /// The caller's profile.
    pub async fn profile(&self) -> Result<Profile> {
        dispatch!(self, b => b.profile().await)
    }
    /// Changes the caller's profile (and the e-mail of the saved login with it).
    pub async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        let profile = dispatch!(self, b => b.update_profile(r).await)?;
        if let (Place::Remote { .. }, Some(new_email)) = (&self.place, &r.email) {
            let mut config = self.lock_config();
            if let Some(session) = config.session.as_mut() {
                session.email = new_email.trim().to_lowercase();
                config.save(&self.config_path)?;
            }
        }
        Ok(profile)
    }
    /// Deletes the caller's account and entries, and forgets the login (on a server) or
    /// the owner account (locally).
    pub async fn delete_account(&self, proof: &DeleteAccountRequest) -> Result<()> {
        match self.side().await? {
            Side::Local(local) => {
                local.delete_account().await?;
                let id = local.caller.user_id().to_string();
                self.change_config(|config| config.owners.retain(|_, owner| *owner != id))
            }
            Side::Remote(remote) => {
                remote.delete_account(proof).await?;
                // A JOURNAL_TOKEN was used, not the saved login (which may be another
                // account's): leave that alone.
                if self.env_token.is_some() {
                    return Ok(());
                }
                self.change_config(|config| config.session = None)
            }
        }
    }

    /// Grants or withdraws `admin` by e-mail, on the local database (SQLite or
    /// PostgreSQL): never over HTTP.
    pub async fn set_role(&self, email: &str, role: Role) -> Result<()> {
        let Place::Local { path, .. } = &self.place else {
            return Err(needs_local_database("admin"));
        };
        let journal = open_any(&path.display().to_string()).await?;
        journal
            .set_role(email, role)
            .await
            .map_err(|e| CliError::from(e).about_user(email))
    }

    // ----- entries ---------------------------------------------------------------------

    /// Creates an entry.
    pub async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        dispatch!(self, b => b.create_entry(r).await)
    }
    /// Imports entries keeping their dates; `progress` is told how many are done as they
    /// are. Locally all or nothing; on a server in batches small enough for its body
    /// limit, each all or nothing.
    pub async fn import_entries(
        &self,
        entries: Vec<ImportedEntry>,
        progress: &dyn Fn(u64),
    ) -> Result<Vec<Entry>> {
        match self.side().await? {
            Side::Local(local) => {
                let created = local.import_entries(entries).await?;
                progress(created.len() as u64);
                Ok(created)
            }
            Side::Remote(remote) => {
                // The server's body limit is 1 MiB by default.
                let mut created = Vec::with_capacity(entries.len());
                for batch in import_batches(&entries, 256 * 1024) {
                    created.extend(remote.import_batch(batch).await?);
                    progress(batch.len() as u64);
                }
                Ok(created)
            }
        }
    }
    /// One entry by id.
    pub async fn entry(&self, id: &str) -> Result<Entry> {
        dispatch!(self, b => b.entry(id).await).map_err(|e| e.about_entry(id))
    }
    /// Changes an entry.
    pub async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry> {
        dispatch!(self, b => b.update_entry(id, r).await).map_err(|e| e.about_entry(id))
    }
    /// Deletes an entry.
    pub async fn delete_entry(&self, id: &str) -> Result<()> {
        dispatch!(self, b => b.delete_entry(id).await).map_err(|e| e.about_entry(id))
    }
    /// A page of a user's entries (the caller's when `user` is `None`) that pass `filter`.
    pub async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let result = dispatch!(self, b => b.user_entries(user, filter, page).await);
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
        dispatch!(self, b => b.public_entries(filter, page).await)
    }
    /// A page of the caller's entries matching `q` that pass `filter`.
    pub async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        dispatch!(self, b => b.search(q, filter, page).await)
    }
    /// The caller's tags with how many entries have each, most used first.
    pub async fn tags(&self) -> Result<Vec<TagCount>> {
        dispatch!(self, b => b.tags().await)
    }

    async fn local<'a>(&'a self, path: &Path, opened: &'a OnceCell<Local>) -> Result<&'a Local> {
        opened.get_or_try_init(|| self.open_local(path)).await
    }

    /// Opens the local database and finds (or, on first use, creates) its owner account,
    /// remembering it in the config file.
    async fn open_local(&self, path: &Path) -> Result<Local> {
        let journal = open_database(path).await?;
        let key = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_owned())
            .display()
            .to_string();
        let remembered = self
            .lock_config()
            .owners
            .get(&key)
            .and_then(|id| id.parse().ok())
            .filter(|_| self.act_as.is_none());
        let remembered = match remembered {
            Some(id) => match journal.local_caller(&id).await {
                Ok(caller) => Some(caller),
                Err(journal_core::Error::NotFound { .. }) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
        let caller = match remembered {
            Some(caller) => caller,
            None => {
                let name = os_user();
                let id = match &self.act_as {
                    // Asked for by name: that account, or a new one with that address.
                    Some(email) => {
                        let nickname = email.split('@').next().unwrap_or(&name).to_owned();
                        journal
                            .find_or_register_local_owner(&nickname, &nickname, email)
                            .await?
                    }
                    None => {
                        let email = owner_email(&name);
                        self.check_no_other_accounts(&journal, path, &email).await?;
                        journal
                            .find_or_register_local_owner(&name, &name, &email)
                            .await?
                    }
                };
                let caller = journal.local_caller(&id).await?;
                self.change_config(|config| {
                    config.owners.insert(key, id.to_string());
                })?;
                caller
            }
        };
        Ok(Local { journal, caller })
    }
}

impl Backend {
    /// Before creating the local owner `email` on a database: refuses when the database
    /// already has other accounts (a server's database, say), unless the user says yes
    /// on a terminal. Creating an owner there silently would add a second author to the
    /// public feed, possibly with the same nickname as a real one.
    async fn check_no_other_accounts(
        &self,
        journal: &Journal,
        path: &Path,
        email: &str,
    ) -> Result<()> {
        let store = journal.store();
        let fail = |e: journal_core::StoreError| CliError::from(journal_core::Error::from(e));
        if store.user_by_email(email).await.map_err(fail)?.is_some() {
            return Ok(());
        }
        let others: Vec<String> = store
            .users_after(None, 4)
            .await
            .map_err(fail)?
            .into_iter()
            .map(|u| u.profile.email)
            .filter(|e| e != email)
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        let shown = if others.len() > 3 {
            format!("{}, …", others[..3].join(", "))
        } else {
            others.join(", ")
        };
        if crate::text::interactive() {
            let answer = crate::text::ask(&format!(
                "{} already has accounts ({shown}), so it may be a server's database.\nCreate a new local account {email} here? [y/N] ",
                path.display()
            ))?;
            if matches!(answer.to_lowercase().as_str(), "y" | "yes") {
                return Ok(());
            }
        }
        Err(CliError::Usage(format!(
            "{} already has accounts ({shown}), so journal does not create the local account {email} in it unasked; pass --as EMAIL to act as one of them (or --as {email} to create it)",
            path.display()
        )))
    }
}

/// Checks a server address given to `journal config set server`.
pub fn check_server_url(url: &str) -> Result<()> {
    Remote::new(url, None).map(|_| ())
}

/// Splits entries into runs of at most `MAX_IMPORT_BATCH` entries and about `bytes` of
/// text each (a single larger entry goes alone).
fn import_batches(entries: &[ImportedEntry], bytes: usize) -> Vec<&[ImportedEntry]> {
    let mut batches = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, e) in entries.iter().enumerate() {
        let len = e.request.title.as_deref().map_or(0, str::len)
            + e.request.content.as_deref().map_or(0, str::len)
            + 128;
        if i > start && (size + len > bytes || i - start == journal_core::MAX_IMPORT_BATCH) {
            batches.push(&entries[start..i]);
            (start, size) = (i, 0);
        }
        size += len;
    }
    if start < entries.len() {
        batches.push(&entries[start..]);
    }
    batches
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

/// When a saved token expires, read from its `exp` claim (not verified: only to tell
/// the user).
fn token_expiry(token: &str) -> Option<journal_core::Timestamp> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let exp = claims.get("exp")?.as_i64()?;
    Some(journal_core::Timestamp::from_millis(exp.checked_mul(1000)?))
}

// ----- local ---------------------------------------------------------------------------

/// journal-core on a SQLite file, acting as the file's owner account.
struct Local {
    journal: Journal,
    caller: Caller,
}

/// "cannot open the database TARGET: why", never showing a password in `target`.
fn open_error(target: &str, detail: impl std::fmt::Display) -> CliError {
    CliError::Other(format!(
        "cannot open the database {}: {detail}",
        redact_url(target)
    ))
}

fn journal_open_error(target: &str, e: journal_core::Error) -> CliError {
    if let journal_core::Error::Config(why) = &e {
        return CliError::Usage(format!("--database {}: {why}", redact_url(target)));
    }
    let detail = match &e {
        journal_core::Error::Internal(cause) => chain(&**cause),
        journal_core::Error::Unavailable(cause) => chain(cause),
        other => other.to_string(),
    };
    open_error(target, detail)
}

/// Parses a `--database`, `--from` or `--to` value.
fn parse_database(target: &str) -> Result<DatabaseUrl> {
    DatabaseUrl::parse(target)
        .map_err(|e| CliError::Usage(format!("--database {}: {e}", redact_url(target))))
}

/// Opens the journal at `path`, creating the directory and the file if needed. The
/// local journal is always a SQLite file.
async fn open_database(path: &Path) -> Result<Journal> {
    let shown = path.display().to_string();
    let url = parse_database(&shown)?;
    if url.is_postgres() {
        return Err(CliError::Usage(
            "the local journal is a SQLite file; for a journal on PostgreSQL run journal-server on it and pass --server URL (only journal admin takes a postgres:// database)".into(),
        ));
    }
    if let Some(dir) = url
        .sqlite_path()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
    {
        crate::private_files::create_dir_all(dir).map_err(|e| {
            CliError::other(
                format_args!("cannot create the directory {}", dir.display()),
                e,
            )
        })?;
    }
    Journal::open(&url.url(), JournalOptions::default())
        .await
        .map_err(|e| journal_open_error(&shown, e))
}

/// Opens any journal database by URL or path (for `journal admin`), SQLite or PostgreSQL.
async fn open_any(target: &str) -> Result<Journal> {
    let url = parse_database(target)?;
    Journal::open(&url.url(), JournalOptions::default())
        .await
        .map_err(|e| journal_open_error(target, e))
}

/// Copies a whole journal into an empty database (`journal admin migrate`), in either
/// mode: both databases are named.
pub async fn migrate(from: &str, to: &str) -> Result<CopyReport> {
    let source = open_any(from).await?;
    let target = parse_database(to)?;
    source
        .copy_into(&target.url())
        .await
        .map_err(|e| journal_open_error(to, e))?
        .map_err(|e| match e {
            CopyError::TargetNotEmpty => CliError::Usage(format!(
                "{} already holds a journal; migrate into an empty database",
                redact_url(to)
            )),
            CopyError::Store(inner) => {
                CliError::Other(format!("migration failed: {}", chain(&inner)))
            }
        })
}

/// The OS user's name, for the local owner account.
fn os_user() -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "owner".into())
}

/// The local owner's e-mail address: `<user>@localhost`.
fn owner_email(user: &str) -> String {
    let local: String = user
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    let local = local.trim_matches('.').to_owned();
    format!(
        "{}@localhost",
        if local.is_empty() { "owner" } else { &local }
    )
}

impl Local {
    /// Sets the owner's password (no current password needed: having the file is having
    /// the data), so the owner can log in when the file is served.
    async fn set_password(&self, new_password: &str, keep_access_tokens: bool) -> Result<()> {
        Ok(self
            .journal
            .reset_password(self.caller.user_id(), new_password, keep_access_tokens)
            .await?)
    }

    async fn profile(&self) -> Result<Profile> {
        Ok(self.journal.profile(&self.caller).await?)
    }
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        Ok(self.journal.update_profile(&self.caller, r).await?)
    }
    async fn delete_account(&self) -> Result<()> {
        let trusted = DeleteAccountRequest::default();
        Ok(self.journal.delete_account(&self.caller, &trusted).await?)
    }
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        Ok(self.journal.create_entry(&self.caller, r).await?)
    }
    /// Imports entries keeping their dates, all or nothing.
    async fn import_entries(&self, entries: Vec<ImportedEntry>) -> Result<Vec<Entry>> {
        Ok(self.journal.import_entries(&self.caller, entries).await?)
    }
    async fn entry(&self, id: &str) -> Result<Entry> {
        Ok(self.journal.entry(&self.caller, &entry_id(id)?).await?)
    }
    async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry> {
        Ok(self
            .journal
            .update_entry(&self.caller, &entry_id(id)?, r)
            .await?)
    }
    async fn delete_entry(&self, id: &str) -> Result<()> {
        Ok(self
            .journal
            .delete_entry(&self.caller, &entry_id(id)?)
            .await?)
    }
    async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let user = match user {
            Some(id) => user_id(id)?,
            None => *self.caller.user_id(),
        };
        Ok(self
            .journal
            .user_entries_matching(&self.caller, &user, &entry_filter(filter)?, page)
            .await?)
    }
    async fn public_entries(
        &self,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        Ok(self
            .journal
            .public_entries_matching(&entry_filter(filter)?, page)
            .await?)
    }
    async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        Ok(self
            .journal
            .search_matching(&self.caller, q, &entry_filter(filter)?, page)
            .await?)
    }
    async fn tags(&self) -> Result<Vec<TagCount>> {
        Ok(self.journal.tags(&self.caller).await?)
    }
}

/// A list's filter as the server would read it from the same query string.
fn entry_filter(params: &FilterParams) -> Result<EntryFilter> {
    EntryFilter::parse(params).map_err(|e| CliError::Invalid(e.to_string()))
}

// ----- remote --------------------------------------------------------------------------

/// What the server answered a login.
enum LoginAnswer {
    Token(String),
    NeedsSecondFactor,
}

impl LoginAnswer {
    /// The token, for a login that cannot ask for a code.
    fn token(self) -> Result<String> {
        match self {
            LoginAnswer::Token(token) => Ok(token),
            LoginAnswer::NeedsSecondFactor => Err(journal_core::Error::SecondFactorRequired.into()),
        }
    }
}

/// A list's filter as query string pairs.
fn filter_query(filter: &FilterParams) -> Vec<(&'static str, String)> {
    filter
        .query_pairs()
        .into_iter()
        .map(|(name, value)| (name, value.to_owned()))
        .collect()
}

/// A journal-server over HTTP, with the same wire types it uses.
struct Remote {
    client: reqwest::Client,
    base: String,
    token: Option<Bearer>,
}

/// The token a request is sent with, and where it came from: a refusal says which one
/// to fix.
#[derive(Clone)]
enum Bearer {
    /// The login saved in the config file.
    Saved(String),
    /// `JOURNAL_TOKEN`: an access token or a login token, never saved.
    Env(String),
}

impl Bearer {
    fn secret(&self) -> &str {
        match self {
            Bearer::Saved(token) | Bearer::Env(token) => token,
        }
    }
}

/// A refusal as the server sent it: its status and the error body's message.
struct Refused {
    status: StatusCode,
    message: String,
}

impl Refused {
    /// True when the message is exactly the one the core gives for `error`.
    fn is(&self, error: journal_core::Error) -> bool {
        self.message == error.to_string()
    }
}

/// Why a request could not reach the server, in a few words.
fn connection_reason(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timed out".into();
    }
    let mut source: Option<&dyn std::error::Error> = Some(e);
    let mut last = None;
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                std::io::ErrorKind::TimedOut => return "timed out".into(),
                _ => {}
            }
        }
        last = Some(s.to_string());
        source = s.source();
    }
    last.unwrap_or_else(|| e.to_string())
}

impl Remote {
    /// A client for the server at `base`, with the token if there is one.
    fn new(base: &str, token: Option<Bearer>) -> Result<Remote> {
        let base = normalise_server(base);
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(CliError::Usage(format!(
                "the server address {base:?} must start with http:// or https://"
            )));
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("journal-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .map_err(|e| CliError::other("cannot set up the HTTP client", e))?;
        Ok(Remote {
            client,
            base,
            token,
        })
    }

    /// Sends a request and decodes the JSON answer; with `auth`, sends the token.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        auth: bool,
    ) -> Result<(T, reqwest::header::HeaderMap)> {
        self.send(method, path, query, body, auth)
            .await?
            .map_err(|refused| self.refusal(refused, auth))
    }

    /// [`Remote::call`], with the server's refusal handed back as it came, for the
    /// callers that tell its kinds apart (a 401 at login is not a refused token).
    async fn send<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&(impl Serialize + ?Sized)>,
        auth: bool,
    ) -> Result<std::result::Result<(T, reqwest::header::HeaderMap), Refused>> {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .query(query);
        if auth {
            let token = self
                .token
                .as_ref()
                .ok_or_else(|| not_logged_in(&self.base))?;
            request = request.bearer_auth(token.secret());
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| self.transport(&e))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| self.transport(&e))?;
        if !status.is_success() {
            let message = serde_json::from_slice::<ErrorBody>(&bytes)
                .map(|b| b.message)
                .unwrap_or_else(|_| {
                    status
                        .canonical_reason()
                        .unwrap_or("unexpected status")
                        .to_owned()
                });
            return Ok(Err(Refused { status, message }));
        }
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            CliError::Other(format!(
                "unexpected answer from {} ({e}); is it a journal-server?",
                self.base
            ))
        })?;
        Ok(Ok((value, headers)))
    }

    fn transport(&self, e: &reqwest::Error) -> CliError {
        let text = chain(e);
        if self.base.starts_with("https://")
            && (text.contains("InvalidContentType") || text.contains("corrupt message"))
        {
            return CliError::Connection {
                url: self.base.clone(),
                reason: format!(
                    "the server does not speak TLS here; try {}",
                    self.base.replacen("https://", "http://", 1)
                ),
            };
        }
        if e.is_connect() || e.is_timeout() || e.is_request() {
            CliError::Connection {
                url: self.base.clone(),
                reason: format!("{} (is journal-server running?)", connection_reason(e)),
            }
        } else {
            CliError::other(format_args!("talking to {}", self.base), chain(e))
        }
    }

    fn refusal(&self, refused: Refused, sent_token: bool) -> CliError {
        let Refused { status, message } = refused;
        let from_env = matches!(self.token, Some(Bearer::Env(_)));
        let disabled = journal_core::Error::Unauthenticated(TokenRejection::Disabled).to_string();
        match status.as_u16() {
            400 | 413 | 422 => CliError::Invalid(message),
            // Logging in again would not help.
            401 if message == disabled => CliError::Auth(message),
            401 if sent_token && from_env => CliError::Auth(format!(
                "the server refused the token in JOURNAL_TOKEN ({message}); make a new one, or unset JOURNAL_TOKEN to use the saved login"
            )),
            401 if sent_token => CliError::Auth(format!(
                "the server refused the saved login ({message}); run journal login"
            )),
            401 => CliError::Auth(message),
            // What an access token may not do: say where it came from.
            403 if sent_token && from_env && message.contains("personal access token") => {
                CliError::Forbidden(format!(
                    "{message} (the token is from JOURNAL_TOKEN: unset it to use the saved login)"
                ))
            }
            403 => CliError::Forbidden(message),
            404 => CliError::NotFound(message),
            409 => CliError::Conflict(message),
            429 => CliError::Other(format!("too many attempts: {message}")),
            _ => CliError::Other(format!(
                "the server answered {status}: {message}",
                status = status.as_u16()
            )),
        }
    }

    async fn page(
        &self,
        path: &str,
        mut query: Vec<(&str, String)>,
        page: PageRequest,
        auth: bool,
    ) -> Result<Page<Entry>> {
        query.push(("page", page.page().to_string()));
        query.push(("limit", page.limit().to_string()));
        if let Some(cursor) = page.after() {
            query.push(("after", cursor.to_string()));
        }
        let (items, headers): (Vec<Entry>, _) = self
            .call(Method::GET, path, &query, None::<&()>, auth)
            .await?;
        let total = headers
            .get("x-total-count")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(items.len() as u64);
        Ok(Page {
            items,
            total,
            page: page.page(),
            limit: page.limit(),
        })
    }

    /// Registers an account; `None` when the server needs an invitation and none was
    /// sent.
    async fn register(&self, r: &RegisterRequest) -> Result<Option<UserId>> {
        let answer = self
            .send::<RegisterResponse>(Method::POST, "/api/user/register", &[], Some(r), false)
            .await?;
        match answer {
            Ok((reply, _)) => Ok(Some(reply.user_id)),
            // The error body has no code of its own: the core's words are the signal.
            Err(refused)
                if refused.status == StatusCode::FORBIDDEN
                    && refused.message.contains("needs an invitation")
                    && r.invite_code.is_none() =>
            {
                Ok(None)
            }
            Err(refused) => Err(self.refusal(refused, false)),
        }
    }

    /// Logs in: the token, or word that the account's second factor is needed.
    async fn login(&self, r: &LoginRequest) -> Result<LoginAnswer> {
        use journal_core::Error as E;
        let answer = self
            .send::<LoginResponse>(Method::POST, "/api/user/login", &[], Some(r), false)
            .await?;
        let refused = match answer {
            Ok((reply, _)) => return Ok(LoginAnswer::Token(reply.token)),
            Err(refused) => refused,
        };
        Err(match refused.status.as_u16() {
            401 if refused.message.starts_with("Two-factor code required") => {
                return Ok(LoginAnswer::NeedsSecondFactor);
            }
            401 if refused.is(E::InvalidSecondFactor) => E::InvalidSecondFactor.into(),
            401 => E::InvalidCredentials.into(),
            // A disabled account, told only once the password is right.
            403 => CliError::Auth(refused.message),
            _ => self.refusal(refused, false),
        })
    }

    /// Revokes the token on the server.
    async fn logout(&self) -> Result<()> {
        let _: (MessageResponse, _) = self
            .call(Method::POST, "/api/user/logout", &[], None::<&()>, true)
            .await?;
        Ok(())
    }

    /// Changes the password (checking the current one).
    async fn change_password(&self, r: &ChangePasswordRequest) -> Result<()> {
        let _: (MessageResponse, _) = self
            .call(
                Method::PUT,
                "/api/user/profile/password",
                &[],
                Some(r),
                true,
            )
            .await?;
        Ok(())
    }

    async fn profile(&self) -> Result<Profile> {
        let (reply, _): (ProfileResponse, _) = self
            .call(Method::GET, "/api/user/profile/", &[], None::<&()>, true)
            .await?;
        Ok(reply.user)
    }
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        let _: (serde_json::Value, _) = self
            .call(Method::PUT, "/api/user/profile/", &[], Some(r), true)
            .await?;
        self.profile().await
    }
    async fn delete_account(&self, proof: &DeleteAccountRequest) -> Result<()> {
        let _: (serde_json::Value, _) = self
            .call(Method::DELETE, "/api/user/profile/", &[], Some(proof), true)
            .await?;
        Ok(())
    }
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        Ok(self
            .call(Method::POST, "/api/journal-entries", &[], Some(r), true)
            .await?
            .0)
    }
    /// Imports one batch keeping its dates (`POST /api/journal-entries/import`); the
    /// server takes it all or nothing.
    async fn import_batch(&self, entries: &[ImportedEntry]) -> Result<Vec<Entry>> {
        let request = ImportEntriesRequest {
            entries: entries
                .iter()
                .map(|e| ImportEntryRequest {
                    title: e.request.title.clone(),
                    content: e.request.content.clone(),
                    is_public: e.request.is_public,
                    created_at: Some(e.created_at.to_string()),
                    updated_at: e.updated_at.map(|t| t.to_string()),
                    tags: e.request.tags.clone(),
                    starred: e.request.starred,
                    date: e.request.date.clone(),
                })
                .collect(),
        };
        let (response, _): (ImportEntriesResponse, _) = self
            .call(
                Method::POST,
                "/api/journal-entries/import",
                &[],
                Some(&request),
                true,
            )
            .await?;
        Ok(response.entries)
    }
    async fn entry(&self, id: &str) -> Result<Entry> {
        let id = entry_id(id)?;
        Ok(self
            .call(
                Method::GET,
                &format!("/api/journal-entries/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await?
            .0)
    }
    async fn update_entry(&self, id: &str, r: &UpdateEntryRequest) -> Result<Entry> {
        let id = entry_id(id)?;
        Ok(self
            .call(
                Method::PUT,
                &format!("/api/journal-entries/{id}"),
                &[],
                Some(r),
                true,
            )
            .await?
            .0)
    }
    async fn delete_entry(&self, id: &str) -> Result<()> {
        let id = entry_id(id)?;
        let _: (serde_json::Value, _) = self
            .call(
                Method::DELETE,
                &format!("/api/journal-entries/{id}"),
                &[],
                None::<&()>,
                true,
            )
            .await?;
        Ok(())
    }
    async fn user_entries(
        &self,
        user: Option<&str>,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let user = match user {
            Some(id) => user_id(id)?,
            None => self.profile().await?.id,
        };
        self.page(
            &format!("/api/user/{user}/journal-entries"),
            filter_query(filter),
            page,
            true,
        )
        .await
    }
    async fn public_entries(
        &self,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.page(
            "/api/public/journal-entries",
            filter_query(filter),
            page,
            false,
        )
        .await
    }
    async fn search(
        &self,
        q: &str,
        filter: &FilterParams,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        let mut query = filter_query(filter);
        query.push(("q", q.to_owned()));
        self.page("/api/search/journal-entries", query, page, true)
            .await
    }
    async fn tags(&self) -> Result<Vec<TagCount>> {
        Ok(self
            .call(Method::GET, "/api/user/tags", &[], None::<&()>, true)
            .await?
            .0)
    }
}
