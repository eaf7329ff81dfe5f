//! The SQLite store's read cache: what every request asks again and again, kept in
//! memory between writes. It keeps a token's user state, the public feed's first
//! pages, and the first pages of each author's list (own view and others' view apart).
//!
//! Invalidation is by write generation: the writer thread bumps it after every commit
//! and before acknowledging the write (see `pool.rs`), and a value is served only while
//! the generation it was read under is still current. So a client never reads, through
//! this process, anything older than a write it was told succeeded. Writes by another
//! process on the same file (the `journal` CLI on the server's database) do not bump
//! it; values also expire after [`TTL`], which bounds that staleness. A reader notes
//! the generation *before* it queries: if a commit lands meanwhile, its value is filed
//! under the old generation and never served.
//!
//! The store calls in through one method per path ([`ReadCache::auth_state`],
//! [`ReadCache::author_page`], [`ReadCache::feed_page`]), handing over the query as a
//! future that runs only on a miss.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::domain::{PageRequest, UserId};
use crate::error::StoreResult;
use crate::model::{CacheCounts, Entry, Page};
use crate::store::AuthState;

/// Longest a cached value is served, for writes by other processes.
const TTL: Duration = Duration::from_secs(1);

/// Most values one map keeps; past that it starts afresh (cheap, and rare).
const MAX_ENTRIES: usize = 10_000;

/// Most bytes of values one map keeps (by [`Weight`]); past that it starts afresh. A
/// page can hold entries of up to 100,000 characters, so a count alone bounds nothing.
const MAX_BYTES: usize = 8 << 20;

/// Pages past this are read afresh: only a list's first pages are hot, and deep pages
/// would only churn the maps.
const CACHED_PAGES: u32 = 10;

/// The write generation shared by the writer thread and the cache.
#[derive(Default)]
pub(super) struct Generation(AtomicU64);

impl Generation {
    fn current(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    /// Called by the writer after a commit, before any reply.
    pub(super) fn bump(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

/// The cache of one SQLite store.
pub(super) struct ReadCache {
    generation: Arc<Generation>,
    /// A token's user state, by user and token id.
    auth: Cached<(UserId, String), Option<AuthState>>,
    /// Public feed pages, by page and limit.
    feed: Cached<(u32, u32), Page<Entry>>,
    /// Authors' list pages, by author, public-only, page and limit.
    author_pages: Cached<(UserId, bool, u32, u32), Page<Entry>>,
    /// Held while a feed page is read into the cache.
    feed_refill: tokio::sync::Mutex<()>,
}

impl ReadCache {
    /// A cache invalidated by `generation`.
    pub(super) fn new(generation: Arc<Generation>) -> ReadCache {
        ReadCache {
            generation,
            auth: Cached::default(),
            feed: Cached::default(),
            author_pages: Cached::default(),
            feed_refill: tokio::sync::Mutex::new(()),
        }
    }

    /// How often each map answered from memory, by name. A request for a page past
    /// the first few, which is never kept, counts as a miss.
    pub(super) fn counts(&self) -> Vec<(&'static str, CacheCounts)> {
        vec![
            ("authStates", self.auth.counts()),
            ("feedPages", self.feed.counts()),
            ("authorPages", self.author_pages.counts()),
        ]
    }

    /// A token's user state: cached, or read by `query`.
    pub(super) async fn auth_state(
        &self,
        user: &UserId,
        token_id: &str,
        query: impl Future<Output = StoreResult<Option<AuthState>>>,
    ) -> StoreResult<Option<AuthState>> {
        self.through(&self.auth, Some((*user, token_id.to_owned())), query)
            .await
    }

    /// A page of an author's list: cached when it is one of the first, or read by
    /// `query`.
    pub(super) async fn author_page(
        &self,
        author: &UserId,
        public_only: bool,
        page: PageRequest,
        query: impl Future<Output = StoreResult<Page<Entry>>>,
    ) -> StoreResult<Page<Entry>> {
        let key = first_page(page).map(|(n, limit)| (*author, public_only, n, limit));
        self.through(&self.author_pages, key, query).await
    }

    /// A page of the public feed: cached when it is one of the first, or read by
    /// `query`. When the cache empties under load, one request reads each page while
    /// the others wait for it, instead of all reading it at once.
    pub(super) async fn feed_page(
        &self,
        page: PageRequest,
        query: impl Future<Output = StoreResult<Page<Entry>>>,
    ) -> StoreResult<Page<Entry>> {
        let Some(key) = first_page(page) else {
            self.feed.misses.fetch_add(1, Ordering::Relaxed);
            return query.await;
        };
        if let Some(hit) = self.feed.get(&key, self.generation.current()) {
            return Ok(hit);
        }
        let _refill = self.feed_refill.lock().await;
        // Whoever held the lock before us may have just read this page.
        self.through(&self.feed, Some(key), query).await
    }

    /// The value for `key` if kept and current; else `query`'s, kept for next time.
    async fn through<K: Eq + Hash, V: Clone + Weight>(
        &self,
        map: &Cached<K, V>,
        key: Option<K>,
        query: impl Future<Output = StoreResult<V>>,
    ) -> StoreResult<V> {
        let Some(key) = key else {
            map.misses.fetch_add(1, Ordering::Relaxed);
            return query.await;
        };
        let generation = self.generation.current();
        if let Some(hit) = map.get(&key, generation) {
            return Ok(hit);
        }
        map.misses.fetch_add(1, Ordering::Relaxed);
        let value = query.await?;
        map.put(key, value.clone(), generation);
        Ok(value)
    }
}

/// The page number and size of `page` when it is one of a list's first pages.
fn first_page(page: PageRequest) -> Option<(u32, u32)> {
    (page.after().is_none() && page.page() <= CACHED_PAGES).then_some((page.page(), page.limit()))
}

/// About how many bytes a cached value holds.
trait Weight {
    fn weight(&self) -> usize;
}

impl<T> Weight for Option<T> {
    fn weight(&self) -> usize {
        std::mem::size_of::<Self>()
    }
}

impl Weight for Page<Entry> {
    fn weight(&self) -> usize {
        self.items.iter().map(Entry::approx_bytes).sum::<usize>() + std::mem::size_of::<Self>()
    }
}

/// One map of cached values.
struct Cached<K, V> {
    map: Mutex<Map<K, V>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

struct Map<K, V> {
    values: HashMap<K, (V, u64, Instant)>,
    /// The sum of the values' weights.
    bytes: usize,
}

impl<K: Eq + Hash, V: Clone + Weight> Default for Cached<K, V> {
    fn default() -> Self {
        Cached {
            map: Mutex::new(Map {
                values: HashMap::new(),
                bytes: 0,
            }),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }
}

impl<K: Eq + Hash, V: Clone + Weight> Cached<K, V> {
    /// The value for `key` if it was read under generation `now` and is fresh.
    fn get(&self, key: &K, now: u64) -> Option<V> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        match map.values.get(key) {
            Some((value, generation, at)) if *generation == now && at.elapsed() < TTL => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(value.clone())
            }
            _ => None,
        }
    }

    fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// Files `value`, read after noting generation `generation`.
    fn put(&self, key: K, value: V, generation: u64) {
        let weight = value.weight();
        if weight > MAX_BYTES / 4 {
            return; // a value this big would crowd out everything else
        }
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.values.len() >= MAX_ENTRIES || map.bytes + weight > MAX_BYTES {
            map.values.clear();
            map.bytes = 0;
        }
        map.bytes += weight;
        if let Some((old, _, _)) = map.values.insert(key, (value, generation, Instant::now())) {
            map.bytes -= old.weight();
        }
    }
}
