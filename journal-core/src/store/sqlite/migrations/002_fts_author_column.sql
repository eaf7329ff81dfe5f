-- Search one author's entries without reading everyone's matches: the author is a
-- column of the full-text index, so FTS5 intersects the author's short posting list
-- with the words' lists instead of joining every match back to `entries`.
-- (Superseded by 004; kept so that older files upgrade step by step.)
-- (4 replaces what this step made, so a file past 4 shows no trace of it.)
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_fts' AND (instr(sql, 'fts_author') OR instr(sql, 'contentless'))
ALTER TABLE entries ADD COLUMN fts_author TEXT
    GENERATED ALWAYS AS ('a' || replace(author_id, '-', '')) VIRTUAL;
DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content, fts_author,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content, fts_author)
    VALUES (new.seq, new.title, new.content, new.fts_author);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
    VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content, fts_author)
    VALUES ('delete', old.seq, old.title, old.content, old.fts_author);
    INSERT INTO entries_fts (rowid, title, content, fts_author)
    VALUES (new.seq, new.title, new.content, new.fts_author);
END;
