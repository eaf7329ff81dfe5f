-- The search index merges its segments when 16, not 4, share a level: commits rewrite
-- older segments four times less often, and the writer merges the rest when idle
-- (store/sqlite/fts_merge.rs). The setting is kept in the index's own config table.
-- applied when: SELECT 1 FROM entries_fts_config WHERE k = 'automerge' AND v = 16
INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 16);
