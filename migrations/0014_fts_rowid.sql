-- Each full-text row takes its passage's rowid, so a writer removes a
-- passage's index row by rowid, the index's key, rather than by the
-- unindexed `id` column, which read the whole index on every re-upload.
CREATE VIRTUAL TABLE passages_fts_keyed USING fts5 (id UNINDEXED, scope, terms, heading, tokenize = 'unicode61');
INSERT INTO passages_fts_keyed (rowid, id, scope, terms, heading)
  SELECT p.rowid, f.id, f.scope, f.terms, f.heading FROM passages_fts f JOIN passages p ON p.id = f.id;
DROP TABLE passages_fts;
ALTER TABLE passages_fts_keyed RENAME TO passages_fts;
