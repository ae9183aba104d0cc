-- The request each audit row records (NULL for roll-ups and operators'
-- actions), so an asker can fetch the hash that proves their answer was
-- logged (GET /audit/{requestId}, the evidence report).
ALTER TABLE audit_log ADD COLUMN request_id TEXT;
CREATE INDEX audit_log_request ON audit_log (request_id);
