// Package sqlitestore is the ledger's zero-setup store: one SQLite file,
// through a pure-Go driver (modernc.org/sqlite), so the reelier binary
// stays free of cgo.
//
// The database runs in WAL mode with a busy timeout; every write is an
// IMMEDIATE transaction, so concurrent requests of one ledger process queue
// for the write lock instead of failing. Schema migrations are applied in
// order when the store opens.
package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/replay/runlog"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// timeLayout stores times as fixed-width UTC text, so text order is time
// order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// Store is a ledger.Store in a SQLite file.
type Store struct {
	db *sql.DB
}

// Open opens (creating it and its directory if needed) the database file
// at path and applies any pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", "10000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating %s: %w", path, err)
	}
	return s, nil
}

// migrate applies the migrations newer than the database's version in one
// IMMEDIATE transaction, recording each version, so two processes opening
// the same file migrate once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := server.LoadMigrations(migrationFS, "migrations")
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
			return err
		}
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
			return err
		}
		if have > len(ms) {
			return fmt.Errorf("the database is at schema version %d, newer than this reelier knows (%d); upgrade reelier", have, len(ms))
		}
		for _, m := range ms[have:] {
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, m.Version, m.Name, fmtTime(time.Now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// write runs fn in one transaction, committing when it returns nil.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(timeLayout, s)
	return t
}

// AddKey implements ledger.Store.
func (s *Store) AddKey(ctx context.Context, k server.Key, hash []byte) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE name = ?`, k.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return server.ErrKeyExists
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (name, hash, created_at, scope) VALUES (?, ?, ?, ?)`,
			k.Name, hash, fmtTime(k.CreatedAt), string(k.Scope))
		return err
	})
}

// keyColumns are the columns scanKey reads, in order.
const keyColumns = `name, scope, created_at, COALESCE(revoked_at, '')`

func scanKey(sc scanner) (server.Key, error) {
	var k server.Key
	var scope, created, revoked string
	err := sc.Scan(&k.Name, &scope, &created, &revoked)
	k.Scope, k.CreatedAt = server.Scope(scope), parseTime(created)
	if revoked != "" {
		k.RevokedAt = parseTime(revoked)
	}
	return k, err
}

// KeyByHash implements ledger.Store.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (server.Key, error) {
	k, err := scanKey(s.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, server.ErrNotFound
	}
	return k, err
}

// Keys implements ledger.Store.
func (s *Store) Keys(ctx context.Context) ([]server.Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY name`)
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

// RevokeKey implements ledger.Store.
func (s *Store) RevokeKey(ctx context.Context, name string, at time.Time) (server.Key, error) {
	var k server.Key
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = scanKey(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE name = ?`, name))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return server.ErrNotFound
		case err != nil:
			return err
		case k.Revoked():
			return server.ErrKeyRevoked
		}
		k.RevokedAt = parseTime(fmtTime(at))
		_, err = tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE name = ?`, fmtTime(at), name)
		return err
	})
	return k, err
}

// HasKeys implements ledger.Store.
func (s *Store) HasKeys(ctx context.Context) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM api_keys LIMIT 1)`).Scan(&n)
	return n > 0, err
}

// PutSkill implements ledger.Store.
func (s *Store) PutSkill(ctx context.Context, k server.Skill) (version int, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO skills (name, skill_md, uploaded_at, uploads) VALUES (?, ?, ?, 1)
			ON CONFLICT (name) DO UPDATE SET skill_md = excluded.skill_md, uploaded_at = excluded.uploaded_at, uploads = skills.uploads + 1`,
			k.Name, k.SkillMd, fmtTime(k.UploadedAt))
		if err != nil {
			return err
		}
		var latest string
		err = tx.QueryRowContext(ctx, `SELECT version, skill_md FROM skill_versions WHERE skill = ? ORDER BY version DESC LIMIT 1`, k.Name).Scan(&version, &latest)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case latest == k.SkillMd:
			return nil
		}
		version++
		_, err = tx.ExecContext(ctx, `INSERT INTO skill_versions (skill, version, skill_md, uploaded_at) VALUES (?, ?, ?, ?)`,
			k.Name, version, k.SkillMd, fmtTime(k.UploadedAt))
		return err
	})
	return version, err
}

// SkillVersions implements ledger.Store.
func (s *Store) SkillVersions(ctx context.Context, name string) ([]server.SkillVersion, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, skill_md, uploaded_at FROM skill_versions WHERE skill = ? ORDER BY version`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.SkillVersion
	for rows.Next() {
		var v server.SkillVersion
		var at string
		if err := rows.Scan(&v.Version, &v.SkillMd, &at); err != nil {
			return nil, err
		}
		v.UploadedAt = parseTime(at)
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
	err = s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM skills WHERE name = ?`, r.Skill).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return server.ErrUnknownSkill
		}
		if r.IdempotencyKey != "" {
			err := tx.QueryRowContext(ctx, `SELECT id FROM runs WHERE idem_key = ?`, r.IdempotencyKey).Scan(&id)
			if err == nil {
				dup = true
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		id = r.ID
		t := r.Totals
		verdict, interrupted := server.StoredVerdict(r)
		_, err := tx.ExecContext(ctx, `INSERT INTO runs (id, skill, idem_key, record, started_at, finished_at, verdict,
			steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at, healed, interrupted)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Skill, nullable(r.IdempotencyKey), string(r.Record), fmtTime(r.StartedAt), fmtTime(r.FinishedAt), string(verdict),
			t.Steps, t.Passed, t.Unchecked, t.Skipped, t.Failed, t.Ms, t.LLMInputTokens, t.LLMOutputTokens, fmtTime(r.ReceivedAt), r.Healed, interrupted)
		return err
	})
	return id, dup, err
}

