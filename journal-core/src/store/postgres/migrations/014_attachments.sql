-- Attachments (issue 37): what the database keeps of each file; the bytes are in the
-- object store (attachments/files.rs), named `author_id/sha256`. `entry_id` is NULL
-- for an upload not yet attached, and has no foreign key: an attachment stays with
-- its entry in the trash, and goes at the collection once the entry is purged.
-- `deleted_at`: its author deleted it; the row stays while a kept revision of its
-- entry may name it.
CREATE TABLE attachments (
    id           uuid PRIMARY KEY,
    author_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entry_id     uuid,
    name         text NOT NULL,
    content_type text NOT NULL,
    size         bigint NOT NULL,
    width        integer,
    height       integer,
    sha256       text NOT NULL,
    created_at   timestamptz NOT NULL,
    deleted_at   timestamptz
);
-- An entry's attachments, oldest first.
CREATE INDEX attachments_entry ON attachments (entry_id, created_at) WHERE entry_id IS NOT NULL;
-- An author's space used, and deleting an account.
CREATE INDEX attachments_author ON attachments (author_id, sha256);
