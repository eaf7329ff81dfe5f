-- The public feed's total without summing every author per request, and without a
-- row that every public write would queue on. A change to the feed's length appends
-- a row to feed_total_deltas (appends never wait on each other); the servers fold
-- the deltas into the one feed_total row now and then (store/postgres/feed_total.rs).
-- A read adds the total and the deltas not yet folded, in one snapshot: exact.
-- Writers of an older server would otherwise slip past the backfill below.
LOCK TABLE entries, users IN SHARE MODE;
CREATE TABLE feed_total (
    one   boolean PRIMARY KEY DEFAULT true CHECK (one),
    total bigint NOT NULL
);
CREATE TABLE feed_total_deltas (delta bigint NOT NULL);
INSERT INTO feed_total (total)
    SELECT coalesce(sum(a.public), 0)
    FROM author_counts a JOIN users u ON u.id = a.author_id
    WHERE NOT u.is_private AND NOT u.disabled;

-- The per-author counts as before, and a delta when the entry is in the feed. The
-- author's count row is locked (by its UPDATE) before the author's visibility is
-- read, and a change of visibility locks the same row before it reads the count:
-- whichever commits first, the other sees it, so the two never count an entry twice
-- or not at all.
CREATE OR REPLACE FUNCTION journal_count_entry() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    change bigint;
    author uuid;
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE author_counts
            SET entries = entries + 1, public = public + NEW.is_public::int
            WHERE author_id = NEW.author_id;
        change := NEW.is_public::int;
        author := NEW.author_id;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE author_counts
            SET entries = entries - 1, public = public - OLD.is_public::int
            WHERE author_id = OLD.author_id;
        change := -OLD.is_public::int;
        author := OLD.author_id;
    ELSE
        UPDATE author_counts
            SET public = public + NEW.is_public::int - OLD.is_public::int
            WHERE author_id = NEW.author_id;
        change := NEW.is_public::int - OLD.is_public::int;
        author := NEW.author_id;
    END IF;
    -- An author being deleted is already gone here: their BEFORE DELETE counted it.
    IF change <> 0 AND EXISTS (
        SELECT 1 FROM users
        WHERE id = author AND NOT is_private AND NOT disabled
    ) THEN
        INSERT INTO feed_total_deltas (delta) VALUES (change);
    END IF;
    RETURN NULL;
END $$;

-- An author made private or disabled takes their public entries out of the feed;
-- made public or enabled again, puts them back; deleted, takes them out.
CREATE FUNCTION journal_feed_author() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was boolean := NOT OLD.is_private AND NOT OLD.disabled;
    now_in boolean := false;
    public bigint;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        now_in := NOT NEW.is_private AND NOT NEW.disabled;
    END IF;
    IF was IS DISTINCT FROM now_in THEN
        SELECT a.public INTO public FROM author_counts a WHERE a.author_id = OLD.id FOR UPDATE;
        IF coalesce(public, 0) <> 0 THEN
            INSERT INTO feed_total_deltas (delta)
                VALUES (CASE WHEN now_in THEN public ELSE -public END);
        END IF;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER users_feed_visibility BEFORE UPDATE OF is_private, disabled ON users
    FOR EACH ROW EXECUTE FUNCTION journal_feed_author();
CREATE TRIGGER users_feed_delete BEFORE DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION journal_feed_author();
