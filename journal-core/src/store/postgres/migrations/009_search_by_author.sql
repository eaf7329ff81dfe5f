-- Searches find an author's matches in the index directly.
--
-- Every search is within one author's entries. The index of words alone could only
-- find every author's matches of a word and leave the author's to be told apart
-- from them: for an author with a few entries PostgreSQL read all of them and matched
-- each, for one with tens of thousands it intersected the word's matches with the
-- author's entries, both growing with the table. Here each of an entry's words is
-- also indexed as its author's scope (the last 8 hex digits of the author's id, which
-- are random) followed by the word, so a search's words, scoped the same way, find
-- only that author's matches, and a prefix only expands over that author's words
-- (as SQLite's author-scoped terms do, see its migration 8).
--
-- Two authors may share a scope: the queries check the author as well, so sharing
-- costs a little reading, never a wrong answer. The generated `search` column stays
-- as it was, for ranking, which needs the words' positions and weights.
--
-- The index's functions (journal_scoped_words, and journal_scoped_query, which must
-- match it) call only PostgreSQL's own functions, never the journal's: VACUUM, ANALYZE,
-- autovacuum and restores compute an index's expression with no schema but pg_catalog
-- on the search path.

-- An entry's words, each after its author's scope (positions are not kept, so the
-- queries also match `search` itself, which has them: a phrase, as in a word the
-- parser splits, must match as a phrase). A word is cut to its first 500 characters:
-- a lexeme holds at most 2,047 bytes, and the scope must fit before the longest word
-- `search` keeps; a search's words are at most 64 characters, so a cut word is still
-- found by its beginning.
CREATE FUNCTION journal_scoped_words(author uuid, search tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT array_to_tsvector(ARRAY(
              SELECT DISTINCT right(author::text, 8) || left(word, 500)
              FROM unnest(tsvector_to_array(search)) AS word)) $$;

-- A search's query with each word after the author's scope. The words of a query
-- (journal_search_query), like those of an entry (journal_fold), hold only letters and
-- digits, so every quoted run in the query's text is one word. The index keeps no positions, and a phrase
-- never matches words without them: a phrase (from a word the parser splits, like
-- H₂O) is looked up as all of its words here, and the queries match it as a phrase in
-- `search` itself.
CREATE FUNCTION journal_scoped_query(author uuid, query tsquery) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT regexp_replace(
                     regexp_replace(query::text, '<(-|[0-9]+)>', '&', 'g'),
                     '''([^'']*)''', '''' || right(author::text, 8) || '\1''', 'g')::tsquery $$;

-- A search's expression (`search.rs`: quoted words, each perhaps a prefix `:*`, joined
-- by ` & `) as a query, each word folded as an entry's words are (journal_fold) after
-- it is taken out of its quotes: unaccent turns a few letters into punctuation (ʼ into
-- an apostrophe), which inside the quotes was a syntax error.
CREATE FUNCTION journal_search_query(expression text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT to_tsquery('simple', coalesce(string_agg(
                     '''' || journal_fold(m[1]) || '''' || coalesce(m[2], ''), ' & ' ORDER BY n), ''))
          FROM regexp_matches(expression, '''([^'']*)''(:\*)?', 'g') WITH ORDINALITY AS r(m, n) $$;

-- As migration 8 set for the index it replaces: a short pending list, read by every
-- search.
CREATE INDEX entries_search_by_author ON entries
    USING gin (journal_scoped_words(author_id, search))
    WITH (gin_pending_list_limit = 128);

-- Nothing searches every author's entries at once.
DROP INDEX entries_search;
