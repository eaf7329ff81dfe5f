//! The caller's whole journal as our JSON export (`transfer::json`): every entry, and
//! unless left out, each entry's revisions and the trash with theirs. What an import
//! of it restores is `import.rs`'s.

use tracing::instrument;

use super::{Caller, Journal};
use crate::domain::{Cursor, PageRequest};
use crate::error::Result;
use crate::filter::EntryFilter;
use crate::store::Visibility;
use crate::transfer::json::{ExportDocument, ExportedAttachment, ExportedEntry};

/// Items read per store call.
const BATCH: i64 = 100;

impl Journal {
    /// The caller's entries, newest first, as our export; `with_history` adds each
    /// entry's revisions (oldest first) and the trash (newest deletion first).
    #[instrument(level = "debug", skip_all, fields(user = %caller.user_id))]
    pub async fn export(&self, caller: &Caller, with_history: bool) -> Result<ExportDocument> {
        let store = self.store_ref();
        let mut entries: Vec<ExportedEntry> = Vec::new();
        loop {
            // Each page continues after the last entry read: any depth costs a page.
            let cursor = entries
                .last()
                .map(|e| Cursor::new(e.entry.date, e.entry.id));
            let page = PageRequest::new(None, Some(BATCH))?.continuing(cursor);
            let read = store
                .entries_by_author(
                    &caller.user_id,
                    Visibility::All,
                    &EntryFilter::default(),
                    page,
                )
                .await?;
            let done = read.items.len() < BATCH as usize;
            entries.extend(read.items.into_iter().map(ExportedEntry::from));
            if done {
                break;
            }
        }
        if !with_history {
            self.add_attachments(&mut entries).await?;
            return Ok(ExportDocument::new(entries, None));
        }
        let mut trash: Vec<ExportedEntry> = Vec::new();
        for number in 1.. {
            let page = PageRequest::new(Some(number), Some(BATCH))?;
            let read = store.trash(&caller.user_id, page).await?;
            let done = read.items.len() < BATCH as usize;
            trash.extend(read.items.into_iter().map(ExportedEntry::from));
            if done {
                break;
            }
        }
        for e in entries.iter_mut().chain(trash.iter_mut()) {
            e.revisions = crate::store::all_revisions(self.store_ref(), &e.entry.id).await?;
        }
        self.add_attachments(&mut entries).await?;
        self.add_attachments(&mut trash).await?;
        Ok(ExportDocument::new(entries, Some(trash)))
    }

    /// Lists each entry's attachments (without their files: the zip export adds those).
    async fn add_attachments(&self, entries: &mut [ExportedEntry]) -> Result<()> {
        if self.attachment_files().is_none() {
            return Ok(());
        }
        for e in entries {
            e.attachments = self
                .store_ref()
                .entry_attachments(&e.entry.id)
                .await?
                .iter()
                .map(ExportedAttachment::from)
                .collect();
        }
        Ok(())
    }
}
