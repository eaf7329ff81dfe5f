-- An import skips an entry its author has already: the same trimmed title and content
-- dated in the same minute. That was checked against each entry of the minute in
-- turn, so re-importing thousands of entries of one minute took time in their square.
-- Now one index probe finds the entry by a key of its text; the text is still
-- compared. The title's length comes first, so no title and content run together like
-- another's. Declared IMMUTABLE for the index: `convert_to` into UTF-8 is only STABLE
-- in general, but gives the same bytes for the same text in one database.
CREATE FUNCTION journal_same_text(title text, content text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT substr(sha256(convert_to(
        length(btrim(title, E' \t\r\n'))::text || ':' || btrim(title, E' \t\r\n')
            || btrim(content, E' \t\r\n'),
        'UTF8')), 1, 8)
$$;
CREATE INDEX entries_same_text ON entries (author_id, journal_same_text(title, content), date);
