-- An import skips an entry its author has already: the same trimmed title and content
-- dated in the same minute. That was checked against each entry of the minute in
-- turn, so re-importing thousands of entries of one minute took time in their square
-- (5,000 took seconds of the writer, 100,000 would hold it for half an hour). Now one
-- index probe finds the entry by a key of its text (`journal_same_text`, registered
-- on every connection like `journal_terms`); the text is still compared.
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_same_text'
CREATE INDEX entries_same_text ON entries (author_id, journal_same_text(title, content), date);
