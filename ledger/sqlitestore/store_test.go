package sqlitestore_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

func open(t *testing.T) server.Store {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) { ledgertest.StoreSuite(t, open) }

// TestMigrations: reopening applies nothing twice, and a database from a
// newer reelier is refused instead of being written with an old schema.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	for range 2 {
		s, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n)
	if n != 5 {
		t.Errorf("%d migration rows after two opens, want 5", n)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlitestore.Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this reelier knows") {
		t.Errorf("opening a newer database: %v", err)
	}
}

// TestHealthOfACorruptFile: a ledger file whose pages past the schema are
// overwritten with garbage still opens (the migration only reads the
// first two pages), and every page of the ledger fails on it; /healthz
// fails too, naming the read that failed and SQLite's reason, where a
// ping said 200. The same file before the damage answers 200.
func TestHealthOfACorruptFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutSkill(ctx, server.Skill{Name: "weekly", SkillMd: strings.Repeat("x", 20000), UploadedAt: ledgertest.Base}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, _, err := s.AddRun(ctx, ledgertest.StoredRun("weekly", i, runlog.Passed)); err != nil {
			t.Fatal(err)
		}
	}
	if code, body := get(t, s, "/healthz"); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Fatalf("healthy: %d %s", code, body)
	}
	s.Close() // the last connection checkpoints the WAL into the file

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.BigEndian.Uint16(b[16:18]))
	pages := len(b) / pageSize
	if pages < 8 {
		t.Fatalf("only %d pages of %d bytes: too few to damage the middle", pages, pageSize)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 2 * pageSize; i < (pages-1)*pageSize; i++ { // pages 3 … n-1
		b[i] = byte(r.UintN(256))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	s, err = sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatalf("opening the damaged file: %v", err)
	}
	defer s.Close()
	for _, page := range []string{"/", "/skills/weekly", "/api/v1/skills"} {
		if code, body := get(t, s, page); code != http.StatusServiceUnavailable {
			t.Errorf("%s on the damaged file: %d %s, want 503", page, code, body)
		}
	}
	code, body := get(t, s, "/healthz")
	want := `{"error":"the ledger's database failed its health check: counting the API keys: database disk image is malformed (11)","status":"unavailable"}`
	if code != http.StatusServiceUnavailable || body != want {
		t.Errorf("/healthz on the damaged file: %d %s\nwant 503 %s", code, body, want)
	}
}

// TestHealthOfADroppedTable: a table gone from under the ledger fails
// /healthz with SQLite's reason.
func TestHealthOfADroppedTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE runs`); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, s, "/healthz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "reading the oldest run: SQL logic error: no such table: runs") {
		t.Errorf("/healthz without the runs table: %d %s", code, body)
	}
}

// get asks a ledger over s for path (from loopback, as an open ledger
// requires) and returns the status and the body without its last newline.
func get(t *testing.T, s server.Store, path string) (int, string) {
	t.Helper()
	srv := server.NewServer(server.Config{Store: s, Logf: t.Logf})
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr, req.Host = "127.0.0.1:1234", "localhost"
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	return w.Code, strings.TrimSuffix(w.Body.String(), "\n")
}

// TestUpgradeFromVersion1: a database written by a reelier before scoped
// keys (schema version 1) opens, migrates to version 2 and keeps every
// row: its key pushes as before, its skill file becomes version 1 of the
// upload history, its run's healed step is counted.
func TestUpgradeFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	f := ledgertest.NewUpgradeFixture()
	r, ts := f.Run, func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`, nil},
		{string(v1), nil},
		{`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', '')`, nil},
		{`INSERT INTO api_keys (name, hash, created_at) VALUES ('old', ?, ?)`, []any{f.Hash, ts(ledgertest.Base)}},
		{`INSERT INTO skills VALUES ('weekly', ?, ?, 3)`, []any{f.SkillMd, ts(ledgertest.Base)}},
		{`INSERT INTO runs (id, skill, idem_key, record, started_at, finished_at, verdict, steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at)
			VALUES (?, 'weekly', ?, ?, ?, ?, ?, 2, 1, 1, 0, 0, 0, 0, 0, ?)`,
			[]any{r.ID, r.IdempotencyKey, string(r.Record), ts(r.StartedAt), ts(r.FinishedAt), string(r.Verdict), ts(r.ReceivedAt)}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	db.Close()
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.CheckUpgraded(t, s)
}

// TestStoredForm holds the file format: times are kept as fixed-width UTC
// text whatever zone they came in, and a duplicate delivery takes no seq
// (the next run's seq follows the first's).
func TestStoredForm(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 18, 19, 30, 0, 5, time.FixedZone("east", 5*3600+1800))
	_, hash := server.NewKey()
	if err := s.AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopePush, CreatedAt: at}, hash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeKey(ctx, "ci", at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutSkill(ctx, server.Skill{Name: "weekly", SkillMd: "x", UploadedAt: at}); err != nil {
		t.Fatal(err)
	}
	first := ledgertest.StoredRun("weekly", 0, runlog.Passed)
	for range 2 {
		if _, _, err := s.AddRun(ctx, first); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.AddRun(ctx, ledgertest.StoredRun("weekly", 1, runlog.Passed)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ query, want string }{
		{`SELECT created_at FROM api_keys`, "2026-07-18T14:00:00.000000005Z"},
		{`SELECT revoked_at FROM api_keys`, "2026-07-18T14:00:01.000000005Z"},
		{`SELECT uploaded_at FROM skills`, "2026-07-18T14:00:00.000000005Z"},
		{`SELECT uploaded_at FROM skill_versions`, "2026-07-18T14:00:00.000000005Z"},
		{`SELECT started_at || ' ' || received_at FROM runs WHERE seq = 1`, "2026-07-18T14:00:00.000000000Z 2026-07-18T15:00:00.000000000Z"},
		{`SELECT group_concat(seq || ':' || id, ' ') FROM runs`, "1:run_weekly_0 2:run_weekly_1"},
	} {
		var got string
		if err := db.QueryRow(c.query).Scan(&got); err != nil || got != c.want {
			t.Errorf("%s = %q, %v; want %q", c.query, got, err, c.want)
		}
	}
}
