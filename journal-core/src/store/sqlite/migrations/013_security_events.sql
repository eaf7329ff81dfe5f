-- The security log each user reads (GET /api/user/security-events): logins, throttled
-- attempts, second factor, access tokens, password and e-mail changes. Never a secret.
-- Times are milliseconds since the epoch, as elsewhere; `seq` orders events written in
-- the same millisecond.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'security_events'
CREATE TABLE security_events (
    seq           INTEGER PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    at            INTEGER NOT NULL,
    first_at      INTEGER NOT NULL,
    count         INTEGER NOT NULL DEFAULT 1,
    address       TEXT,
    second_factor TEXT,
    detail        TEXT
);
-- A user's list, newest first, and the per-user bound.
CREATE INDEX security_events_user_at ON security_events (user_id, at DESC, seq DESC);
-- Pruning what is past the retention, oldest first, whoever it belongs to.
CREATE INDEX security_events_at ON security_events (at);
