-- The security log each user reads (GET /api/user/security-events): logins, throttled
-- attempts, second factor, access tokens, password and e-mail changes. Never a secret.
-- `seq` orders events written at the same instant.
CREATE TABLE security_events (
    seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          text NOT NULL,
    at            timestamptz NOT NULL,
    first_at      timestamptz NOT NULL,
    count         integer NOT NULL DEFAULT 1,
    address       inet,
    second_factor text,
    detail        text
);
-- A user's list, newest first, and the per-user bound.
CREATE INDEX security_events_user_at ON security_events (user_id, at DESC, seq DESC);
-- Pruning what is past the retention, oldest first, whoever it belongs to.
CREATE INDEX security_events_at ON security_events (at);
