-- A replica that has not synced for the server's --sync-lease days is forgotten (issue
-- 38): the tombstones of entries purged before then are dropped, so the feed's
-- bookkeeping stays bounded however many entries are purged. Each author keeps the
-- newest change number dropped (`forgotten_through`); a replica whose cursor is
-- older than that missed a purge, and starts over as a first sync, losing nothing
-- (what it still holds is sent again).
-- applied when: SELECT 1 FROM pragma_table_info('author_counts') WHERE name = 'forgotten_through'
ALTER TABLE author_counts ADD COLUMN forgotten_through INTEGER NOT NULL DEFAULT 0;
CREATE INDEX entry_tombstones_purged ON entry_tombstones (purged_at);
