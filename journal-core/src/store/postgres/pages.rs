//! The layers a list page passes through, in one place: the store's query path makes
//! one call here ([`ListPages::author_page`], [`ListPages::feed_page`]).
//!
//! In order: a filtered page is read afresh (`lists.rs`). The page a `Link` cursor
//! asks for is served from the page cache when the cursor ends a kept page
//! (`page_cache.rs`, [`PageCache::continuation`]); other cursor pages are read
//! together with the ones asked at the same moment (`link_pages.rs`); a list's first
//! pages are kept in the page cache while the database's snapshot is the one they were
//! read in, the snapshot itself asked once for the requests asking at once
//! (`coalesce.rs`). Nothing here needs invalidating: every kept page carries its
//! snapshot.

use std::hash::Hash;

use super::coalesce::Coalesced;
use super::feed_total::FEED_COUNT;
use super::link_pages::LinkPages;
use super::lists::{SNAPSHOT, filtered_page};
use super::page_cache::PageCache;
use super::pool::Db;
use crate::domain::{PageRequest, UserId};
use crate::error::StoreResult;
use crate::filter::EntryFilter;
use crate::model::{CacheCounts, Entry, Page};
use crate::store::list_query::Scope;
use crate::store::{KeptPage, Visibility, kept_page};

/// The list pages' layers of one store.
#[derive(Default)]
pub(super) struct ListPages {
    /// The feed's first pages, by page and limit.
    feed: PageCache<(u32, u32)>,
    /// Authors' first pages, by author, public-only, page and limit.
    authors: PageCache<(UserId, bool, u32, u32)>,
    /// Pages after a cursor, read together for the requests asking at once.
    links: LinkPages,
    /// The database's current snapshot, for the page caches.
    snapshots: Coalesced<(), String>,
}

impl ListPages {
    /// A page of an author's list: every entry for the author, public ones for others.
    pub(super) async fn author_page(
        &self,
        db: &Db,
        author: &UserId,
        visibility: Visibility,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let (public_only, count) = match visibility {
            Visibility::All => (
                false,
                "SELECT coalesce((SELECT entries FROM author_counts WHERE author_id = $1), 0)",
            ),
            Visibility::PublicOnly => (
                true,
                "SELECT coalesce((SELECT public FROM author_counts WHERE author_id = $1), 0)",
            ),
        };
        let scope = Scope::Author {
            id: *author,
            public_only,
        };
        let list = |n, limit| (*author, public_only, n, limit);
        self.layered(db, &self.authors, list, &scope, count, filter, page)
            .await
    }

    /// A page of the public feed.
    pub(super) async fn feed_page(
        &self,
        db: &Db,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let list = |n, limit| (n, limit);
        self.layered(db, &self.feed, list, &Scope::Feed, FEED_COUNT, filter, page)
            .await
    }

    /// How often each layer answered from memory or rode on another's statement:
    /// feed pages, author pages, cursor pages and snapshots.
    pub(super) fn counts(&self) -> [CacheCounts; 4] {
        [
            self.feed.counts(),
            self.authors.counts(),
            self.links.counts(),
            self.snapshots.counts(),
        ]
    }

    /// A page of `scope` through the layers, `cache` keeping its list's first pages
    /// (`list` names one by page number and limit); `count` is the unfiltered total.
    #[allow(clippy::too_many_arguments)]
    async fn layered<K: Eq + Hash>(
        &self,
        db: &Db,
        cache: &PageCache<K>,
        list: impl Fn(u32, u32) -> K,
        scope: &Scope,
        count: &str,
        filter: &EntryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Entry>> {
        let read =
            |page, name_snapshot| filtered_page(db, scope, filter, page, count, name_snapshot);
        let kept = kept_page(filter, page);
        // The cache keeps unfiltered pages only: a filtered one is read afresh.
        if kept == KeptPage::Filtered {
            return Ok(read(page, false).await?.0);
        }
        let next = cache
            .continuation(&list, page, self.snapshot(db), |by_number| {
                read(by_number, true)
            })
            .await?;
        if let Some(next) = next {
            return Ok(next);
        }
        if let Some(next) = self.links.page(db, scope, page).await? {
            return Ok(next);
        }
        cache
            .page(&list, kept, self.snapshot(db), |name_snapshot| {
                read(page, name_snapshot)
            })
            .await
    }

    /// The database's current snapshot (see [`SNAPSHOT`]), read by a statement sent
    /// after this call, which may answer other callers too.
    async fn snapshot(&self, db: &Db) -> StoreResult<String> {
        self.snapshots
            .ask(
                (),
                |()| read_snapshot(db),
                |askers| async move { Ok(vec![read_snapshot(db).await?; askers.len()]) },
            )
            .await
    }
}

/// The database's current snapshot, read now.
async fn read_snapshot(db: &Db) -> StoreResult<String> {
    Ok(db
        .query_opt(SNAPSHOT, &[])
        .await?
        .map(|row| row.get(0))
        .unwrap_or_default())
}
