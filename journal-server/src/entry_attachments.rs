//! The attachments an entry's answer carries, `{id, name, contentType, size, url}`,
//! each with the link its reader can read it by. Added here, in the answer layer,
//! rather than to the core's `Entry`: exports and the history keep entries as they are.

use journal_core::store::StoredAttachment;
use journal_core::{AttachmentId, Caller, Entry, Journal, UserId};
use serde::Serialize;

use crate::error::reject;

/// One attachment as an entry's answer lists it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, Serialize)]
pub struct EntryAttachment {
    /// Its id.
    pub id: AttachmentId,
    /// The file's name as uploaded.
    pub name: String,
    /// Its type, as its bytes say.
    #[serde(rename = "contentType")]
    pub content_type: String,
    /// Bytes stored.
    pub size: u64,
    /// A link the reader can read it by.
    pub url: String,
}

/// The link `reader` can read `stored` by: plain while anyone may read it (no
/// per-reader secret, so a page rendered once for everyone holds none), else signed
/// for the reader and minutes long; `None` for nobody in particular, who may not read
/// it at all.
pub fn url(
    journal: &Journal,
    reader: Option<&UserId>,
    stored: &StoredAttachment,
) -> Option<String> {
    let plain = format!("/api/attachments/{}", stored.attachment.id);
    if stored.readable_by_anyone() {
        return Some(plain);
    }
    let reader = reader?;
    Some(format!(
        "{plain}?{}",
        journal.attachment_link(reader, &stored.attachment.id)
    ))
}

/// The attachments of each of `entries`, in their order, as `reader` (`None`: an
/// anonymous reader of the public feed) gets them: one query for the whole list.
pub async fn for_entries(
    journal: &Journal,
    reader: Option<&UserId>,
    entries: &[Entry],
) -> Result<Vec<Vec<EntryAttachment>>, warp::Rejection> {
    let stored = journal
        .attachments_of_entries(entries)
        .await
        .map_err(reject)?;
    Ok(stored
        .iter()
        .map(|of_entry| {
            of_entry
                .iter()
                .filter_map(|s| {
                    Some(EntryAttachment {
                        id: s.attachment.id,
                        name: s.attachment.name.clone(),
                        content_type: s.attachment.content_type.clone(),
                        size: s.attachment.size,
                        url: url(journal, reader, s)?,
                    })
                })
                .collect()
        })
        .collect())
}

/// One entry as its answer writes it: its fields, then its attachments.
#[derive(Serialize)]
pub struct EntryJson<'a> {
    /// The entry.
    #[serde(flatten)]
    pub entry: &'a Entry,
    /// Its attachments, oldest first.
    pub attachments: &'a [EntryAttachment],
}

/// The attachments of one entry the caller was given.
pub async fn for_entry(
    journal: &Journal,
    caller: &Caller,
    entry: &Entry,
) -> Result<Vec<EntryAttachment>, warp::Rejection> {
    let mut all = for_entries(journal, Some(caller.user_id()), std::slice::from_ref(entry)).await?;
    Ok(all.pop().unwrap_or_default())
}
