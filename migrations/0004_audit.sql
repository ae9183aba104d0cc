-- The append-only audit log: one row per /ask, hash-chained
-- (hash = SHA-256(prev_hash || body), body = canonical JSON of the record), so
-- any later edit or deletion is detectable. Appends are guarded on the tail, so
-- concurrent requests cannot fork the chain.
CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,         -- 1, 2, 3, … without gaps
  body TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
