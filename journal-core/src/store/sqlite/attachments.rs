//! Attachment rows: what the database keeps of each file (the bytes are in the object
//! store), and the collection of rows nothing needs any more.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::domain::{AttachmentId, EntryId, PageRequest, Timestamp, UserId};
use crate::model::{Attachment, Page};
use crate::store::{AttachedTo, StoredAttachment};

const COLUMNS: &str = "a.id, a.author_id, a.entry_id, a.name, a.content_type, a.size, a.width, \
                       a.height, a.sha256, a.created_at";

fn conversion(e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
}

fn attachment(r: &Row<'_>) -> rusqlite::Result<Attachment> {
    let entry: Option<String> = r.get(2)?;
    Ok(Attachment {
        id: r.get::<_, String>(0)?.parse().map_err(conversion)?,
        author_id: r.get::<_, String>(1)?.parse().map_err(conversion)?,
        entry_id: entry
            .as_deref()
            .map(str::parse::<EntryId>)
            .transpose()
            .map_err(conversion)?,
        name: r.get(3)?,
        content_type: r.get(4)?,
        size: r.get(5)?,
        width: r.get(6)?,
        height: r.get(7)?,
        sha256: r.get(8)?,
        created_at: Timestamp::from_millis(r.get(9)?),
    })
}

pub(super) fn insert(c: &Connection, a: &Attachment) -> rusqlite::Result<()> {
    insert_row(c, a)?;
    if let Some(entry) = &a.entry_id {
        touch_entry(c, &entry.to_string())?;
    }
    Ok(())
}

fn insert_row(c: &Connection, a: &Attachment) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO attachments (id, author_id, entry_id, name, content_type, size, width,
                                  height, sha256, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        a.id.to_string(),
        a.author_id.to_string(),
        a.entry_id.map(|e| e.to_string()),
        a.name,
        a.content_type,
        a.size,
        a.width,
        a.height,
        a.sha256,
        a.created_at.as_millis(),
    ])?;
    Ok(())
}

/// Gives an entry whose attachments changed its author's next change number, so a
/// replica's next sync reads it again with them (docs/design/sync.md).
pub(super) fn touch_entry(c: &Connection, entry: &str) -> rusqlite::Result<()> {
    for table in ["entries", "trashed_entries"] {
        let next: Option<i64> = c
            .prepare_cached(&format!(
                "UPDATE author_counts SET change_seq = change_seq + 1
                 WHERE author_id = (SELECT author_id FROM {table} WHERE id = ?1)
                 RETURNING change_seq"
            ))?
            .query_row([entry], |r| r.get(0))
            .optional()?;
        if let Some(next) = next {
            c.prepare_cached(&format!("UPDATE {table} SET change_seq = ?2 WHERE id = ?1"))?
                .execute(params![entry, next])?;
            break;
        }
    }
    Ok(())
}

/// `COLUMNS` and what decides who may read each, for `stored`.
const STORED: &str = "SELECT a.id, a.author_id, a.entry_id, a.name, a.content_type, a.size, \
                      a.width, a.height, a.sha256, a.created_at, a.deleted_at IS NOT NULL, \
                      e.is_public, t.id IS NOT NULL, u.is_private OR u.disabled
                      FROM attachments a JOIN users u ON u.id = a.author_id
                      LEFT JOIN entries e ON e.id = a.entry_id
                      LEFT JOIN trashed_entries t ON t.id = a.entry_id";

fn stored(r: &Row<'_>) -> rusqlite::Result<StoredAttachment> {
    let public: Option<bool> = r.get(11)?;
    let trashed: bool = r.get(12)?;
    Ok(StoredAttachment {
        attachment: attachment(r)?,
        deleted: r.get(10)?,
        entry: match (public, trashed) {
            (Some(public), _) => Some(AttachedTo::Live { public }),
            (None, true) => Some(AttachedTo::Trashed),
            (None, false) => None,
        },
        author_private: r.get(13)?,
    })
}

