-- Web sessions that last (issue 44): the refresh tokens the web app keeps in an
-- HttpOnly cookie, by their SHA-256. Each refresh marks its token used and adds the
-- next one of the same session; a used token presented again ends the whole session.
-- `access_jti` and `access_expires_at` name the login token the row's refresh issued,
-- revoked when the session ends.
CREATE TABLE session_tokens (
    token_hash text PRIMARY KEY,
    session_id uuid NOT NULL,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    started_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    access_jti text NOT NULL,
    access_expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX session_tokens_session ON session_tokens (session_id);
CREATE INDEX session_tokens_user ON session_tokens (user_id);
CREATE INDEX session_tokens_expires ON session_tokens (expires_at);
