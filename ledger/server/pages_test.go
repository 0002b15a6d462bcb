package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
	"github.com/reelier/reelier/testkit/testutil"
)

// The weekly skill file before and after the heal of healedRecord.
const (
	weeklyV1 = "---\nname: weekly\n---\n### Step 1 — List\n- action: http.get {\"url\": \"/bookings\"}\n- assert: json.items.length > 0\n"
	weeklyV2 = "---\nname: weekly\n---\n### Step 1 — List\n- action: http.get {\"url\": \"/bookings\"}\n- assert: json.data.items.length > 0\n"
)

// healedRecord is a passed run of weekly whose first step healed at L1
// after trying L2, spending tokens; it ran weeklyV1 and carries the heal's
// patch.
func healedRecord(i int) []byte {
	var r runlog.Record
	json.Unmarshal(ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked), &r)
	two := 2
	r.Steps[0].Level = 1
	r.Steps[0].EscalationAttempted = &two
	cost := int64(1500) // 900 input and 120 output tokens at $1 and $5 per million
	r.Steps[0].LLM = &runlog.LLMUsage{InputTokens: 900, OutputTokens: 120,
		Models: []runlog.ModelUsage{{Model: "claude-haiku-4-5", InputTokens: 900, OutputTokens: 120, CostMicroUSD: &cost}}}
	r.Steps[0].Why = &runlog.Why{Change: "L1: the list moved under data",
		Before: []string{"- assert: json.items.length > 0"}, After: []string{"- assert: json.data.items.length > 0"}}
	r.SkillSHA256 = wire.SkillHash([]byte(weeklyV1))
	r.Provenance = &runlog.Provenance{Provider: "local"}
	r.Finish(false)
	line, _ := runlog.Marshal(&r)
	return line
}

// hostileProvenance is where a CI run says it ran, with markup in the
// repository and a bidi override in the ref: accepted as text, shown inert.
var hostileProvenance = &runlog.Provenance{
	Provider: "github-actions", Repository: "acme/<script>alert(1)</script>",
	Commit: "0123456789abcdef0123456789abcdef01234567", Ref: "refs/heads/\u202eevil\u202c-branch",
	RunURL: "https://github.com/acme/weekly/actions/runs/42",
}

// withProvenance returns rec with p as its provenance.
func withProvenance(rec []byte, p *runlog.Provenance) []byte {
	var r runlog.Record
	json.Unmarshal(rec, &r)
	r.Provenance = p
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
	l.uploadSkillMd(t, "weekly", weeklyV1)
	for _, name := range []string{"smoke", "never-run"} {
		l.uploadSkill(t, name)
	}
	var ids []string
	push := func(skill string, rec []byte) {
		status, body := l.pushRun(t, skill, rec)
		var a wire.Accepted
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
			l.uploadSkillMd(t, "weekly", weeklyV2) // the heal rewrote the file; push sends it again
		case 5:
			push("weekly", withProvenance(ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked), hostileProvenance))
		default:
			push("weekly", ledgertest.Record("weekly", i, runlog.Passed, runlog.Unchecked))
		}
	}
	push("smoke", ledgertest.Record("smoke", 0, runlog.Unchecked, runlog.Unchecked))
	storeMarkupSkill(t, l)
	return ids
}

// markupName is a skill name the API refuses (it breaks the Agent Skills
// name rules) but a database from before the rule, or edited by hand, can
// hold: the pages must still show it as text.
const markupName = "<b>bold</b> & \"quoted\""

