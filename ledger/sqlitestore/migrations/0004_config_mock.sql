-- Records say where they ran (#30). A run stopped by how it was set up (a
-- refused write, an input that could not be sent) has its own verdict,
-- "config": the verdict column's CHECK predates it, so such a run is
-- stored as failed with config = 1 and read back as config, never counted
-- as failed. A run against `reelier mock` has mock = 1: labelled on the
-- pages and left out of pass rates unless asked for. Additive only: every
-- run stored before keeps config = 0 and mock = 0.
ALTER TABLE runs ADD COLUMN config INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN mock INTEGER NOT NULL DEFAULT 0;
