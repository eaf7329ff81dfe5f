-- Accounts for public servers: disabled accounts, the second factor, personal access
-- tokens, recovery codes and invitations. Secrets users hold are kept as SHA-256
-- hashes (see secrets.rs); the second factor's secret must be kept as it is, since
-- codes are computed from it.
ALTER TABLE users ADD COLUMN disabled boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_pending text;
-- The last 30-second step whose code was accepted: no code of it or before is again.
ALTER TABLE users ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;

CREATE TABLE access_tokens (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    token_hash   text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX access_tokens_user ON access_tokens (user_id, created_at);

CREATE TABLE recovery_codes (
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash text NOT NULL,
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE invites (
    code_hash  text PRIMARY KEY,
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_by    uuid,
    used_at    timestamptz
);
