//! Read caches of the SQLite store: what every request asks again and again (a token's
//! user state, the first pages of the public feed and of each author's list), kept in
//! memory between writes.
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

/// Most bytes of values one map keeps (by [`Weight`]); past that it starts afresh. A
/// page can hold entries of up to 100,000 characters, so a count alone bounds nothing.
const MAX_BYTES: usize = 8 << 20;

/// About how many bytes a cached value holds.
pub(crate) trait Weight {
    fn weight(&self) -> usize;
}

impl<T> Weight for Option<T> {
    fn weight(&self) -> usize {
        std::mem::size_of::<Self>()
    }
}

impl Weight for crate::model::Page<crate::model::Entry> {
    fn weight(&self) -> usize {
        self.items
            .iter()
            .map(|e| {
                std::mem::size_of_val(e) + e.title.len() + e.content.len() + e.author_name.len()
            })
            .sum::<usize>()
            + std::mem::size_of::<Self>()
    }
}

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
    map: Mutex<Map<K, V>>,
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
        }
    }
}

impl<K: Eq + Hash, V: Clone + Weight> Cached<K, V> {
    /// The value for `key` if it was read under generation `now` and is fresh.
    pub(crate) fn get(&self, key: &K, now: u64) -> Option<V> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        match map.values.get(key) {
            Some((value, generation, at)) if *generation == now && at.elapsed() < TTL => {
                Some(value.clone())
            }
            _ => None,
        }
    }

    /// Files `value`, read after noting generation `generation`.
    pub(crate) fn put(&self, key: K, value: V, generation: u64) {
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
