-- An import skips an entry its author has already: the same trimmed title and content
-- dated in the same minute. That was checked against each entry of the minute in
-- turn, so re-importing thousands of entries of one minute took time in their square
-- (5,000 took seconds of the writer, 100,000 would hold it for half an hour). Now one
-- index probe finds the entry by a key of its text; the text is still compared.
--
-- The key is a column the store writes with the row (`import_batch::same_text_key`),
-- not an index on `journal_same_text(title, content)`: SQLite evaluates an index's
-- expression when it rebuilds the index, so `VACUUM` and `VACUUM INTO` (the backup
-- OPERATIONS.md gives) would fail in the `sqlite3` shell, which lacks the function.
-- The function is for filling the column here. A row written by hand has no key, and
-- is not found by an import.
-- applied when: SELECT 1 FROM pragma_table_info('entries') WHERE name = 'same_text'
ALTER TABLE entries ADD COLUMN same_text INTEGER;
UPDATE entries SET same_text = journal_same_text(title, content);
CREATE INDEX entries_same_text ON entries (author_id, same_text, date);
