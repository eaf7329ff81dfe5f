//! `journal sync`: a local journal and an account on a server kept alike. The sync
//! itself is the core's (`journal_core::sync_client`); here are the link, the
//! credential, the server's side over HTTP (`GET` and `POST /api/sync/changes`), and
//! the conflicts the linked server holds.
//! The bookkeeping (`journal_core::sync_book`) is a file beside the journal.

use std::path::{Path, PathBuf};

use journal_core::api::{
    CreateAccessTokenRequest, LoginRequest, PushAttachmentRequest, PushChangesRequest,
};
use journal_core::sync_book::{SyncBook, SyncLink};
use journal_core::sync_client::{self, SyncRemote, SyncReport};
use journal_core::{
    ChangePage, Conflict, Entry, NewAccessToken, Page, PageRequest, Profile, PushReply, Resolution,
};
use reqwest::Method;

use super::history::History;
use super::remote::{Bearer, LoginAnswer, Remote};
use super::{Backend, Place};
use crate::config::normalise_server;
use crate::error::{CliError, Result};

/// How a sync logs in to link a journal.
#[derive(Clone)]
pub enum Credential {
    /// The link's saved token.
    Saved,
    /// An access token given (`JOURNAL_TOKEN`, `--token-stdin`): kept as it is.
    Token(String),
    /// A password (and second-factor code): logs in once and makes an access token
    /// named for this device, which is kept.
    Password {
        /// The account's e-mail address.
        email: String,
        /// Its password.
        password: String,
        /// A second-factor code, for an account with one.
        totp: Option<String>,
    },
}

/// What `journal sync --status` shows.
pub struct SyncStatus {
    /// The link, if any.
    pub link: Option<SyncLink>,
    /// Local changes not yet sent.
    pub pending: u64,
    /// Entries both sides agree on.
    pub agreed: u64,
}

/// The bookkeeping file of the journal at `database`.
fn book_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".sync");
    PathBuf::from(name)
}

/// The saved credential of the journal at `database`.
fn token_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".sync-token");
    PathBuf::from(name)
}

impl Backend {
    fn sync_paths(&self) -> Result<(PathBuf, PathBuf, PathBuf)> {
        match &self.place {
            Place::Local { path, .. } => Ok((path.clone(), book_path(path), token_path(path))),
            Place::Remote { .. } => Err(CliError::Usage(
                "journal sync works on a local journal (it syncs it with the server given by \
                 --remote); drop --server"
                    .into(),
            )),
        }
    }

    /// The link and what is pending, without reaching the server.
    pub async fn sync_status(&self) -> Result<SyncStatus> {
        let (_, book_at, _) = self.sync_paths()?;
        let book = SyncBook::open(&book_at)?;
        let link = book.link()?;
        let pending = match &link {
            Some(link) => {
                let (journal, caller) = self.local_journal().await?;
                sync_client::pending(&journal, &caller, &book, link).await?
            }
            None => 0,
        };
        let agreed = book.agreed_count()?;
        Ok(SyncStatus {
            link,
            pending,
            agreed,
        })
    }

