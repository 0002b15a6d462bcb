// Package ledgertest holds what the ledger's tests share: a conformance
// suite every Store implementation must pass, run-record builders, and the
// rules for finding the PostgreSQL server and the Chromium browser the
// tests need.
//
// Environment: REELIER_TEST_PG_DSN names a PostgreSQL server the tests may
// create schemas in, REELIER_TEST_CHROMIUM the Chromium binary. When one is
// unset the tests that need it skip on a developer machine but fail under
// CI (CI set), so a CI run can never pass by silently skipping them.
package ledgertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/reelier/reelier/replay/runlog"
)

// The environment variables the tests read.
const (
	EnvPostgres = "REELIER_TEST_PG_DSN"
	EnvChromium = "REELIER_TEST_CHROMIUM"
)

// required skips or fails a test whose external service is not configured.
func required(t testing.TB, env, what string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set but CI is: .ci/run must provide %s for this test", env, what)
	}
	t.Skipf("%s not set: skipping the test that needs %s (set it to run it)", env, what)
	return ""
}

// PostgresDSN returns a DSN to a fresh, empty schema on the test server,
// dropped when the test ends. It fails the test when the server is
// configured but cannot be reached.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := required(t, EnvPostgres, "a PostgreSQL server")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s is set but PostgreSQL cannot be reached: %v", EnvPostgres, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "reelier_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating a test schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, base); err == nil {
			conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s must be a postgres:// URL: %v", EnvPostgres, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Chromium returns the path of the Chromium binary for browser tests.
func Chromium(t testing.TB) string {
	t.Helper()
	path := required(t, EnvChromium, "the Chromium browser")
	if _, err := exec.LookPath(path); err != nil {
		t.Fatalf("%s=%s but it cannot be run: %v", EnvChromium, path, err)
	}
	return path
}

// Base is the start time of the runs built by Record.
var Base = time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC)

// Record builds a valid run record of skill as one JSON line (no newline),
// started i minutes after Base, with one step per outcome.
func Record(skill string, i int, outcomes ...runlog.Outcome) []byte {
	start := Base.Add(time.Duration(i) * time.Minute)
	r := runlog.Record{Skill: skill, StartedAt: runlog.Timestamp(start)}
	skipping := false
	for n, o := range outcomes {
		st := runlog.StepRecord{N: n + 1, Title: fmt.Sprintf("Step %d", n+1), Outcome: o, Failures: []string{}}
		if !skipping {
			st.Ms = int64(100 + 10*i + n)
		}
		if o == runlog.Failed {
			st.Failures = []string{fmt.Sprintf("status == 200 failed: got 503 (run %d)", i)}
			st.Why = &runlog.Why{Trigger: st.Failures[0]}
			skipping = true
		}
		r.Steps = append(r.Steps, st)
	}
	r.Finish(false)
	r.FinishedAt = runlog.Timestamp(start.Add(time.Duration(r.Totals.Ms) * time.Millisecond))
	line, err := runlog.Marshal(&r)
	if err != nil {
		panic(err)
	}
	return line[:len(line)-1]
}
