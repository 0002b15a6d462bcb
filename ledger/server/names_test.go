package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// badNames break the Agent Skills name rules, each in its own way: path
// segments and separators, markup, upper case, blanks, hyphens at an end
// or doubled, too long, quotes and wildcards, control characters.
var badNames = []string{
	"..", ".", "a/b", `a\b`, "<b>", "<script>alert(1)</script>", "Weekly", "weekly report", "-weekly", "weekly-",
	"weekly--report", strings.Repeat("a", 65), "x' OR '1'='1", "%_%", "a?b#c", "a\x1bb", "a\u0085b", "a\u202eb", "a.b", "a_b",
}

// goodNames keep them.
var goodNames = []string{"weekly", "a", "weekly-report-2", strings.Repeat("a", 64), "9to5"}

// nameStores opens the stores the name tests run on: SQLite always,
// PostgreSQL when REELIER_TEST_PG_DSN is set (ledgertest.PostgresDSN).
func nameStores(t *testing.T) map[string]func(t *testing.T) server.Store {
	stores := map[string]func(t *testing.T) server.Store{
		"sqlite": func(t *testing.T) server.Store {
			s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) server.Store { return openPG(t, ledgertest.PostgresDSN(t)) },
	}
	return stores
}

// TestSkillNameRules: a skill upload or a run pushed under a name that
// breaks the Agent Skills name rules is a 400 whose field error states
// the rule; nothing is stored; a good name is taken. On every store.
func TestSkillNameRules(t *testing.T) {
	for storeName, open := range nameStores(t) {
		t.Run(storeName, func(t *testing.T) {
			store := open(t)
			srv := httptest.NewServer(server.NewServer(server.Config{Store: store, Now: fixedNow, Logf: t.Logf}))
			t.Cleanup(srv.Close)
			l := &testLedger{store: store, srv: srv}
			for _, name := range badNames {
				body, _ := json.Marshal(wire.SkillUpload{Name: name, SkillMd: "---\nname: x\n---\n"})
				status, out := l.do(t, "POST", wire.SkillsPath, body, nil)
				checkNameRefused(t, "skill upload", name, "name", status, out)
				status, out = l.pushRun(t, name, ledgertest.Record(name, 0, runlog.Passed))
				checkNameRefused(t, "run push", name, "skillName", status, out)
			}
			sums, err := store.Skills(context.Background())
			if err != nil || len(sums) != 0 {
				t.Errorf("after the refusals the store holds %d skills (%v): %+v", len(sums), err, sums)
			}
			for _, name := range goodNames {
				l.uploadSkill(t, name)
				if status, out := l.pushRun(t, name, ledgertest.Record(name, 0, runlog.Passed)); status != http.StatusAccepted {
					t.Errorf("run push of %q: %d %s", name, status, out)
				}
			}
		})
	}
}

func checkNameRefused(t *testing.T, what, name, field string, status int, out []byte) {
	t.Helper()
	var eb wire.ErrorBody
	json.Unmarshal(out, &eb)
	const rule = "1 to 64 lower-case letters, digits and hyphens"
	if status != http.StatusBadRequest || !strings.Contains(eb.FieldErrors[field], rule) {
		t.Errorf("%s of %q: %d %s, want 400 with %s stating the rule (%q)", what, name, status, out, field, rule)
	}
}