// storeMarkupSkill stores markupName and one failed run of it straight
// into the store, as a ledger from before the name rule holds them.
func storeMarkupSkill(t *testing.T, l *testLedger) {
	t.Helper()
	ctx := context.Background()
	if _, err := l.store.PutSkill(ctx, server.Skill{Name: markupName, SkillMd: "---\nname: " + markupName + "\n---\n", UploadedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	run := ledgertest.StoredRun(markupName, 0, runlog.Failed)
	run.ID, run.ReceivedAt = "run_markupmarkup0001", fixedNow()
	if _, _, err := l.store.AddRun(ctx, run); err != nil {
		t.Fatal(err)
	}
}

// storeHostileRun stores, bypassing the API's validation (as a database
// edited by hand, or a record stored by another program, could hold it),
// a failed run of smoke whose provenance has a javascript: run URL and
// whose failure holds markup and a bidi override; it returns its id.
func storeHostileRun(t *testing.T, l *testLedger) string {
	t.Helper()
	rec := withProvenance(ledgertest.Record("smoke", 1, runlog.Passed, runlog.Failed, runlog.Skipped), &runlog.Provenance{
		Provider: "github-actions", Repository: "acme/smoke", Commit: "fedcba9876543210fedcba9876543210fedcba98",
		Ref: "refs/heads/main", RunURL: "javascript:alert(document.cookie)",
	})
	var r runlog.Record
	json.Unmarshal(rec, &r)
	r.Steps[1].Title = "Fetch <img src=x onerror=alert(1)>"
	r.Steps[1].Failures = []string{"got \u202e<script>alert(2)</script>"}
	r.Steps[1].Why = &runlog.Why{Trigger: r.Steps[1].Failures[0]}
	r.Steps[1].Policy = &runlog.PolicyDecision{Digest: "sha256:0f1e", Rule: "no <b>writes</b>\u202e", Action: "deny"}
	rec, _ = runlog.Marshal(&r)
	run := ledgertest.StoredRun("smoke", 1, runlog.Passed, runlog.Failed, runlog.Skipped)
	run.ID, run.Record, run.IdempotencyKey = "run_hostilehostile01", rec, ""
	if _, _, err := l.store.AddRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

var runID = regexp.MustCompile(`run_[a-z0-9]{16}`)

// TestPages renders the index, a skill page, a run page and a legacy run
// page from a seeded ledger (goldens, with run ids masked).
func TestPages(t *testing.T) {
	l := newTestLedger(t, false, 0)
	ids := seed(t, l)
	hostile := storeHostileRun(t, l)
	g := testutil.Golden(t)
	for _, tt := range []struct{ name, path string }{
		{"index", "/"},
		{"skill", "/skills/weekly"},
		{"skill_paged", "/skills/weekly?before=3"},
		{"skill_markup_name", "/skills/" + url.PathEscape(markupName)},
		{"skill_no_runs", "/skills/never-run"},
		{"run_healed", "/runs/" + ids[5]},
		{"run_failed", "/runs/" + ids[3]},
		{"run_legacy", "/runs/" + ids[0]},
		{"run_provenance", "/runs/" + ids[6]},
		{"run_hostile", "/runs/" + hostile},
		{"skill_file", "/skills/weekly/file"},
		{"skill_file_v1", "/skills/weekly/file?version=1"},
		{"skill_file_no_version", "/skills/weekly/file?version=3"},
		{"skill_smoke", "/skills/smoke"},
		{"unknown_skill", "/skills/nope"},
		{"unknown_run", "/runs/run_nope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := l.request(t, "GET", tt.path, nil, nil)
			if want := http.StatusOK; strings.HasPrefix(tt.name, "unknown") || strings.HasSuffix(tt.name, "no_version") {
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
			if strings.Contains(string(body), "<b>bold</b>") || regexp.MustCompile(`src="(https?:)?//`).Match(body) {
				t.Errorf("unescaped markup or an external asset in the page")
			}
			// The one link off the ledger is a run's http(s) run URL.
			for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllSubmatch(body, -1) {
				if u := string(m[1]); !strings.HasPrefix(u, "/") && u != hostileProvenance.RunURL {
					t.Errorf("the page links %s", u)
				}
			}
			for _, bad := range []string{"<script", "<img", "\u202e", "\u202c"} {
				if strings.Contains(string(body), bad) {
					t.Errorf("the page holds %q: hostile text not rendered inert", bad)
				}
			}
			if tt.name == "run_hostile" && (strings.Contains(string(body), "data-run-url") || !strings.Contains(string(body), "not an http(s) address, so not linked")) {
				t.Errorf("a javascript: run URL was linked")
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
