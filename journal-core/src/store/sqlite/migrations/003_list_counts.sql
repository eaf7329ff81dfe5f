-- List totals kept by triggers, so `X-Total-Count` is a key lookup instead of a
-- `count(*)` over the list (which made deep pages cost as much as a scan). Every
-- write goes through the one writer connection, so plain counters stay exact.
-- applied when: SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'author_counts'
CREATE TABLE author_counts (
    author_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    entries   INTEGER NOT NULL DEFAULT 0,
    public    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- Public entries of authors whose profile is not private: the public feed's total.
CREATE TABLE feed_count (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    n  INTEGER NOT NULL
);
INSERT INTO author_counts (author_id, entries, public)
    SELECT u.id, count(e.seq), coalesce(sum(e.is_public), 0)
    FROM users u LEFT JOIN entries e ON e.author_id = u.id GROUP BY u.id;
INSERT INTO feed_count (id, n)
    SELECT 0, count(*) FROM entries e JOIN users u ON u.id = e.author_id
    WHERE e.is_public = 1 AND u.is_private = 0;

CREATE TRIGGER users_counts_insert AFTER INSERT ON users BEGIN
    INSERT INTO author_counts (author_id) VALUES (new.id);
END;
CREATE TRIGGER entries_counts_insert AFTER INSERT ON entries BEGIN
    UPDATE author_counts SET entries = entries + 1, public = public + new.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + 1
        WHERE new.is_public = 1
          AND (SELECT is_private FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER entries_counts_delete AFTER DELETE ON entries BEGIN
    UPDATE author_counts SET entries = entries - 1, public = public - old.is_public
        WHERE author_id = old.author_id;
    UPDATE feed_count SET n = n - 1
        WHERE old.is_public = 1
          AND (SELECT is_private FROM users WHERE id = old.author_id) = 0;
END;
CREATE TRIGGER entries_counts_update AFTER UPDATE OF is_public ON entries
    WHEN old.is_public <> new.is_public BEGIN
    UPDATE author_counts SET public = public + new.is_public - old.is_public
        WHERE author_id = new.author_id;
    UPDATE feed_count SET n = n + new.is_public - old.is_public
        WHERE (SELECT is_private FROM users WHERE id = new.author_id) = 0;
END;
CREATE TRIGGER users_counts_privacy AFTER UPDATE OF is_private ON users
    WHEN old.is_private <> new.is_private BEGIN
    UPDATE feed_count SET n = n + (CASE WHEN new.is_private = 0 THEN 1 ELSE -1 END)
        * (SELECT public FROM author_counts WHERE author_id = new.id);
END;
