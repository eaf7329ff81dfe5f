//! The JSON of the public feed's first pages, kept with the page it was rendered from.
//!
//! The store already serves those pages from memory, so rendering the entries to JSON
//! was the largest cost left per request. A body is reused only for a page *equal* to
//! the one it was rendered from, which is cheaper than rendering and can never serve a
//! stale body, whatever the backend or however many servers share the database.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use journal_core::Entry;

/// Pages past this are rendered afresh: only the first ones are hot.
const MAX_PAGE: u32 = 10;

/// A body and the items it was rendered from.
type Rendered = (Vec<Entry>, Bytes);

/// Rendered bodies by page number and page size.
#[derive(Default)]
pub struct RenderedPages {
    slots: Mutex<HashMap<(u32, u32), Rendered>>,
}

impl RenderedPages {
    /// The JSON array of `items`, page `page` of size `limit`: the kept body when it
    /// was rendered from equal items, else a fresh one (kept for next time).
    pub fn body(&self, page: u32, limit: u32, items: &[Entry]) -> serde_json::Result<Bytes> {
        let cacheable = page <= MAX_PAGE;
        if cacheable {
            let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, body)) = slots
                .get(&(page, limit))
                .filter(|(kept, _)| kept.as_slice() == items)
            {
                return Ok(body.clone());
            }
        }
        let body = Bytes::from(serde_json::to_vec(items)?);
        if cacheable {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            // Page sizes are up to the client: bound what they can make us keep.
            if slots.len() >= 4 * MAX_PAGE as usize {
                slots.clear();
            }
            slots.insert((page, limit), (items.to_vec(), body.clone()));
        }
        Ok(body)
    }
}
