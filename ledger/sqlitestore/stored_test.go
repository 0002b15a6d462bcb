package sqlitestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

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
