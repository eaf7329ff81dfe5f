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

/// The JSON array of `entries`: the same bytes as `serde_json::to_vec(entries)`, in a
/// fraction of the time.
///
/// A list page that is not served from memory spends more on its JSON than on reading
/// SQLite, most of it in serde_json checking every byte of every title and content for
/// characters to escape. Here a text is checked a block at a time (a loop the compiler
/// turns into vector instructions) and copied whole when it needs no escape, which is
/// nearly always; a text that does is handed to serde_json. A proptest in
/// `tests/fuzz.rs` holds the output equal to serde_json's for any entries.
pub fn entries_json(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        2 + entries
            .iter()
            .map(|e| 240 + e.title.len() + e.content.len() + e.author_name.len())
            .sum::<usize>(),
    );
    out.push(b'[');
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Field names and order as `#[derive(Serialize)]` on `Entry` writes them.
        out.extend_from_slice(b"{\"_id\":");
        push_json(&mut out, &e.id);
        out.extend_from_slice(b",\"title\":");
        push_json_str(&mut out, &e.title);
        out.extend_from_slice(b",\"content\":");
        push_json_str(&mut out, &e.content);
        out.extend_from_slice(b",\"isPublic\":");
        push_json(&mut out, &e.is_public);
        out.extend_from_slice(b",\"author_id\":");
        push_json(&mut out, &e.author_id);
        out.extend_from_slice(b",\"author_name\":");
        push_json_str(&mut out, &e.author_name);
        out.extend_from_slice(b",\"createdAt\":");
        push_json(&mut out, &e.created_at);
        out.extend_from_slice(b",\"updatedAt\":");
        push_json(&mut out, &e.updated_at);
        out.push(b'}');
    }
    out.push(b']');
    out
}

/// Ids, timestamps and booleans: short, and serialised without escapes already.
fn push_json(out: &mut Vec<u8>, value: &impl Serialize) {
    // Writing to a Vec cannot fail, and these types always serialise.
    let _ = serde_json::to_writer(&mut *out, value);
}

fn push_json_str(out: &mut Vec<u8>, text: &str) {
    if needs_escape(text.as_bytes()) {
        let _ = serde_json::to_writer(&mut *out, text);
    } else {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    }
}

/// Whether JSON needs any byte of `bytes` escaped: a quote, a backslash or a control
/// character. No early exit inside a 16-byte block, so each block is a few vector
/// instructions.
fn needs_escape(bytes: &[u8]) -> bool {
    let hit = |b: &u8| u8::from(*b < 0x20) | u8::from(*b == b'"') | u8::from(*b == b'\\');
    let any_hit = |block: &[u8]| block.iter().fold(0, |any, b| any | hit(b)) != 0;
    let mut blocks = bytes.chunks_exact(16);
    if blocks.any(any_hit) {
        return true;
    }
    // The tail as one more block, padded with spaces: a byte-by-byte loop over it was
    // half of this function's time, titles being shorter than a block.
    let tail = blocks.remainder();
    let mut last = [b' '; 16];
    last[..tail.len()].copy_from_slice(tail);
    any_hit(&last)
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
