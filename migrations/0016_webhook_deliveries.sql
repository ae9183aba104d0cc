-- Escalations sent to the operator's webhook (ESCALATION_WEBHOOK_URL): one
-- row per event, keyed by what makes the event itself, so each is sent once.
-- A delivery that fails waits here for the cron, which tries it again with
-- backoff until ESCALATION_MAX_ATTEMPTS; rows are dropped after 7 days.
CREATE TABLE webhook_deliveries (
  key TEXT PRIMARY KEY,            -- SHA-256 of the event's identity (escalation::Escalation::key)
  id TEXT NOT NULL UNIQUE,         -- the delivery id a receiver sees: random, the same on every attempt
  type TEXT NOT NULL,              -- review.item | spend.alarm | audit.broken | ingest.failed
  body TEXT NOT NULL,              -- as first sent; each attempt signs it afresh
  created_at INTEGER NOT NULL,     -- unix seconds
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,        -- when the cron may try it again
  delivered_at INTEGER,
  last_error TEXT                  -- an HTTP status or "timeout", never a response body
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE delivered_at IS NULL;
