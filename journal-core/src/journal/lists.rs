//! Lists of entries: an author's, the public feed, search results, and tag counts. Each
//! is paged, and may be filtered.

use tracing::instrument;

use super::{Caller, Journal};
use crate::domain::{PageRequest, SearchQuery, UserId};
use crate::error::{Error, Result, ValidationError};
use crate::filter::{EntryFilter, TagCount};
use crate::model::{Entry, Page};
use crate::store::Visibility;

impl Journal {
    /// Lists a user's entries, newest `date` first: all of them for their author,
    /// public ones for anyone else; a private profile's list is forbidden to others.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn user_entries(
        &self,
        caller: &Caller,
        user: &UserId,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        self.user_entries_matching(caller, user, &EntryFilter::default(), page)
            .await
    }

    /// [`Journal::user_entries`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn user_entries_matching(
        &self,
        caller: &Caller,
        user: &UserId,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        page.check_depth()?;
        let visibility = if *user == caller.user_id {
            Visibility::All
        } else {
            let owner = self
                .store_ref()
                .user_by_id(user)
                .await?
                .ok_or(Error::NotFound { kind: "user" })?;
            if owner.profile.is_private || owner.disabled {
                return Err(Error::Forbidden("this user's profile is private".into()));
            }
            Visibility::PublicOnly
        };
        Ok(self
            .store_ref()
            .entries_by_author(user, visibility, filter, page)
            .await?)
    }

    /// The public feed: public entries of authors whose profile is not private, newest
    /// `date` first. Needs no caller.
    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    pub async fn public_entries(&self, page: PageRequest) -> Result<Page<Entry>> {
        self.public_entries_matching(&EntryFilter::default(), page)
            .await
    }

    /// [`Journal::public_entries`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(page = page.page()))]
    pub async fn public_entries_matching(
        &self,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        page.check_depth()?;
        Ok(self.store_ref().public_entries(filter, page).await?)
    }

    /// Searches the caller's own entries: every word of `q` must appear (as a word or
    /// the start of one) in the title or content; best match first, then newest.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn search(&self, caller: &Caller, q: &str, page: PageRequest) -> Result<Page<Entry>> {
        self.search_matching(caller, q, &EntryFilter::default(), page)
            .await
    }

    /// [`Journal::search`], keeping only the entries that pass `filter`.
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id, page = page.page()))]
    pub async fn search_matching(
        &self,
        caller: &Caller,
        q: &str,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        if page.after().is_some() {
            return Err(ValidationError::new(
                "after",
                "search results are ranked, not newest first; page through them with page",
            )
            .into());
        }
        page.check_depth()?;
        let query = SearchQuery::parse(q)?;
        if query.is_empty() {
            // Only separators: no word to look for, so nothing matches.
            return Ok(Page {
                items: Vec::new(),
                total: 0,
                total_is_lower_bound: false,
                page: page.page(),
                limit: page.limit(),
            });
        }
        Ok(self
            .store_ref()
            .search(&caller.user_id, &query, filter, page)
            .await?)
    }

    /// The caller's tags with how many of their entries have each, most used first
    /// (then by name).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn tags(&self, caller: &Caller) -> Result<Vec<TagCount>> {
        Ok(self.store_ref().tags(&caller.user_id).await?)
    }
}
