-- A level's segments are merged all at once, inside the commit that makes it so, when
-- `crisismerge` of them pile up (16 by default). Migration 9 set `automerge`, the
-- count at which merging starts a little per commit, to 16 too, so every merge was
-- such a crisis merge, done in one commit that every queued write waited behind (at
-- the higher levels, the index's megabytes rewritten at once). With crisis merges at
-- 64, merging starts a little per commit at 16 as intended, and the writer's idle
-- merges (store/sqlite/fts_merge.rs) finish the rest.
-- applied when: SELECT 1 FROM entries_fts_config WHERE k = 'crisismerge' AND v = 64
INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', 64);
