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

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::domain::PageRequest;
use crate::error::{StoreError, StoreResult};
use crate::model::{CacheCounts, Entry, Page};

/// Pages past this are read afresh: only a list's first pages are hot.
const CACHED_PAGES: u32 = 10;

/// Most pages one cache keeps; past that it starts afresh (cheap, and rare).
const MAX_PAGES: usize = 10_000;

/// Most bytes of entries one cache keeps (by `Entry::approx_bytes`); past that it starts
/// afresh. A page can hold 100 entries of 100,000 characters, so a count alone bounds
/// nothing.
const MAX_BYTES: usize = 8 << 20;

/// Pages kept by their list's key, each with the snapshot it was read in.
pub(super) struct PageCache<K> {
    pages: Mutex<Pages<K>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

struct Pages<K> {
    by_key: HashMap<K, (String, Page<Entry>)>,
    bytes: usize,
}

impl<K> Default for PageCache<K> {
    fn default() -> Self {
        PageCache {
            pages: Mutex::new(Pages {
                by_key: HashMap::new(),
                bytes: 0,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }
}

impl<K: Eq + Hash> PageCache<K> {
    /// Page `page` of the list `list`: the kept one if the database's snapshot
    /// (`snapshot_now`) is the one it was read in, else `query`'s, kept for next time.
    /// `query(true)` also names the snapshot it read in; pages past the first few are
    /// read by `query(false)` and not kept.
    pub(super) async fn page<Q: Future<Output = StoreResult<(Page<Entry>, Option<String>)>>>(
        &self,
        list: impl FnOnce(u32, u32) -> K,
        page: PageRequest,
        snapshot_now: impl Future<Output = StoreResult<String>>,
        query: impl FnOnce(bool) -> Q,
    ) -> StoreResult<Page<Entry>> {
        if page.after().is_some() || page.page() > CACHED_PAGES {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return Ok(query(false).await?.0);
        }
        let key = list(page.page(), page.limit());
        let now = snapshot_now.await?;
        if let Some((_, hit)) = self.lock().by_key.get(&key).filter(|(at, _)| *at == now) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit.clone());
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
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
        let ended = {
            let pages = self.lock();
            (1..CACHED_PAGES).find_map(|n| {
                let (read_in, kept) = pages.by_key.get(&list(n, limit))?;
                let last = kept.items.last()?;
                let full = kept.items.len() == limit as usize;
                (full && last.date == after.date() && last.id == *after.id())
                    .then(|| (n + 1, read_in.clone()))
            })
        };
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
        let kept = (self.lock().by_key.get(&key))
            .filter(|(at, _)| *at == now)
            .map(|(_, kept)| kept.clone());
        if let Some(hit) = kept {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Some(as_asked(hit)));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let by_number = PageRequest::new(Some(i64::from(number)), Some(i64::from(limit)))
            .map_err(|e| StoreError::internal(e.to_string()))?;
        let (result, snapshot) = query(by_number).await?;
        let snapshot = snapshot.unwrap_or_default();
        self.keep(key, snapshot.clone(), &result);
        Ok((snapshot == now).then(|| as_asked(result)))
    }

    /// Keeps `page` as read in `snapshot`, within the cache's bounds.
    fn keep(&self, key: K, snapshot: String, page: &Page<Entry>) {
        let bytes = weight(page);
        if bytes > MAX_BYTES / 4 {
            return; // a page this big would crowd out everything else
        }
        let mut pages = self.lock();
        if pages.by_key.len() >= MAX_PAGES || pages.bytes + bytes > MAX_BYTES {
            pages.by_key.clear();
            pages.bytes = 0;
        }
        if let Some((_, old)) = pages.by_key.insert(key, (snapshot, page.clone())) {
            pages.bytes = pages.bytes.saturating_sub(weight(&old));
        }
        pages.bytes += bytes;
    }

    /// How often a page was served from memory; pages past the first few, never
    /// kept, count as misses.
    pub(super) fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pages<K>> {
        self.pages.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// About how many bytes a page holds.
fn weight(page: &Page<Entry>) -> usize {
    page.items.iter().map(Entry::approx_bytes).sum::<usize>() + std::mem::size_of::<Page<Entry>>()
}
