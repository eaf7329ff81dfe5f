-- Tags, stars and the date an entry is about. Lists are ordered by `date` now, so the
-- list indexes move from `created_at` to it; an existing entry is about when it was
-- written.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'entry_tags'
ALTER TABLE entries ADD COLUMN date INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
-- The entry's tags, sorted, separated by single spaces ('' for none): read with the
-- row. A tag holds only letters, digits, '-' and '_', so it has no space or quote.
ALTER TABLE entries ADD COLUMN tags TEXT NOT NULL DEFAULT '';
UPDATE entries SET date = created_at;

DROP INDEX entries_author_created;
DROP INDEX entries_author_public_created;
DROP INDEX entries_public_created;
-- An author's own list, newest first.
CREATE INDEX entries_author_date ON entries (author_id, date DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_date ON entries (author_id, is_public, date DESC, id DESC);
-- The public feed.
CREATE INDEX entries_public_date ON entries (date DESC, id DESC) WHERE is_public = 1;
-- An author's starred entries.
CREATE INDEX entries_author_starred_date ON entries (author_id, date DESC, id DESC) WHERE starred = 1;

-- One row per tag of an entry, in list order, kept by the triggers below: a tag filter
-- walks its tag's rows newest first and stops at the page's end, and the tag counts
-- are a walk of one author's rows. `seq` joins back to `entries`.
CREATE TABLE entry_tags (
    author_id TEXT NOT NULL,
    tag       TEXT NOT NULL,
    date      INTEGER NOT NULL,
    entry_id  TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (author_id, tag, date, entry_id)
) WITHOUT ROWID;
-- The public feed by tag.
CREATE INDEX entry_tags_tag_date ON entry_tags (tag, date, entry_id);

CREATE TRIGGER entry_tags_insert AFTER INSERT ON entries WHEN new.tags <> '' BEGIN
    INSERT INTO entry_tags (author_id, tag, date, entry_id, seq)
    SELECT new.author_id, value, new.date, new.id, new.seq
    FROM json_each('["' || replace(new.tags, ' ', '","') || '"]');
END;
CREATE TRIGGER entry_tags_delete AFTER DELETE ON entries WHEN old.tags <> '' BEGIN
    DELETE FROM entry_tags
    WHERE author_id = old.author_id AND date = old.date AND entry_id = old.id
      AND tag IN (SELECT value FROM json_each('["' || replace(old.tags, ' ', '","') || '"]'));
END;
CREATE TRIGGER entry_tags_update AFTER UPDATE OF tags, date ON entries
    WHEN old.tags <> new.tags OR old.date <> new.date BEGIN
    DELETE FROM entry_tags
    WHERE old.tags <> '' AND author_id = old.author_id AND date = old.date AND entry_id = old.id
      AND tag IN (SELECT value FROM json_each('["' || replace(old.tags, ' ', '","') || '"]'));
    INSERT INTO entry_tags (author_id, tag, date, entry_id, seq)
    SELECT new.author_id, value, new.date, new.id, new.seq
    FROM json_each('["' || replace(new.tags, ' ', '","') || '"]')
    WHERE new.tags <> '';
END;
