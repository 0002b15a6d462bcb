package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestToolDriftRecords: a run the drift check stopped before step 1
// (verdict failed, every step skipped, the drift kept) is accepted as
// failed; a record that claims drift but whose steps ran, or that says
// the drift was ignored, still gets the verdict its steps earn, and a
// malformed toolDrift is named.
func TestToolDriftRecords(t *testing.T) {
	drift := &runlog.ToolDrift{Tools: []runlog.DriftedTool{{Server: "calc", Tool: "add", Changes: []string{"input field c added (number, optional)"}}}}
	for _, tc := range []struct {
		name   string
		edit   func(r *runlog.Record)
		status int
		inBody string
	}{
		{"stopped by drift", func(r *runlog.Record) {
			r.Steps[0].Outcome, r.Steps[0].Skip = runlog.Skipped, "tool drift"
			r.Steps[0].Failures = nil
			r.ToolDrift = drift
			r.Finish(false)
		}, 202, ""},
		{"drift claimed but a step passed", func(r *runlog.Record) {
			r.ToolDrift = drift
			r.Finish(false)
			r.Verdict, r.Passed = runlog.VerdictFailed, false
		}, 400, `"record.verdict":"is \"failed\" but the steps say \"passed\""`},
		{"drift ignored, every step skipped", func(r *runlog.Record) {
			r.Steps[0].Outcome, r.Steps[0].Skip = runlog.Skipped, "tool drift"
			r.ToolDrift = &runlog.ToolDrift{Ignored: true, Tools: drift.Tools}
			r.Finish(false)
			r.Verdict, r.Passed = runlog.VerdictFailed, false
		}, 400, `"record.verdict":"is \"failed\" but the steps say \"unchecked\""`},
		{"malformed drift", func(r *runlog.Record) {
			r.ToolDrift = &runlog.ToolDrift{Tools: []runlog.DriftedTool{{Server: "calc", Tool: "\x00"}}}
			r.Finish(false)
		}, 400, `"record.toolDrift.tools[0].tool":"must be a string, got a number"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLedger(t, false, 0)
			l.uploadSkill(t, "weekly")
			var r runlog.Record
			json.Unmarshal(ledgertest.Record("weekly", 0, runlog.Passed), &r)
			tc.edit(&r)
			line, _ := runlog.Marshal(&r)
			line = []byte(strings.ReplaceAll(string(line), `"tool":"\u0000"`, `"tool":7`))
			status, body := l.pushRun(t, "weekly", line)
			if status != tc.status || !strings.Contains(string(body), tc.inBody) {
				t.Fatalf("%d %s; want %d with %s", status, body, tc.status, tc.inBody)
			}
		})
	}
}

// TestMockRunPages: a run against reelier mock is labelled on its receipt
// (with the servers it ran against, shown inert) and on the skill page,
// and left out of the pass rate unless ?mock=include.
func TestMockRunPages(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	push := func(i int, servers []runlog.ServerUse, outcomes ...runlog.Outcome) string {
		var r runlog.Record
		json.Unmarshal(ledgertest.Record("weekly", i, outcomes...), &r)
		r.Servers = servers
		line, _ := runlog.Marshal(&r)
		status, body := l.pushRun(t, "weekly", line)
		var a wire.Accepted
		if json.Unmarshal(body, &a); status != 202 {
			t.Fatalf("push: %d %s", status, body)
		}
		return a.ID
	}
	push(0, []runlog.ServerUse{{Name: "crm", Command: "npx"}}, runlog.Failed)
	id := push(1, []runlog.ServerUse{{Name: "<b>mock</b>", Command: "reelier", Mock: true}}, runlog.Passed)
	_, page := l.do(t, "GET", "/runs/"+id, nil, nil)
	for _, want := range []string{`id="mock-run"`, `<span class="mock" data-mock`, `<li data-server><bdi class="prov">&lt;b&gt;mock&lt;/b&gt;</bdi> <small class="muted">(program <bdi>reelier</bdi>)</small>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the mock run's receipt lacks %s", want)
		}
	}
	_, skill := l.do(t, "GET", "/skills/weekly", nil, nil)
	_, with := l.do(t, "GET", "/skills/weekly?mock=include", nil, nil)
	if !strings.Contains(string(skill), `<b data-pass-rate>0%</b>`) || !strings.Contains(string(skill), `<b data-mock-runs>1</b>`) ||
		!strings.Contains(string(with), `<b data-pass-rate>50%</b>`) {
		t.Errorf("pass rates: without mock runs %v, with %v", strings.Contains(string(skill), `0%`), strings.Contains(string(with), `50%`))
	}
}
