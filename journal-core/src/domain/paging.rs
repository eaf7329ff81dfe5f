//! Which page of a list to return, by number or by cursor.

use std::fmt;

use super::ids::EntryId;
use super::time::Timestamp;
use crate::error::ValidationError;

/// Largest page size a list accepts.
pub const LIMIT_MAX: u32 = 100;
/// Page size when none is asked for.
pub const LIMIT_DEFAULT: u32 = 10;

/// Which page of a list to return: `page` ≥ 1 and `limit` in 1..=100, and for the
/// newest-first lists optionally a [`Cursor`]: the page then starts right after the
/// cursor's entry, found through the index instead of by skipping rows, so page 10,000
/// costs what page 1 does. `page` then only numbers the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    page: u32,
    limit: u32,
    after: Option<Cursor>,
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            page: 1,
            limit: LIMIT_DEFAULT,
            after: None,
        }
    }
}

/// A position in a newest-first list: just after the entry dated `date` with id `id`. Written `<milliseconds>_<id>` in a `Link` URL's `after` parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cursor {
    date: Timestamp,
    id: EntryId,
}

impl Cursor {
    /// The position right after the entry dated `date` with id `id`.
    pub fn new(date: Timestamp, id: EntryId) -> Cursor {
        Cursor { date, id }
    }

    /// Parses the `after` text of a `Link` URL.
    pub fn parse(value: &str) -> Result<Cursor, ValidationError> {
        let invalid = || {
            ValidationError::new(
                "after",
                "is not a position from a Link header; drop it to start from the first page",
            )
        };
        let (ms, id) = value.split_once('_').ok_or_else(invalid)?;
        // Within years 1900 to 9999: every date an entry can have, and every store can
        // compare against them.
        let ms: i64 = ms
            .parse()
            .ok()
            .filter(|ms| (-2_208_988_800_000..=253_402_300_799_999).contains(ms))
            .ok_or_else(invalid)?;
        let id: EntryId = id.parse().map_err(|_| invalid())?;
        Ok(Cursor {
            date: Timestamp::from_millis(ms),
            id,
        })
    }

    /// The date of the entry the page continues after.
    pub fn date(&self) -> Timestamp {
        self.date
    }

    /// The id of the entry the page continues after.
    pub fn id(&self) -> &EntryId {
        &self.id
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.date.as_millis(), self.id)
    }
}

/// How deep into a list a page may reach by number (`page × limit`); deeper pages are
/// served by cursor. Skipping costs the database a few microseconds a row (the public
/// feed checks each author's privacy as it goes), so this bounds what any request, an
/// anonymous one included, can make it walk (docs/PERFORMANCE.md has the figures).
pub const MAX_PAGE_DEPTH: u64 = 2_000;

impl PageRequest {
    /// Validates a page request; `None` takes the default (page 1, limit 10).
    pub fn new(page: Option<i64>, limit: Option<i64>) -> Result<PageRequest, ValidationError> {
        let page = match page {
            None => 1,
            Some(p) if (1..=i64::from(u32::MAX)).contains(&p) => p as u32,
            Some(_) => {
                return Err(ValidationError::new(
                    "page",
                    format!("must be a whole number from 1 to {}", u32::MAX),
                ));
            }
        };
        let limit = match limit {
            None => LIMIT_DEFAULT,
            Some(l) if (1..=i64::from(LIMIT_MAX)).contains(&l) => l as u32,
            Some(_) => {
                return Err(ValidationError::new(
                    "limit",
                    format!("must be a whole number from 1 to {LIMIT_MAX}"),
                ));
            }
        };
        Ok(PageRequest {
            page,
            limit,
            after: None,
        })
    }

    /// The same page size and number, starting right after `cursor`.
    pub fn continuing(self, cursor: Option<Cursor>) -> PageRequest {
        PageRequest {
            after: cursor,
            ..self
        }
    }

    /// Where the page starts, when it continues from a cursor.
    pub fn after(&self) -> Option<&Cursor> {
        self.after.as_ref()
    }

    /// Parses `page` and `limit` as they come in a query string.
    pub fn from_query(
        page: Option<&str>,
        limit: Option<&str>,
    ) -> Result<PageRequest, ValidationError> {
        fn number(
            field: &'static str,
            raw: Option<&str>,
            range: &str,
        ) -> Result<Option<i64>, ValidationError> {
            raw.map(|s| {
                s.trim().parse::<i64>().map_err(|_| {
                    ValidationError::new(field, format!("must be a whole number from {range}"))
                })
            })
            .transpose()
        }
        let page = number("page", page, &format!("1 to {}", u32::MAX))?;
        let limit = number("limit", limit, &format!("1 to {LIMIT_MAX}"))?;
        PageRequest::new(page, limit)
    }

    /// The 1-based page number.
    pub fn page(&self) -> u32 {
        self.page
    }

    /// Items per page.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Refuses a page that reaches past the first [`MAX_PAGE_DEPTH`] entries of a list by
    /// its number: the database would walk every entry before it, at any client's
    /// request. A `Link` cursor (`after=`) reaches any depth at the cost of page 1.
    pub fn check_depth(&self) -> Result<(), ValidationError> {
        if self.after.is_none() && u64::from(self.page) * u64::from(self.limit) > MAX_PAGE_DEPTH {
            return Err(ValidationError::new(
                "page",
                format!(
                    "reaches past entry {MAX_PAGE_DEPTH}; pages that deep are served only by \
                     cursor: follow the Link header's rel=\"next\" URL (after=…)"
                ),
            ));
        }
        Ok(())
    }

    /// Rows to skip: none after a cursor, which already says where the page starts.
    pub fn offset(&self) -> u64 {
        if self.after.is_some() {
            return 0;
        }
        u64::from(self.page - 1) * u64::from(self.limit)
    }
}
