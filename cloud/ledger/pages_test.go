package ledger_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/reelier/reelier/cloud"
	"github.com/reelier/reelier/cloud/ledger/ledgertest"
	"github.com/reelier/reelier/internal/testutil"
	"github.com/reelier/reelier/runtime/runlog"
)

// healedRecord is a passed run of weekly whose first step healed at L1
// after trying L2, spending tokens.
func healedRecord(i int) []byte {
	var r runlog.Record
	json.Unmarshal(ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked), &r)
	two := 2
	r.Steps[0].Level = 1
	r.Steps[0].EscalationAttempted = &two
	r.Steps[0].LLM = &runlog.LLMUsage{InputTokens: 900, OutputTokens: 120}
	r.Steps[0].Why = &runlog.Why{Change: "L1: the list moved under data"}
	r.Finish(false)
	line, _ := runlog.Marshal(&r)
	return line
}

// legacyRecord is a pre-0.2.0 record whose totals counted the unchecked
// step as passed.
const legacyRecord = `{"skill":"weekly","startedAt":"2026-07-18T13:00:00.000Z","finishedAt":"2026-07-18T13:00:00.050Z","passed":true,` +
	`"steps":[{"n":1,"title":"List","level":0,"outcome":"passed","ms":20,"failures":[]},{"n":2,"title":"Fetch","level":0,"outcome":"unchecked","ms":30,"failures":[]}],` +
	`"totals":{"steps":2,"passed":2,"failed":0,"ms":50}}`

// seed fills a ledger with the runs the page tests look at and returns
// the id of each run pushed, in push order.
func seed(t *testing.T, l *testLedger) []string {
	t.Helper()
	for _, name := range []string{"weekly", "smoke", "<b>bold</b> & \"quoted\"", "never-run"} {
		l.uploadSkill(t, name)
	}
	var ids []string
	push := func(skill string, rec []byte) {
		status, body := l.pushRun(t, skill, rec)
		var a cloud.Accepted
		if json.Unmarshal(body, &a); status != 202 {
			t.Fatalf("seeding %s: %d %s", skill, status, body)
		}
		ids = append(ids, a.ID)
	}
	push("weekly", []byte(legacyRecord))
	for i := range 6 {
		switch i {
		case 2:
			push("weekly", ledgertest.Record("weekly", i, runlog.Passed, runlog.Failed, runlog.Skipped))
		case 4:
			push("weekly", healedRecord(i))
		default:
			push("weekly", ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked))
		}
	}
	push("smoke", ledgertest.Record("smoke", 0, runlog.Unchecked, runlog.Unchecked))
	push("<b>bold</b> & \"quoted\"", ledgertest.Record("<b>bold</b> & \"quoted\"", 0, runlog.Failed))
	return ids
}

var runID = regexp.MustCompile(`run_[a-z0-9]{16}`)

// TestPages renders the index, a skill page, a run page and a legacy run
// page from a seeded ledger (goldens, with run ids masked).
func TestPages(t *testing.T) {
	l := newTestLedger(t, false, 0)
	ids := seed(t, l)
	g := testutil.Golden(t)
	for _, tt := range []struct{ name, path string }{
		{"index", "/"},
		{"skill", "/skills/weekly"},
		{"skill_paged", "/skills/weekly?before=3"},
		{"skill_markup_name", "/skills/" + url.PathEscape("<b>bold</b> & \"quoted\"")},
		{"skill_no_runs", "/skills/never-run"},
		{"run_healed", "/runs/" + ids[5]},
		{"run_failed", "/runs/" + ids[3]},
		{"run_legacy", "/runs/" + ids[0]},
		{"unknown_skill", "/skills/nope"},
		{"unknown_run", "/runs/run_nope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := l.request(t, "GET", tt.path, nil, nil)
			if want := http.StatusOK; strings.HasPrefix(tt.name, "unknown") {
				want = http.StatusNotFound
				if resp.StatusCode != want {
					t.Errorf("status %d, want %d", resp.StatusCode, want)
				}
			} else if resp.StatusCode != want {
				t.Errorf("status %d, want %d", resp.StatusCode, want)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("CSP %q", csp)
			}
			if strings.Contains(string(body), "<b>bold</b>") || regexp.MustCompile(`(src|href)="(https?:)?//`).Match(body) {
				t.Errorf("unescaped markup or an external asset in the page")
			}
			g.Assert(t, tt.name, runID.ReplaceAll(body, []byte("run_ID")))
		})
	}
}

// TestEmptyIndex: a ledger with nothing pushed says so.
func TestEmptyIndex(t *testing.T) {
	l := newTestLedger(t, false, 0)
	if status, body := l.do(t, "GET", "/", nil, nil); status != 200 || !strings.Contains(string(body), `id="empty"`) {
		t.Errorf("%d %s", status, body)
	}
}
