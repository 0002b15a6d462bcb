// Package pgstore is the ledger's store for teams: PostgreSQL through pgx,
// so several stateless ledger processes can share one database.
//
// Every write is one transaction. A duplicate delivery is resolved by the
// database itself (a unique index on the idempotency key with ON CONFLICT
// DO NOTHING), so two processes receiving the same record at the same
// moment store it once. Schema migrations are applied at start under a
// transaction-scoped advisory lock, so processes starting together migrate
// once.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/replay/runlog"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock id taken while migrating ("reelier"
// in ASCII).
const migrationLock = 0x7265656c696572

// PostgreSQL error codes the store maps to ledger errors.
const (
	codeForeignKey = "23503"
	codeUnique     = "23505"
)

// Store is a ledger.Store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to the database named by a postgres:// URL or key=value
// DSN and applies any pending migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("invalid PostgreSQL connection string") // the DSN may hold a password: not quoted
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrating: %w", err)
	}
	return s, nil
}

// migrate applies the migrations newer than the database's version in one
// transaction, holding an advisory lock so concurrent starts wait.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := server.LoadMigrations(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
			return err
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
			return err
		}
		if have > len(ms) {
			return fmt.Errorf("the database is at schema version %d, newer than this reelier knows (%d); upgrade reelier", have, len(ms))
		}
		for _, m := range ms[have:] {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())`, m.Version, m.Name); err != nil {
				return err
			}
		}
		return nil
	})
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// AddKey implements ledger.Store.
func (s *Store) AddKey(ctx context.Context, k server.Key, hash []byte) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (name, hash, created_at, scope) VALUES ($1, $2, $3, $4)`,
			k.Name, hash, k.CreatedAt, string(k.Scope))
		return err
	})
	if pgCode(err) == codeUnique {
		return server.ErrKeyExists
	}
	return err
}

// keyColumns are the columns scanKey reads, in order.
const keyColumns = `name, scope, created_at, revoked_at`

func scanKey(row pgx.Row) (server.Key, error) {
	var k server.Key
	var scope string
	var revoked *time.Time
	err := row.Scan(&k.Name, &scope, &k.CreatedAt, &revoked)
	k.Scope, k.CreatedAt = server.Scope(scope), k.CreatedAt.UTC()
	if revoked != nil {
		k.RevokedAt = revoked.UTC()
	}
	return k, err
}

// KeyByHash implements ledger.Store.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (server.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return k, server.ErrNotFound
	}
	return k, err
}

// Keys implements ledger.Store.
func (s *Store) Keys(ctx context.Context) ([]server.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY name COLLATE "C"`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey implements ledger.Store. The row is locked (FOR UPDATE), so
// two processes revoking at once agree on the first revocation time.
func (s *Store) RevokeKey(ctx context.Context, name string, at time.Time) (server.Key, error) {
	var k server.Key
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE name = $1 FOR UPDATE`, name))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return server.ErrNotFound
		case err != nil:
			return err
		case k.Revoked():
			return server.ErrKeyRevoked
		}
		err = tx.QueryRow(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE name = $2 RETURNING revoked_at`, at, name).Scan(&k.RevokedAt)
		k.RevokedAt = k.RevokedAt.UTC()
		return err
	})
	return k, err
}

// HasKeys implements ledger.Store.
func (s *Store) HasKeys(ctx context.Context) (bool, error) {
	var has bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys)`).Scan(&has)
	return has, err
}