    /// Forgets the link and its credential (the server keeps its copy).
    pub async fn sync_unlink(&self) -> Result<Option<String>> {
        let (_, book_at, token_at) = self.sync_paths()?;
        let book = SyncBook::open(&book_at)?;
        let link = book.link()?;
        book.unlink()?;
        match std::fs::remove_file(&token_at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        Ok(link.map(|l| l.remote))
    }

    /// Links the local journal to `remote` if it is not yet, and syncs it: see the
    /// module. `confirm` is asked before deletions past [`DELETIONS_UNASKED`].
    pub async fn sync(
        &self,
        remote: Option<&str>,
        credential: Credential,
        confirm: &dyn Fn(&str) -> bool,
    ) -> Result<(String, SyncReport)> {
        let (database, book_at, token_at) = self.sync_paths()?;
        let mut book = SyncBook::open(&book_at)?;
        let link = book.link()?;
        let remote = match (remote.map(normalise_server), &link) {
            (Some(asked), Some(link)) if asked != link.remote => {
                return Err(CliError::Usage(format!(
                    "this journal is linked to {}; journal sync --unlink first to link it to {asked}",
                    link.remote
                )));
            }
            (Some(asked), _) => asked,
            (None, Some(link)) => link.remote.clone(),
            (None, None) => {
                return Err(CliError::Usage(format!(
                    "{} is not linked to a server: journal sync --remote URL",
                    database.display()
                )));
            }
        };
        let (token, fresh) = self.sync_token(&remote, credential, &token_at).await?;
        let server = Remote::new(&remote, Some(Bearer::Env(token.clone())))?;
        let (profile, _) = server
            .call::<journal_core::api::ProfileResponse>(
                Method::GET,
                "/api/user/profile",
                &[],
                None::<&()>,
                true,
            )
            .await?;
        let account: Profile = profile.user;
        let mut link = match link {
            Some(link) if link.account_id != account.id => {
                return Err(CliError::Forbidden(format!(
                    "this journal is linked to another account on {remote}; it never syncs \
                     into a second one (journal sync --unlink, then link again)"
                )));
            }
            Some(link) => link,
            None => {
                if !fresh {
                    return Err(CliError::Usage(format!(
                        "{} is not linked to a server: journal sync --remote URL",
                        database.display()
                    )));
                }
                let link = SyncLink {
                    remote: remote.clone(),
                    account_id: account.id,
                    pulled: None,
                    pushed: None,
                    last_sync: None,
                };
                book.set_link(&link)?;
                link
            }
        };
        // Kept only once it is known to be the linked account's.
        if fresh {
            crate::private_files::replace(&token_at, token.as_bytes())?;
        }
        let (journal, caller) = self.local_journal().await?;
        let report = sync_client::sync(
            &journal,
            &caller,
            &mut book,
            &mut link,
            &Http(&server),
            confirm,
        )
        .await?;
        Ok((remote, report))
    }

    /// The token to sync with: given, made from a password, or saved; and whether it is
    /// new (to be kept once the account is checked).
    async fn sync_token(
        &self,
        remote: &str,
        credential: Credential,
        at: &Path,
    ) -> Result<(String, bool)> {
        let token = match credential {
            Credential::Token(token) => token,
            Credential::Password {
                email,
                password,
                totp,
            } => {
                let login = Remote::new(remote, None)?
                    .login(&LoginRequest {
                        email: Some(email),
                        password: Some(password),
                        totp,
                    })
                    .await?;
                let login = match login {
                    LoginAnswer::Token(token) => token,
                    LoginAnswer::NeedsSecondFactor => {
                        return Err(journal_core::Error::SecondFactorRequired.into());
                    }
                };
                let host = std::env::var("HOSTNAME")
                    .ok()
                    .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
                    .map(|h| h.trim().to_owned())
                    .filter(|h| !h.is_empty())
                    .unwrap_or_else(|| "this device".into());
                let made: NewAccessToken = Remote::new(remote, Some(Bearer::Env(login)))?
                    .call(
                        Method::POST,
                        "/api/user/tokens",
                        &[],
                        Some(&CreateAccessTokenRequest {
                            name: Some(format!("journal sync on {host}")),
                            ..Default::default()
                        }),
                        true,
                    )
                    .await?
                    .0;
                made.token
            }
            Credential::Saved => {
                return match std::fs::read_to_string(at) {
                    Ok(token) if !token.trim().is_empty() => Ok((token.trim().to_owned(), false)),
                    _ => Err(CliError::Auth(format!(
                        "no credential for {remote} is saved: run journal sync with \
                         JOURNAL_TOKEN, --token-stdin, or --email and the password"
                    ))),
                };
            }
        };
        Ok((token, true))
    }

    /// The server this local journal is linked to, and a client of it signed in with
    /// the saved credential; `None` when the journal is not linked (or its credential
    /// is gone), or is not a local one.
    fn linked_server(&self) -> Result<Option<(String, Remote)>> {
        let Place::Local { path, .. } = &self.place else {
            return Ok(None);
        };
        let (book_at, token_at) = (book_path(path), token_path(path));
        if !book_at.exists() {
            return Ok(None);
        }
        let Some(link) = SyncBook::open(&book_at)?.link()? else {
            return Ok(None);
        };
        let token = match std::fs::read_to_string(&token_at) {
            Ok(token) if !token.trim().is_empty() => token.trim().to_owned(),
            _ => return Ok(None),
        };
        let server = Remote::new(&link.remote, Some(Bearer::Env(token)))?;
        Ok(Some((link.remote, server)))
    }

    /// Whether this is a local journal linked to a server with a saved credential.
    pub fn sync_linked(&self) -> bool {
        matches!(self.linked_server(), Ok(Some(_)))
    }

    /// The conflicts the linked server holds (those its sync met), with its address.
    pub async fn linked_conflicts(
        &self,
        page: PageRequest,
    ) -> Result<Option<(String, Page<Conflict>)>> {
        let Some((remote, server)) = self.linked_server()? else {
            return Ok(None);
        };
        let page = History::conflicts(&server, page).await?;
        Ok(Some((remote, page)))
    }

    /// Settles an entry's conflict on the linked server; the next sync brings what it
    /// wrote. `None` when the journal is not linked.
    pub async fn resolve_on_linked(
        &self,
        id: &str,
        resolution: Resolution,
    ) -> Result<Option<(String, Entry)>> {
        let Some((remote, server)) = self.linked_server()? else {
            return Ok(None);
        };
        let entry = History::resolve_conflict(&server, id, resolution)
            .await
            .map_err(|e| e.about_entry(id))?;
        Ok(Some((remote, entry)))
    }

    /// The local journal and its owner.
    async fn local_journal(&self) -> Result<(journal_core::Journal, journal_core::Caller)> {
        let Place::Local { path, opened } = &self.place else {
            return Err(CliError::Usage(
                "journal sync works on a local journal".into(),
            ));
        };
        let local = self.local(path, opened).await?;
        Ok((local.journal.clone(), local.caller.clone()))
    }
}

/// The server's side of a sync, over HTTP.
struct Http<'a>(&'a Remote);

