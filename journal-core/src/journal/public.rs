//! What anyone may read without signing in: an author's public profile, their public
//! entries, and one public entry.
//!
//! One rule decides all three: the author exists, is not disabled and keeps a public
//! profile, and (for entries) the entry is public and not in the trash. Anything else is
//! the same 404 as an id that never existed, so a stranger cannot tell a private
//! profile or entry from a missing one.

use tracing::instrument;

use super::Journal;
use crate::domain::{EntryId, PageRequest, UserId};
use crate::error::{Error, Result};
use crate::filter::EntryFilter;
use crate::model::{Entry, Page, PublicProfile};
use crate::store::Visibility;

impl Journal {
    /// An author's public profile: their nickname, full name and picture.
    /// [`Error::NotFound`] unless the profile is public and the account enabled.
    #[instrument(level = "debug", skip_all, fields(user = %user))]
    pub async fn public_profile(&self, user: &UserId) -> Result<PublicProfile> {
        let owner = self.store_ref().user_by_id(user).await?;
        match owner {
            Some(owner) if !owner.profile.is_private && !owner.disabled => {
                Ok(PublicProfile::from(&owner.profile))
            }
            _ => Err(Error::NotFound { kind: "user" }),
        }
    }

    /// An author's public entries that pass `filter`, newest `date` first, paged as the
    /// public feed is. [`Error::NotFound`] unless the author's profile is public.
    #[instrument(level = "debug", skip_all, fields(user = %user, page = page.page()))]
    pub async fn public_author_entries(
        &self,
        user: &UserId,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> Result<Page<Entry>> {
        page.check_depth()?;
        self.public_profile(user).await?;
        Ok(self
            .store_ref()
            .entries_by_author(user, Visibility::PublicOnly, filter, page)
            .await?)
    }

    /// One public entry of an author whose profile is public. [`Error::NotFound`]
    /// otherwise, exactly as for an unknown id.
    #[instrument(level = "debug", skip_all, fields(entry = %id))]
    pub async fn public_entry(&self, id: &EntryId) -> Result<Entry> {
        match self.store_ref().entry(id).await? {
            Some(stored) if stored.entry.is_public && !stored.author_private => Ok(stored.entry),
            _ => Err(Error::NotFound { kind: "entry" }),
        }
    }
}
