//! A bounded, weighed map with hit and miss counts: the one primitive the caches share
//! (the SQLite store's read cache, the PostgreSQL store's page cache, and any cache of
//! rendered bytes a front end keeps).
//!
//! Bounded twice: by how many values it holds and by their total weight (about how
//! many bytes each holds, as the cache's `weigh` function says), since one list page
//! can hold a hundred entries of 100,000 characters and a count alone bounds nothing.
//! A value heavier than a quarter of the weight bound is never kept: it would crowd out
//! everything else. What happens when a new value does not fit is the cache's
//! [`Eviction`]. Whether a kept value is still good (a write since, another snapshot,
//! other bytes) is the caller's question, asked through [`BoundedMap::get_if`].
//!
//! ```
//! use journal_core::cache::{BoundedMap, Eviction, Limits};
//!
//! // Rendered bodies by page number, kept while they were reused.
//! let bodies: BoundedMap<u32, Vec<u8>> = BoundedMap::new(
//!     Limits { max_values: 1024, max_weight: 8 << 20, eviction: Eviction::DropUnused },
//!     |body| body.len(),
//! );
//! bodies.insert(1, b"[]".to_vec());
//! assert_eq!(bodies.get_if(&1, |_| true), Some(b"[]".to_vec()));
//! bodies.miss();
//! assert_eq!((bodies.counts().hits, bodies.counts().misses), (1, 1));
//! ```

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::model::CacheCounts;

/// What a full map does to make room for a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eviction {
    /// Start afresh: drop every value. Cheap, and rare when the bounds are generous;
    /// right for values that go stale on their own (each write outdates some).
    Clear,
    /// Drop values until a quarter of the map is free: first those not reused since
    /// the last time it made room, then, if that is not enough, the others, each in
    /// the map's order. What is reused stays, and when more values are asked for in
    /// turn than fit, the ones kept are reused every round and keep being kept, where
    /// emptying the map, or dropping the least recently used, would drop each one just
    /// before it is asked for again.
    DropUnused,
}

/// A map's bounds and eviction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most values kept.
    pub max_values: usize,
    /// Most total weight kept; no one value heavier than a quarter of it is kept.
    pub max_weight: usize,
    /// What a full map does.
    pub eviction: Eviction,
}

