package pgstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/testkit/ledgertest"
)

func open(t *testing.T) server.Store {
	s, err := pgstore.Open(context.Background(), ledgertest.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) { ledgertest.StoreSuite(t, open) }

// TestConcurrentStarts: ledger processes starting together on an empty
// database migrate it once (the advisory lock) and all come up.
func TestConcurrentStarts(t *testing.T) {
	dsn := ledgertest.PostgresDSN(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := pgstore.Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != 5 {
		t.Errorf("%d migration rows (%v), want 5", n, err)
	}
}

// TestHealthOfADroppedTable: with a table dropped from under the ledger,
// /healthz answers 503 with the read that failed and PostgreSQL's message
// and SQLSTATE; before, it answers 200.
func TestHealthOfADroppedTable(t *testing.T) {
	ctx := context.Background()
	dsn := ledgertest.PostgresDSN(t)
	s, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := server.NewServer(server.Config{Store: s, Logf: t.Logf})
	get := func() (int, string) {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		return w.Code, strings.TrimSuffix(w.Body.String(), "\n")
	}
	if code, body := get(); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Fatalf("healthy: %d %s", code, body)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP TABLE runs`); err != nil {
		t.Fatal(err)
	}
	want := `{"error":"the ledger's database failed its health check: reading the oldest run: relation \"runs\" does not exist (SQLSTATE 42P01)","status":"unavailable"}`
	if code, body := get(); code != http.StatusServiceUnavailable || body != want {
		t.Errorf("without the runs table: %d %s\nwant 503 %s", code, body, want)
	}
}

// TestUpgradeFromVersion1: a database written by a reelier before scoped
// keys (schema version 1) opens, migrates to version 2 and keeps every
// row: its key pushes as before, its skill file becomes version 1 of the
// upload history, its run's healed step is counted.
func TestUpgradeFromVersion1(t *testing.T) {
	ctx := context.Background()
	dsn := ledgertest.PostgresDSN(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	v1, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	f := ledgertest.NewUpgradeFixture()
	r := f.Run
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`, nil},
		{string(v1), nil},
		{`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', now())`, nil},
		{`INSERT INTO api_keys (name, hash, created_at) VALUES ('old', $1, $2)`, []any{f.Hash, ledgertest.Base}},
		{`INSERT INTO skills VALUES ('weekly', $1, $2, 3)`, []any{f.SkillMd, ledgertest.Base}},
		{`INSERT INTO runs (id, skill, idem_key, record, started_at, finished_at, verdict, steps, passed, unchecked, skipped, failed, ms, llm_in, llm_out, received_at)
			VALUES ($1, 'weekly', $2, $3, $4, $5, $6, 2, 1, 1, 0, 0, 0, 0, 0, $7)`,
			[]any{r.ID, r.IdempotencyKey, string(r.Record), r.StartedAt, r.FinishedAt, string(r.Verdict), r.ReceivedAt}},
	} {
		if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	s, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.CheckUpgraded(t, s)
}
