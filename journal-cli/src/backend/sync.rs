//! `journal sync`: a local journal and an account on a server kept alike. One sync
//! sends the local changes the server lacks (`POST /api/sync/changes`), then applies
//! the server's changes here (`GET /api/sync/changes`), with the core's rules on both
//! sides; the bookkeeping (the link, both cursors, each entry's agreed state) is
//! `journal_core::sync_book`, beside the journal file. Every step is idempotent, so a
//! sync killed anywhere is finished by the next one.

use std::path::{Path, PathBuf};

use journal_core::api::{
    CreateAccessTokenRequest, LoginRequest, PushChangeRequest, PushChangesRequest,
};
use journal_core::domain::SyncCursor;
use journal_core::sync_book::{Agreed, SyncBook, SyncLink};
use journal_core::{
    ChangePage, ChangeState, EntryChange, EntryId, NewAccessToken, Profile, PushOutcome,
    PushResult, Timestamp,
};
use reqwest::Method;
use serde::Deserialize;

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

/// What a sync did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// The server linked to.
    pub remote: String,
    /// Local changes the server took.
    pub sent: u64,
    /// The server's changes applied here.
    pub received: u64,
    /// Changes merged with the other side's.
    pub merged: u64,
    /// Entries whose texts clashed: each kept one side's, the other's is in its history.
    pub conflicts: Vec<(EntryId, String)>,
    /// Deletions that did not happen because the other side edited the entry.
    pub kept: Vec<(EntryId, String)>,
    /// Changes the server refused, with why.
    pub refused: Vec<(EntryId, String)>,
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

/// Deletions one sync applies without asking: past a fifth of the journal or 50
/// entries it stops and asks (a server restored from the wrong backup, a journal
/// emptied by mistake); fewer than [`DELETIONS_ALWAYS`] never ask, or deleting one of a
/// new journal's three entries elsewhere would stop every sync.
const DELETIONS_UNASKED: u64 = 50;
const DELETIONS_ALWAYS: u64 = 5;

/// Most changes, revisions and bytes of text in one push (the server's bounds: 100
/// changes, 1,000 revisions, and its body limit).
const PUSH_CHANGES: usize = 100;
const PUSH_REVISIONS: usize = 1_000;
const PUSH_BYTES: usize = 8 << 20;

#[derive(Deserialize)]
struct PushAnswer {
    results: Vec<PushResult>,
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

fn book_error(e: journal_core::sync_book::SyncBookError) -> CliError {
    CliError::Other(e.to_string())
}

fn state_of(change: &EntryChange) -> (&'static str, Option<journal_core::RevisionId>) {
    match &change.state {
        ChangeState::Live { entry } => ("live", Some(entry.revision_id)),
        ChangeState::Trashed { entry, .. } => ("trashed", Some(entry.revision_id)),
        ChangeState::Purged { .. } => ("purged", None),
    }
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
        let book = SyncBook::open(&book_at).map_err(book_error)?;
        let link = book.link().map_err(book_error)?;
        let pending = match &link {
            Some(link) => self.local_pending(&book, link).await?,
            None => 0,
        };
        let agreed = book.agreed_count().map_err(book_error)?;
        Ok(SyncStatus {
            link,
            pending,
            agreed,
        })
    }

