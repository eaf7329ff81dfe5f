-- Search finds text in scripts written without spaces, and an entry's tags.
--
-- Chinese, Japanese, Thai (and Hangul) runs had no word boundaries to index by: a
-- whole sentence was one term, so no word inside it was ever found. `journal_terms`
-- now indexes such a run as its overlapping pairs of characters, and its last
-- character alone (domain::index_words); a search for a run looks up the phrase of its
-- pairs. Latin words are indexed as before. The tags get a column of their own,
-- ranked as the title is (rank.rs).
--
-- The index is contentless, so it cannot be rebuilt from itself: it is made again
-- from `entries`, with the merge settings of migrations 9 and 10 and the triggers of
-- migration 12, which now also watch the tags.
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_fts_update' AND sql LIKE '%new.tags%'
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content, tags,
    content = '', contentless_delete = 1,
    tokenize = 'ascii'
);
INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 16);
INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', 64);
INSERT INTO entries_fts (rowid, title, content, tags)
    SELECT seq, journal_terms(author_id, title), journal_terms(author_id, content),
           journal_terms(author_id, tags)
    FROM entries ORDER BY seq;
DELETE FROM fts_pending;

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO fts_pending (seq) VALUES (new.seq);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_fts
    WHERE rowid = (SELECT old.seq WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE seq = old.seq));
    DELETE FROM fts_pending WHERE seq = old.seq;
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content, tags ON entries
    WHEN NOT EXISTS (SELECT 1 FROM fts_pending WHERE seq = old.seq) BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
    INSERT INTO entries_fts (rowid, title, content, tags)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content),
            journal_terms(new.author_id, new.tags));
END;
