-- Search finds text in scripts written without spaces, and an entry's tags.
--
-- Chinese, Japanese, Thai (and Hangul) runs had no word boundaries to index by: a
-- whole sentence was one lexeme, so no word inside it was ever found. The rule is
-- journal-core's (domain/search.rs, index_words), written here in SQL: a run of the
-- characters in the bracket expression below (domain::run_class, which a test checks
-- this file holds) is indexed as its overlapping pairs of characters and its last
-- character alone, at consecutive positions, so that a search for a run, the phrase of
-- its pairs (search.rs), matches where they follow each other. Only a text's first
-- 15,000 such characters are (domain::MAX_RUN_CHARS_INDEXED): positions stop at 16,383.
-- Latin words are indexed as before, from the text with the runs taken out; for text
-- without runs the vector is the same as before. The tags are indexed too, weighted as
-- the title.
--
-- Each run's pairs are two passes of '..?' over it: from its first character they are
-- the pairs at odd positions (and a lone last character), from its second those at even
-- ones; `off` is where the run starts among the text's run characters. Twice as fast as
-- a row per character with the next one beside it.
--
-- The pairs are made in their own vector, from the text as written: the characters of
-- the table have no case and no accents that unaccent removes (〇, which it turns into
-- 0, is left out of the table), and journal_fold would split a run at a Thai tone mark,
-- which the table keeps. A lexeme is written as a tsvector literal rather than parsed,
-- for the same reason; the table holds no quote, backslash or space.
CREATE FUNCTION journal_run_vector(body text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT CASE WHEN body !~ '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]' THEN ''::tsvector ELSE (
              SELECT coalesce(string_agg(
                         '''' || CASE WHEN off + at < 15000 THEN p[1] ELSE left(p[1], 1) END
                         || ''':' || (off + at), ' '), '')::tsvector
              FROM (SELECT left(m[1], 15000) AS r,
                           coalesce(sum(length(left(m[1], 15000))) OVER (
                               ORDER BY run ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS off
                    FROM regexp_matches(body, '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]+', 'g') WITH ORDINALITY AS x(m, run)) runs,
                   LATERAL (SELECT p, 2 * k - 1 AS at
                            FROM regexp_matches(r, '..?', 'g') WITH ORDINALITY AS e(p, k)
                            UNION ALL
                            SELECT p, 2 * k
                            FROM regexp_matches(substr(r, 2), '..?', 'g') WITH ORDINALITY AS o(p, k)) pairs
              WHERE off + at <= 15000) END $$;

-- The text's words as journal_fold splits them, without the runs.
CREATE FUNCTION journal_fold_words(body text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT regexp_replace(journal_fold(body), '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]+', ' ', 'g') $$;

-- The tags as one text. array_to_string is only STABLE (it could call an element
-- type's output function that is); for text[] it depends on nothing but its input.
CREATE FUNCTION journal_tags_text(tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT array_to_string(tags, ' ') $$;

-- The pairs first, so that their positions stay below 16,383 whatever the length of
-- the text; for text without runs they are empty, and the words' positions are what
-- they were.
ALTER TABLE entries DROP COLUMN search;
ALTER TABLE entries ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(journal_run_vector(title), 'A') ||
    setweight(journal_run_vector(journal_tags_text(tags)), 'A') ||
    setweight(journal_run_vector(content), 'B') ||
    setweight(to_tsvector('simple', journal_fold_words(title)), 'A') ||
    setweight(to_tsvector('simple', journal_fold_words(content)), 'B') ||
    setweight(to_tsvector('simple', journal_fold_words(journal_tags_text(tags))), 'A')
) STORED;
-- Dropped with the column: as migration 9 made it.
CREATE INDEX entries_search_by_author ON entries
    USING gin (journal_scoped_words(author_id, search))
    WITH (gin_pending_list_limit = 128);

-- A search's expression (search.rs) may now hold runs: a term of pairs, a phrase
-- ('東京' <-> '京の'), or one character as a prefix ('朝':*). Those terms are made
-- into the query as they are (the pairs are indexed as written); the other words are
-- folded as before (journal_search_query_words, migration 9's function). The terms
-- are joined by ' & ', which no word holds.
ALTER FUNCTION journal_search_query_unicode(text) RENAME TO journal_search_query_words;
CREATE FUNCTION journal_search_query_unicode(expression text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT CASE
                 WHEN expression !~ '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]' THEN journal_search_query_words(expression)
                 WHEN words = '' THEN runs::tsquery
                 ELSE journal_search_query_words(words) && runs::tsquery END
          FROM (SELECT coalesce(string_agg(t, ' & ' ORDER BY n) FILTER (WHERE t !~ '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]'), '') AS words,
                       coalesce(string_agg(t, ' & ' ORDER BY n) FILTER (WHERE t ~ '[\u0E01-\u0E3A\u0E40-\u0E4E\u0E50-\u0E59\u0E81-\u0ECE\u0ED0-\u0ED9\u0EDC-\u0EDF\u1000-\u1049\u1050-\u109F\u1780-\u17D3\u17DC-\u17DD\u17E0-\u17E9\u3005-\u3006\u3041-\u3096\u3099-\u309F\u30A1-\u30FA\u30FC-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7A3\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003FFFD]'), '') AS runs
                FROM regexp_split_to_table(expression, ' & ') WITH ORDINALITY AS s(t, n)) terms $$;
