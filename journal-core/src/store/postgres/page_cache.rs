//! The first pages of the public feed and of each author's list, kept in memory:
//! exact with any number of servers.
//!
//! Each page is kept with the database snapshot it was read in (`lists::SNAPSHOT`) and
//! served while the database's current snapshot is the same, which costs one trivial
//! query (shared by the requests asking at once, see `coalesce.rs`) instead of the page
//! and its total. Every write, by any server, runs in a transaction whose id shows in
//! the snapshot while it runs and changes it when it ends, so an equal snapshot means
//! no write anywhere in between. The page a `Link` cursor asks for is served from here
//! too when the cursor ends a kept page ([`PageCache::continuation`]). Needs
//! PostgreSQL 13+.

use std::future::Future;
use std::hash::Hash;

use crate::cache::{BoundedMap, Eviction, Limits};
use crate::domain::PageRequest;
use crate::error::{StoreError, StoreResult};
use crate::model::{CacheCounts, Entry, Page};
use crate::store::{KEPT_PAGES, KeptPage};

/// At most 10,000 pages and 8 MiB of entries (by `Entry::approx_bytes`: a page can
/// hold 100 entries of 100,000 characters, so a count alone bounds nothing); past
/// either it starts afresh (cheap, and rare).
const LIMITS: Limits = Limits {
    max_values: 10_000,
    max_weight: 8 << 20,
    eviction: Eviction::Clear,
};

/// Pages kept by their list's key, each with the snapshot it was read in.
pub(super) struct PageCache<K> {
    pages: BoundedMap<K, (String, Page<Entry>)>,
}

impl<K: Eq + Hash> Default for PageCache<K> {
    fn default() -> Self {
        PageCache {
            pages: BoundedMap::new(LIMITS, |(_, page)| weight(page)),
        }
    }
}

impl<K: Eq + Hash> PageCache<K> {
    /// The page `page` of the list `list`: the kept one if the database's snapshot
    /// (`snapshot_now`) is the one it was read in, else `query`'s, kept for next time.
    /// `query(true)` also names the snapshot it read in; pages not kept (see
    /// [`kept_page`](crate::store::kept_page)) are read by `query(false)`.
    pub(super) async fn page<Q: Future<Output = StoreResult<(Page<Entry>, Option<String>)>>>(
        &self,
        list: impl FnOnce(u32, u32) -> K,
        page: KeptPage,
        snapshot_now: impl Future<Output = StoreResult<String>>,
        query: impl FnOnce(bool) -> Q,
    ) -> StoreResult<Page<Entry>> {
        let Some((number, limit)) = page.number_and_limit() else {
            self.pages.miss();
            return Ok(query(false).await?.0);
        };
        let key = list(number, limit);
        let now = snapshot_now.await?;
        if let Some((_, hit)) = self.pages.get_if(&key, |(at, _)| *at == now) {
            return Ok(hit);
        }
        self.pages.miss();
        let (result, snapshot) = query(true).await?;
        self.keep(key, snapshot.unwrap_or_default(), &result);
        Ok(result)
    }

    /// The page after `page`'s cursor when the cursor ends a kept page of the same list
    /// and limit, read in the database's current snapshot (`snapshot_now`): then it is
    /// that page's successor by number, served from memory or read by `query` (given
    /// the page by number; it names its snapshot) and kept. This is the page a reader
    /// following `Link` next from a first page asks for, and every reader of the feed
    /// asks for the same one.
    ///
    /// `None` when the cursor ends no such page, or when a write came between the
    /// snapshot check and the read (the page by number may then have shifted): the
    /// caller reads the page after the cursor itself.
    pub(super) async fn continuation<Q>(
        &self,
        list: impl Fn(u32, u32) -> K,
        page: PageRequest,
        snapshot_now: impl Future<Output = StoreResult<String>>,
        query: impl FnOnce(PageRequest) -> Q,
    ) -> StoreResult<Option<Page<Entry>>>
    where
        Q: Future<Output = StoreResult<(Page<Entry>, Option<String>)>>,
    {
        let Some(after) = page.after() else {
            return Ok(None);
        };
        let limit = page.limit();
        // The kept page, if any, whose last entry is the cursor's, and its snapshot.
        let ended = (1..KEPT_PAGES).find_map(|n| {
            self.pages
                .peek(&list(n, limit), |(read_in, kept)| {
                    let last = kept.items.last()?;
                    let full = kept.items.len() == limit as usize;
                    (full && last.date == after.date() && last.id == *after.id())
                        .then(|| (n + 1, read_in.clone()))
                })
                .flatten()
        });
        let Some((number, read_in)) = ended else {
            return Ok(None);
        };
        let now = snapshot_now.await?;
        if read_in != now {
            return Ok(None);
        }
        let as_asked = |found: Page<Entry>| Page {
            page: page.page(),
            ..found
        };
        let key = list(number, limit);
        if let Some((_, hit)) = self.pages.get_if(&key, |(at, _)| *at == now) {
            return Ok(Some(as_asked(hit)));
        }
        self.pages.miss();
        let by_number = PageRequest::new(Some(i64::from(number)), Some(i64::from(limit)))
            .map_err(|e| StoreError::internal(e.to_string()))?;
        let (result, snapshot) = query(by_number).await?;
        let snapshot = snapshot.unwrap_or_default();
        self.keep(key, snapshot.clone(), &result);
        Ok((snapshot == now).then(|| as_asked(result)))
    }

    /// Keeps `page` as read in `snapshot`, within the cache's bounds.
    fn keep(&self, key: K, snapshot: String, page: &Page<Entry>) {
        self.pages.insert(key, (snapshot, page.clone()));
    }

    /// How often a page was served from memory; pages past the first few, never
    /// kept, count as misses.
    pub(super) fn counts(&self) -> CacheCounts {
        self.pages.counts()
    }
}

/// About how many bytes a page holds.
fn weight(page: &Page<Entry>) -> usize {
    page.items.iter().map(Entry::approx_bytes).sum::<usize>() + std::mem::size_of::<Page<Entry>>()
}
