-- New entries wait in the search index's pending list until it is merged into the
-- index proper, and every search scans that list from end to end. By default it
-- grows to 4 MB (hundreds of pages read per search, about 8 ms at 100,000 entries
-- right after a batch of writes); kept to 128 kB, an insert merges it sooner, for a
-- little more work per write.
ALTER INDEX entries_search SET (gin_pending_list_limit = 128);
