-- Edit history and the trash (issue 36). Every entry carries its revision count and
-- the id of its current revision (its ETag); `entry_revisions` keeps every state it
-- had, the text whole or as a delta (see store/revision_rows.rs); `trashed_entries`
-- keeps deleted entries, as the API's JSON, until restored or purged. An existing entry
-- gets one revision: itself as it is, its id a UUIDv7 of when it was last changed.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'entry_revisions'
ALTER TABLE entries ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
ALTER TABLE entries ADD COLUMN revision_id TEXT NOT NULL DEFAULT '';
UPDATE entries SET revision_id = printf('%08x-%04x-7%03x-%04x-%012x',
    updated_at >> 16, updated_at & 65535, random() & 4095,
    32768 | (random() & 16383), random() & 281474976710655);

-- No foreign key to `entries`: a deleted entry's revisions stay with it in the trash.
CREATE TABLE entry_revisions (
    id          TEXT PRIMARY KEY,
    entry_id    TEXT NOT NULL,
    author_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    parent_id   TEXT,
    revision    INTEGER NOT NULL,
    edited_at   INTEGER NOT NULL,
    via         TEXT NOT NULL,
    state       TEXT NOT NULL,
    content     TEXT NOT NULL,
    keep_prefix INTEGER,
    keep_suffix INTEGER,
    UNIQUE (entry_id, revision)
);
-- Deleting an account deletes its revisions by this.
CREATE INDEX entry_revisions_author ON entry_revisions (author_id);
INSERT INTO entry_revisions
SELECT revision_id, id, author_id, NULL, 1, updated_at, 'login',
       json_object('title', title, 'isPublic', json(CASE WHEN is_public THEN 'true' ELSE 'false' END),
                   'tags', tags, 'starred', json(CASE WHEN starred THEN 'true' ELSE 'false' END),
                   'date', date),
       content, NULL, NULL
FROM entries;

CREATE TABLE trashed_entries (
    id         TEXT PRIMARY KEY,
    author_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    deleted_at INTEGER NOT NULL,
    entry      TEXT NOT NULL
);
-- The author's trash, newest deletion first.
CREATE INDEX trashed_entries_author ON trashed_entries (author_id, deleted_at DESC, id DESC);
-- Purging what is past its days, oldest first.
CREATE INDEX trashed_entries_deleted ON trashed_entries (deleted_at);
