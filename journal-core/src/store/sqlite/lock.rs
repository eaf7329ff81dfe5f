//! Locking a mutex whether or not a thread panicked while holding it: the one helper
//! the pool and the cache share, kept apart so neither imports the other for it.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, poisoned or not: nothing in this store is left half-done under a lock
/// (the readers' job queue; the cache's maps, whose values are replaced whole), so a
/// poisoned lock is still usable.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
