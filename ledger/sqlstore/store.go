// Package sqlstore is the ledger's one SQL implementation of server.Store,
// over database/sql: every query and every method is written once here.
// What differs between the embedded store (sqlitestore) and the store for
// teams (pgstore) is a Dialect: placeholders, how times are kept, row
// locks, byte-order collation, the migrations and how they are serialised,
// and how the database's errors are read.
//
// Every write is one transaction. A duplicate delivery of a run is
// resolved by the database itself (the unique idempotency key with ON
// CONFLICT DO NOTHING), so two writers receiving the same record at the
// same moment store it once.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/replay/runlog"
)

// Dialect is what one database does its own way.
type Dialect struct {
	// Migrations holds the schema changes, migrations/NNNN_what.sql, in
	// this database's types (loadMigrations reads them).
	Migrations fs.FS
	// MigrationsTable creates the schema_migrations table if it is
	// missing.
	MigrationsTable string
	// Serialized is true where a write transaction holds the whole
	// database (SQLite's IMMEDIATE transactions), so what a transaction
	// reads still holds when it writes.
	Serialized bool
	// MigrationLock, when set, is run first in the migration's
	// transaction, so processes starting together migrate once.
	MigrationLock string
	// Numbered is true where placeholders are $1, $2… (the queries here
	// are written with ?).
	Numbered bool
	// TimeLayout, when set, keeps times as UTC text in this layout (so
	// text order is time order); when empty, times go to and from the
	// driver as time.Time.
	TimeLayout string
	// ForUpdate ends the SELECT of a row the transaction goes on to
	// change: a row lock where the database has them, else "".
	ForUpdate string
	// Collate ends an ORDER BY of names so they sort by their bytes; ""
	// where that is the default.
	Collate string
	// NameTaken reports whether err is an insert into api_keys refused
	// because a key of that name exists.
	NameTaken func(err error) bool
	// IsForeignKey reports whether err is an insert refused by a foreign
	// key (a run of a skill never uploaded).
	IsForeignKey func(err error) bool
	// HealthReason words the error of a health check's read for anyone
	// who can reach /healthz: no connection string, host or user name.
	HealthReason func(ctx context.Context, err error) string
}

// Store is a server.Store in a SQL database.
type Store struct {
	db *sql.DB
	d  *Dialect
}

var _ server.Store = (*Store)(nil)

// New applies the migrations newer than db's schema version and returns
// the store over db. When that fails, db is closed.
func New(ctx context.Context, db *sql.DB, d *Dialect) (*Store, error) {
	s := &Store{db: db, d: d}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate applies the pending migrations in one transaction, recording
// each version.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations(s.d.Migrations, "migrations")
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if s.d.MigrationLock != "" {
			if _, err := tx.ExecContext(ctx, s.d.MigrationLock); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.d.MigrationsTable); err != nil {
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
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`), m.Version, m.Name, s.time(time.Now())); err != nil {
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

// q writes query's ? placeholders as the dialect numbers them. The
// queries of this package hold no ? but their placeholders.
func (s *Store) q(query string) string {
	if !s.d.Numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c != '?' {
			b.WriteRune(c)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// time is t as the dialect stores it.
func (s *Store) time(t time.Time) any {
	if s.d.TimeLayout == "" {
		return t
	}
	return t.UTC().Format(s.d.TimeLayout)
}

// at scans a time column into *t, in UTC; NULL, or text that is not a
// time, leaves it zero.
func (s *Store) at(t *time.Time) sql.Scanner { return timeColumn{t, s.d.TimeLayout} }

type timeColumn struct {
	t      *time.Time
	layout string
}

func (c timeColumn) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*c.t = time.Time{}
	case time.Time:
		*c.t = v.UTC()
	case string:
		*c.t, _ = time.Parse(c.layout, v)
	case []byte:
		*c.t, _ = time.Parse(c.layout, string(v))
	default:
		return fmt.Errorf("a time column holds a %T", v)
	}
	return nil
}

// AddKey implements ledger.Store.
func (s *Store) AddKey(ctx context.Context, k server.Key, hash []byte) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO api_keys (name, hash, created_at, scope) VALUES (?, ?, ?, ?)`),
			k.Name, hash, s.time(k.CreatedAt), string(k.Scope))
		return err
	})
	if err != nil && s.d.NameTaken(err) {
		return server.ErrKeyExists
	}
	return err
}

