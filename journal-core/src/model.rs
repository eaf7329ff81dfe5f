//! What the core hands back: profiles, entries and pages of them.
//!
//! These serialise to exactly the wire shape of the HTTP API, so the server and the
//! CLI's HTTP client share them.

use serde::{Deserialize, Serialize};

use crate::domain::{EntryId, Role, Timestamp, UserId};

/// A user's profile as its owner sees it. It has no password or hash field, so none
/// can leak.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// The user's id.
    #[serde(rename = "_id")]
    pub id: UserId,
    /// Full name.
    #[serde(rename = "fullName")]
    pub full_name: String,
    /// Display name, copied into new entries' `author_name`.
    pub nickname: String,
    /// Lower-cased e-mail address.
    pub email: String,
    /// Empty, or an image data URI.
    #[serde(rename = "profilePic")]
    pub profile_pic: String,
    /// `user` or `admin`.
    pub role: Role,
    /// When true, the user's entries are hidden from everyone else.
    #[serde(rename = "isPrivate")]
    pub is_private: bool,
}

/// A journal entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's id.
    #[serde(rename = "_id")]
    pub id: EntryId,
    /// Title, trimmed.
    pub title: String,
    /// Body text, as written.
    pub content: String,
    /// Listed publicly when true (and the author's profile is not private).
    #[serde(rename = "isPublic")]
    pub is_public: bool,
    /// Tags: lower-case, unique, sorted (see [`crate::filter::Tag`]).
    pub tags: Vec<String>,
    /// Starred by its author.
    pub starred: bool,
    /// When the entry is about: `createdAt` unless the author set it. Lists are in
    /// this order, newest first.
    pub date: Timestamp,
    /// The author's user id.
    pub author_id: UserId,
    /// The author's nickname when the entry was created.
    pub author_name: String,
    /// Creation time.
    #[serde(rename = "createdAt")]
    pub created_at: Timestamp,
    /// Last change (equal to `createdAt` until the entry is updated).
    #[serde(rename = "updatedAt")]
    pub updated_at: Timestamp,
}

impl Entry {
    /// About how many bytes the entry holds, for caches that bound their memory.
    pub(crate) fn approx_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.title.len()
            + self.content.len()
            + self.author_name.len()
            + self.tags.iter().map(|t| t.len() + 24).sum::<usize>()
    }
}

/// One page of a list, with the total across all pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The items on this page, in list order.
    pub items: Vec<T>,
    /// How many items the whole list has.
    pub total: u64,
    /// This page's number, from 1.
    pub page: u32,
    /// The page size asked for.
    pub limit: u32,
}

impl<T> Page<T> {
    /// Number of pages the list has (at least 1, so an empty list has one empty page).
    pub fn page_count(&self) -> u64 {
        self.total.div_ceil(u64::from(self.limit)).max(1)
    }

    /// True when a page follows this one.
    pub fn has_next(&self) -> bool {
        u64::from(self.page) < self.page_count()
    }

    /// True when a page precedes this one.
    pub fn has_prev(&self) -> bool {
        self.page > 1
    }
}