/// A bounded, weighed map from `K` to `V`, safe to share between threads, counting how
/// often it answered (hits) and how often its callers had to look elsewhere (misses).
pub struct BoundedMap<K, V> {
    values: Mutex<Values<K, V>>,
    limits: Limits,
    weigh: fn(&V) -> usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

struct Values<K, V> {
    map: HashMap<K, Kept<V>>,
    /// The sum of the values' weights.
    weight: usize,
}

struct Kept<V> {
    value: V,
    /// Whether it was served since the map last made room ([`Eviction::DropUnused`]).
    reused: bool,
}

impl<K: Eq + Hash, V> BoundedMap<K, V> {
    /// An empty map within `limits`, weighing each value with `weigh` (about how many
    /// bytes it holds).
    pub fn new(limits: Limits, weigh: fn(&V) -> usize) -> BoundedMap<K, V> {
        BoundedMap {
            values: Mutex::new(Values {
                map: HashMap::new(),
                weight: 0,
            }),
            limits,
            weigh,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// A copy of the value for `key` if there is one and `good` says it may be served;
    /// counted as a hit then. A miss is the caller's to count ([`BoundedMap::miss`]):
    /// only it knows whether the question counts (a value asked for twice while being
    /// read, say, is one miss).
    pub fn get_if(&self, key: &K, good: impl FnOnce(&V) -> bool) -> Option<V>
    where
        V: Clone,
    {
        let mut values = self.lock();
        let kept = values.map.get_mut(key).filter(|kept| good(&kept.value))?;
        kept.reused = true;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(kept.value.clone())
    }

    /// What `read` makes of the value for `key`, if there is one: a look that counts
    /// nothing and marks nothing reused.
    pub fn peek<R>(&self, key: &K, read: impl FnOnce(&V) -> R) -> Option<R> {
        self.lock().map.get(key).map(|kept| read(&kept.value))
    }

    /// Keeps `value` for `key` (replacing any before), making room as the map's
    /// [`Eviction`] says when it is full; a value heavier than a quarter of the weight
    /// bound is not kept.
    pub fn insert(&self, key: K, value: V) {
        let weight = (self.weigh)(&value);
        if weight > self.limits.max_weight / 4 {
            return;
        }
        let mut values = self.lock();
        if values.map.len() >= self.limits.max_values
            || values.weight + weight > self.limits.max_weight
        {
            self.make_room(&mut values);
        }
        values.weight += weight;
        let kept = Kept {
            value,
            reused: false,
        };
        if let Some(old) = values.map.insert(key, kept) {
            values.weight = values.weight.saturating_sub((self.weigh)(&old.value));
        }
    }

    /// Counts a question the map could not answer.
    pub fn miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    /// How often the map answered, and how often not.
    pub fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// How many values are kept, and their total weight.
    pub fn size(&self) -> (usize, usize) {
        let values = self.lock();
        (values.map.len(), values.weight)
    }

    fn make_room(&self, values: &mut Values<K, V>) {
        match self.limits.eviction {
            Eviction::Clear => {
                values.map.clear();
                values.weight = 0;
            }
            Eviction::DropUnused => {
                let Limits {
                    max_values,
                    max_weight,
                    ..
                } = self.limits;
                let (mut len, mut weight) = (values.map.len(), values.weight);
                for drop_reused in [false, true] {
                    values.map.retain(|_, kept| {
                        let full = len > max_values / 4 * 3 || weight > max_weight / 4 * 3;
                        if !full || (kept.reused && !drop_reused) {
                            return true;
                        }
                        len -= 1;
                        weight = weight.saturating_sub((self.weigh)(&kept.value));
                        false
                    });
                }
                for kept in values.map.values_mut() {
                    kept.reused = false;
                }
                values.weight = weight;
            }
        }
    }

    /// The values, poisoned lock or not: a value is replaced whole, never left
    /// half-written, so a poisoned lock is still usable.
    fn lock(&self) -> MutexGuard<'_, Values<K, V>> {
        self.values.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(eviction: Eviction) -> BoundedMap<u32, String> {
        let limits = Limits {
            max_values: 8,
            max_weight: 100,
            eviction,
        };
        BoundedMap::new(limits, String::len)
    }

    #[test]
    fn a_full_map_that_clears_starts_afresh() {
        let m = map(Eviction::Clear);
        for k in 0..8 {
            m.insert(k, "x".into());
        }
        m.insert(8, "y".into());
        assert_eq!(m.size(), (1, 1));
        assert_eq!(m.get_if(&8, |_| true).as_deref(), Some("y"));
    }

    #[test]
    fn the_weight_bounds_the_map_and_heavy_values_are_not_kept() {
        let m = map(Eviction::Clear);
        m.insert(1, "a".repeat(26));
        assert_eq!(m.size(), (0, 0), "over a quarter of the bound");
        for k in 0..5 {
            m.insert(k, "a".repeat(25));
        }
        assert!(m.size().1 <= 100);
        m.insert(0, "b".into());
        m.insert(0, "cc".into());
        assert_eq!(m.peek(&0, String::clone).as_deref(), Some("cc"));
    }

    #[test]
    fn a_full_map_that_drops_unused_values_keeps_the_reused_ones() {
        let m = map(Eviction::DropUnused);
        for k in 0..8 {
            m.insert(k, "x".into());
        }
        assert!(m.get_if(&3, |_| true).is_some());
        m.insert(8, "y".into());
        // Down to three quarters of eight, the reused value kept, then the new one in.
        assert_eq!(m.size().0, 7);
        assert!(m.peek(&3, |_| ()).is_some());
        assert!(m.peek(&8, |_| ()).is_some());
    }

    #[test]
    fn a_value_the_caller_finds_stale_is_not_a_hit() {
        let m = map(Eviction::Clear);
        m.insert(1, "old".into());
        assert_eq!(m.get_if(&1, |v| v == "new"), None);
        m.miss();
        assert_eq!(m.counts().hits, 0);
        assert_eq!(m.counts().misses, 1);
    }
}