// keyColumns are the columns scanKey reads, in order.
const keyColumns = `name, scope, created_at, revoked_at`

func (s *Store) scanKey(sc scanner) (server.Key, error) {
	var k server.Key
	var scope string
	err := sc.Scan(&k.Name, &scope, s.at(&k.CreatedAt), s.at(&k.RevokedAt))
	k.Scope = server.Scope(scope)
	return k, err
}

// KeyByHash implements ledger.Store.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (server.Key, error) {
	k, err := s.scanKey(s.db.QueryRowContext(ctx, s.q(`SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`), hash))
	if errors.Is(err, sql.ErrNoRows) {
		return k, server.ErrNotFound
	}
	return k, err
}

// Keys implements ledger.Store.
func (s *Store) Keys(ctx context.Context) ([]server.Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY name`+s.d.Collate)
	return collect(rows, err, s.scanKey)
}

// RevokeKey implements ledger.Store. The row is read with the dialect's
// row lock, so two processes revoking at once agree on the first
// revocation time.
func (s *Store) RevokeKey(ctx context.Context, name string, at time.Time) (server.Key, error) {
	var k server.Key
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = s.scanKey(tx.QueryRowContext(ctx, s.q(`SELECT `+keyColumns+` FROM api_keys WHERE name = ?`+s.d.ForUpdate), name))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return server.ErrNotFound
		case err != nil:
			return err
		case k.Revoked():
			return server.ErrKeyRevoked
		}
		return tx.QueryRowContext(ctx, s.q(`UPDATE api_keys SET revoked_at = ? WHERE name = ? RETURNING revoked_at`), s.time(at), name).Scan(s.at(&k.RevokedAt))
	})
	return k, err
}

// HasKeys implements ledger.Store.
func (s *Store) HasKeys(ctx context.Context) (bool, error) {
	var has bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys)`).Scan(&has)
	return has, err
}

// PutSkill implements ledger.Store. The upsert takes the skill's row (or
// the database's write lock), so concurrent uploads of one skill number
// their versions one after another.
func (s *Store) PutSkill(ctx context.Context, k server.Skill) (version int, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO skills (name, skill_md, uploaded_at, uploads) VALUES (?, ?, ?, 1)
			ON CONFLICT (name) DO UPDATE SET skill_md = excluded.skill_md, uploaded_at = excluded.uploaded_at, uploads = skills.uploads + 1`),
			k.Name, k.SkillMd, s.time(k.UploadedAt))
		if err != nil {
			return err
		}
		var latest string
		err = tx.QueryRowContext(ctx, s.q(`SELECT version, skill_md FROM skill_versions WHERE skill = ? ORDER BY version DESC LIMIT 1`), k.Name).Scan(&version, &latest)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case latest == k.SkillMd:
			return nil
		}
		version++
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO skill_versions (skill, version, skill_md, uploaded_at) VALUES (?, ?, ?, ?)`),
			k.Name, version, k.SkillMd, s.time(k.UploadedAt))
		return err
	})
	return version, err
}