    /// Forgets the link and its credential (the server keeps its copy).
    pub async fn sync_unlink(&self) -> Result<Option<String>> {
        let (_, book_at, token_at) = self.sync_paths()?;
        let book = SyncBook::open(&book_at).map_err(book_error)?;
        let link = book.link().map_err(book_error)?;
        book.unlink().map_err(book_error)?;
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
    ) -> Result<SyncReport> {
        let (database, book_at, token_at) = self.sync_paths()?;
        let mut book = SyncBook::open(&book_at).map_err(book_error)?;
        let link = book.link().map_err(book_error)?;
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
                book.set_link(&link).map_err(book_error)?;
                link
            }
        };
        // Kept only once it is known to be the linked account's.
        if fresh {
            crate::private_files::replace(&token_at, token.as_bytes())?;
        }
        let mut report = SyncReport {
            remote: remote.clone(),
            ..SyncReport::default()
        };
        self.push(&server, &mut book, &mut link, &mut report)
            .await?;
        let merged_here = self
            .pull(&server, &mut book, &mut link, &mut report, confirm)
            .await?;
        if merged_here {
            // What this side merged goes back, so both sides end alike.
            self.push(&server, &mut book, &mut link, &mut report)
                .await?;
        }
        link.last_sync = Some(Timestamp::now());
        book.set_link(&link).map_err(book_error)?;
        Ok(report)
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

    /// Local changes not yet sent.
    async fn local_pending(&self, book: &SyncBook, link: &SyncLink) -> Result<u64> {
        let (journal, caller) = self.local_journal().await?;
        let mut cursor = link
            .pushed
            .as_deref()
            .and_then(|c| c.parse::<SyncCursor>().ok());
        let mut pending = 0;
        loop {
            let page = match journal.changes(&caller, cursor.as_ref(), 100).await {
                Err(journal_core::Error::Conflict(_)) if cursor.is_some() => {
                    cursor = None;
                    continue;
                }
                other => other?,
            };
            let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
            let agreed = book.agreed(&ids).map_err(book_error)?;
            pending += page
                .changes
                .iter()
                .filter(|c| needs_sending(c, agreed.get(&c.id)))
                .count() as u64;
            cursor = Some(page.cursor);
            if !page.more {
                return Ok(pending);
            }
        }
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

    /// Sends the local changes after the pushed cursor.
    async fn push(
        &self,
        server: &Remote,
        book: &mut SyncBook,
        link: &mut SyncLink,
        report: &mut SyncReport,
    ) -> Result<()> {
        let (journal, caller) = self.local_journal().await?;
        let mut cursor = link
            .pushed
            .as_deref()
            .and_then(|c| c.parse::<SyncCursor>().ok());
        loop {
            let page = match journal.changes(&caller, cursor.as_ref(), 100).await {
                // The local file was replaced: everything is sent again (the server
                // knows what it has).
                Err(journal_core::Error::Conflict(_)) if cursor.is_some() => {
                    cursor = None;
                    continue;
                }
                other => other?,
            };
            let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
            let agreed = book.agreed(&ids).map_err(book_error)?;
            let mut batch: Vec<(PushChangeRequest, Option<Agreed>)> = Vec::new();
            let (mut revisions, mut bytes) = (0, 0);
            for change in &page.changes {
                let known = agreed.get(&change.id);
                if !needs_sending(change, known) {
                    continue;
                }
                let request = push_request(change, known);
                let size = change_text_bytes(change);
                let count = change.revisions.len();
                if !batch.is_empty()
                    && (batch.len() >= PUSH_CHANGES
                        || revisions + count > PUSH_REVISIONS
                        || bytes + size > PUSH_BYTES)
                {
                    self.send_batch(server, book, std::mem::take(&mut batch), report)
                        .await?;
                    (revisions, bytes) = (0, 0);
                }
                let (state, revision) = state_of(change);
                let after = revision.map(|revision| Agreed { revision, state });
                batch.push((request, after));
                revisions += count;
                bytes += size;
            }
            if !batch.is_empty() {
                self.send_batch(server, book, batch, report).await?;
            }
            link.pushed = Some(page.cursor.to_string());
            book.set_link(link).map_err(book_error)?;
            cursor = Some(page.cursor);
            if !page.more {
                return Ok(());
            }
        }
    }

    async fn send_batch(
        &self,
        server: &Remote,
        book: &mut SyncBook,
        batch: Vec<(PushChangeRequest, Option<Agreed>)>,
        report: &mut SyncReport,
    ) -> Result<()> {
        let (requests, after): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        let body = PushChangesRequest {
            changes: Some(requests),
        };
        let answer: PushAnswer = server
            .call(Method::POST, "/api/sync/changes", &[], Some(&body), true)
            .await?
            .0;
        let mut agree = Vec::new();
        for (result, after) in answer.results.into_iter().zip(after) {
            let message = result.message.clone().unwrap_or_default();
            match result.outcome {
                PushOutcome::Refused => {
                    report.refused.push((result.id, message));
                    continue;
                }
                PushOutcome::Merged => report.merged += 1,
                PushOutcome::Conflict => report.conflicts.push((result.id, message)),
                PushOutcome::Kept => report.kept.push((result.id, message)),
                PushOutcome::Applied => {}
            }
            report.sent += 1;
            // The server has this side's state now; its own comes with the pull.
            let after = after.or(Some(Agreed {
                revision: result.revision_id.unwrap_or_default(),
                state: "purged",
            }));
            agree.push((result.id, after));
        }
        book.agree(&agree).map_err(book_error)
    }

    /// Applies the server's changes after the pulled cursor; true when this side
    /// merged something (to be sent back).
    async fn pull(
        &self,
        server: &Remote,
        book: &mut SyncBook,
        link: &mut SyncLink,
        report: &mut SyncReport,
        confirm: &dyn Fn(&str) -> bool,
    ) -> Result<bool> {
        let (journal, caller) = self.local_journal().await?;
        let started = link.pulled.clone();
        let mut cursor = link.pulled.clone();
        let mut deletions: Vec<EntryChange> = Vec::new();
        let mut merged_here = false;
        loop {
            let mut query = vec![("limit", "100".to_owned())];
            if let Some(c) = &cursor {
                query.push(("since", c.clone()));
            }
            let answer = server
                .send::<ChangePage>(Method::GET, "/api/sync/changes", &query, None::<&()>, true)
                .await?;
            let page = match answer {
                Ok((page, _)) => page,
                // Another database, or one restored from a backup: start over, which
                // loses nothing (every change is known by its revisions).
                Err(refused) if refused.status == reqwest::StatusCode::CONFLICT => {
                    cursor = None;
                    continue;
                }
                Err(refused) => return Err(server.refusal(refused, true)),
            };
            let ids: Vec<EntryId> = page.changes.iter().map(|c| c.id).collect();
            let agreed = book.agreed(&ids).map_err(book_error)?;
            let mut agree = Vec::new();
            for change in page.changes {
                let known = agreed.get(&change.id).copied();
                let (state, revision) = state_of(&change);
                // This side's own change coming back, or one it has.
                if known.is_some_and(|k| Some(k.revision) == revision && k.state == state)
                    || (known.is_some_and(|k| k.state == "purged") && state != "live")
                {
                    continue;
                }
                if state != "live" {
                    deletions.push(change);
                    continue;
                }
                let result = journal
                    .apply_pulled(&caller, &change, known.map(|k| k.revision))
                    .await?;
                merged_here |= note_pulled(report, &result);
                agree.push((change.id, agreed_after(&result, &change)));
            }
            book.agree(&agree).map_err(book_error)?;
            cursor = Some(page.cursor.to_string());
            if !page.more {
                break;
            }
        }
        let live = journal
            .user_entries(
                &caller,
                caller.user_id(),
                journal_core::PageRequest::default(),
            )
            .await?
            .total;
        let count = deletions.len() as u64;
        let entries = |n: u64| if n == 1 { "entry" } else { "entries" };
        if count >= DELETIONS_ALWAYS
            && (count > DELETIONS_UNASKED || count * 5 > live)
            && !confirm(&format!(
                "{remote} deleted {count} of your {live} {} since the last sync; delete \
                 them here too?",
                entries(live),
                remote = link.remote
            ))
        {
            // Nothing of the deletions is applied, and the cursor stays: the next sync
            // asks again.
            link.pulled = started;
            return Err(CliError::Aborted(format!(
                "stopped before deleting {count} {} here; nothing was deleted (journal sync \
                 --yes deletes them)",
                entries(count)
            )));
        }
        let mut agree = Vec::new();
        for change in deletions {
            let known = book.agreed(&[change.id]).map_err(book_error)?;
            let known = known.get(&change.id).copied();
            let result = journal
                .apply_pulled(&caller, &change, known.map(|k| k.revision))
                .await?;
            merged_here |= note_pulled(report, &result);
            agree.push((change.id, agreed_after(&result, &change)));
        }
        book.agree(&agree).map_err(book_error)?;
        link.pulled = cursor;
        book.set_link(link).map_err(book_error)?;
        Ok(merged_here)
    }
}

