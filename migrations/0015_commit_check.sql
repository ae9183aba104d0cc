-- A commit's first statement inserts the version its ingest began against;
-- when the corpus has moved on since (another commit, an approval), this
-- trigger aborts the whole batch, so the check and the write are one
-- transaction and two commits can never both pass it. Each commit deletes
-- its row again.
CREATE TABLE commit_checks (base TEXT NOT NULL);

CREATE TRIGGER commit_base_check BEFORE INSERT ON commit_checks
WHEN NEW.base IS NOT coalesce((SELECT value FROM meta WHERE key = 'corpus_version'), 'empty')
BEGIN
  SELECT RAISE(ABORT, 'ingest_stale');
END;
