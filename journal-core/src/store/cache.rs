//! Read caches of the SQLite store: what every request asks again and again (a token's
//! user state, public feed pages), kept in memory between writes.
//!
//! Correctness comes from a write generation: the writer thread bumps it after every
//! commit and before acknowledging the write, and a cached value is used only while the
//! generation it was read under is still current. So a client never reads, through this
//! process, anything older than a write it was told succeeded. Writes made by another
//! process on the same file (the `journal` CLI on the server's database) are not seen by
//! the generation; values also expire after [`TTL`], which bounds that staleness.
//!
//! A reader notes the generation *before* it queries; if a commit lands meanwhile, its
//! value is filed under the old generation and never served.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Longest a cached value is served, for writes by other processes.
pub(crate) const TTL: Duration = Duration::from_secs(1);

/// Most values one map keeps; past that it starts afresh (cheap, and rare).
const MAX_ENTRIES: usize = 10_000;

/// The write generation shared by the writer thread and the caches.
#[derive(Default)]
pub(crate) struct Generation(AtomicU64);

impl Generation {
    pub(crate) fn current(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    /// Called by the writer after a commit, before any reply.
    pub(crate) fn bump(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

/// One map of cached values.
pub(crate) struct Cached<K, V> {
    map: Mutex<HashMap<K, (V, u64, Instant)>>,
}

impl<K: Eq + Hash, V: Clone> Default for Cached<K, V> {
    fn default() -> Self {
        Cached {
            map: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Cached<K, V> {
    /// The value for `key` if it was read under generation `now` and is fresh.
    pub(crate) fn get(&self, key: &K, now: u64) -> Option<V> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        match map.get(key) {
            Some((value, generation, at)) if *generation == now && at.elapsed() < TTL => {
                Some(value.clone())
            }
            _ => None,
        }
    }

    /// Files `value`, read after noting generation `generation`.
    pub(crate) fn put(&self, key: K, value: V, generation: u64) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_ENTRIES {
            map.clear();
        }
        map.insert(key, (value, generation, Instant::now()));
    }
}
