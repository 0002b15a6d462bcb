-- The ledger's first schema: API key hashes, skill uploads, run records.
CREATE TABLE api_keys (
    name       TEXT PRIMARY KEY,
    hash       BYTEA NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE skills (
    name        TEXT PRIMARY KEY,
    skill_md    TEXT NOT NULL,
    uploaded_at TIMESTAMPTZ NOT NULL,
    uploads     INTEGER NOT NULL
);

-- seq orders runs by arrival and is the paging cursor; idem_key is NULL
-- when the client sent no Idempotency-Key, and NULLs never collide. The
-- record is TEXT, not JSONB, so it is kept byte for byte as received.
CREATE TABLE runs (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    skill       TEXT NOT NULL REFERENCES skills (name),
    idem_key    TEXT UNIQUE,
    record      TEXT NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('passed', 'failed', 'unchecked')),
    steps       INTEGER NOT NULL,
    passed      INTEGER NOT NULL,
    unchecked   INTEGER NOT NULL,
    skipped     INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    ms          BIGINT NOT NULL,
    llm_in      BIGINT NOT NULL,
    llm_out     BIGINT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX runs_by_skill ON runs (skill, seq);
