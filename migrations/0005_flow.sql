-- Per-client spend: each client's reserved and spent neurons per UTC day, so no
-- single client can reserve past its share of the day's cap (DAILY_CLIENT_SHARE).
CREATE TABLE spend_clients (
  day TEXT NOT NULL,
  client_key TEXT NOT NULL,        -- HMAC of the client's network, as in rate_limits
  reserved REAL NOT NULL DEFAULT 0,
  spent REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (day, client_key)
);

-- Which client a reservation belongs to (NULL for the admin token), and what a
-- ledger line is: a request's reservation, or spending recorded as it
-- happened (ingest embeddings).
ALTER TABLE spend_charges ADD COLUMN client_key TEXT;
ALTER TABLE spend_charges ADD COLUMN kind TEXT NOT NULL DEFAULT 'request';

-- Requests refused before admission (bad input, Turnstile, the rate limit) are
-- counted here, one row per window and error code, and rolled into one audit
-- row per window by the cron once the window has ended: a flood grows a
-- counter, not the log.
CREATE TABLE audit_rejected (
  window_start INTEGER NOT NULL,   -- unix seconds
  code TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (window_start, code)
);

-- When a row was appended (unix ms), for the retention window.
ALTER TABLE audit_log ADD COLUMN created_at INTEGER;

-- Rows older than the retention window are pruned by the cron; this single row
-- keeps the last pruned row's seq and hash, so the rest still verifies from it.
CREATE TABLE audit_checkpoint (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);

-- A pinned answer keeps the question it answers and the build that made it,
-- so the cron can ask it again after a deploy changes the answering rules.
ALTER TABLE answer_cache ADD COLUMN question TEXT;
ALTER TABLE answer_cache ADD COLUMN build TEXT;
