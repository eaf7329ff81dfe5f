-- The first schema: users, entries with their list indexes, a full-text index over
-- title and content, revoked token ids, and settings (the generated JWT secret).
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'users'
CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    email               TEXT NOT NULL,
    full_name           TEXT NOT NULL,
    nickname            TEXT NOT NULL,
    password_hash       TEXT NOT NULL,
    profile_pic         TEXT NOT NULL DEFAULT '',
    role                TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    is_private          INTEGER NOT NULL DEFAULT 0,
    password_changed_at INTEGER NOT NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);

-- `seq` is the rowid the full-text index refers to; `id` is the public identifier.
CREATE TABLE entries (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    author_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    author_name TEXT NOT NULL,
    title       TEXT NOT NULL,
    content     TEXT NOT NULL,
    is_public   INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- An author's own list, newest first.
CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_created ON entries (author_id, is_public, created_at DESC, id DESC);
-- The public feed.
CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public = 1;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content) VALUES ('delete', old.seq, old.title, old.content);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, content ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content) VALUES ('delete', old.seq, old.title, old.content);
    INSERT INTO entries_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;

CREATE TABLE revoked_tokens (
    jti        TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
