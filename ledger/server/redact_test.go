package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestStoredRedacted: a record and a skill file pushed by a client that did
// not redact them (an older Reelier, or another client) are stored
// redacted, so no page and no read API answer shows the secret; a record
// with nothing to blank is stored byte for byte.
func TestStoredRedacted(t *testing.T) {
	password, github := "Hunter2-"+"ledger", "ghp_"+strings.Repeat("lDg6", 9)
	l := newTestLedger(t, false, 0)
	body, _ := json.Marshal(wire.SkillUpload{Name: "weekly", SkillMd: "---\nname: weekly\n---\n\n## Steps\n\n### Step 1 — Use " + github + "\n"})
	if status, out := l.do(t, "POST", wire.SkillsPath, body, nil); status != http.StatusOK {
		t.Fatalf("skill upload: %d %s", status, out)
	}
	rec := runlog.Record{Skill: "weekly", StartedAt: "2026-07-18T14:00:00.000Z", FinishedAt: "2026-07-18T14:00:01.000Z",
		Steps: []runlog.StepRecord{{N: 1, Title: "Sign in with " + github, Outcome: runlog.Failed, Kind: runlog.KindCheck,
			Failures: []string{`json.user == "x" failed: got {"name":"ann","password":"` + password + `"}`},
			Action:   &runlog.ActionRecord{Tool: "t", Args: json.RawMessage(`{"user":"ann","password":"` + password + `"}`)},
			Binds:    map[string]json.RawMessage{"token": json.RawMessage(`"` + github + `"`)}}}}
	rec.Finish(false)
	leaky, err := runlog.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	clean := ledgertest.Record("weekly", 1, runlog.Passed)
	var ids []string
	for _, rec := range [][]byte{leaky, clean} {
		status, out := l.pushRun(t, "weekly", rec)
		var a wire.Accepted
		if status != http.StatusAccepted || json.Unmarshal(out, &a) != nil {
			t.Fatalf("push: %d %s", status, out)
		}
		ids = append(ids, a.ID)
	}
	run, err := l.store.Run(t.Context(), ids[1])
	if err != nil || string(run.Record) != string(clean) {
		t.Errorf("the clean record was stored as %s (%v), want it byte for byte", run.Record, err)
	}
	for _, path := range []string{"/", "/skills/weekly", "/runs/" + ids[0], wire.SkillsPath, wire.SkillsPath + "/weekly/runs"} {
		status, out := l.do(t, "GET", path, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		for _, secret := range []string{password, github} {
			if strings.Contains(string(out), secret) {
				t.Errorf("GET %s shows a secret", path)
			}
		}
	}
	run, err = l.store.Run(t.Context(), ids[0])
	if err != nil || !strings.Contains(string(run.Record), `"password":"«redacted»"`) || strings.Contains(string(run.Record), password) {
		t.Errorf("the leaky record was stored as %s (%v)", run.Record, err)
	}
}
