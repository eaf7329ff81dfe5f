-- List totals kept by triggers, so `X-Total-Count` is a key lookup instead of a
-- `count(*)` over the list. One row per author: concurrent writers on several servers
-- queue only behind writes by the same author. The public feed's total is summed from
-- these rows at read time (one row per user, not per entry) rather than kept in one
-- global row that every public write in the cluster would queue on.
-- Writers of an older server would otherwise slip past the backfill below.
LOCK TABLE entries IN SHARE MODE;
CREATE TABLE author_counts (
    author_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    entries   bigint NOT NULL DEFAULT 0,
    public    bigint NOT NULL DEFAULT 0
);
INSERT INTO author_counts (author_id, entries, public)
    SELECT u.id, count(e.id), count(e.id) FILTER (WHERE e.is_public)
    FROM users u LEFT JOIN entries e ON e.author_id = u.id GROUP BY u.id;

CREATE FUNCTION journal_count_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO author_counts (author_id) VALUES (NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER users_counts AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION journal_count_user();

CREATE FUNCTION journal_count_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE author_counts
            SET entries = entries + 1, public = public + NEW.is_public::int
            WHERE author_id = NEW.author_id;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE author_counts
            SET entries = entries - 1, public = public - OLD.is_public::int
            WHERE author_id = OLD.author_id;
    ELSE
        UPDATE author_counts
            SET public = public + NEW.is_public::int - OLD.is_public::int
            WHERE author_id = NEW.author_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_counts AFTER INSERT OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION journal_count_entry();
CREATE TRIGGER entries_counts_public AFTER UPDATE OF is_public ON entries
    FOR EACH ROW WHEN (OLD.is_public IS DISTINCT FROM NEW.is_public)
    EXECUTE FUNCTION journal_count_entry();
