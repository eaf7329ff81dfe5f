-- The change feed that `journal sync` reads (issue 38, docs/design/sync.md). Every
-- write to an author's entry takes the next number of that author's change counter
-- (`author_counts.change_seq`) and keeps it on the row it wrote: a live entry, an
-- entry in the trash, or the tombstone a purge leaves. A replica asks for the rows
-- numbered after the last it has seen, in order; one author's numbers never repeat.
--
-- The store writes each number in the statement that writes the row, as the counter
-- plus one (`store/sqlite/changes.rs`), and the triggers below move the counter on:
-- an `UPDATE` of the row after it was written would write a whole entry twice. A
-- revision takes the counter as it stands: the one writer commits in order, so a
-- replica sent the revisions numbered from where its sync began misses none.
--
-- Existing rows are numbered per author, live entries first, then the trash. Existing
-- revisions keep 0: a first sync (from 0) takes every revision of the entries it
-- takes, so numbering them would rewrite the largest table for nothing.
-- applied when: SELECT 1 FROM pragma_table_info('entries') WHERE name = 'change_seq'
ALTER TABLE author_counts ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trashed_entries ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entry_revisions ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;

UPDATE entries SET change_seq = numbered.n
FROM (SELECT seq, row_number() OVER (PARTITION BY author_id ORDER BY seq) AS n FROM entries)
    AS numbered
WHERE numbered.seq = entries.seq;
UPDATE trashed_entries SET change_seq = numbered.n + counts.entries
FROM (SELECT id, row_number() OVER (PARTITION BY author_id ORDER BY deleted_at, id) AS n
      FROM trashed_entries) AS numbered,
     author_counts AS counts
WHERE numbered.id = trashed_entries.id AND counts.author_id = trashed_entries.author_id;
UPDATE author_counts SET change_seq = entries
    + (SELECT count(*) FROM trashed_entries t WHERE t.author_id = author_counts.author_id);

-- What a purge leaves, so a replica learns the entry is gone for good.
CREATE TABLE entry_tombstones (
    author_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    change_seq INTEGER NOT NULL,
    entry_id   TEXT NOT NULL,
    purged_at  INTEGER NOT NULL,
    PRIMARY KEY (author_id, change_seq)
) WITHOUT ROWID;

-- A purged id written again (a replica's edit outliving the purge, an import) is no
-- longer purged: its tombstone goes, or the feed would send both.
CREATE INDEX entry_tombstones_entry ON entry_tombstones (author_id, entry_id);
CREATE TRIGGER entries_untombstone AFTER INSERT ON entries BEGIN
    DELETE FROM entry_tombstones WHERE author_id = new.author_id AND entry_id = new.id;
END;
CREATE TRIGGER trashed_entries_untombstone AFTER INSERT ON trashed_entries BEGIN
    DELETE FROM entry_tombstones WHERE author_id = new.author_id AND entry_id = new.id;
END;

-- An author's changes after a number, in order.
CREATE INDEX entries_changes ON entries (author_id, change_seq);
CREATE INDEX trashed_entries_changes ON trashed_entries (author_id, change_seq);

CREATE TRIGGER entries_change_insert AFTER INSERT ON entries BEGIN
    UPDATE author_counts SET change_seq = new.change_seq
        WHERE author_id = new.author_id AND change_seq < new.change_seq;
END;
CREATE TRIGGER entries_change_update AFTER UPDATE OF change_seq ON entries BEGIN
    UPDATE author_counts SET change_seq = new.change_seq
        WHERE author_id = new.author_id AND change_seq < new.change_seq;
END;
CREATE TRIGGER trashed_entries_change AFTER INSERT ON trashed_entries BEGIN
    UPDATE author_counts SET change_seq = new.change_seq
        WHERE author_id = new.author_id AND change_seq < new.change_seq;
END;
CREATE TRIGGER entry_tombstones_change AFTER INSERT ON entry_tombstones BEGIN
    UPDATE author_counts SET change_seq = new.change_seq
        WHERE author_id = new.author_id AND change_seq < new.change_seq;
END;

-- Texts a sync could not merge (both sides changed the same lines): the entry kept one
-- side's, the other side's is this revision in its history, listed for the author to
-- settle.
CREATE TABLE entry_conflicts (
    author_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_id    TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    detected_at INTEGER NOT NULL,
    PRIMARY KEY (author_id, entry_id, revision_id)
) WITHOUT ROWID;

-- Which database a replica's cursor came from: a cursor of another one (a copy, or
-- this one restored from a backup and given a new epoch) starts its sync over.
INSERT OR IGNORE INTO settings (key, value) VALUES ('sync_epoch', lower(hex(randomblob(16))));
