-- Teams: scoped and revocable API keys, the skill file's upload history,
-- and the number of healed steps of each run. Additive only.

-- A key created before scopes keeps the power it had: it pushes, and a
-- key that pushes also reads. A revoked key keeps its row (revoked_at set)
-- so the ledger never falls back to its open, keyless mode.
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'push' CHECK (scope IN ('push', 'read'));
ALTER TABLE api_keys ADD COLUMN revoked_at TEXT;

-- One row per distinct content a skill was uploaded with, numbered from 1
-- in upload order; re-uploading the latest content adds no row.
CREATE TABLE skill_versions (
    skill       TEXT NOT NULL REFERENCES skills (name),
    version     INTEGER NOT NULL,
    skill_md    TEXT NOT NULL,
    uploaded_at TEXT NOT NULL,
    PRIMARY KEY (skill, version)
);
INSERT INTO skill_versions (skill, version, skill_md, uploaded_at)
    SELECT name, 1, skill_md, uploaded_at FROM skills;

ALTER TABLE runs ADD COLUMN healed INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET healed = (SELECT COUNT(*) FROM json_each(runs.record, '$.steps')
    WHERE CAST(json_extract(value, '$.level') AS INTEGER) > 0);
