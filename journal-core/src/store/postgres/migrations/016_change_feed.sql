-- The change feed that `journal sync` reads (issue 38, docs/design/sync.md). Every
-- write to an author's entry takes the next number of that author's change counter
-- (`author_counts.change_seq`) and keeps it on the row it wrote: a live entry, an
-- entry in the trash, or the tombstone a purge leaves. A replica asks for the rows
-- numbered after the last it has seen, in order.
--
-- A per-author counter, not a SEQUENCE: a sequence hands out numbers outside the
-- transaction, so a reader could see 12 committed while 11 is still open, and skip 11
-- for ever. Taking the counter locks the author's row until the commit, so one
-- author's writes commit in the order of their numbers (the list counts' trigger
-- already locks that row on every insert and delete). Revisions take numbers too, so a
-- replica is sent the revisions numbered from where its sync began.
--
-- Existing rows are numbered per author, live entries first, then the trash. Existing
-- revisions keep 0: a first sync (from 0) takes every revision of the entries it takes.
ALTER TABLE author_counts ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE trashed_entries ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE entry_revisions ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;

UPDATE entries SET change_seq = numbered.n
FROM (SELECT id, row_number() OVER (PARTITION BY author_id ORDER BY created_at, id) AS n
      FROM entries) AS numbered
WHERE numbered.id = entries.id;
UPDATE trashed_entries SET change_seq = numbered.n + counts.entries
FROM (SELECT id, row_number() OVER (PARTITION BY author_id ORDER BY deleted_at, id) AS n
      FROM trashed_entries) AS numbered,
     author_counts AS counts
WHERE numbered.id = trashed_entries.id AND counts.author_id = trashed_entries.author_id;
UPDATE author_counts SET change_seq = entries
    + (SELECT count(*) FROM trashed_entries t WHERE t.author_id = author_counts.author_id);

-- What a purge leaves, so a replica learns the entry is gone for good.
CREATE TABLE entry_tombstones (
    author_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    change_seq bigint NOT NULL,
    entry_id   uuid NOT NULL,
    purged_at  timestamptz NOT NULL,
    PRIMARY KEY (author_id, change_seq)
);

-- A purged id written again (a replica's edit outliving the purge, an import) is no
-- longer purged: its tombstone goes, or the feed would send both.
CREATE INDEX entry_tombstones_entry ON entry_tombstones (author_id, entry_id);
CREATE FUNCTION journal_untombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM entry_tombstones WHERE author_id = NEW.author_id AND entry_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_untombstone AFTER INSERT ON entries
    FOR EACH ROW EXECUTE FUNCTION journal_untombstone();
CREATE TRIGGER trashed_entries_untombstone AFTER INSERT ON trashed_entries
    FOR EACH ROW EXECUTE FUNCTION journal_untombstone();

-- An author's changes after a number, in order.
CREATE INDEX entries_changes ON entries (author_id, change_seq);
CREATE INDEX trashed_entries_changes ON trashed_entries (author_id, change_seq);

-- The author's row is locked first (KEY SHARE, as the foreign key of every write takes
-- it), then the counter: the order every write keeps, so none deadlocks with another.
-- An author deleted meanwhile has no counter: the row keeps 0 and goes on to meet the
-- foreign key, which says so, rather than a NULL number.
CREATE FUNCTION journal_next_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    next bigint;
BEGIN
    PERFORM 1 FROM users WHERE id = NEW.author_id FOR KEY SHARE;
    UPDATE author_counts SET change_seq = change_seq + 1 WHERE author_id = NEW.author_id
        RETURNING change_seq INTO next;
    IF FOUND THEN
        NEW.change_seq := next;
    END IF;
    RETURN NEW;
END $$;
-- Every change of an entry's state is a new revision id.
CREATE TRIGGER entries_change BEFORE INSERT OR UPDATE OF revision_id ON entries
    FOR EACH ROW EXECUTE FUNCTION journal_next_change();
CREATE TRIGGER trashed_entries_change BEFORE INSERT ON trashed_entries
    FOR EACH ROW EXECUTE FUNCTION journal_next_change();
CREATE TRIGGER entry_tombstones_change BEFORE INSERT ON entry_tombstones
    FOR EACH ROW EXECUTE FUNCTION journal_next_change();

CREATE TRIGGER entry_revisions_change BEFORE INSERT ON entry_revisions
    FOR EACH ROW EXECUTE FUNCTION journal_next_change();

-- Texts a sync could not merge (both sides changed the same lines): the entry kept one
-- side's, the other side's is this revision in its history, listed for the author to
-- settle.
CREATE TABLE entry_conflicts (
    author_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_id    uuid NOT NULL,
    revision_id uuid NOT NULL,
    detected_at timestamptz NOT NULL,
    PRIMARY KEY (author_id, entry_id, revision_id)
);

-- Which database a replica's cursor came from: a cursor of another one (a copy, or
-- this one restored from a backup and given a new epoch) starts its sync over.
INSERT INTO settings (key, value) VALUES ('sync_epoch', replace(gen_random_uuid()::text, '-', ''))
    ON CONFLICT (key) DO NOTHING;
