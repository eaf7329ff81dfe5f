-- Web sessions that last (issue 44): the refresh tokens the web app keeps in an
-- HttpOnly cookie, by their SHA-256. Each refresh marks its token used and adds the
-- next one of the same session; a used token presented again ends the whole session.
-- `access_jti` and `access_expires_at` name the login token the row's refresh issued,
-- revoked when the session ends.
-- applied when: SELECT 1 FROM sqlite_master WHERE name = 'session_tokens'
CREATE TABLE session_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    started_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    access_jti TEXT NOT NULL,
    access_expires_at INTEGER NOT NULL,
    used_at INTEGER
);
CREATE INDEX session_tokens_session ON session_tokens (session_id);
CREATE INDEX session_tokens_user ON session_tokens (user_id);
CREATE INDEX session_tokens_expires ON session_tokens (expires_at);