// PutSkill implements ledger.Store. The upsert locks the skill's row, so
// concurrent uploads of one skill number their versions one after another.
func (s *Store) PutSkill(ctx context.Context, k server.Skill) (version int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO skills (name, skill_md, uploaded_at, uploads) VALUES ($1, $2, $3, 1)
			ON CONFLICT (name) DO UPDATE SET skill_md = EXCLUDED.skill_md, uploaded_at = EXCLUDED.uploaded_at, uploads = skills.uploads + 1`,
			k.Name, k.SkillMd, k.UploadedAt)
		if err != nil {
			return err
		}
		var latest string
		err = tx.QueryRow(ctx, `SELECT version, skill_md FROM skill_versions WHERE skill = $1 ORDER BY version DESC LIMIT 1`, k.Name).Scan(&version, &latest)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case latest == k.SkillMd:
			return nil
		}
		version++
		_, err = tx.Exec(ctx, `INSERT INTO skill_versions (skill, version, skill_md, uploaded_at) VALUES ($1, $2, $3, $4)`,
			k.Name, version, k.SkillMd, k.UploadedAt)
		return err
	})
	return version, err
}

// SkillVersions implements ledger.Store.
func (s *Store) SkillVersions(ctx context.Context, name string) ([]server.SkillVersion, error) {
	rows, err := s.pool.Query(ctx, `SELECT version, skill_md, uploaded_at FROM skill_versions WHERE skill = $1 ORDER BY version`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.SkillVersion
	for rows.Next() {
		var v server.SkillVersion
		if err := rows.Scan(&v.Version, &v.SkillMd, &v.UploadedAt); err != nil {
			return nil, err
		}
		v.UploadedAt = v.UploadedAt.UTC()
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, server.ErrUnknownSkill
	}
	return out, nil
}

// AddRun implements ledger.Store.
func (s *Store) AddRun(ctx context.Context, r server.Run) (id string, dup bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t := r.Totals
		verdict, interrupted := server.StoredVerdict(r)
		err := tx.QueryRow(ctx, `INSERT INTO runs (id, skill, idem_key, record, started_at, finished_at, verdict,
			steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at, healed, interrupted)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
			ON CONFLICT (idem_key) DO NOTHING RETURNING id`,
			r.ID, r.Skill, nullable(r.IdempotencyKey), string(r.Record), r.StartedAt, r.FinishedAt, string(verdict),
			t.Steps, t.Passed, t.Unchecked, t.Skipped, t.Failed, t.Ms, t.LLMInputTokens, t.LLMOutputTokens, r.ReceivedAt, r.Healed, interrupted).Scan(&id)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		dup = true
		return tx.QueryRow(ctx, `SELECT id FROM runs WHERE idem_key = $1`, r.IdempotencyKey).Scan(&id)
	})
	if pgCode(err) == codeForeignKey {
		return "", false, server.ErrUnknownSkill
	}
	return id, dup, err
}

// nullable maps "" to NULL.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// summarySQL aggregates runs per skill and joins each skill's newest run.
const summarySQL = `WITH agg AS (
	SELECT s.name, s.uploaded_at, s.uploads, COUNT(r.seq) AS runs,
		COALESCE(SUM(CASE WHEN r.verdict = 'passed' AND r.interrupted = 0 THEN 1 ELSE 0 END), 0) AS passed,
		COALESCE(SUM(CASE WHEN r.verdict = 'failed' THEN 1 ELSE 0 END), 0) AS failed,
		COALESCE(SUM(CASE WHEN r.verdict = 'unchecked' AND r.interrupted = 0 THEN 1 ELSE 0 END), 0) AS unchecked,
		COALESCE(SUM(r.interrupted), 0)::bigint AS interrupted,
		COALESCE(SUM(CASE WHEN r.healed > 0 THEN 1 ELSE 0 END), 0) AS healed_runs,
		COALESCE(SUM(r.llm_in + r.llm_out), 0)::bigint AS tokens,
		MAX(r.seq) AS latest
	FROM skills s LEFT JOIN runs r ON r.skill = s.name
	WHERE $1 = '' OR s.name = $1
	GROUP BY s.name, s.uploaded_at, s.uploads)
SELECT agg.name, agg.uploaded_at, agg.uploads, agg.runs, agg.passed, agg.failed, agg.unchecked, agg.interrupted, agg.healed_runs, agg.tokens,
	l.seq, l.id, CASE WHEN l.interrupted = 1 THEN 'interrupted' ELSE l.verdict END, l.started_at, l.finished_at, l.received_at,
	l.steps, l.passed, l.unchecked, l.skipped, l.failed, l.ms, l.llm_in, l.llm_out, l.healed
FROM agg LEFT JOIN runs l ON l.seq = agg.latest
ORDER BY agg.name COLLATE "C"`

// summaries runs summarySQL for one skill, or all when name is "".
func (s *Store) summaries(ctx context.Context, name string) ([]server.SkillSummary, error) {
	rows, err := s.pool.Query(ctx, summarySQL, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.SkillSummary
	for rows.Next() {
		var k server.SkillSummary
		var runs, passed, failed, unchecked, interrupted, healed int64
		var seq *int64
		var id, verdict *string
		var started, finished, received *time.Time
		var n [9]*int64
		if err := rows.Scan(&k.Name, &k.UploadedAt, &k.Uploads, &runs, &passed, &failed, &unchecked, &interrupted, &healed, &k.Tokens,
			&seq, &id, &verdict, &started, &finished, &received,
			&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8]); err != nil {
			return nil, err
		}
		k.Runs, k.Passed, k.Failed, k.Unchecked, k.Interrupted, k.HealedRuns = int(runs), int(passed), int(failed), int(unchecked), int(interrupted), int(healed)
		if seq != nil {
			k.Latest = &server.Run{Seq: *seq, ID: *id, Skill: k.Name, Verdict: server.Verdict(*verdict),
				StartedAt: started.UTC(), FinishedAt: finished.UTC(), ReceivedAt: received.UTC(),
				Totals: runlog.Totals{Steps: int(*n[0]), Passed: int(*n[1]), Unchecked: int(*n[2]), Skipped: int(*n[3]),
					Failed: int(*n[4]), Ms: *n[5], LLMInputTokens: *n[6], LLMOutputTokens: *n[7]},
				Healed: int(*n[8])}
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Skills implements ledger.Store.
func (s *Store) Skills(ctx context.Context) ([]server.SkillSummary, error) {
	return s.summaries(ctx, "")
}

// Skill implements ledger.Store.
func (s *Store) Skill(ctx context.Context, name string) (server.SkillSummary, error) {
	if name == "" {
		return server.SkillSummary{}, server.ErrUnknownSkill
	}
	out, err := s.summaries(ctx, name)
	if err != nil {
		return server.SkillSummary{}, err
	}
	if len(out) == 0 {
		return server.SkillSummary{}, server.ErrUnknownSkill
	}
	return out[0], nil
}

// runColumns are the columns scanRun reads, in order.
const runColumns = `seq, id, skill, COALESCE(idem_key, ''), record, started_at, finished_at, verdict,
	steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at, healed, interrupted`

func scanRun(row pgx.Row) (server.Run, error) {
	var r server.Run
	var record, verdict string
	var interrupted int
	t := &r.Totals
	err := row.Scan(&r.Seq, &r.ID, &r.Skill, &r.IdempotencyKey, &record, &r.StartedAt, &r.FinishedAt, &verdict,
		&t.Steps, &t.Passed, &t.Unchecked, &t.Skipped, &t.Failed, &t.Ms, &t.LLMInputTokens, &t.LLMOutputTokens, &r.ReceivedAt, &r.Healed, &interrupted)
	r.Record, r.Verdict = []byte(record), server.ReadVerdict(verdict, interrupted)
	r.StartedAt, r.FinishedAt, r.ReceivedAt = r.StartedAt.UTC(), r.FinishedAt.UTC(), r.ReceivedAt.UTC()
	return r, err
}

// Runs implements ledger.Store.
func (s *Store) Runs(ctx context.Context, skill string, p server.Page) (server.RunPage, error) {
	var page server.RunPage
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM skills WHERE name = $1)`, skill).Scan(&exists); err != nil {
		return page, err
	}
	if !exists {
		return page, server.ErrUnknownSkill
	}
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns+` FROM runs
		WHERE skill = $1 AND ($2::bigint = 0 OR seq < $2::bigint) ORDER BY seq DESC LIMIT $3`, skill, p.Before, p.Limit+1)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return page, err
		}
		page.Runs = append(page.Runs, r)
	}
	if len(page.Runs) > p.Limit {
		page.Runs = page.Runs[:p.Limit]
		page.Next = page.Runs[p.Limit-1].Seq
	}
	return page, rows.Err()
}

// Run implements ledger.Store.
func (s *Store) Run(ctx context.Context, id string) (server.Run, error) {
	r, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, server.ErrNotFound
	}
	return r, err
}

// Health implements ledger.Store. The reason it gives is the server's
// message and SQLSTATE; a connection that fails is only said to fail,
// since pgx's words name the host and user.
func (s *Store) Health(ctx context.Context) error {
	for _, c := range server.HealthChecks {
		if err := s.read(ctx, c.Query); err != nil {
			reason := "cannot reach the database"
			var pe *pgconn.PgError
			switch {
			case errors.As(err, &pe):
				reason = fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
			case ctx.Err() != nil:
				reason = "no answer in time"
			}
			return &server.HealthError{What: c.What, Reason: reason, Err: err}
		}
	}
	return nil
}

// read runs a query and reads every row it returns, undecoded.
func (s *Store) read(ctx context.Context, query string) error {
	rows, err := s.pool.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		rows.RawValues()
	}
	return rows.Err()
}

// Close implements ledger.Store.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

var _ server.Store = (*Store)(nil)
