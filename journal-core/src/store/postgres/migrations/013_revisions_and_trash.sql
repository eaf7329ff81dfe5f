-- Edit history and the trash (issue 36). Every entry carries its revision count and
-- the id of its current revision (its ETag); `entry_revisions` keeps every state it
-- had, the text whole or as a delta (see store/revision_rows.rs); `trashed_entries`
-- keeps deleted entries, as the API's JSON, until restored or purged. An existing entry
-- gets one revision: itself as it is, its id a UUIDv7 of when it was last changed.
CREATE FUNCTION journal_uuid_v7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0')
            || '7' || substr(r, 1, 3) || to_hex(8 + floor(random() * 4)::int)
            || substr(r, 4, 15))::uuid
    FROM (SELECT md5(random()::text || clock_timestamp()::text) AS r) s
$$;

ALTER TABLE entries ADD COLUMN revision integer NOT NULL DEFAULT 1;
ALTER TABLE entries ADD COLUMN revision_id uuid;
UPDATE entries SET revision_id = journal_uuid_v7(updated_at);
ALTER TABLE entries ALTER COLUMN revision_id SET NOT NULL;
-- For rows written by hand (tests seeding in SQL); the store always writes one.
ALTER TABLE entries ALTER COLUMN revision_id SET DEFAULT journal_uuid_v7(clock_timestamp());

-- No foreign key to `entries`: a deleted entry's revisions stay with it in the trash.
CREATE TABLE entry_revisions (
    id          uuid PRIMARY KEY,
    entry_id    uuid NOT NULL,
    author_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    parent_id   uuid,
    revision    integer NOT NULL,
    edited_at   timestamptz NOT NULL,
    via         text NOT NULL,
    state       text NOT NULL,
    content     text NOT NULL,
    keep_prefix integer,
    keep_suffix integer,
    UNIQUE (entry_id, revision)
);
-- Deleting an account deletes its revisions by this.
CREATE INDEX entry_revisions_author ON entry_revisions (author_id);
INSERT INTO entry_revisions
SELECT revision_id, id, author_id, NULL, 1, updated_at, 'login',
       json_build_object('title', title, 'isPublic', is_public,
                         'tags', array_to_string(tags, ' '), 'starred', starred,
                         'date', (extract(epoch FROM date) * 1000)::bigint)::text,
       content, NULL, NULL
FROM entries;

CREATE TABLE trashed_entries (
    id         uuid PRIMARY KEY,
    author_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    deleted_at timestamptz NOT NULL,
    entry      text NOT NULL
);
-- The author's trash, newest deletion first.
CREATE INDEX trashed_entries_author ON trashed_entries (author_id, deleted_at DESC, id DESC);
-- Purging what is past its days, oldest first.
CREATE INDEX trashed_entries_deleted ON trashed_entries (deleted_at);
