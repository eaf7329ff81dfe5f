//! The render cache: the JSON bodies of lists' first pages (the public feed's and
//! each author's), each kept with a fingerprint of the entries (and their attachments'
//! answers, links included) it was rendered from.
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

use std::hash::Hash;

use bytes::Bytes;
use journal_core::cache::{BoundedMap, Eviction, Limits};
use journal_core::store::KeptPage;
use journal_core::{CacheCounts, Entry, UserId};
use siphasher::sip128::{Hasher128, SipHasher24};
use warp::http::{HeaderMap, HeaderValue};

use crate::entries_json::entries_json;
use crate::entry_attachments::EntryAttachment;

/// How many bodies, and how many bytes of them, are kept. Page sizes and authors are up
/// to the clients: this bounds what they can make a server keep. When full, the memo
/// drops the bodies not reused since it last made room (see [`Eviction::DropUnused`]),
/// so when more pages are read in turn than fit, the ones kept go on being reused.
const LIMITS: Limits = Limits {
    max_values: 1024,
    max_weight: 8 << 20,
    eviction: Eviction::DropUnused,
};

/// Which list a page belongs to: the public feed (`None`) or an author's list, with the
/// page's number and size. An author's own view and others' view share a slot; the
/// items tell them apart.
type ListKey = (Option<UserId>, u32, u32);

/// A body and the fingerprint of the items it was rendered from.
#[derive(Clone)]
struct Kept {
    fingerprint: Fingerprint,
    body: Bytes,
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
    bodies: BoundedMap<ListKey, Kept>,
    /// The fingerprints' key, random for each server.
    key: (u64, u64),
}

/// About how many bytes a kept body holds.
fn weight(kept: &Kept) -> usize {
    kept.body.len() + std::mem::size_of::<Kept>()
}

impl Default for RenderedPages {
    fn default() -> Self {
        RenderedPages {
            bodies: BoundedMap::new(LIMITS, weight),
            key: (rand::random(), rand::random()),
        }
    }
}

impl RenderedPages {
    /// The keyed hash of every field of `items` and of their `attachments`: an
    /// attachment added or deleted, or a signed link renewed (once a minute), is a new
    /// fingerprint.
    pub fn fingerprint(
        &self,
        items: &[Entry],
        attachments: &[Vec<EntryAttachment>],
    ) -> Fingerprint {
        let mut hasher = SipHasher24::new_with_keys(self.key.0, self.key.1);
        items.hash(&mut hasher);
        attachments.hash(&mut hasher);
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
        self.bodies.counts()
    }

    /// The JSON array of `items`, a page of the public feed (`list` is `None`) or of
    /// an author's list, as [`journal_core::store::kept_page`] placed it: for a kept
    /// page, the kept body when it was rendered from equal items, else a fresh one
    /// (kept for next time); for any other page a fresh body (a miss, unless the list
    /// was filtered: a filtered page is never asked of the memo).
    pub fn body(
        &self,
        list: Option<UserId>,
        page: KeptPage,
        items: &[Entry],
        attachments: &[Vec<EntryAttachment>],
    ) -> Rendered {
        let KeptPage::Kept { number, limit } = page else {
            if page == KeptPage::Unkept {
                self.bodies.miss();
            }
            return Rendered {
                body: Bytes::from(entries_json(items, attachments)),
                fingerprint: None,
            };
        };
        let key = (list, number, limit);
        let fingerprint = self.fingerprint(items, attachments);
        if let Some(kept) = self
            .bodies
            .get_if(&key, |kept| kept.fingerprint == fingerprint)
        {
            return Rendered {
                body: kept.body,
                fingerprint: Some(fingerprint),
            };
        }
        self.bodies.miss();
        let body = Bytes::from(entries_json(items, attachments));
        self.bodies.insert(
            key,
            Kept {
                fingerprint,
                body: body.clone(),
            },
        );
        Rendered {
            body,
            fingerprint: Some(fingerprint),
        }
    }
}
