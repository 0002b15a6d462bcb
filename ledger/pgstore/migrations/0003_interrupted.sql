-- A run stopped before it finished (verdict "interrupted") could not be
-- stored: the verdict column's CHECK predates that verdict, so the ledger
-- answered 503 and the push stayed stuck on the record. Additive fix: such
-- a run is stored with the verdict its steps earn (passed or unchecked; an
-- interrupted run has no failed step) and interrupted = 1, and the ledger
-- reads it back as interrupted, never counted as passed or unchecked.
ALTER TABLE runs ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
