-- Which workspace a cached answer may quote (NULL: the shared corpus alone),
-- so deleting or expiring a workspace drops its answers from both cache tiers.
ALTER TABLE answer_cache ADD COLUMN workspace TEXT;
CREATE INDEX answer_cache_workspace ON answer_cache (workspace) WHERE workspace IS NOT NULL;

-- The review inbox holds a workspace's questions and evidence text: it goes
-- with the workspace too.
CREATE INDEX review_queue_workspace ON review_queue (workspace) WHERE workspace IS NOT NULL;
