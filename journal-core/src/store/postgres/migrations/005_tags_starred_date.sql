-- Tags, stars and the date an entry is about. Lists are ordered by `date` now, so the
-- list indexes move from `created_at` to it; an existing entry is about when it was
-- written.
-- Writers of an older server would otherwise slip past the backfill below.
LOCK TABLE entries IN SHARE MODE;
ALTER TABLE entries ADD COLUMN date timestamptz;
ALTER TABLE entries ADD COLUMN starred boolean NOT NULL DEFAULT false;
-- The entry's tags, sorted: read with the row.
ALTER TABLE entries ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
UPDATE entries SET date = created_at;
ALTER TABLE entries ALTER COLUMN date SET NOT NULL;

DROP INDEX entries_author_created;
DROP INDEX entries_author_public_created;
DROP INDEX entries_public_created;
-- An author's own list, newest first.
CREATE INDEX entries_author_date ON entries (author_id, date DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_date ON entries (author_id, date DESC, id DESC) WHERE is_public;
-- The public feed.
CREATE INDEX entries_public_date ON entries (date DESC, id DESC) WHERE is_public;
-- An author's starred entries.
CREATE INDEX entries_author_starred_date ON entries (author_id, date DESC, id DESC) WHERE starred;

-- One row per tag of an entry, in list order, kept by the trigger below: a tag filter
-- walks its tag's rows newest first and stops at the page's end, and the tag counts
-- are a walk of one author's rows.
CREATE TABLE entry_tags (
    author_id uuid NOT NULL,
    tag       text NOT NULL,
    date      timestamptz NOT NULL,
    entry_id  uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    PRIMARY KEY (author_id, tag, date, entry_id)
);
-- The public feed by tag.
CREATE INDEX entry_tags_tag_date ON entry_tags (tag, date, entry_id);
-- Deleting an entry finds its rows.
CREATE INDEX entry_tags_entry ON entry_tags (entry_id);

CREATE FUNCTION journal_entry_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM entry_tags WHERE entry_id = OLD.id;
    END IF;
    INSERT INTO entry_tags (author_id, tag, date, entry_id)
        SELECT NEW.author_id, t, NEW.date, NEW.id FROM unnest(NEW.tags) t;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_tags_insert AFTER INSERT ON entries
    FOR EACH ROW WHEN (cardinality(NEW.tags) > 0) EXECUTE FUNCTION journal_entry_tags();
CREATE TRIGGER entries_tags_update AFTER UPDATE OF tags, date ON entries
    FOR EACH ROW WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.date IS DISTINCT FROM NEW.date)
    EXECUTE FUNCTION journal_entry_tags();
