-- A paged ingest: the shared corpus changes in pages, each staged here, and
-- only the commit applies them, in one transaction with the new version. A
-- half-finished ingest changes nothing that /ask sees; re-running it resumes.
CREATE TABLE ingests (
  id TEXT PRIMARY KEY,             -- chosen by the client: a hash of what it sends
  base TEXT NOT NULL,              -- the corpus version the pages were diffed against
  vocabulary TEXT NOT NULL,        -- the vocabulary to commit (canonical JSON)
  created_at INTEGER NOT NULL      -- unix seconds; the cron drops abandoned ones
);

-- The pages that have landed: their documents (a document belongs to one
-- page) and what they change in the corpus digest.
CREATE TABLE ingest_pages (
  ingest TEXT NOT NULL,
  page INTEGER NOT NULL,
  docs TEXT NOT NULL,              -- JSON array of document stems
  delta TEXT NOT NULL,             -- the page's change to the corpus digest
  PRIMARY KEY (ingest, page)
);

-- Staged passages: one to write (hash set), or one to remove (hash NULL).
CREATE TABLE staged (
  ingest TEXT NOT NULL,
  page INTEGER NOT NULL,
  id TEXT NOT NULL,
  doc TEXT,
  section TEXT,
  text TEXT,
  hash TEXT,
  origin TEXT,
  terms TEXT,
  heading TEXT,                    -- the heading's index terms
  refs TEXT,                       -- JSON array: the keys its text refers to
  anchors TEXT,                    -- JSON array: the keys it answers to
  PRIMARY KEY (ingest, id)
);
CREATE INDEX staged_page ON staged (ingest, page);

-- How many shared passages hold each index term, kept by every commit, so a
-- lookup's IDF reads a row per term instead of counting matches. Trusted
-- only while meta.term_stats equals meta.corpus_version (a corpus committed
-- before this table existed is counted live until it is ingested afresh).
CREATE TABLE term_stats (
  term TEXT PRIMARY KEY,
  passages INTEGER NOT NULL
) WITHOUT ROWID;

-- A staged page's change to term_stats.
CREATE TABLE staged_terms (
  ingest TEXT NOT NULL,
  page INTEGER NOT NULL,
  term TEXT NOT NULL,
  delta INTEGER NOT NULL,
  PRIMARY KEY (ingest, page, term)
);

-- Explicit references between shared passages (src/corpus/references.rs):
-- what a passage refers to, and what each passage answers to. Retrieval
-- follows them one hop; a reference nothing answers to is kept and counted.
CREATE TABLE passage_refs (
  passage TEXT NOT NULL,
  target TEXT NOT NULL,
  PRIMARY KEY (passage, target)
) WITHOUT ROWID;
CREATE TABLE passage_anchors (
  anchor TEXT NOT NULL,
  passage TEXT NOT NULL,
  PRIMARY KEY (anchor, passage)
) WITHOUT ROWID;
CREATE INDEX passage_anchors_passage ON passage_anchors (passage);

-- The full-text index gains a `heading` column: a heading's terms leave
-- `terms` (the text's) for it, so BM25 can weigh them on their own
-- (HEADING_WEIGHT; 1 ranks as before). Rows indexed before keep their
-- heading in `terms` until the next ingest re-indexes them (the rules
-- version changed with this migration).
CREATE VIRTUAL TABLE passages_fts_headed USING fts5 (id UNINDEXED, scope, terms, heading, tokenize = 'unicode61');
INSERT INTO passages_fts_headed (id, scope, terms, heading) SELECT id, scope, terms, '' FROM passages_fts;
DROP TABLE passages_fts;
ALTER TABLE passages_fts_headed RENAME TO passages_fts;