// SkillVersions implements ledger.Store.
func (s *Store) SkillVersions(ctx context.Context, name string) ([]server.SkillVersion, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT version, skill_md, uploaded_at FROM skill_versions WHERE skill = ? ORDER BY version`), name)
	out, err := collect(rows, err, func(sc scanner) (server.SkillVersion, error) {
		var v server.SkillVersion
		err := sc.Scan(&v.Version, &v.SkillMd, s.at(&v.UploadedAt))
		return v, err
	})
	switch {
	case err != nil:
		return nil, err
	case len(out) == 0:
		return nil, server.ErrUnknownSkill
	}
	return out, nil
}

// insertRun stores a run; the dialects differ in what follows it.
const insertRun = `INSERT INTO runs (id, skill, idem_key, record, started_at, finished_at, verdict,
	steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at, healed, interrupted, config, mock, signature, signer)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// AddRun implements ledger.Store. Where writes are serialised, the skill
// and the idempotency key are looked up before a plain insert, so a
// duplicate delivery takes no seq; elsewhere the insert comes first and
// the database resolves concurrent duplicates (ON CONFLICT DO NOTHING)
// and unknown skills (the foreign key).
func (s *Store) AddRun(ctx context.Context, r server.Run) (id string, dup bool, err error) {
	t := r.Totals
	verdict, interrupted, config := server.StoredVerdict(r)
	mock := 0
	if r.Mock {
		mock = 1
	}
	args := []any{r.ID, r.Skill, nullable(r.IdempotencyKey), string(r.Record), s.time(r.StartedAt), s.time(r.FinishedAt), string(verdict),
		t.Steps, t.Passed, t.Unchecked, t.Skipped, t.Failed, t.Ms, t.LLMInputTokens, t.LLMOutputTokens, s.time(r.ReceivedAt), r.Healed, interrupted, config, mock, string(r.SignatureState()), r.Signer}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if s.d.Serialized {
			if err := s.knownSkill(ctx, tx, r.Skill); err != nil {
				return err
			}
			if r.IdempotencyKey != "" {
				err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM runs WHERE idem_key = ?`), r.IdempotencyKey).Scan(&id)
				if err == nil {
					dup = true
					return nil
				}
				if !errors.Is(err, sql.ErrNoRows) {
					return err
				}
			}
			id = r.ID
			_, err := tx.ExecContext(ctx, s.q(insertRun), args...)
			return err
		}
		err := tx.QueryRowContext(ctx, s.q(insertRun+` ON CONFLICT (idem_key) DO NOTHING RETURNING id`), args...).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		dup = true
		return tx.QueryRowContext(ctx, s.q(`SELECT id FROM runs WHERE idem_key = ?`), r.IdempotencyKey).Scan(&id)
	})
	if err != nil && s.d.IsForeignKey(err) {
		return "", false, server.ErrUnknownSkill
	}
	return id, dup, err
}

// knownSkill returns ErrUnknownSkill unless a skill of this name was
// uploaded.
func (s *Store) knownSkill(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) error {
	var n int
	if err := q.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM skills WHERE name = ?`), name).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return server.ErrUnknownSkill
	}
	return nil
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
		COALESCE(SUM(CASE WHEN r.verdict = 'passed' AND r.interrupted = 0 AND r.mock = 0 THEN 1 ELSE 0 END), 0) AS passed,
		COALESCE(SUM(CASE WHEN r.verdict = 'failed' AND r.config = 0 AND r.mock = 0 THEN 1 ELSE 0 END), 0) AS failed,
		COALESCE(SUM(CASE WHEN r.config = 1 AND r.mock = 0 THEN 1 ELSE 0 END), 0) AS config,
		COALESCE(SUM(CASE WHEN r.verdict = 'unchecked' AND r.interrupted = 0 AND r.mock = 0 THEN 1 ELSE 0 END), 0) AS unchecked,
		COALESCE(SUM(CASE WHEN r.interrupted = 1 AND r.mock = 0 THEN 1 ELSE 0 END), 0) AS interrupted,
		CAST(COALESCE(SUM(r.mock), 0) AS BIGINT) AS mock,
		COALESCE(SUM(CASE WHEN r.mock = 1 AND r.verdict = 'passed' AND r.interrupted = 0 THEN 1 ELSE 0 END), 0) AS mock_passed,
		COALESCE(SUM(CASE WHEN r.mock = 1 AND r.config = 1 THEN 1 ELSE 0 END), 0) AS mock_config,
		COALESCE(SUM(CASE WHEN r.healed > 0 THEN 1 ELSE 0 END), 0) AS healed_runs,
		CAST(COALESCE(SUM(r.llm_in + r.llm_out), 0) AS BIGINT) AS tokens,
		MAX(r.seq) AS latest
	FROM skills s LEFT JOIN runs r ON r.skill = s.name
	WHERE ? = '' OR s.name = ?
	GROUP BY s.name, s.uploaded_at, s.uploads)
SELECT agg.name, agg.uploaded_at, agg.uploads, agg.runs, agg.passed, agg.failed, agg.config, agg.unchecked, agg.interrupted,
	agg.mock, agg.mock_passed, agg.mock_config, agg.healed_runs, agg.tokens,
	l.seq, l.id, CASE WHEN l.interrupted = 1 THEN 'interrupted' WHEN l.config = 1 THEN 'config' ELSE l.verdict END, l.started_at, l.finished_at, l.received_at,
	l.steps, l.passed, l.unchecked, l.skipped, l.failed, l.ms, l.llm_in, l.llm_out, l.healed, l.mock
