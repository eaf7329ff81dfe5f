-- New entries reach the search index once per write batch, not once per entry.
--
-- FTS5 writes what it holds in memory to the index as a new segment at every
-- savepoint, and SQLite opens one for every statement that fires triggers inside a
-- transaction. Each create of a batch (one transaction for many requests) therefore
-- wrote its few terms as a segment of its own, with its own structure record, and
-- every segment later had to be merged. Now a create only notes its entry in
-- `fts_pending`, and the writer indexes every noted entry with one statement just
-- before the batch commits (store/sqlite/fts_batch.rs): one segment per batch. Nothing
-- reads the index between the two, since no other connection sees the batch before
-- its commit.
-- (The trigger, not the table: repairing a file whose version lagged can run step 4
-- again, which puts back the trigger that indexes at once.)
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_fts_insert' AND sql LIKE '%fts_pending%'
CREATE TABLE IF NOT EXISTS fts_pending (seq INTEGER PRIMARY KEY);

DROP TRIGGER entries_fts_insert;
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO fts_pending (seq) VALUES (new.seq);
END;

-- An entry still waiting is not in the index yet: its words go in with its final
-- text when the batch commits, and a deleted one never goes in.
DROP TRIGGER entries_fts_delete;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_fts
    WHERE rowid = (SELECT old.seq WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE seq = old.seq));
    DELETE FROM fts_pending WHERE seq = old.seq;
END;
DROP TRIGGER entries_fts_update;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries
    WHEN NOT EXISTS (SELECT 1 FROM fts_pending WHERE seq = old.seq) BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content));
END;
