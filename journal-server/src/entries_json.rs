//! The JSON array of a list of entries with their attachments, written fast: the same
//! bytes as serde_json writes [`EntryJson`]s.
//!
//! A list page that is not served from memory spends more on its JSON than on reading
//! SQLite, most of it in serde_json checking every byte of every title and content for
//! characters to escape. Here a text is checked a block at a time (a loop the compiler
//! turns into vector instructions) and copied whole when it needs no escape, which is
//! nearly always; a text that does is handed to serde_json. `Entry`'s fields are named
//! once, by its `#[derive(Serialize)]`: the destructuring below stops the build when a
//! field is added until it is written here too, and the proptest at the bottom holds
//! the output equal to serde_json's for any entries.

use journal_core::Entry;
use serde::Serialize;

use crate::entry_attachments::EntryAttachment;
#[cfg(doc)]
use crate::entry_attachments::EntryJson;

/// The JSON array of `entries`, each with its `attachments` (by position: `[]` for an
/// entry past their end), byte for byte as serde_json writes their [`EntryJson`]s.
pub fn entries_json(entries: &[Entry], attachments: &[Vec<EntryAttachment>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        2 + entries
            .iter()
            .map(|e| 240 + e.title.len() + e.content.len() + e.author_name.len())
            .sum::<usize>(),
    );
    out.push(b'[');
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Every field, named: a new field fails to compile here until it is written.
        let Entry {
            id,
            title,
            content,
            is_public,
            tags,
            starred,
            date,
            author_id,
            author_name,
            created_at,
            updated_at,
            revision,
            revision_id,
        } = entry;
        // Field names and order as `#[derive(Serialize)]` on `Entry` writes them.
        out.extend_from_slice(b"{\"_id\":");
        push_json(&mut out, id);
        out.extend_from_slice(b",\"title\":");
        push_json_str(&mut out, title);
        out.extend_from_slice(b",\"content\":");
        push_json_str(&mut out, content);
        out.extend_from_slice(b",\"isPublic\":");
        push_json(&mut out, is_public);
        out.extend_from_slice(b",\"tags\":[");
        for (i, tag) in tags.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_json_str(&mut out, tag);
        }
        out.extend_from_slice(b"],\"starred\":");
        push_json(&mut out, starred);
        out.extend_from_slice(b",\"date\":");
        push_json(&mut out, date);
        out.extend_from_slice(b",\"author_id\":");
        push_json(&mut out, author_id);
        out.extend_from_slice(b",\"author_name\":");
        push_json_str(&mut out, author_name);
        out.extend_from_slice(b",\"createdAt\":");
        push_json(&mut out, created_at);
        out.extend_from_slice(b",\"updatedAt\":");
        push_json(&mut out, updated_at);
        out.extend_from_slice(b",\"revision\":");
        push_json(&mut out, revision);
        out.extend_from_slice(b",\"revisionId\":");
        push_json(&mut out, revision_id);
        // A few short fields each, and most entries have none: serde_json's speed is
        // enough here.
        out.extend_from_slice(b",\"attachments\":");
        push_json(&mut out, attachments.get(i).map_or(&[][..], Vec::as_slice));
        out.push(b'}');
    }
    out.push(b']');
    out
}

/// Ids, timestamps, booleans and anything else serde writes without long texts.
fn push_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
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

#[cfg(test)]
mod tests {
    use journal_core::{Entry, EntryId, Timestamp, UserId};
    use proptest::prelude::*;

    use crate::entry_attachments::{EntryAttachment, EntryJson};

    /// Any text, with extra weight on what JSON must escape.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => any::<String>(),
            2 => "[\"\\\\\u{0}-\u{1f}a-zé😀 ]{0,40}",
            1 => "[a-z ]{0,200}",
        ]
    }

    proptest! {
        #[test]
        fn entry_lists_render_exactly_as_serde_json_renders_them(
            entries in proptest::collection::vec(
                (
                    (text(), text(), text(), proptest::collection::vec(text(), 0..3)),
                    (any::<bool>(), any::<bool>(), any::<u128>(), any::<u128>()),
                    (any::<i64>(), any::<i64>(), any::<i64>(), any::<u32>(), any::<u128>()),
                ),
                0..4,
            ),
            attachments in proptest::collection::vec(
                proptest::collection::vec((any::<u128>(), text(), text(), any::<u64>(), text()), 0..3),
                0..5,
            ),
        ) {
            let entries: Vec<Entry> = entries
                .into_iter()
                .map(|((title, content, author_name, tags), (is_public, starred, id, author), (created, updated, date, revision, revision_id))| Entry {
                    id: EntryId::from_uuid(uuid::Uuid::from_u128(id)),
                    title,
                    content,
                    is_public,
                    tags,
                    starred,
                    date: Timestamp::from_millis(date),
                    author_id: UserId::from_uuid(uuid::Uuid::from_u128(author)),
                    author_name,
                    created_at: Timestamp::from_millis(created),
                    updated_at: Timestamp::from_millis(updated),
                    revision,
                    revision_id: journal_core::RevisionId::from_uuid(uuid::Uuid::from_u128(revision_id)),
                })
                .collect();
            let attachments: Vec<Vec<EntryAttachment>> = attachments
                .into_iter()
                .map(|of_entry| {
                    of_entry
                        .into_iter()
                        .map(|(id, name, content_type, size, url)| EntryAttachment {
                            id: journal_core::AttachmentId::from_uuid(uuid::Uuid::from_u128(id)),
                            name,
                            content_type,
                            size,
                            url,
                        })
                        .collect()
                })
                .collect();
            let fast = super::entries_json(&entries, &attachments);
            let slow: Vec<EntryJson<'_>> = entries
                .iter()
                .enumerate()
                .map(|(i, entry)| EntryJson {
                    entry,
                    attachments: attachments.get(i).map_or(&[][..], Vec::as_slice),
                })
                .collect();
            prop_assert_eq!(String::from_utf8(fast).unwrap(), serde_json::to_string(&slow).unwrap());
        }
    }
}
