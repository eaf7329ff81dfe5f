//! The local mode: journal-core on a SQLite file, acting as the file's owner account
//! (found, or made on first use, and remembered in the config file). Also opening any
//! journal database by URL, for `journal admin`.

use std::path::Path;

use async_trait::async_trait;
use journal_core::api::{
    CreateEntryRequest, DeleteAccountRequest, UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::store::{CopyError, CopyReport, DatabaseUrl};
use journal_core::transfer::json::ExportDocument;
use journal_core::{
    Caller, Entry, EntryFilter, FilterParams, ImportReport, ImportedEntry, Journal, JournalOptions,
    Page, PageRequest, Profile, SecurityEvent, TagCount,
};

use super::{Backend, Mode, Place, entry_id, redact_url, user_id};
use crate::error::{CliError, Result, chain};

/// journal-core on a SQLite file, acting as the file's owner account.
pub(super) struct Local {
    pub(super) journal: Journal,
    pub(super) caller: Caller,
    /// Why the attachments' folder beside the file cannot be used, when it cannot (a
    /// journal someone else owns, opened to read): the journal works without it.
    pub(super) files_trouble: Option<String>,
}

impl Backend {
    /// Opens the local database and finds (or, on first use, creates) its owner account,
    /// remembering it in the config file.
    pub(super) async fn open_local(&self, path: &Path) -> Result<Local> {
        let (journal, files_trouble) = open_database(path).await?;
        // No server sweeps a local journal's trash: it is swept here, on each use,
        // quietly. A failure leaves the entries for the next time; the command itself
        // meets any real trouble with the database on its own.
        let days = u64::from(journal_core::TRASH_DAYS);
        let _ = journal
            .purge_expired_trash(std::time::Duration::from_secs(days * 24 * 60 * 60))
            .await;
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
        Ok(Local {
            journal,
            caller,
            files_trouble,
        })
    }

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
/// Also answers why the attachments' folder cannot be used, when the journal opened
/// only without it.
async fn open_database(path: &Path) -> Result<(Journal, Option<String>)> {
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
    // The default options keep attachments beside the file (`journal.db` →
    // `journal-files/`), where `journal admin gc` finds them too.
    let refused = match Journal::open(&url.url(), local_options()).await {
        Ok(journal) => return Ok((journal, None)),
        Err(e) => e,
    };
    // A folder this user may not make private (another's journal, read-only) must not
    // stop the entries from being read: without the attachments, the journal may open.
    if let journal_core::Error::Config(why) = &refused {
        let without_files = JournalOptions {
            attachments: journal_core::AttachmentOptions {
                place: journal_core::AttachmentPlace::Off,
                ..Default::default()
            },
            ..local_options()
        };
        if let Ok(journal) = Journal::open(&url.url(), without_files).await {
            return Ok((journal, Some(why.clone())));
        }
    }
    Err(journal_open_error(&shown, refused))
}

/// Opens any journal database by URL or path (for `journal admin`), SQLite or PostgreSQL.
pub(super) async fn open_any(target: &str) -> Result<Journal> {
    open_any_with(target, local_options()).await
}

/// [`open_any`] with options other than the defaults (a folder for attachments).
pub(super) async fn open_any_with(target: &str, options: JournalOptions) -> Result<Journal> {
    let url = parse_database(target)?;
    Journal::open(&url.url(), options)
        .await
        .map_err(|e| journal_open_error(target, e))
}

/// The places of attachments `journal admin migrate` was given.
#[derive(Debug, Default)]
pub struct MigrateFolders {
    /// The source's (`--from-attachments`); beside a SQLite source by default.
    pub from: Option<journal_core::AttachmentPlace>,
    /// The target's (`--attachments`); beside a SQLite target by default.
    pub to: Option<journal_core::AttachmentPlace>,
}

fn place(given: Option<journal_core::AttachmentPlace>) -> journal_core::AttachmentPlace {
    given.unwrap_or_default()
}

/// Options for a journal this process opens on a file of its own: no login is ever
/// checked against it, so the decoy hash that evens out logins' cost is not made.
pub(super) fn local_options() -> JournalOptions {
    JournalOptions {
        prepare_logins: false,
        ..JournalOptions::default()
    }
}

/// Copies a whole journal into an empty database (`journal admin migrate`), in either
/// mode: both databases are named.
pub async fn migrate(from: &str, to: &str, dirs: MigrateFolders) -> Result<CopyReport> {
    let options = JournalOptions {
        attachments: journal_core::AttachmentOptions {
            place: place(dirs.from),
            ..Default::default()
        },
        ..local_options()
    };
    let source = open_any_with(from, options).await?;
    let target = parse_database(to)?;
    source
        .copy_into(&target.url(), place(dirs.to))
        .await
        .map_err(|e| match e {
            // Where the files would go: a usage mistake, told as the core says it.
            journal_core::Error::Config(why) => CliError::Usage(why),
            e => journal_open_error(to, e),
        })?
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
    pub(super) async fn set_password(
        &self,
        new_password: &str,
        keep_access_tokens: bool,
    ) -> Result<()> {
        Ok(self
            .journal
            .reset_password(self.caller.user_id(), new_password, keep_access_tokens)
            .await?)
    }
}

#[async_trait(?Send)]
impl Mode for Local {
    async fn profile(&self) -> Result<Profile> {
        Ok(self.journal.profile(&self.caller).await?)
    }
    async fn update_profile(&self, r: &UpdateProfileRequest) -> Result<Profile> {
        Ok(self.journal.update_profile(&self.caller, r).await?)
    }
    async fn delete_account(&self, _proof: &DeleteAccountRequest) -> Result<()> {
        // Having the file is having the data: the owner is asked for no proof.
        let trusted = DeleteAccountRequest::default();
        Ok(self.journal.delete_account(&self.caller, &trusted).await?)
    }
    async fn create_entry(&self, r: &CreateEntryRequest) -> Result<Entry> {
        Ok(self.journal.create_entry(&self.caller, r).await?)
    }
    async fn import_entries(
        &self,
        entries: Vec<ImportedEntry>,
        progress: &dyn Fn(u64),
    ) -> Result<ImportReport> {
        // All or nothing, in one transaction.
        let total = entries.len() as u64;
        let report = self.journal.import_entries(&self.caller, entries).await?;
        progress(total);
        Ok(report)
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
    async fn security_events(&self, page: PageRequest) -> Result<Page<SecurityEvent>> {
        Ok(self.journal.security_events(&self.caller, page).await?)
    }
    async fn export(&self, with_history: bool) -> Result<ExportDocument> {
        Ok(self.journal.export(&self.caller, with_history).await?)
    }
    async fn export_archive(&self, with_history: bool, out: std::fs::File) -> Result<usize> {
        let document = self
            .journal
            .export_archive(&self.caller, with_history, out)
            .await?;
        Ok(document.entries.len())
    }
    async fn import_archive(&self, path: &Path) -> Result<journal_core::ArchiveReport> {
        let file = std::fs::File::open(path)
            .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
        Ok(self
            .journal
            .import_archive(&self.caller, file, path.display().to_string())
            .await?)
    }
}

/// A list's filter as the server would read it from the same query string.
fn entry_filter(params: &FilterParams) -> Result<EntryFilter> {
    EntryFilter::parse(params).map_err(|e| CliError::Invalid(e.to_string()))
}

/// What [`Backend::leaving_no_new_database`] undoes: the database file a command made,
/// and the config file as it was before.
struct BeforeFirstUse {
    database: std::path::PathBuf,
    /// The database's folder when the command made it too.
    new_folder: Option<std::path::PathBuf>,
    /// The config file's bytes; `Ok(None)` when there was none, an error when it could
    /// not be read (then it is left alone).
    config: std::io::Result<Option<Vec<u8>>>,
}

impl BeforeFirstUse {
    /// Removes the database file (and SQLite's `-wal` and `-shm` beside it) and a folder
    /// made for it, and puts the config file back as it was. The open connections keep
    /// their files until they close, with nothing left to find by name.
    fn undo(&self, config_path: &Path, files: Option<&Path>) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.database.clone().into_os_string();
            name.push(suffix);
            let _ = std::fs::remove_file(name);
        }
        if let Some(files) = files {
            // The attachments' folder the opening made: only when empty, as below.
            let _ = std::fs::remove_dir(files.join("uploads"));
            let _ = std::fs::remove_dir(files);
        }
        if let Some(folder) = &self.new_folder {
            // Only when empty: nothing of anyone else's goes.
            let _ = std::fs::remove_dir(folder);
        }
        let _ = match &self.config {
            Ok(Some(bytes)) => crate::private_files::replace(config_path, bytes),
            Ok(None) => std::fs::remove_file(config_path),
            Err(_) => Ok(()),
        };
    }
}

impl Backend {
    /// Runs `work`; when it fails after making the local database file (and the owner
    /// account's line in the config file), removes the file and restores the config,
    /// so a failed first command (an import of a file that cannot be read or holds an
    /// invalid entry) leaves no empty journal behind. An existing database is left as
    /// it is: what the work wrote there is the work's own business.
    pub async fn leaving_no_new_database<T>(
        &self,
        work: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        let Place::Local { path, opened } = &self.place else {
            return work.await;
        };
        // `--database` may be a `sqlite:` URL: the file is what it names.
        let url = DatabaseUrl::parse(&path.display().to_string()).ok();
        let Some(path) = url.as_ref().and_then(DatabaseUrl::sqlite_path) else {
            return work.await;
        };
        if std::fs::symlink_metadata(path).is_ok() {
            return work.await;
        }
        let before = BeforeFirstUse {
            database: path.to_owned(),
            new_folder: path
                .parent()
                .filter(|d| !d.as_os_str().is_empty() && !d.exists())
                .map(Path::to_owned),
            config: match std::fs::read(&self.config_path) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            },
        };
        let result = work.await;
        if result.is_err() && std::fs::symlink_metadata(path).is_ok() {
            let files = opened
                .get()
                .and_then(|local| local.journal.attachment_files())
                .and_then(|files| files.folder_path());
            before.undo(&self.config_path, files);
        }
        result
    }
}
