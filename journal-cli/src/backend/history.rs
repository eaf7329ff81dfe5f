//! An entry's history and the trash, in both modes: reading revisions, restoring one,
//! listing the trash, taking an entry out of it or purging it, a sync's conflicts
//! (listing them, settling one), and the conditional
//! update `journal edit` sends (`If-Match`), whose refusal brings back the entry as it
//! is now so that the edit can be merged with it.

use async_trait::async_trait;
use journal_core::api::{ResolveConflictRequest, UpdateEntryRequest};
use journal_core::{
    Conflict, Entry, Page, PageRequest, Resolution, Revision, RevisionId, TrashedEntry,
};
use reqwest::{Method, StatusCode};

use super::local::Local;
use super::remote::{Remote, total_count};
use super::{Backend, entry_id};
use crate::error::Result;

/// What a conditional update did: written, or refused because the entry is no longer
/// at the revision the edit was made from.
pub enum Conditional {
    /// Written: the entry now.
    Written(Entry),
    /// Nothing was written; the entry as it is now.
    Stale(Box<Entry>),
}

/// The history and trash operations each mode answers.
#[async_trait(?Send)]
pub(super) trait History {
    /// Changes an entry only while it is at revision `if_match`.
    async fn update_entry_if(
        &self,
        id: &str,
        r: &UpdateEntryRequest,
        if_match: RevisionId,
    ) -> Result<Conditional>;
    /// One page of an entry's revisions, newest first.
    async fn revisions(&self, id: &str, page: PageRequest) -> Result<Page<Revision>>;
    /// Revision `n` of an entry.
    async fn revision(&self, id: &str, n: u32) -> Result<Revision>;
    /// Makes revision `n`'s state the current one, as a new revision.
    async fn restore_revision(&self, id: &str, n: u32) -> Result<Entry>;
    /// One page of the caller's trash, newest deletion first.
    async fn trash(&self, page: PageRequest) -> Result<Page<TrashedEntry>>;
    /// Takes an entry out of the trash.
    async fn untrash(&self, id: &str) -> Result<Entry>;
    /// Removes an entry of the trash for good.
    async fn purge(&self, id: &str) -> Result<()>;
    /// One page of the caller's sync conflicts, newest first.
    async fn conflicts(&self, page: PageRequest) -> Result<Page<Conflict>>;
    /// Settles an entry's sync conflicts as `resolution` says.
    async fn resolve_conflict(&self, id: &str, resolution: Resolution) -> Result<Entry>;
}

#[async_trait(?Send)]
impl History for Local {
    async fn update_entry_if(
        &self,
        id: &str,
        r: &UpdateEntryRequest,
        if_match: RevisionId,
    ) -> Result<Conditional> {
        match self
            .journal
            .update_entry_if(&self.caller, &entry_id(id)?, r, Some(if_match))
            .await
        {
            Ok(entry) => Ok(Conditional::Written(entry)),
            Err(journal_core::Error::Stale { .. }) => {
                let current = self.journal.entry(&self.caller, &entry_id(id)?).await?;
                Ok(Conditional::Stale(Box::new(current)))
            }
            Err(e) => Err(e.into()),
        }
    }
    async fn revisions(&self, id: &str, page: PageRequest) -> Result<Page<Revision>> {
        Ok(self
            .journal
            .revisions(&self.caller, &entry_id(id)?, page)
            .await?)
    }
    async fn revision(&self, id: &str, n: u32) -> Result<Revision> {
        Ok(self
            .journal
            .revision(&self.caller, &entry_id(id)?, n)
            .await?)
    }
    async fn restore_revision(&self, id: &str, n: u32) -> Result<Entry> {
        Ok(self
            .journal
            .restore_revision(&self.caller, &entry_id(id)?, n, None)
            .await?)
    }
    async fn trash(&self, page: PageRequest) -> Result<Page<TrashedEntry>> {
        Ok(self.journal.trash(&self.caller, page).await?)
    }
    async fn untrash(&self, id: &str) -> Result<Entry> {
        Ok(self.journal.untrash(&self.caller, &entry_id(id)?).await?)
    }
    async fn purge(&self, id: &str) -> Result<()> {
        Ok(self.journal.purge(&self.caller, &entry_id(id)?).await?)
    }
    async fn conflicts(&self, page: PageRequest) -> Result<Page<Conflict>> {
        Ok(self.journal.conflicts(&self.caller, page).await?)
    }
    async fn resolve_conflict(&self, id: &str, resolution: Resolution) -> Result<Entry> {
        Ok(self
            .journal
            .resolve_conflict(&self.caller, &entry_id(id)?, resolution)
            .await?)
    }
}

