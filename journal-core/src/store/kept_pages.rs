//! Which list pages are kept in memory: the one rule every page cache follows (the
//! SQLite store's read cache, the PostgreSQL store's page cache, and the server's
//! rendered bodies).

use crate::domain::PageRequest;
use crate::filter::EntryFilter;

/// Pages past this are read afresh: only a list's first pages are hot, and deep pages
/// would only churn the caches.
pub const KEPT_PAGES: u32 = 10;

/// What the page caches make of a request for a list page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptPage {
    /// A filtered list: never kept, and not asked of a cache at all (not a miss).
    Filtered,
    /// A page after a cursor, or past the first [`KEPT_PAGES`] by number: not kept,
    /// and a miss.
    Unkept,
    /// One of the first pages of an unfiltered list, reached by number: kept.
    Kept {
        /// The page's number, from 1.
        number: u32,
        /// The page's size.
        limit: u32,
    },
}

impl KeptPage {
    /// The page's number and size when it is kept.
    pub fn number_and_limit(self) -> Option<(u32, u32)> {
        match self {
            KeptPage::Kept { number, limit } => Some((number, limit)),
            KeptPage::Filtered | KeptPage::Unkept => None,
        }
    }
}

/// Whether page `page` of a list filtered by `filter` is one the caches keep: the first
/// [`KEPT_PAGES`] pages by number of an unfiltered list.
pub fn kept_page(filter: &EntryFilter, page: PageRequest) -> KeptPage {
    if !filter.is_empty() {
        KeptPage::Filtered
    } else if page.after().is_none() && page.page() <= KEPT_PAGES {
        KeptPage::Kept {
            number: page.page(),
            limit: page.limit(),
        }
    } else {
        KeptPage::Unkept
    }
}
