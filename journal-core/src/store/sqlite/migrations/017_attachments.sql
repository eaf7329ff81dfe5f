-- Attachments (issue 37): what the database keeps of each file; the bytes are in the
-- object store (attachments/files.rs), named `author_id/sha256`. `entry_id` is NULL
-- for an upload not yet attached, and has no foreign key: an attachment stays with
-- its entry in the trash, and goes at the collection once the entry is purged.
-- `deleted_at`: its author deleted it; the row stays while a kept revision of its
-- entry may name it.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'attachments'
CREATE TABLE attachments (
    id           TEXT PRIMARY KEY,
    author_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_id     TEXT,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         INTEGER NOT NULL,
    width        INTEGER,
    height       INTEGER,
    sha256       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    deleted_at   INTEGER
);
-- An entry's attachments, oldest first.
CREATE INDEX attachments_entry ON attachments (entry_id, created_at) WHERE entry_id IS NOT NULL;
-- An author's space used, and deleting an account.
CREATE INDEX attachments_author ON attachments (author_id, sha256);
