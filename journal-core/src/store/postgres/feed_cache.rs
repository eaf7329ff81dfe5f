//! The public feed's first pages, kept in memory: exact with any number of servers.
//!
//! Each page is kept with the database snapshot it was read in (`lists::SNAPSHOT`) and
//! served while a one-line query returns the same snapshot, which costs one trivial
//! query instead of the page and its total. Every write, by any server, runs in a
//! transaction whose id shows in the snapshot while it runs and changes it when it
//! ends, so an equal snapshot means no write anywhere in between. Needs PostgreSQL 13+.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::domain::PageRequest;
use crate::error::StoreResult;
use crate::model::{CacheCounts, Entry, Page};

/// Feed pages kept in memory: only the first ones are hot.
const CACHED_PAGES: u32 = 10;

/// Feed pages by page number and size, each with the snapshot it was read in.
type Pages = HashMap<(u32, u32), (String, Page<Entry>)>;

/// The kept feed pages.
#[derive(Default)]
pub(super) struct FeedCache {
    pages: Mutex<Pages>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl FeedCache {
    /// The feed page `page`: the kept one if the database's snapshot (`snapshot_now`)
    /// is the one it was read in, else `query`'s, kept for next time. `query(true)`
    /// also names the snapshot it read in; pages past the first few are read by
    /// `query(false)` and not kept.
    pub(super) async fn page<Q: Future<Output = StoreResult<(Page<Entry>, Option<String>)>>>(
        &self,
        page: PageRequest,
        snapshot_now: impl Future<Output = StoreResult<String>>,
        query: impl FnOnce(bool) -> Q,
    ) -> StoreResult<Page<Entry>> {
        if page.after().is_some() || page.page() > CACHED_PAGES {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return Ok(query(false).await?.0);
        }
        let key = (page.page(), page.limit());
        let now = snapshot_now.await?;
        if let Some((_, hit)) = self.lock().get(&key).filter(|(at, _)| *at == now) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit.clone());
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let (result, snapshot) = query(true).await?;
        let snapshot = snapshot.unwrap_or_default();
        let mut pages = self.lock();
        // Page sizes are up to clients: bound what they can make us keep.
        if pages.len() >= 4 * CACHED_PAGES as usize {
            pages.clear();
        }
        pages.insert(key, (snapshot, result.clone()));
        Ok(result)
    }

    /// How often a page was served from memory; pages past the first few, never
    /// kept, count as misses.
    pub(super) fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pages> {
        self.pages.lock().unwrap_or_else(|p| p.into_inner())
    }
}