pub(super) fn by_id(
    c: &Connection,
    id: &AttachmentId,
) -> rusqlite::Result<Option<StoredAttachment>> {
    c.prepare_cached(&format!("{STORED} WHERE a.id = ?1"))?
        .query_row([id.to_string()], stored)
        .optional()
}

/// One statement whatever the number of entries: their ids go in as a JSON array.
pub(super) fn of_entries(
    c: &Connection,
    entries: &[EntryId],
) -> rusqlite::Result<Vec<StoredAttachment>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(&entries.iter().map(|e| e.to_string()).collect::<Vec<_>>())
        .map_err(conversion)?;
    c.prepare_cached(&format!(
        "{STORED} WHERE a.entry_id IN (SELECT value FROM json_each(?1))
           AND a.deleted_at IS NULL
         ORDER BY a.entry_id, a.created_at, a.id"
    ))?
    .query_map([ids], stored)?
    .collect()
}

pub(super) fn of_author(
    c: &Connection,
    author: &UserId,
    page: PageRequest,
) -> rusqlite::Result<Page<StoredAttachment>> {
    let total: i64 = c
        .prepare_cached(
            "SELECT count(*) FROM attachments WHERE author_id = ?1 AND deleted_at IS NULL",
        )?
        .query_row([author.to_string()], |r| r.get(0))?;
    let items = c
        .prepare_cached(&format!(
            "{STORED} WHERE a.author_id = ?1 AND a.deleted_at IS NULL
             ORDER BY a.created_at DESC, a.id DESC LIMIT ?2 OFFSET ?3"
        ))?
        .query_map(
            params![
                author.to_string(),
                page.limit(),
                i64::try_from(page.offset()).unwrap_or(i64::MAX)
            ],
            stored,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page::exact(items, total, page))
}

pub(super) fn of_entry(c: &Connection, entry: &EntryId) -> rusqlite::Result<Vec<Attachment>> {
    c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments a
         WHERE a.entry_id = ?1 AND a.deleted_at IS NULL ORDER BY a.created_at, a.id"
    ))?
    .query_map([entry.to_string()], attachment)?
    .collect()
}

pub(super) fn attach(
    c: &Connection,
    author: &UserId,
    entry: &EntryId,
    ids: &[AttachmentId],
) -> rusqlite::Result<u64> {
    let mut statement = c.prepare_cached(
        "UPDATE attachments SET entry_id = ?1
         WHERE id = ?2 AND author_id = ?3 AND entry_id IS NULL AND deleted_at IS NULL",
    )?;
    let mut n = 0;
    for id in ids {
        n += statement.execute(params![
            entry.to_string(),
            id.to_string(),
            author.to_string()
        ])? as u64;
    }
    if n > 0 {
        touch_entry(c, &entry.to_string())?;
    }
    Ok(n)
}

pub(super) fn delete(c: &Connection, id: &AttachmentId, at: Timestamp) -> rusqlite::Result<bool> {
    let entry: Option<Option<String>> = c
        .prepare_cached(
            "UPDATE attachments SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL
             RETURNING entry_id",
        )?
        .query_row(params![id.to_string(), at.as_millis()], |r| r.get(0))
        .optional()?;
    if let Some(Some(entry)) = &entry {
        touch_entry(c, entry)?;
    }
    Ok(entry.is_some())
}

pub(super) fn of_entries_for_sync(
    c: &Connection,
    entries: &[EntryId],
) -> rusqlite::Result<Vec<(Attachment, Option<Timestamp>)>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(&entries.iter().map(|e| e.to_string()).collect::<Vec<_>>())
        .map_err(conversion)?;
    c.prepare_cached(&format!(
        "SELECT {COLUMNS}, a.deleted_at FROM attachments a
         WHERE a.entry_id IN (SELECT value FROM json_each(?1))
         ORDER BY a.entry_id, a.created_at, a.id"
    ))?
    .query_map([ids], |r| {
        let deleted: Option<i64> = r.get(10)?;
        Ok((attachment(r)?, deleted.map(Timestamp::from_millis)))
    })?
    .collect()
}

