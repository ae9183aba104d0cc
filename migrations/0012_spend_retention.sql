-- The cron settles reservations their request never settled (found by request
-- id, which begins with its issue time) and drops ledger days past
-- SPEND_RETENTION_DAYS; these keep both from scanning the whole ledger.
CREATE INDEX spend_charges_open ON spend_charges (request_id) WHERE settled_at IS NULL;
CREATE INDEX spend_charges_day ON spend_charges (day);