/// Whether a local change is one the server lacks: not the state both last agreed on.
fn needs_sending(change: &EntryChange, agreed: Option<&Agreed>) -> bool {
    let (state, revision) = state_of(change);
    match agreed {
        None => state != "purged",
        Some(a) => !(Some(a.revision) == revision && a.state == state) && a.state != "purged",
    }
}

/// A local change as the server takes it.
fn push_request(change: &EntryChange, agreed: Option<&Agreed>) -> PushChangeRequest {
    let (state, _) = state_of(change);
    let (deleted_at, created_at) = match &change.state {
        ChangeState::Live { entry } => (None, Some(entry.created_at)),
        ChangeState::Trashed { entry, deleted_at } => (Some(*deleted_at), Some(entry.created_at)),
        ChangeState::Purged { .. } => (None, None),
    };
    PushChangeRequest {
        id: Some(change.id.to_string()),
        base: agreed.map(|a| a.revision.to_string()),
        state: Some(state.to_owned()),
        deleted_at: deleted_at.map(|t| t.to_string()),
        created_at: created_at.map(|t| t.to_string()),
        revisions: Some(
            change
                .revisions
                .iter()
                .filter_map(|r| serde_json::to_value(r).ok())
                .filter_map(|v| serde_json::from_value(v).ok())
                .collect(),
        ),
    }
}

fn change_text_bytes(change: &EntryChange) -> usize {
    change
        .revisions
        .iter()
        .map(|r| r.title.len() + r.content.len())
        .sum()
}

/// Counts what applying a pulled change came to; true when this side merged.
fn note_pulled(report: &mut SyncReport, result: &PushResult) -> bool {
    let message = result.message.clone().unwrap_or_default();
    match result.outcome {
        PushOutcome::Applied => report.received += 1,
        PushOutcome::Merged => {
            report.received += 1;
            report.merged += 1;
            return true;
        }
        PushOutcome::Conflict => {
            report.received += 1;
            report.conflicts.push((result.id, message));
            return true;
        }
        PushOutcome::Kept => {
            report.kept.push((result.id, message));
            return true;
        }
        PushOutcome::Refused => report.refused.push((result.id, message)),
    }
    false
}

/// The state both sides agree on once a pulled change is applied: this side's now;
/// where this side merged, the server's it merged with, so the merge goes to the
/// server next as made from it.
fn agreed_after(result: &PushResult, change: &EntryChange) -> Option<Agreed> {
    let (state, incoming) = state_of(change);
    let revision = match result.outcome {
        PushOutcome::Applied => result.revision_id,
        PushOutcome::Refused => return None,
        _ => incoming,
    };
    Some(match revision {
        Some(revision) => Agreed { revision, state },
        None => Agreed {
            revision: journal_core::RevisionId::default(),
            state: "purged",
        },
    })
}
