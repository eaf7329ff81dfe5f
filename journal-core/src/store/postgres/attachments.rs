//! Attachment rows: what the database keeps of each file (the bytes are in the object
//! store), and the collection of rows nothing needs any more.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use uuid::Uuid;

use super::errors::map_pg;
use super::pool::Db;
use super::rows::{from_ts, ts};
use crate::domain::{AttachmentId, EntryId, PageRequest, Timestamp, UserId};
use crate::error::StoreResult;
use crate::model::{Attachment, Page};
use crate::store::{AttachedTo, StoredAttachment};

const COLUMNS: &str = "a.id, a.author_id, a.entry_id, a.name, a.content_type, a.size, a.width, \
                       a.height, a.sha256, a.created_at";

fn attachment(r: &Row) -> Attachment {
    let size: i64 = r.get(5);
    let width: Option<i32> = r.get(6);
    let height: Option<i32> = r.get(7);
    Attachment {
        id: AttachmentId::from_uuid(r.get(0)),
        author_id: UserId::from_uuid(r.get(1)),
        entry_id: r.get::<_, Option<Uuid>>(2).map(EntryId::from_uuid),
        name: r.get(3),
        content_type: r.get(4),
        size: size.try_into().unwrap_or(0),
        width: width.and_then(|w| w.try_into().ok()),
        height: height.and_then(|h| h.try_into().ok()),
        sha256: r.get(8),
        created_at: from_ts(r.get(9)),
    }
}

fn int(n: Option<u32>) -> Option<i32> {
    n.and_then(|n| n.try_into().ok())
}

pub(super) async fn insert(db: &Db, a: &Attachment) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    if let Some(entry) = &a.entry_id {
        lock_entry(&tx, entry.as_uuid()).await?;
    }
    insert_row(&tx, a).await?;
    if let Some(entry) = &a.entry_id {
        touch_entry(&tx, entry.as_uuid()).await?;
    }
    tx.commit().await.map_err(map_pg)
}

async fn insert_row(client: &impl GenericClient, a: &Attachment) -> StoreResult<()> {
    let size = i64::try_from(a.size).unwrap_or(i64::MAX);
    client
        .execute(
            "INSERT INTO attachments (id, author_id, entry_id, name, content_type, size, width,
                                      height, sha256, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                a.id.as_uuid(),
                a.author_id.as_uuid(),
                &a.entry_id.map(|e| *e.as_uuid()),
                &a.name,
                &a.content_type,
                &size,
                &int(a.width),
                &int(a.height),
                &a.sha256,
                &ts(a.created_at),
            ],
        )
        .await
        .map_err(map_pg)?;
    Ok(())
}

/// Locks an entry's row, live or in the trash, before a write to its attachments: the
/// row first, then its author's counter ([`touch_entry`]), the order every write of an
/// entry keeps, so none deadlocks with another.
async fn lock_entry(tx: &impl GenericClient, entry: &Uuid) -> StoreResult<()> {
    for table in ["entries", "trashed_entries"] {
        tx.execute(
            &format!("SELECT 1 FROM {table} WHERE id = $1 FOR UPDATE"),
            &[entry],
        )
        .await
        .map_err(map_pg)?;
    }
    Ok(())
}

