//! Where the journal lives: a local SQLite file through journal-core, or a server over
//! HTTP. Both offer the same operations and the same errors, so every command is
//! written once against [`Backend`].

use std::path::{Path, PathBuf};

use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, ErrorBody, ImportEntriesRequest,
    ImportEntriesResponse, ImportEntryRequest, LoginRequest, LoginResponse, MessageResponse,
    ProfileResponse, RegisterRequest, RegisterResponse, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{
    Caller, Entry, EntryId, ImportedEntry, Journal, JournalOptions, Page, PageRequest, Profile,
    Role, UserId,
};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::{Config, normalise_server};
use crate::error::{CliError, Result, chain};

/// The journal the commands act on.
pub enum Backend {
    /// A SQLite file on this machine, acted on as its owner.
    Local(Local),
    /// A journal-server, acted on with the saved token.
    Remote(Remote),
}

macro_rules! dispatch {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            Backend::Local($b) => $call,
            Backend::Remote($b) => $call,
        }
    };
}

impl Backend {
    /// The caller's profile.
    pub async fn profile(&self) -> Result<Profile> {
        dispatch!(self, b => b.profile().await)
    }
    /// Changes the caller's profile.
    pub async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        dispatch!(self, b => b.update_profile(r).await)
    }
    /// Deletes the caller's account and entries.
    pub async fn delete_account(&self) -> Result<()> {
        dispatch!(self, b => b.delete_account().await)
    }
    /// Creates an entry.
    pub async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        dispatch!(self, b => b.create_entry(r).await)
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
    /// A page of a user's entries (the caller's when `user` is `None`).
    pub async fn user_entries(&self, user: Option<&str>, page: PageRequest) -> Result<Page<Entry>> {
        let result = dispatch!(self, b => b.user_entries(user, page).await);
        match user {
            Some(who) => result.map_err(|e| e.about_user(who)),
            None => result,
        }
    }
    /// A page of the public feed.
    pub async fn public_entries(&self, page: PageRequest) -> Result<Page<Entry>> {
        dispatch!(self, b => b.public_entries(page).await)
    }
    /// A page of the caller's entries matching `q`.
    pub async fn search(&self, q: &str, page: PageRequest) -> Result<Page<Entry>> {
        dispatch!(self, b => b.search(q, page).await)
    }
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

// ----- local ---------------------------------------------------------------------------

/// journal-core on a SQLite file, acting as the file's owner account.
pub struct Local {
    journal: Journal,
    caller: Caller,
    path: PathBuf,
}

/// True when `target` names a PostgreSQL database rather than a file.
pub fn is_postgres_url(target: &str) -> bool {
    target.starts_with("postgres://") || target.starts_with("postgresql://")
}

/// The database URL for a `--database` value: a PostgreSQL URL or `sqlite:` URL as
/// given, anything else a SQLite file path.
pub fn database_url(target: &str) -> String {
    if is_postgres_url(target) || target.starts_with("sqlite:") {
        target.to_owned()
    } else {
        format!("sqlite:{target}")
    }
}

fn open_error(target: &str, e: journal_core::Error) -> CliError {
    let detail = match &e {
        journal_core::Error::Internal(cause) => chain(&**cause),
        journal_core::Error::Unavailable(cause) => chain(cause),
        other => other.to_string(),
    };
    // Never echo a password that may be in a URL.
    let shown = redact_url(target);
    CliError::Other(format!("cannot open the database {shown}: {detail}"))
}

pub use journal_core::store::redact_url;

/// Opens the journal at `path`, creating the directory and the file if needed. The
/// local journal is always a SQLite file.
pub async fn open_database(path: &Path) -> Result<Journal> {
    let shown = path.display().to_string();
    let path = Path::new(
        shown
            .strip_prefix("sqlite://")
            .or_else(|| shown.strip_prefix("sqlite:"))
            .unwrap_or(&shown),
    );
    if is_postgres_url(&shown) {
        return Err(CliError::Usage(
            "the local journal is a SQLite file; for a journal on PostgreSQL run journal-server on it and pass --server URL (only journal admin takes a postgres:// database)".into(),
        ));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            CliError::other(
                format_args!("cannot create the directory {}", dir.display()),
                e,
            )
        })?;
    }
    Journal::open(&database_url(&shown), JournalOptions::default())
        .await
        .map_err(|e| open_error(&shown, e))
}

