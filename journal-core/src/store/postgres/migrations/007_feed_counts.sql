-- The public feed's total, kept by triggers instead of summed from every author's count
-- on each request (a sum over all users per feed page). Sixteen rows, an author's
-- writes going to the row of their id's hash: servers writing at once for different
-- authors rarely queue on the same row, and reading the total is a sum of sixteen.
-- Writers of an older server would otherwise slip past the backfill below.
LOCK TABLE entries IN SHARE MODE;
LOCK TABLE users IN SHARE MODE;
CREATE TABLE feed_counts (
    shard integer PRIMARY KEY,
    n     bigint NOT NULL DEFAULT 0
);
INSERT INTO feed_counts (shard, n)
    SELECT s, coalesce((
        SELECT sum(a.public) FROM author_counts a JOIN users u ON u.id = a.author_id
        WHERE NOT u.is_private AND NOT u.disabled AND (hashtext(a.author_id::text) & 15) = s
    ), 0)
    FROM generate_series(0, 15) s;

-- Whether an author's public entries are in the feed.
CREATE FUNCTION journal_author_listed(author uuid) RETURNS boolean
    LANGUAGE sql STABLE AS $$
    SELECT NOT (is_private OR disabled) FROM users WHERE id = author
$$;

CREATE FUNCTION journal_feed_count_entry() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta integer;
    author uuid;
BEGIN
    IF TG_OP = 'INSERT' THEN
        delta := NEW.is_public::int; author := NEW.author_id;
    ELSIF TG_OP = 'DELETE' THEN
        delta := -OLD.is_public::int; author := OLD.author_id;
    ELSE
        delta := NEW.is_public::int - OLD.is_public::int; author := NEW.author_id;
    END IF;
    IF delta <> 0 AND coalesce(journal_author_listed(author), false) THEN
        UPDATE feed_counts SET n = n + delta WHERE shard = hashtext(author::text) & 15;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_feed_count AFTER INSERT OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION journal_feed_count_entry();
CREATE TRIGGER entries_feed_count_public AFTER UPDATE OF is_public ON entries
    FOR EACH ROW WHEN (OLD.is_public IS DISTINCT FROM NEW.is_public)
    EXECUTE FUNCTION journal_feed_count_entry();

-- An author going private or disabled takes their public entries out, and back.
CREATE FUNCTION journal_feed_count_user() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta bigint;
BEGIN
    SELECT public INTO delta FROM author_counts WHERE author_id = NEW.id;
    IF (NEW.is_private OR NEW.disabled) THEN
        delta := -delta;
    END IF;
    UPDATE feed_counts SET n = n + coalesce(delta, 0) WHERE shard = hashtext(NEW.id::text) & 15;
    RETURN NULL;
END $$;
CREATE TRIGGER users_feed_count AFTER UPDATE OF is_private, disabled ON users
    FOR EACH ROW WHEN ((OLD.is_private OR OLD.disabled) IS DISTINCT FROM (NEW.is_private OR NEW.disabled))
    EXECUTE FUNCTION journal_feed_count_user();

-- A deleted author's public entries leave with them. Counted before the row goes: the
-- entries deleted by the cascade then find no author and change nothing, and entries
-- deleted first have already taken their part out.
CREATE FUNCTION journal_feed_count_user_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT (OLD.is_private OR OLD.disabled) THEN
        UPDATE feed_counts SET n = n - coalesce((SELECT public FROM author_counts WHERE author_id = OLD.id), 0)
            WHERE shard = hashtext(OLD.id::text) & 15;
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER users_feed_count_deleted BEFORE DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION journal_feed_count_user_deleted();