pub(super) fn of_author_by_sha(
    c: &Connection,
    author: &UserId,
    sha256s: &[String],
) -> rusqlite::Result<Vec<Attachment>> {
    if sha256s.is_empty() {
        return Ok(Vec::new());
    }
    let shas = serde_json::to_string(sha256s).map_err(conversion)?;
    c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments a
         WHERE a.author_id = ?1 AND a.sha256 IN (SELECT value FROM json_each(?2))
         ORDER BY a.deleted_at IS NOT NULL, a.created_at"
    ))?
    .query_map(params![author.to_string(), shas], attachment)?
    .collect()
}

pub(super) fn by_ids(
    c: &Connection,
    ids: &[AttachmentId],
) -> rusqlite::Result<Vec<StoredAttachment>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(&ids.iter().map(|i| i.to_string()).collect::<Vec<_>>())
        .map_err(conversion)?;
    c.prepare_cached(&format!(
        "{STORED} WHERE a.id IN (SELECT value FROM json_each(?1))"
    ))?
    .query_map([ids], stored)?
    .collect()
}

pub(super) fn discard(c: &Connection, id: &AttachmentId) -> rusqlite::Result<bool> {
    Ok(
        c.prepare_cached("DELETE FROM attachments WHERE id = ?1 AND entry_id IS NULL")?
            .execute([id.to_string()])?
            == 1,
    )
}

pub(super) fn bytes_of(c: &Connection, author: &UserId) -> rusqlite::Result<u64> {
    c.prepare_cached(
        "SELECT coalesce(sum(size), 0) FROM
           (SELECT DISTINCT sha256, size FROM attachments WHERE author_id = ?1)",
    )?
    .query_row([author.to_string()], |r| r.get(0))
}

pub(super) fn collect(c: &Connection, unattached_before: Timestamp) -> rusqlite::Result<u64> {
    let unattached = c
        .prepare_cached("DELETE FROM attachments WHERE entry_id IS NULL AND created_at < ?1")?
        .execute([unattached_before.as_millis()])?;
    let orphaned = c
        .prepare_cached(
            "DELETE FROM attachments WHERE entry_id IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = attachments.entry_id)
               AND NOT EXISTS (SELECT 1 FROM trashed_entries t WHERE t.id = attachments.entry_id)",
        )?
        .execute([])?;
    // A revision made between the upload and the deletion may name the file.
    let deleted = c
        .prepare_cached(
            "DELETE FROM attachments WHERE deleted_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM entry_revisions r
                               WHERE r.entry_id = attachments.entry_id
                                 AND r.edited_at >= attachments.created_at
                                 AND r.edited_at <= attachments.deleted_at)",
        )?
        .execute([])?;
    Ok((unattached + orphaned + deleted) as u64)
}

pub(super) fn after(
    c: &Connection,
    after: Option<&AttachmentId>,
    limit: u32,
) -> rusqlite::Result<Vec<(Attachment, Option<Timestamp>)>> {
    c.prepare_cached(&format!(
        "SELECT {COLUMNS}, a.deleted_at FROM attachments a WHERE a.id > ?1 ORDER BY a.id LIMIT ?2"
    ))?
    .query_map(
        params![after.map(|a| a.to_string()).unwrap_or_default(), limit],
        |r| {
            let deleted: Option<i64> = r.get(10)?;
            Ok((attachment(r)?, deleted.map(Timestamp::from_millis)))
        },
    )?
    .collect()
}

pub(super) fn insert_copy(
    c: &Connection,
    a: &Attachment,
    deleted_at: Option<Timestamp>,
) -> rusqlite::Result<()> {
    insert_row(c, a)?;
    if let Some(at) = deleted_at {
        c.prepare_cached("UPDATE attachments SET deleted_at = ?2 WHERE id = ?1")?
            .execute(params![a.id.to_string(), at.as_millis()])?;
    }
    Ok(())
}

pub(super) fn objects(c: &Connection) -> rusqlite::Result<Vec<String>> {
    c.prepare_cached("SELECT DISTINCT author_id || '/' || sha256 FROM attachments")?
        .query_map([], |r| r.get(0))?
        .collect()
}
