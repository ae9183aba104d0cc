-- The daily spend ledger (neurons). A reservation is one conditional UPDATE that
-- succeeds only if reserved + spent + amount <= cap; settling moves a request's
-- reservation to its actual charge, once, keyed by request id.
CREATE TABLE spend_days (
  day TEXT PRIMARY KEY,            -- UTC, YYYY-MM-DD
  reserved REAL NOT NULL DEFAULT 0,
  spent REAL NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE spend_charges (
  request_id TEXT PRIMARY KEY,
  day TEXT NOT NULL,
  reserved REAL NOT NULL,
  charged REAL,                    -- NULL until settled
  settled_at INTEGER
);
