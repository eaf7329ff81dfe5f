-- A search's query without a call per word when it needs none.
--
-- journal_search_query (migration 9) folds each word of a search's expression as an
-- entry's words are folded (journal_fold) before it makes the query. It is a query of
-- its own, run once for each search a statement reads, and costs PostgreSQL more than
-- a light author's search itself (docs/PERFORMANCE.md). A word of ASCII letters and
-- digits folds to itself in lower case (unaccent changes no ASCII character, and lower
-- case is what to_tsquery's simple dictionary makes of a word anyway), so an
-- expression all in ASCII is made into its query as it is, with no query of its own.
-- Any other expression is folded word by word as before (journal_search_query_unicode). The
-- expression comes from search.rs only: quoted words of letters and digits, each
-- perhaps a prefix (`:*`), joined by ` & `.
ALTER FUNCTION journal_search_query(text) RENAME TO journal_search_query_unicode;

-- Not STRICT, so that PostgreSQL may inline it into the statement that calls it.
CREATE FUNCTION journal_search_query(expression text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN octet_length(expression) = char_length(expression)
                      THEN to_tsquery('simple', expression)
                      ELSE journal_search_query_unicode(expression) END $$;
