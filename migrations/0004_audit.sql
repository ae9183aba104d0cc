-- The append-only audit log: one row per /ask, hash-chained
-- (hash = SHA-256(prev_hash || body), body = canonical JSON of the record), so
-- any later edit or deletion is detectable. A row is appended in one atomic
-- INSERT (seq = the next integer), then sealed: prev_hash and hash are filled
-- in seq order, each only once, by whichever request seals first. Sealing is
-- deterministic, so concurrent sealers agree and the chain cannot fork.
CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,         -- 1, 2, 3, … without gaps
  body TEXT NOT NULL,
  prev_hash TEXT,                  -- NULL until sealed
  hash TEXT                        -- NULL until sealed
);
