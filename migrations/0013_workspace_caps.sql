-- Caps on what workspaces may store, enforced inside every write (a batch is
-- one transaction, and D1 runs one at a time), so concurrent uploads cannot
-- pass a cap together and an upload that races the workspace's deletion
-- writes nothing. The write sets the caps from the config first: a
-- workspace's `max_passages`, and the total over all workspaces in
-- `workspace_totals`, which triggers keep counted.
ALTER TABLE workspaces ADD COLUMN max_passages INTEGER;

CREATE TABLE workspace_totals (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  passages INTEGER NOT NULL,
  cap INTEGER
);
INSERT INTO workspace_totals (id, passages) SELECT 1, count(*) FROM passages WHERE workspace IS NOT NULL;

CREATE TRIGGER workspace_passage_added AFTER INSERT ON passages WHEN NEW.workspace IS NOT NULL
BEGIN
  UPDATE workspace_totals SET passages = passages + 1 WHERE id = 1;
END;

CREATE TRIGGER workspace_passage_removed AFTER DELETE ON passages WHEN OLD.workspace IS NOT NULL
BEGIN
  UPDATE workspace_totals SET passages = passages - 1 WHERE id = 1;
END;

-- A new passage (an upsert of a stored one is not) needs a live workspace
-- with room, and room in the total.
CREATE TRIGGER workspace_passage_caps BEFORE INSERT ON passages
WHEN NEW.workspace IS NOT NULL AND NOT EXISTS (SELECT 1 FROM passages WHERE id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'workspace_gone') WHERE NOT EXISTS (SELECT 1 FROM workspaces WHERE id = NEW.workspace);
  SELECT RAISE(ABORT, 'workspace_full')
    WHERE (SELECT count(*) FROM passages WHERE workspace = NEW.workspace) >= (SELECT max_passages FROM workspaces WHERE id = NEW.workspace);
  SELECT RAISE(ABORT, 'workspaces_full')
    WHERE (SELECT passages FROM workspace_totals WHERE id = 1) >= (SELECT cap FROM workspace_totals WHERE id = 1);
END;
