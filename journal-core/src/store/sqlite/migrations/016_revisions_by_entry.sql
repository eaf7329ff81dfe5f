-- Revisions kept in one b-tree ordered by entry and number (issue 36's goal "cheap
-- updates"). Migration 015's table wrote each revision into four b-trees: its rowid
-- table, the unique id, the unique (entry, number) and the author index, two of them
-- at a random page per write. Clustered on (entry_id, revision), a revision is one
-- insert into the entry's run of rows plus its id, whose UUIDv7 order appends; an
-- entry's history reads as one range. Deleting an account deletes its revisions by
-- its entries' ids (store/sqlite/users.rs), so the author index and its cascade go.
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entry_revisions' AND sql LIKE '%WITHOUT ROWID%'
CREATE TABLE entry_revisions_by_entry (
    entry_id    TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    id          TEXT NOT NULL UNIQUE,
    author_id   TEXT NOT NULL,
    parent_id   TEXT,
    edited_at   INTEGER NOT NULL,
    via         TEXT NOT NULL,
    state       TEXT NOT NULL,
    content     TEXT NOT NULL,
    keep_prefix INTEGER,
    keep_suffix INTEGER,
    PRIMARY KEY (entry_id, revision)
) WITHOUT ROWID;
INSERT INTO entry_revisions_by_entry
    (entry_id, revision, id, author_id, parent_id, edited_at, via, state, content, keep_prefix, keep_suffix)
SELECT entry_id, revision, id, author_id, parent_id, edited_at, via, state, content, keep_prefix, keep_suffix
FROM entry_revisions;
DROP TABLE entry_revisions;
ALTER TABLE entry_revisions_by_entry RENAME TO entry_revisions;
