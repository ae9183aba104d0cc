-- The newest time (unix ms) of the audit rows pruned so far, so a request id
-- (which carries the time it was issued) whose row was pruned answers
-- 410 audit_pruned rather than 404.
ALTER TABLE audit_checkpoint ADD COLUMN pruned_through INTEGER;