FROM agg LEFT JOIN runs l ON l.seq = agg.latest
ORDER BY agg.name`

// summaries runs summarySQL for one skill, or all when name is "".
func (s *Store) summaries(ctx context.Context, name string) ([]server.SkillSummary, error) {
	rows, err := s.db.QueryContext(ctx, s.q(summarySQL+s.d.Collate), name, name)
	return collect(rows, err, s.scanSummary)
}

func (s *Store) scanSummary(sc scanner) (server.SkillSummary, error) {
	var k server.SkillSummary
	var seq sql.NullInt64
	var id, verdict sql.NullString
	var started, finished, received time.Time
	var n [10]sql.NullInt64
	if err := sc.Scan(&k.Name, s.at(&k.UploadedAt), &k.Uploads, &k.Runs, &k.Passed, &k.Failed, &k.Config, &k.Unchecked, &k.Interrupted,
		&k.Mock, &k.MockPassed, &k.MockConfig, &k.HealedRuns, &k.Tokens,
		&seq, &id, &verdict, s.at(&started), s.at(&finished), s.at(&received),
		&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &n[9]); err != nil {
		return k, err
	}
	if seq.Valid {
		k.Latest = &server.Run{Seq: seq.Int64, ID: id.String, Skill: k.Name, Verdict: server.Verdict(verdict.String),
			StartedAt: started, FinishedAt: finished, ReceivedAt: received,
			Totals: runlog.Totals{Steps: int(n[0].Int64), Passed: int(n[1].Int64), Unchecked: int(n[2].Int64), Skipped: int(n[3].Int64),
				Failed: int(n[4].Int64), Ms: n[5].Int64, LLMInputTokens: n[6].Int64, LLMOutputTokens: n[7].Int64},
			Healed: int(n[8].Int64), Mock: n[9].Int64 != 0}
	}
	return k, nil
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
	steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at, healed, interrupted, config, mock, signature, signer`

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect scans every row of a query's answer (rows, err) with scan.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *Store) scanRun(sc scanner) (server.Run, error) {
	var r server.Run
	var record, verdict, sig string
	var interrupted, config, mock int
	t := &r.Totals
	err := sc.Scan(&r.Seq, &r.ID, &r.Skill, &r.IdempotencyKey, &record, s.at(&r.StartedAt), s.at(&r.FinishedAt), &verdict,
		&t.Steps, &t.Passed, &t.Unchecked, &t.Skipped, &t.Failed, &t.Ms, &t.LLMInputTokens, &t.LLMOutputTokens, s.at(&r.ReceivedAt), &r.Healed, &interrupted, &config, &mock, &sig, &r.Signer)
	r.Record, r.Verdict, r.Mock, r.Signature = []byte(record), server.ReadVerdict(verdict, interrupted, config), mock != 0, server.SignatureState(sig)
	return r, err
}

// Runs implements ledger.Store.
func (s *Store) Runs(ctx context.Context, skill string, p server.Page) (server.RunPage, error) {
	var page server.RunPage
	if err := s.knownSkill(ctx, s.db, skill); err != nil {
		return page, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+runColumns+` FROM runs
		WHERE skill = ? AND (CAST(? AS BIGINT) = 0 OR seq < CAST(? AS BIGINT)) ORDER BY seq DESC LIMIT ?`), skill, p.Before, p.Before, p.Limit+1)
	if page.Runs, err = collect(rows, err, s.scanRun); err != nil {
		return page, err
	}
	if len(page.Runs) > p.Limit {
		page.Runs = page.Runs[:p.Limit]
		page.Next = page.Runs[p.Limit-1].Seq
	}
	return page, nil
}

// Run implements ledger.Store.
func (s *Store) Run(ctx context.Context, id string) (server.Run, error) {
	r, err := s.scanRun(s.db.QueryRowContext(ctx, s.q(`SELECT `+runColumns+` FROM runs WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, server.ErrNotFound
	}
	return r, err
}

// Health implements ledger.Store.
func (s *Store) Health(ctx context.Context) error {
	for _, c := range server.HealthChecks {
		if err := s.read(ctx, c.Query); err != nil {
			return &server.HealthError{What: c.What, Reason: s.d.HealthReason(ctx, err), Err: err}
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