/// Gives an entry whose attachments changed its author's next change number, so a
/// replica's next sync reads it again with them (docs/design/sync.md).
async fn touch_entry(tx: &impl GenericClient, entry: &Uuid) -> StoreResult<()> {
    for table in ["entries", "trashed_entries"] {
        let touched = tx
            .execute(
                &format!(
                    "WITH n AS (UPDATE author_counts SET change_seq = change_seq + 1
                                WHERE author_id = (SELECT author_id FROM {table} WHERE id = $1)
                                RETURNING change_seq)
                     UPDATE {table} SET change_seq = n.change_seq FROM n WHERE id = $1"
                ),
                &[entry],
            )
            .await
            .map_err(map_pg)?;
        if touched > 0 {
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

fn stored(r: &Row) -> StoredAttachment {
    let public: Option<bool> = r.get(11);
    let trashed: bool = r.get(12);
    StoredAttachment {
        attachment: attachment(r),
        deleted: r.get(10),
        entry: match (public, trashed) {
            (Some(public), _) => Some(AttachedTo::Live { public }),
            (None, true) => Some(AttachedTo::Trashed),
            (None, false) => None,
        },
        author_private: r.get(13),
    }
}

pub(super) async fn by_id(db: &Db, id: &AttachmentId) -> StoreResult<Option<StoredAttachment>> {
    let client = db.client().await?;
    let row = client
        .query_opt(&format!("{STORED} WHERE a.id = $1"), &[id.as_uuid()])
        .await
        .map_err(map_pg)?;
    Ok(row.as_ref().map(stored))
}

pub(super) async fn of_entries(db: &Db, entries: &[EntryId]) -> StoreResult<Vec<StoredAttachment>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let client = db.client().await?;
    let ids: Vec<Uuid> = entries.iter().map(|e| *e.as_uuid()).collect();
    let rows = client
        .query(
            &format!(
                "{STORED} WHERE a.entry_id = ANY($1) AND a.deleted_at IS NULL
                 ORDER BY a.entry_id, a.created_at, a.id"
            ),
            &[&ids],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(stored).collect())
}

pub(super) async fn of_author(
    db: &Db,
    author: &UserId,
    page: PageRequest,
) -> StoreResult<Page<StoredAttachment>> {
    let client = db.client().await?;
    let total: i64 = client
        .query_one(
            "SELECT count(*) FROM attachments WHERE author_id = $1 AND deleted_at IS NULL",
            &[author.as_uuid()],
        )
        .await
        .map_err(map_pg)?
        .get(0);
    let limit = i64::from(page.limit());
    let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
    let rows = client
        .query(
            &format!(
                "{STORED} WHERE a.author_id = $1 AND a.deleted_at IS NULL
                 ORDER BY a.created_at DESC, a.id DESC LIMIT $2 OFFSET $3"
            ),
            &[author.as_uuid(), &limit, &offset],
        )
        .await
        .map_err(map_pg)?;
    Ok(Page::exact(rows.iter().map(stored).collect(), total, page))
}

pub(super) async fn of_entry(db: &Db, entry: &EntryId) -> StoreResult<Vec<Attachment>> {
    let client = db.client().await?;
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM attachments a
                 WHERE a.entry_id = $1 AND a.deleted_at IS NULL ORDER BY a.created_at, a.id"
            ),
            &[entry.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(attachment).collect())
}

pub(super) async fn attach(
    db: &Db,
    author: &UserId,
    entry: &EntryId,
    ids: &[AttachmentId],
) -> StoreResult<u64> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    lock_entry(&tx, entry.as_uuid()).await?;
    let ids: Vec<Uuid> = ids.iter().map(|id| *id.as_uuid()).collect();
    let n = tx
        .execute(
            "UPDATE attachments SET entry_id = $1
             WHERE id = ANY($2) AND author_id = $3 AND entry_id IS NULL AND deleted_at IS NULL",
            &[entry.as_uuid(), &ids, author.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    if n > 0 {
        touch_entry(&tx, entry.as_uuid()).await?;
    }
    tx.commit().await.map_err(map_pg)?;
    Ok(n)
}

pub(super) async fn delete(db: &Db, id: &AttachmentId, at: Timestamp) -> StoreResult<bool> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    let entry: Option<Uuid> = tx
        .query_opt(
            "SELECT entry_id FROM attachments WHERE id = $1 AND deleted_at IS NULL",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?
        .and_then(|r| r.get(0));
    if let Some(entry) = &entry {
        lock_entry(&tx, entry).await?;
    }
    let deleted = delete_row(&tx, id, at).await?;
    if deleted && let Some(entry) = &entry {
        touch_entry(&tx, entry).await?;
    }
    tx.commit().await.map_err(map_pg)?;
    Ok(deleted)
}

async fn delete_row(
    client: &impl GenericClient,
    id: &AttachmentId,
    at: Timestamp,
) -> StoreResult<bool> {
    let n = client
        .execute(
            "UPDATE attachments SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL",
            &[id.as_uuid(), &ts(at)],
        )
        .await
        .map_err(map_pg)?;
    Ok(n == 1)
}

pub(super) async fn discard(db: &Db, id: &AttachmentId) -> StoreResult<bool> {
    let client = db.client().await?;
    let n = client
        .execute(
            "DELETE FROM attachments WHERE id = $1 AND entry_id IS NULL",
            &[id.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    Ok(n == 1)
}

pub(super) async fn bytes_of(db: &Db, author: &UserId) -> StoreResult<u64> {
    let client = db.client().await?;
    let row = client
        .query_one(
            "SELECT coalesce(sum(size), 0)::bigint FROM
               (SELECT DISTINCT sha256, size FROM attachments WHERE author_id = $1) s",
            &[author.as_uuid()],
        )
        .await
        .map_err(map_pg)?;
    Ok(row.get::<_, i64>(0).try_into().unwrap_or(0))
}

pub(super) async fn collect(db: &Db, unattached_before: Timestamp) -> StoreResult<u64> {
    let client = db.client().await?;
    let unattached = client
        .execute(
            "DELETE FROM attachments WHERE entry_id IS NULL AND created_at < $1",
            &[&ts(unattached_before)],
        )
        .await
        .map_err(map_pg)?;
    let orphaned = client
        .execute(
            "DELETE FROM attachments a WHERE a.entry_id IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = a.entry_id)
               AND NOT EXISTS (SELECT 1 FROM trashed_entries t WHERE t.id = a.entry_id)",
            &[],
        )
        .await
        .map_err(map_pg)?;
    // A revision made between the upload and the deletion may name the file.
    let deleted = client
        .execute(
            "DELETE FROM attachments a WHERE a.deleted_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM entry_revisions r
                               WHERE r.entry_id = a.entry_id
                                 AND r.edited_at >= a.created_at
                                 AND r.edited_at <= a.deleted_at)",
            &[],
        )
        .await
        .map_err(map_pg)?;
    Ok(unattached + orphaned + deleted)
}

pub(super) async fn after(
    db: &Db,
    after: Option<&AttachmentId>,
    limit: u32,
) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
    let client = db.client().await?;
    let after = after.map(|id| *id.as_uuid()).unwrap_or_else(Uuid::nil);
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS}, a.deleted_at FROM attachments a WHERE a.id > $1
                 ORDER BY a.id LIMIT $2"
            ),
            &[&after, &i64::from(limit)],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows
        .iter()
        .map(|r| (attachment(r), r.get::<_, Option<_>>(10).map(from_ts)))
        .collect())
}

