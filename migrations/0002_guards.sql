-- Rate-limit windows: one row per (client, window), counted by one atomic
-- upsert. client_key is HMAC-SHA256(IP_HASH_KEY, IP): raw IPs are never stored.
CREATE TABLE rate_limits (
  client_key TEXT NOT NULL,
  window_start INTEGER NOT NULL,   -- unix seconds
  count INTEGER NOT NULL,
  PRIMARY KEY (client_key, window_start)
);

-- The durable tier of the answer cache (the Cache API is the fast tier).
-- Pinned rows (written by the warm-cache script) never expire.
CREATE TABLE answer_cache (
  key TEXT PRIMARY KEY,            -- SHA-256(question, corpus version, config)
  status TEXT NOT NULL,            -- answered | refused
  response TEXT NOT NULL,          -- the AskResponse JSON
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  pinned INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX answer_cache_expiry ON answer_cache (expires_at) WHERE pinned = 0;