// nullable maps "" to NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// summarySQL aggregates runs per skill and joins each skill's newest run.
const summarySQL = `WITH agg AS (
	SELECT s.name, s.uploaded_at, s.uploads, COUNT(r.seq) AS runs,
		COALESCE(SUM(CASE WHEN r.verdict = 'passed' AND r.interrupted = 0 THEN 1 ELSE 0 END), 0) AS passed,
		COALESCE(SUM(CASE WHEN r.verdict = 'failed' THEN 1 ELSE 0 END), 0) AS failed,
		COALESCE(SUM(CASE WHEN r.verdict = 'unchecked' AND r.interrupted = 0 THEN 1 ELSE 0 END), 0) AS unchecked,
		COALESCE(SUM(r.interrupted), 0) AS interrupted,
		COALESCE(SUM(CASE WHEN r.healed > 0 THEN 1 ELSE 0 END), 0) AS healed_runs,
		COALESCE(SUM(r.llm_in + r.llm_out), 0) AS tokens,
		MAX(r.seq) AS latest
	FROM skills s LEFT JOIN runs r ON r.skill = s.name
	WHERE ? = '' OR s.name = ?
	GROUP BY s.name, s.uploaded_at, s.uploads)
SELECT agg.name, agg.uploaded_at, agg.uploads, agg.runs, agg.passed, agg.failed, agg.unchecked, agg.interrupted, agg.healed_runs, agg.tokens,
	l.seq, l.id, CASE WHEN l.interrupted = 1 THEN 'interrupted' ELSE l.verdict END, l.started_at, l.finished_at, l.received_at,
	l.steps, l.passed, l.unchecked, l.skipped, l.failed, l.ms, l.llm_in, l.llm_out, l.healed
FROM agg LEFT JOIN runs l ON l.seq = agg.latest
ORDER BY agg.name`

// summaries runs summarySQL for one skill, or all when name is "".
func (s *Store) summaries(ctx context.Context, name string) ([]server.SkillSummary, error) {
	rows, err := s.db.QueryContext(ctx, summarySQL, name, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.SkillSummary
	for rows.Next() {
		var k server.SkillSummary
		var uploaded string
		var seq sql.NullInt64
		var id, verdict, started, finished, received sql.NullString
		var n [9]sql.NullInt64
		if err := rows.Scan(&k.Name, &uploaded, &k.Uploads, &k.Runs, &k.Passed, &k.Failed, &k.Unchecked, &k.Interrupted, &k.HealedRuns, &k.Tokens,
			&seq, &id, &verdict, &started, &finished, &received,
			&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8]); err != nil {
			return nil, err
		}
		k.UploadedAt = parseTime(uploaded)
		if seq.Valid {
			k.Latest = &server.Run{Seq: seq.Int64, ID: id.String, Skill: k.Name, Verdict: server.Verdict(verdict.String),
				StartedAt: parseTime(started.String), FinishedAt: parseTime(finished.String), ReceivedAt: parseTime(received.String),
				Totals: runlog.Totals{Steps: int(n[0].Int64), Passed: int(n[1].Int64), Unchecked: int(n[2].Int64), Skipped: int(n[3].Int64),
					Failed: int(n[4].Int64), Ms: n[5].Int64, LLMInputTokens: n[6].Int64, LLMOutputTokens: n[7].Int64},
				Healed: int(n[8].Int64)}
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

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (server.Run, error) {
	var r server.Run
	var record, started, finished, verdict, received string
	var interrupted int
	t := &r.Totals
	err := sc.Scan(&r.Seq, &r.ID, &r.Skill, &r.IdempotencyKey, &record, &started, &finished, &verdict,
		&t.Steps, &t.Passed, &t.Unchecked, &t.Skipped, &t.Failed, &t.Ms, &t.LLMInputTokens, &t.LLMOutputTokens, &received, &r.Healed, &interrupted)
	r.Record = []byte(record)
	r.StartedAt, r.FinishedAt, r.ReceivedAt = parseTime(started), parseTime(finished), parseTime(received)
	r.Verdict = server.ReadVerdict(verdict, interrupted)
	return r, err
}

// Runs implements ledger.Store.
func (s *Store) Runs(ctx context.Context, skill string, p server.Page) (server.RunPage, error) {
	var page server.RunPage
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM skills WHERE name = ?`, skill).Scan(&n); err != nil {
		return page, err
	}
	if n == 0 {
		return page, server.ErrUnknownSkill
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs
		WHERE skill = ? AND (? = 0 OR seq < ?) ORDER BY seq DESC LIMIT ?`, skill, p.Before, p.Before, p.Limit+1)
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
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, server.ErrNotFound
	}
	return r, err
}

// Health implements ledger.Store.
func (s *Store) Health(ctx context.Context) error {
	for _, c := range server.HealthChecks {
		if err := s.read(ctx, c.Query); err != nil {
			reason := err.Error()
			if ctx.Err() != nil {
				reason = "no answer in time"
			}
			return &server.HealthError{What: c.What, Reason: reason, Err: err}
		}
	}
	return nil
}

// read runs a query and reads every value of every row it returns.
func (s *Store) read(ctx context.Context, query string) error {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Close implements ledger.Store.
func (s *Store) Close() error { return s.db.Close() }

var _ server.Store = (*Store)(nil)