/// Opens any journal database by URL or path (for `journal admin`), SQLite or PostgreSQL.
pub async fn open_any(target: &str) -> Result<Journal> {
    Journal::open(&database_url(target), JournalOptions::default())
        .await
        .map_err(|e| open_error(target, e))
}

/// Copies a whole journal into an empty database (`journal admin migrate`).
pub async fn migrate(from: &str, to: &str) -> Result<journal_core::store::CopyReport> {
    let source = journal_core::store::open(&database_url(from))
        .await
        .map_err(|e| open_error(from, e.into()))?;
    let target = journal_core::store::open(&database_url(to))
        .await
        .map_err(|e| open_error(to, e.into()))?;
    journal_core::store::copy_all(source.as_ref(), target.as_ref())
        .await
        .map_err(|e| match e {
            journal_core::store::CopyError::TargetNotEmpty => CliError::Usage(format!(
                "{} already holds a journal; migrate into an empty database",
                redact_url(to)
            )),
            journal_core::store::CopyError::Store(inner) => {
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
    /// Opens the database and finds (or, on first use, creates) its owner account,
    /// remembering it in `config`. Returns true when `config` changed.
    pub async fn open(path: &Path, config: &mut Config) -> Result<(Local, bool)> {
        let journal = open_database(path).await?;
        let key = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_owned())
            .display()
            .to_string();
        let mut changed = false;
        let remembered = match config.owners.get(&key).and_then(|id| id.parse().ok()) {
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
                let email = owner_email(&name);
                let existing = journal
                    .store()
                    .user_by_email(&email)
                    .await
                    .map_err(journal_core::Error::from)?;
                let id = match existing {
                    Some(user) => user.profile.id,
                    None => journal.register_local_owner(&name, &name, &email).await?,
                };
                config.owners.insert(key, id.to_string());
                changed = true;
                journal.local_caller(&id).await?
            }
        };
        Ok((
            Local {
                journal,
                caller,
                path: path.to_owned(),
            },
            changed,
        ))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The journal underneath.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Sets the owner's password (no current password needed: having the file is having
    /// the data), so the owner can log in when the file is served.
    pub async fn set_password(&self, new_password: &str) -> Result<()> {
        Ok(self
            .journal
            .reset_password(self.caller.user_id(), new_password)
            .await?)
    }

    async fn profile(&self) -> Result<Profile> {
        Ok(self.journal.profile(&self.caller).await?)
    }
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        Ok(self.journal.update_profile(&self.caller, r).await?)
    }
    async fn delete_account(&self) -> Result<()> {
        Ok(self.journal.delete_account(&self.caller).await?)
    }
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        Ok(self.journal.create_entry(&self.caller, r).await?)
    }
    /// Imports entries keeping their dates, all or nothing.
    pub async fn import_entries(&self, entries: Vec<ImportedEntry>) -> Result<Vec<Entry>> {
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
    async fn user_entries(&self, user: Option<&str>, page: PageRequest) -> Result<Page<Entry>> {
        let user = match user {
            Some(id) => user_id(id)?,
            None => *self.caller.user_id(),
        };
        Ok(self.journal.user_entries(&self.caller, &user, page).await?)
    }
    async fn public_entries(&self, page: PageRequest) -> Result<Page<Entry>> {
        Ok(self.journal.public_entries(page).await?)
    }
    async fn search(&self, q: &str, page: PageRequest) -> Result<Page<Entry>> {
        Ok(self.journal.search(&self.caller, q, page).await?)
    }
}

/// Grants or withdraws `admin` on a database file.
pub async fn set_role(target: &str, email: &str, role: Role) -> Result<()> {
    let journal = open_any(target).await?;
    journal
        .set_role(email, role)
        .await
        .map_err(|e| CliError::from(e).about_user(email))
}

// ----- remote --------------------------------------------------------------------------

/// A journal-server over HTTP, with the same wire types it uses.
pub struct Remote {
    client: reqwest::Client,
    base: String,
    token: Option<String>,
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
    /// A client for the server at `base`, with the token if logged in there.
    pub fn new(base: &str, token: Option<String>) -> Result<Remote> {
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

    /// The server's base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn not_logged_in(&self) -> CliError {
        CliError::Auth(format!("not logged in to {}; run journal login", self.base))
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
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .query(query);
        if auth {
            let token = self.token.as_deref().ok_or_else(|| self.not_logged_in())?;
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| self.transport(&e))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| self.transport(&e))?;
        if !status.is_success() {
            return Err(self.refusal(status, &bytes, auth));
        }
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            CliError::Other(format!(
                "unexpected answer from {} ({e}); is it a journal-server?",
                self.base
            ))
        })?;
        Ok((value, headers))
    }

    fn transport(&self, e: &reqwest::Error) -> CliError {
        if e.is_connect() || e.is_timeout() || e.is_request() {
            CliError::Connection {
                url: self.base.clone(),
                reason: connection_reason(e),
            }
        } else {
            CliError::other(format_args!("talking to {}", self.base), chain(e))
        }
    }

    fn refusal(&self, status: StatusCode, body: &[u8], sent_token: bool) -> CliError {
        let message = serde_json::from_slice::<ErrorBody>(body)
            .map(|b| b.message)
            .unwrap_or_else(|_| {
                status
                    .canonical_reason()
                    .unwrap_or("unexpected status")
                    .to_owned()
            });
        match status.as_u16() {
            400 | 413 | 422 => CliError::Invalid(message),
            401 if sent_token => CliError::Auth(format!(
                "the server refused the saved login ({message}); run journal login"
            )),
            401 => CliError::Auth(message),
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

    /// Registers an account.
    pub async fn register(&self, r: &RegisterRequest) -> Result<UserId> {
        let (reply, _): (RegisterResponse, _) = self
            .call(Method::POST, "/api/user/register", &[], Some(r), false)
            .await?;
        Ok(reply.user_id)
    }

    /// Logs in and returns the token.
    pub async fn login(&self, r: &LoginRequest) -> Result<String> {
        let (reply, _): (LoginResponse, _) = self
            .call(Method::POST, "/api/user/login", &[], Some(r), false)
            .await
            .map_err(|e| match e {
                CliError::Auth(_) => CliError::from(journal_core::Error::InvalidCredentials),
                other => other,
            })?;
        Ok(reply.token)
    }

    /// Revokes the token on the server.
    pub async fn logout(&self) -> Result<()> {
        let _: (MessageResponse, _) = self
            .call(Method::POST, "/api/user/logout", &[], None::<&()>, true)
            .await?;
        Ok(())
    }

    /// Changes the password (checking the current one).
    pub async fn change_password(&self, r: &ChangePasswordRequest) -> Result<()> {
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
    async fn delete_account(&self) -> Result<()> {
        let _: (serde_json::Value, _) = self
            .call(Method::DELETE, "/api/user/profile/", &[], None::<&()>, true)
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
    pub async fn import_batch(&self, entries: &[ImportedEntry]) -> Result<Vec<Entry>> {
        let request = ImportEntriesRequest {
            entries: entries
                .iter()
                .map(|e| ImportEntryRequest {
                    title: e.request.title.clone(),
                    content: e.request.content.clone(),
                    is_public: e.request.is_public,
                    created_at: Some(e.created_at.to_string()),
                    updated_at: e.updated_at.map(|t| t.to_string()),
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
    async fn user_entries(&self, user: Option<&str>, page: PageRequest) -> Result<Page<Entry>> {
        let user = match user {
            Some(id) => user_id(id)?,
            None => self.profile().await?.id,
        };
        self.page(
            &format!("/api/user/{user}/journal-entries"),
            vec![],
            page,
            true,
        )
        .await
    }
    async fn public_entries(&self, page: PageRequest) -> Result<Page<Entry>> {
        self.page("/api/public/journal-entries", vec![], page, false)
            .await
    }
    async fn search(&self, q: &str, page: PageRequest) -> Result<Page<Entry>> {
        self.page(
            "/api/search/journal-entries",
            vec![("q", q.to_owned())],
            page,
            true,
        )
        .await
    }
}
