-- When the newest token was issued for each user. A password change sets its time
-- after this, so that no token issued against the old password (by a login that read
-- the old hash before the change committed) can be newer than the change.
-- applied when: SELECT 1 FROM pragma_table_info('users') WHERE name = 'last_token_at'
ALTER TABLE users ADD COLUMN last_token_at INTEGER NOT NULL DEFAULT 0;
