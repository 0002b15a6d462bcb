-- The ledger's first schema: API key hashes, skill uploads, run records.
CREATE TABLE api_keys (
    name       TEXT PRIMARY KEY,
    hash       BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);

CREATE TABLE skills (
    name        TEXT PRIMARY KEY,
    skill_md    TEXT NOT NULL,
    uploaded_at TEXT NOT NULL,
    uploads     INTEGER NOT NULL
);

-- seq orders runs by arrival and is the paging cursor; idem_key is NULL
-- when the client sent no Idempotency-Key, and NULLs never collide.
CREATE TABLE runs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    skill       TEXT NOT NULL REFERENCES skills (name),
    idem_key    TEXT UNIQUE,
    record      TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('passed', 'failed', 'unchecked')),
    steps       INTEGER NOT NULL,
    passed      INTEGER NOT NULL,
    unchecked   INTEGER NOT NULL,
    skipped     INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    ms          INTEGER NOT NULL,
    llm_in      INTEGER NOT NULL,
    llm_out     INTEGER NOT NULL,
    received_at TEXT NOT NULL
);

CREATE INDEX runs_by_skill ON runs (skill, seq);
