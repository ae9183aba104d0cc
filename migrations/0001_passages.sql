-- Passages are the source of truth for text. The full-text index holds the
-- normalized terms that the Rust tokenizer produced (src/text.rs), so FTS5 and
-- the pipeline agree on what a word is; FTS5 itself only splits on spaces.
CREATE TABLE passages (
  id TEXT PRIMARY KEY,          -- {doc-stem}-{NN}
  doc TEXT NOT NULL,
  section TEXT NOT NULL,
  text TEXT NOT NULL,
  hash TEXT NOT NULL            -- SHA-256 of id, doc, section and text
);

CREATE INDEX passages_doc ON passages (doc);

-- Standalone FTS5 table, written by the ingest route in the same batch as
-- passages (no triggers: one writer, one transaction).
CREATE VIRTUAL TABLE passages_fts USING fts5 (id UNINDEXED, terms, tokenize = 'unicode61');

-- Small key/value settings: corpus_version.
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
