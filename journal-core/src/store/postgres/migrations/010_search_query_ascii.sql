-- A search's query without a query of its own when it needs none.
--
-- journal_search_query (migration 9) folds each word of a search's expression as an
-- entry's words are folded (journal_fold) before it makes the query. It is a query of
-- its own, run once for each search a statement reads, and cost PostgreSQL more than a
-- light author's search itself (docs/PERFORMANCE.md). The expression comes from
-- search.rs only: quoted words of lower-case letters and digits, each perhaps a prefix
-- (`:*`), joined by ` & `. A word of ASCII lower-case letters and digits folds to
-- itself (unaccent changes no ASCII character, journal_fold keeps letters and digits),
-- so an expression of only those characters is made into its query as it is. The
-- characters are spelled out rather than tested by bytes per character (which tells
-- ASCII only in a UTF-8 database) or by ranges (which some regex engines read by
-- collation). Any other expression is folded word by word as before
-- (journal_search_query_unicode).
ALTER FUNCTION journal_search_query(text) RENAME TO journal_search_query_unicode;

-- Not STRICT, so that PostgreSQL may inline it into the statement that calls it.
CREATE FUNCTION journal_search_query(expression text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN expression ~ '^[abcdefghijklmnopqrstuvwxyz0123456789'':*& ]*$'
                      THEN to_tsquery('simple', expression)
                      ELSE journal_search_query_unicode(expression) END $$;
