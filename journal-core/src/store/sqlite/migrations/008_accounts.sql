-- Accounts for public servers: disabled accounts, the second factor, personal access
-- tokens, recovery codes and invitations. Secrets users hold are kept as SHA-256
-- hashes (see secrets.rs); the second factor's secret must be kept as it is, since
-- codes are computed from it.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'access_tokens'
ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_secret TEXT;
ALTER TABLE users ADD COLUMN totp_pending TEXT;
-- The last 30-second step whose code was accepted: no code of it or before is again.
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;

CREATE TABLE access_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER
);
CREATE INDEX access_tokens_user ON access_tokens (user_id, created_at);

CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   INTEGER,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

CREATE TABLE invites (
    code_hash  TEXT PRIMARY KEY,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_by    TEXT,
    used_at    INTEGER
);

-- The feed's total counts the public entries of authors who are neither private nor
-- disabled: the counters' triggers now read both flags.
DROP TRIGGER entries_counts_insert;
DROP TRIGGER entries_counts_delete;
DROP TRIGGER entries_counts_update;
DROP TRIGGER users_counts_privacy;
CREATE TRIGGER entries_counts_insert AFTER INSERT ON entries BEGIN
    UPDATE author_counts SET entries = entries + 1, public = public + new.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + 1
        WHERE new.is_public = 1
          AND (SELECT is_private OR disabled FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER entries_counts_delete AFTER DELETE ON entries BEGIN
    UPDATE author_counts SET entries = entries - 1, public = public - old.is_public
        WHERE author_id = old.author_id;
    UPDATE feed_count SET n = n - 1
        WHERE old.is_public = 1
          AND (SELECT is_private OR disabled FROM users WHERE id = old.author_id) = 0;
END;
CREATE TRIGGER entries_counts_update AFTER UPDATE OF is_public ON entries
    WHEN old.is_public <> new.is_public BEGIN
    UPDATE author_counts SET public = public + new.is_public - old.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + new.is_public - old.is_public
        WHERE (SELECT is_private OR disabled FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER users_counts_visibility AFTER UPDATE OF is_private, disabled ON users
    WHEN (old.is_private OR old.disabled) <> (new.is_private OR new.disabled) BEGIN
    UPDATE feed_count SET n = n + (CASE WHEN (new.is_private OR new.disabled) = 0 THEN 1 ELSE -1 END)
        * (SELECT public FROM author_counts WHERE author_id = new.id);
END;
