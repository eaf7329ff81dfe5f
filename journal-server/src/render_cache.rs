//! The render cache: the JSON bodies of lists' first pages (the public feed's and
//! each author's), each kept with a fingerprint of the entries it was rendered from.
//!
//! A layer apart from the store's read cache, and after it: the store decides what a
//! page holds (from memory or the database); this only saves writing the same entries
//! as JSON again. Nothing invalidates it: a body is reused only for a page whose
//! entries have the same fingerprint as the ones it was rendered from, whatever the
//! backend or however many servers share the database. The fingerprint is SipHash-2-4's
//! 128-bit output over every field of every entry, keyed at random when the server
//! starts: a keyed hash, so without the key no client can aim for a collision, and a
//! changed page would reuse a stale body only by a 128-bit accident. Keeping it
//! instead of a copy of the entries about halves what a body costs to keep.
//!
//! The public feed's `ETag` is made from the same fingerprint (see [`RenderedPages::etag`]),
//! so a page read from the memo is validated without hashing its body again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use journal_core::{CacheCounts, Entry, UserId};
use siphasher::sip128::{Hasher128, SipHasher24};
use warp::http::{HeaderMap, HeaderValue};

use crate::entries_json::entries_json;

/// Pages past this are rendered afresh: only the first ones are hot.
const MAX_PAGE: u32 = 10;
/// Most bodies kept; past that, some make room (see [`Slots::make_room`]).
const MAX_SLOTS: usize = 1024;
/// Most bytes of bodies kept; past that, room is made too.
const MAX_BYTES: usize = 8 << 20;

/// Which list a page belongs to: the public feed (`None`) or an author's list. An
/// author's own view and others' view share a slot; the items tell them apart.
type ListKey = (Option<UserId>, u32, u32);

/// A body, the fingerprint of the items it was rendered from, and whether it was
/// reused since the memo last made room.
struct Kept {
    fingerprint: Fingerprint,
    body: Bytes,
    reused: bool,
}

/// A keyed 128-bit hash of a page's entries.
pub type Fingerprint = u128;

/// A page's JSON body and, when it was worked out on the way, the fingerprint of the
/// entries it was rendered from.
pub struct Rendered {
    /// The JSON array.
    pub body: Bytes,
    /// Worked out for the pages the memo keeps; `None` for the others.
    pub fingerprint: Option<Fingerprint>,
}

/// Rendered bodies by list, page number and page size.
pub struct RenderedPages {
    slots: Mutex<Slots>,
    /// The fingerprints' key, random for each server.
    key: (u64, u64),
    hits: AtomicU64,
    misses: AtomicU64,
}

#[derive(Default)]
struct Slots {
    map: HashMap<ListKey, Kept>,
    bytes: usize,
}

/// About how many bytes a kept body holds.
fn weight(body: &Bytes) -> usize {
    body.len() + std::mem::size_of::<Kept>()
}

impl Slots {
    /// Drops bodies until a quarter of the memo is free: first those not reused since
    /// the last time it made room, then, if that is not enough, the others; each in
    /// the map's order. What was reused stays (the feed's first page, a page read
    /// again and again), and when more pages are read in turn than fit (a thousand
    /// users each reading their own list, say), the ones kept are reused every round
    /// and keep being kept, where emptying the whole memo, or dropping the least
    /// recently used, would drop each page just before it was asked for again.
    fn make_room(&mut self) {
        let (mut len, mut bytes) = (self.map.len(), self.bytes);
        for drop_reused in [false, true] {
            self.map.retain(|_, kept| {
                let full = len > MAX_SLOTS / 4 * 3 || bytes > MAX_BYTES / 4 * 3;
                if !full || (kept.reused && !drop_reused) {
                    return true;
                }
                len -= 1;
                bytes -= weight(&kept.body);
                false
            });
        }
        for kept in self.map.values_mut() {
            kept.reused = false;
        }
        self.bytes = bytes;
    }
}

impl Default for RenderedPages {
    fn default() -> Self {
        RenderedPages {
            slots: Mutex::default(),
            key: (rand::random(), rand::random()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }
}

impl RenderedPages {
    /// The keyed hash of every field of `items`.
    pub fn fingerprint(&self, items: &[Entry]) -> Fingerprint {
        let mut hasher = SipHasher24::new_with_keys(self.key.0, self.key.1);
        items.hash(&mut hasher);
        hasher.finish128().as_u128()
    }

    /// A strong `ETag` for a list's answer: the fingerprint of its entries, which fixes
    /// the body's bytes (it is rendered from them alone), and the headers that vary
    /// beside the body (`X-Total-Count` and `Link`: a new entry on page 3 changes the
    /// count on page 1). Keyed like the fingerprint, so it differs from one server
    /// process to the next: a client revalidating with another server's tag gets the
    /// page again, never a wrong 304.
    pub fn etag(&self, fingerprint: Fingerprint, headers: &HeaderMap) -> HeaderValue {
        let mut hasher = SipHasher24::new_with_keys(self.key.0, self.key.1);
        fingerprint.hash(&mut hasher);
        for name in ["x-total-count", "link"] {
            let value = headers.get(name).map(HeaderValue::as_bytes);
            value.hash(&mut hasher);
        }
        let tag = format!("\"{:032x}\"", hasher.finish128().as_u128());
        HeaderValue::from_str(&tag).expect("hex digits and quotes are a header value")
    }

    /// How often a body was reused instead of rendered.
    pub fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// The JSON array of `items`, page `page` of size `limit` of the public feed
    /// (`list` is `None`) or of an author's list: the kept body when it was rendered
    /// from equal items, else a fresh one (kept for next time).
    pub fn body(&self, list: Option<UserId>, page: u32, limit: u32, items: &[Entry]) -> Rendered {
        if page > MAX_PAGE {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return Rendered {
                body: Bytes::from(entries_json(items)),
                fingerprint: None,
            };
        }
        let key = (list, page, limit);
        let fingerprint = self.fingerprint(items);
        {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(kept) = slots
                .map
                .get_mut(&key)
                .filter(|kept| kept.fingerprint == fingerprint)
            {
                kept.reused = true;
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Rendered {
                    body: kept.body.clone(),
                    fingerprint: Some(fingerprint),
                };
            }
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let body = Bytes::from(entries_json(items));
        let size = weight(&body);
        // Page sizes and authors are up to the clients: bound what they can make us keep.
        if size <= MAX_BYTES / 4 {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if slots.map.len() >= MAX_SLOTS || slots.bytes + size > MAX_BYTES {
                slots.make_room();
            }
            slots.bytes += size;
            let kept = Kept {
                fingerprint,
                body: body.clone(),
                reused: false,
            };
            if let Some(old) = slots.map.insert(key, kept) {
                slots.bytes -= weight(&old.body);
            }
        }
        Rendered {
            body,
            fingerprint: Some(fingerprint),
        }
    }
}
