-- Another user's view of an author reads only public entries, so its index now holds
-- only them, as PostgreSQL's always has. Keyed by (author, is_public, date), it held
-- every entry, and each new entry, private or not, wrote a leaf of it: about as many
-- pages per create as the author's own index (docs/PERFORMANCE.md). Its queries say
-- `is_public = 1` as a literal (store/list_query.rs), which is what lets SQLite use a
-- partial index.
-- applied when: SELECT 1 FROM sqlite_schema WHERE name = 'entries_author_public_date' AND sql LIKE '%WHERE is_public = 1'
DROP INDEX entries_author_public_date;
CREATE INDEX entries_author_public_date ON entries (author_id, date DESC, id DESC) WHERE is_public = 1;
