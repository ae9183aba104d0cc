-- Workspaces: a visitor's own documents, reached with the workspace's secret
-- (only its SHA-256 is stored), deleted by the cron once expired.
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,             -- 16 hex digits
  secret_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,     -- unix seconds
  expires_at INTEGER NOT NULL,
  version TEXT NOT NULL DEFAULT 'empty'
);
CREATE INDEX workspaces_expiry ON workspaces (expires_at);

-- Workspaces created per client (keyed hash) per UTC day, for
-- WORKSPACES_PER_CLIENT_PER_DAY: one conditional upsert counts and decides.
CREATE TABLE workspace_creations (
  client_key TEXT NOT NULL,
  day TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (client_key, day)
);

-- Every passage belongs to the shared corpus (NULL) or to one workspace.
ALTER TABLE passages ADD COLUMN workspace TEXT;
CREATE INDEX passages_workspace ON passages (workspace);

-- The full-text index gains a `scope` column: `shared`, or `w` and the
-- workspace id. Every match is restricted to the request's scope tokens, so
-- one workspace's passages never rank, or count, in another's lookups.
CREATE VIRTUAL TABLE passages_fts_scoped USING fts5 (id UNINDEXED, scope, terms, tokenize = 'unicode61');
INSERT INTO passages_fts_scoped (id, scope, terms) SELECT id, 'shared', terms FROM passages_fts;
DROP TABLE passages_fts;
ALTER TABLE passages_fts_scoped RENAME TO passages_fts;
