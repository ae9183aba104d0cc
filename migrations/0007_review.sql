-- Where each passage came from: the ingested corpus, a workspace upload, or an
-- answer an operator approved in the review inbox (shown with its own badge,
-- and never removed by a re-ingest of the corpus).
ALTER TABLE passages ADD COLUMN origin TEXT NOT NULL DEFAULT 'corpus';
UPDATE passages SET origin = 'upload' WHERE workspace IS NOT NULL;

-- The review inbox (REVIEW_INBOX = "on"): refused questions, one row per
-- question (normalized) and workspace, counted. The one place question text
-- is stored; rows untouched for REVIEW_RETENTION_DAYS are pruned by the cron.
CREATE TABLE review_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  question_key TEXT NOT NULL,      -- SHA-256 of the normalized question and the workspace
  question TEXT NOT NULL,
  workspace TEXT,                  -- NULL: asked of the shared corpus
  reason TEXT NOT NULL,
  evidence TEXT NOT NULL,          -- JSON: the passages retrieved the last time it was refused
  count INTEGER NOT NULL DEFAULT 1,
  first_at INTEGER NOT NULL,       -- unix seconds
  last_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',   -- open | approved | dismissed
  passage_id TEXT,                 -- the operator passage, once approved
  UNIQUE (question_key)
);
CREATE INDEX review_queue_status ON review_queue (status, last_at);
