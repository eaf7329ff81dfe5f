-- Search terms scoped to their author. Migration 2 put the author in a column of the
-- index, but a prefix word (`"garden"*`) still expanded over every user's postings
-- before meeting the author's. Now each word is indexed with its author in front
-- (`a<author>garden`, made in Rust by `journal_terms`), so a prefix walks only that
-- author's words. The index keeps no copy of the text: the triggers give it the terms.
-- It deletes by rowid (`contentless_delete`, SQLite 3.43+) rather than by handing the
-- old terms back, so a later change to how words are split (a new Unicode version,
-- say) cannot leave terms behind that no delete would match.
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_fts' AND instr(sql, 'contentless')
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;
ALTER TABLE entries DROP COLUMN fts_author;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content,
    content = '', contentless_delete = 1,
    tokenize = 'ascii'
);
INSERT INTO entries_fts (rowid, title, content)
    SELECT seq, journal_terms(author_id, title), journal_terms(author_id, content) FROM entries;
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content));
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    DELETE FROM entries_fts WHERE rowid = old.seq;
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.seq, journal_terms(new.author_id, new.title), journal_terms(new.author_id, new.content));
END;