#[async_trait(?Send)]
impl History for Remote {
    async fn update_entry_if(
        &self,
        id: &str,
        r: &UpdateEntryRequest,
        if_match: RevisionId,
    ) -> Result<Conditional> {
        let id = entry_id(id)?;
        let path = format!("/api/journal-entries/{id}");
        let answer = self
            .send_with::<Entry>(
                Method::PUT,
                &path,
                &[],
                Some(r),
                &[("if-match", format!("\"{if_match}\""))],
            )
            .await?;
        match answer {
            Ok((entry, _)) => Ok(Conditional::Written(entry)),
            // The 412 carries only the current ETag; the entry itself is one GET away.
            Err(refused) if refused.status == StatusCode::PRECONDITION_FAILED => {
                let (current, _): (Entry, _) = self
                    .call(Method::GET, &path, &[], None::<&()>, true)
                    .await?;
                Ok(Conditional::Stale(Box::new(current)))
            }
            Err(refused) => Err(self.refusal(refused, true)),
        }
    }
    async fn revisions(&self, id: &str, page: PageRequest) -> Result<Page<Revision>> {
        let id = entry_id(id)?;
        self.items(&format!("/api/journal-entries/{id}/revisions"), page)
            .await
    }
    async fn revision(&self, id: &str, n: u32) -> Result<Revision> {
        let id = entry_id(id)?;
        self.bodiless(
            Method::GET,
            &format!("/api/journal-entries/{id}/revisions/{n}"),
        )
        .await
    }
    async fn restore_revision(&self, id: &str, n: u32) -> Result<Entry> {
        let id = entry_id(id)?;
        self.bodiless(
            Method::POST,
            &format!("/api/journal-entries/{id}/revisions/{n}/restore"),
        )
        .await
    }
    async fn trash(&self, page: PageRequest) -> Result<Page<TrashedEntry>> {
        self.items("/api/user/trash", page).await
    }
    async fn untrash(&self, id: &str) -> Result<Entry> {
        let id = entry_id(id)?;
        self.bodiless(Method::POST, &format!("/api/user/trash/{id}/restore"))
            .await
    }
    async fn purge(&self, id: &str) -> Result<()> {
        let id = entry_id(id)?;
        let _: serde_json::Value = self
            .bodiless(Method::DELETE, &format!("/api/user/trash/{id}"))
            .await?;
        Ok(())
    }
    async fn conflicts(&self, page: PageRequest) -> Result<Page<Conflict>> {
        self.items("/api/sync/conflicts", page).await
    }
    async fn resolve_conflict(&self, id: &str, resolution: Resolution) -> Result<Entry> {
        let id = entry_id(id)?;
        let body = ResolveConflictRequest {
            keep: Some(resolution.to_string()),
        };
        Ok(self
            .call(
                Method::POST,
                &format!("/api/sync/conflicts/{id}/resolve"),
                &[],
                Some(&body),
                true,
            )
            .await?
            .0)
    }
}

impl Remote {
    /// One page of a list paged by number, with its `X-Total-Count`.
    async fn items<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        page: PageRequest,
    ) -> Result<Page<T>> {
        let query = [
            ("page", page.page().to_string()),
            ("limit", page.limit().to_string()),
        ];
        let (items, headers): (Vec<T>, _) = self
            .call(Method::GET, path, &query, None::<&()>, true)
            .await?;
        Ok(Page {
            total: total_count(&headers, items.len()),
            items,
            page: page.page(),
            limit: page.limit(),
            total_is_lower_bound: false,
        })
    }
}

impl Backend {
    /// Changes an entry only while it is at revision `if_match` (what `journal edit`
    /// opened); otherwise writes nothing and hands back the entry as it is now.
    pub async fn update_entry_if(
        &self,
        id: &str,
        r: &UpdateEntryRequest,
        if_match: RevisionId,
    ) -> Result<Conditional> {
        self.side()
            .await?
            .update_entry_if(id, r, if_match)
            .await
            .map_err(|e| e.about_entry(id))
    }
    /// One page of an entry's revisions, newest first.
    pub async fn revisions(&self, id: &str, page: PageRequest) -> Result<Page<Revision>> {
        self.side()
            .await?
            .revisions(id, page)
            .await
            .map_err(|e| e.about_entry(id))
    }
    /// Revision `n` of an entry.
    pub async fn revision(&self, id: &str, n: u32) -> Result<Revision> {
        self.side()
            .await?
            .revision(id, n)
            .await
            .map_err(|e| about_revision(e, id, n))
    }
    /// Makes revision `n`'s state the entry's current one, as a new revision.
    pub async fn restore_revision(&self, id: &str, n: u32) -> Result<Entry> {
        self.side()
            .await?
            .restore_revision(id, n)
            .await
            .map_err(|e| about_revision(e, id, n))
    }
    /// One page of the caller's trash, newest deletion first.
    pub async fn trash(&self, page: PageRequest) -> Result<Page<TrashedEntry>> {
        self.side().await?.trash(page).await
    }
    /// Takes an entry out of the caller's trash, back where it was.
    pub async fn untrash(&self, id: &str) -> Result<Entry> {
        self.side()
            .await?
            .untrash(id)
            .await
            .map_err(|e| in_trash(e, id))
    }
    /// Removes an entry of the caller's trash, with its history, for good.
    pub async fn purge(&self, id: &str) -> Result<()> {
        self.side()
            .await?
            .purge(id)
            .await
            .map_err(|e| in_trash(e, id))
    }
    /// One page of the caller's sync conflicts, newest first.
    pub async fn conflicts(&self, page: PageRequest) -> Result<Page<Conflict>> {
        self.side().await?.conflicts(page).await
    }
    /// Settles an entry's sync conflicts as `resolution` says.
    pub async fn resolve_conflict(&self, id: &str, resolution: Resolution) -> Result<Entry> {
        self.side()
            .await?
            .resolve_conflict(id, resolution)
            .await
            .map_err(|e| e.about_entry(id))
    }
}

/// A missing revision named as such: the entry may well exist.
fn about_revision(e: crate::CliError, id: &str, n: u32) -> crate::CliError {
    match e {
        crate::CliError::NotFound(m) if m.contains("revision") => {
            crate::CliError::NotFound(format!("entry {id} has no revision {n}"))
        }
        other => other.about_entry(id),
    }
}

fn in_trash(e: crate::CliError, id: &str) -> crate::CliError {
    match e {
        crate::CliError::NotFound(_) => crate::CliError::NotFound(format!(
            "entry {id} is not in your trash (journal trash lists it)"
        )),
        other => other,
    }
}

impl Remote {
    /// A signed-in request without a body, its JSON answer.
    async fn bodiless<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
    ) -> Result<T> {
        Ok(self.call(method, path, &[], None::<&()>, true).await?.0)
    }
}