pub(super) async fn insert_copy(
    db: &Db,
    a: &Attachment,
    deleted_at: Option<Timestamp>,
) -> StoreResult<()> {
    let client = db.client().await?;
    insert_row(&client, a).await?;
    if let Some(at) = deleted_at {
        delete_row(&client, &a.id, at).await?;
    }
    Ok(())
}

pub(super) async fn objects(db: &Db) -> StoreResult<Vec<String>> {
    let client = db.client().await?;
    let rows = client
        .query(
            "SELECT DISTINCT author_id::text || '/' || sha256 FROM attachments",
            &[],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

pub(super) async fn of_entries_for_sync(
    db: &Db,
    entries: &[EntryId],
) -> StoreResult<Vec<(Attachment, Option<Timestamp>)>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = entries.iter().map(|e| *e.as_uuid()).collect();
    let client = db.client().await?;
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS}, a.deleted_at FROM attachments a WHERE a.entry_id = ANY($1)
                 ORDER BY a.entry_id, a.created_at, a.id"
            ),
            &[&ids],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows
        .iter()
        .map(|r| (attachment(r), r.get::<_, Option<_>>(10).map(from_ts)))
        .collect())
}

pub(super) async fn of_author_by_sha(
    db: &Db,
    author: &UserId,
    sha256s: &[String],
) -> StoreResult<Vec<Attachment>> {
    if sha256s.is_empty() {
        return Ok(Vec::new());
    }
    let client = db.client().await?;
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM attachments a WHERE a.author_id = $1 AND a.sha256 = ANY($2)
                 ORDER BY a.deleted_at IS NOT NULL, a.created_at"
            ),
            &[author.as_uuid(), &sha256s],
        )
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(attachment).collect())
}

pub(super) async fn by_ids(db: &Db, ids: &[AttachmentId]) -> StoreResult<Vec<StoredAttachment>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = ids.iter().map(|i| *i.as_uuid()).collect();
    let client = db.client().await?;
    let rows = client
        .query(&format!("{STORED} WHERE a.id = ANY($1)"), &[&ids])
        .await
        .map_err(map_pg)?;
    Ok(rows.iter().map(stored).collect())
}

pub(super) async fn mark_changed(db: &Db, entry: &EntryId) -> StoreResult<()> {
    let mut client = db.client().await?;
    let tx = client.transaction().await.map_err(map_pg)?;
    lock_entry(&tx, entry.as_uuid()).await?;
    touch_entry(&tx, entry.as_uuid()).await?;
    tx.commit().await.map_err(map_pg)
}