#[async_trait::async_trait]
impl SyncRemote for Http<'_> {
    type Error = CliError;

    async fn pull(&self, since: Option<&str>, limit: u32) -> Result<Option<ChangePage>> {
        let mut query = vec![("limit", limit.to_string())];
        if let Some(c) = since {
            query.push(("since", c.to_owned()));
        }
        let answer = self
            .0
            .send::<ChangePage>(Method::GET, "/api/sync/changes", &query, None::<&()>, true)
            .await?;
        match answer {
            Ok((page, _)) => Ok(Some(page)),
            Err(refused) if refused.status == reqwest::StatusCode::CONFLICT => Ok(None),
            Err(refused) => Err(self.0.refusal(refused, true)),
        }
    }

    async fn push(&self, changes: &PushChangesRequest) -> Result<PushReply> {
        Ok(self
            .0
            .call(Method::POST, "/api/sync/changes", &[], Some(changes), true)
            .await?
            .0)
    }

    async fn missing_files(
        &self,
        files: &[PushAttachmentRequest],
    ) -> Result<Vec<journal_core::AttachmentId>> {
        #[derive(serde::Deserialize)]
        struct Missing {
            missing: Vec<journal_core::AttachmentId>,
        }
        let body = serde_json::json!({ "attachments": files });
        let answer: Missing = self
            .0
            .call(
                Method::POST,
                "/api/sync/files/missing",
                &[],
                Some(&body),
                true,
            )
            .await?
            .0;
        Ok(answer.missing)
    }

    async fn send_file(
        &self,
        file: &journal_core::SyncAttachment,
        bytes: bytes::Bytes,
    ) -> Result<Option<String>> {
        let request = self
            .0
            .transfer(Method::PUT, &format!("/api/sync/files/{}", file.id))?
            .query(&[("name", file.name.as_str())])
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .body(bytes);
        let response = request.send().await.map_err(|e| self.0.transport(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(None);
        }
        let body = response.bytes().await.map_err(|e| self.0.transport(&e))?;
        let message = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| status.to_string());
        match status.as_u16() {
            // The server refuses this file (type, size, space, another account's id):
            // said, and the sync goes on; a token or a server that fails stops it.
            400 | 409 | 413 | 415 | 422 | 507 => Ok(Some(message)),
            _ => Err(self
                .0
                .refusal(super::remote::Refused { status, message }, true)),
        }
    }

    async fn fetch_file(&self, id: &journal_core::AttachmentId) -> Result<Option<bytes::Bytes>> {
        let request = self
            .0
            .transfer(Method::GET, &format!("/api/attachments/{id}"))?;
        let response = match self.0.send_transfer(request).await {
            Ok(response) => response,
            Err(CliError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        response
            .bytes()
            .await
            .map(Some)
            .map_err(|e| CliError::Connection {
                url: self.0.base().to_owned(),
                reason: format!("the file of attachment {id} did not arrive whole ({e})"),
            })
    }

    fn stopped(why: String) -> CliError {
        CliError::Aborted(why)
    }
}
