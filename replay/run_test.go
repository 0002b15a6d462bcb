package replay_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/tool"
)

// TestDivergence covers every divergence trigger: the diverging step fails
// with the real reason, nothing after it runs, and the run fails.
func TestDivergence(t *testing.T) {
	a := newAPI(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name   string
		step   step
		opts   func(*replay.Options)
		want   string // exact failure, with SERVER for the fixture's URL
		prefix bool   // want is a prefix
	}{
		{name: "assert false", step: step{action: get("/items"), asserts: []string{`json.count == 3`}},
			want: `json.count == 3 failed: got 2`},
		{name: "bind path not found", step: step{action: get("/items"), binds: []string{`x = json.nope.0`}},
			want: `bind x = json.nope.0 failed: path not found`},
		{name: "bind regex no match", step: step{action: get("/items"), binds: []string{`x = body match /zzz(\d)/`}},
			want: `bind x = body match /zzz(\d)/ failed: no capture-group match`},
		{name: "unbound variable", step: step{action: `http.get {"url": "{{base}}/items/{{nobody}}"}`},
			want: `Unbound template variable {{nobody}}`},
		{name: "date offset out of range", step: step{action: `http.get {"url": "{{base}}/items?from={{today-366d}}"}`},
			want: `Computed date var {{today-366d}} has an offset of 366 days — only 1-365 is supported`},
		{name: "server down", step: step{action: `http.get {"url": "` + down.URL + `/x"}`},
			want: `Tool execution failed: Get "` + down.URL + `/x": dial tcp ` + strings.TrimPrefix(down.URL, "http://") + `: connect: connection refused`},
		{name: "timeout", step: step{action: get("/hang")},
			opts: func(o *replay.Options) { httptool.Register(o.Tools, &http.Client{Timeout: 50 * time.Millisecond}) },
			want: `Tool execution failed: Get "SERVER/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
		{name: "bad tool arguments", step: step{action: `http.get {"href": "x"}`},
			want: `Tool execution failed: missing required string argument "url"`},
		{name: "unknown tool", step: step{action: `http.delete {"url": "{{base}}/items"}`},
			want: `Unknown tool "http.delete"; known tools: http.get, http.post`},
		{name: "destructive refused", step: step{action: `http.post {"url": "{{base}}/echo", "body": {"on": "{{today}}"}}`, effect: "destructive"},
			want: `Refusing to execute destructive step without --yes. Filled action: http.post {"url":"SERVER/echo","body":{"on":"2026-07-18"}}`},
		{name: "destructive refused, unfillable", step: step{action: `http.post {"url": "{{base}}/echo/{{nobody}}"}`, effect: "destructive"},
			want: `Refusing to execute destructive step without --yes. Filled action: http.post <error: Unbound template variable {{nobody}}>`},
		{name: "write refused", step: step{action: `http.post {"url": "{{base}}/echo"}`, effect: "idempotent-write"},
			want: `Refusing to execute a write step (effect: idempotent-write) — replay is read-only by default. Pass --allow-writes to execute it. Filled action: http.post {"url":"SERVER/echo"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, skill(
				step{title: "First", action: get("/items"), asserts: []string{"status == 200"}, binds: []string{"id = json.items.0.id"}},
				tt.step,
				step{title: "Never", action: get("/items/never")},
			))
			o := a.options()
			if tt.opts != nil {
				tt.opts(&o)
			}
			before := a.hitCount("/items/never")
			res := replay.Run(context.Background(), s, o)
			want := strings.ReplaceAll(tt.want, "SERVER", a.URL)
			rec := res.Record
			if got := rec.Steps[1].Failures; len(got) != 1 || got[0] != want {
				t.Errorf("step 2 failures %q\nwant [%q]", got, want)
			}
			if rec.Steps[1].Why == nil || rec.Steps[1].Why.Trigger != want {
				t.Errorf("why %+v", rec.Steps[1].Why)
			}
			if rec.Passed || rec.Steps[0].Outcome != runlog.Passed || rec.Steps[1].Outcome != runlog.Failed || rec.Steps[2].Outcome != runlog.Skipped {
				t.Errorf("outcomes %s %s %s, passed %v", rec.Steps[0].Outcome, rec.Steps[1].Outcome, rec.Steps[2].Outcome, rec.Passed)
			}
			if a.hitCount("/items/never") != before {
				t.Error("a step after the divergence was executed")
			}
			wantTotals := runlog.Totals{Steps: 3, Passed: 1, Failed: 1, Skipped: 1, Ms: rec.Totals.Ms}
			if rec.Totals != wantTotals {
				t.Errorf("totals %+v, want %+v", rec.Totals, wantTotals)
			}
		})
	}
}

// TestGating checks which effects execute under which flags; gating uses
// the step's effect, and the tool's own only when the step declares none.
func TestGating(t *testing.T) {
	a := newAPI(t)
	post := `http.post {"url": "{{base}}/echo", "body": "x"}`
	tests := []struct {
		effect           string // "" removes the step's effect: the tool's applies
		yes, allowWrites bool
		runs             bool
	}{
		{effect: "read", runs: true},
		{effect: "idempotent-write", runs: false},
		{effect: "idempotent-write", allowWrites: true, runs: true},
		{effect: "idempotent-write", yes: true, runs: true},
		{effect: "destructive", runs: false},
		{effect: "destructive", allowWrites: true, runs: false},
		{effect: "destructive", yes: true, runs: true},
		{effect: "", runs: false}, // http.post is destructive: a POST is not safe to repeat
		{effect: "", allowWrites: true, runs: false},
		{effect: "", yes: true, runs: true},
	}
	for _, tt := range tests {
		eff := tt.effect
		if eff == "" {
			eff = "read"
		}
		s := parse(t, skill(step{action: post, effect: eff, asserts: []string{"status == 200"}}))
		if tt.effect == "" {
			s.Steps[0].Effect = nil
		}
		o := a.options()
		o.Yes, o.AllowWrites = tt.yes, tt.allowWrites
		before := a.hitCount("/echo")
		res := replay.Run(context.Background(), s, o)
		ran := a.hitCount("/echo") > before
		if ran != tt.runs || res.Record.Passed != tt.runs {
			t.Errorf("effect %q yes=%v allow-writes=%v: ran %v, passed %v; want %v (%q)", tt.effect, tt.yes, tt.allowWrites, ran, res.Record.Passed, tt.runs, res.Record.Steps[0].Failures)
		}
		if !ran && res.Steps[0].Action != nil {
			t.Error("a refused step reports an executed action")
		}
	}
}

// TestUncheckedBindsMerge: a step without asserts is unchecked, not
// passed, and its binds reach later steps.
func TestUncheckedBindsMerge(t *testing.T) {
	a := newAPI(t)
	s := parse(t, skill(
		step{action: get("/items"), binds: []string{"id = json.items.1.id"}},
		step{action: `http.get {"url": "{{base}}/items/{{id}}"}`, asserts: []string{`json.id == "b2"`}},
	))
	rec := replay.Run(context.Background(), s, a.options()).Record
	if rec.Steps[0].Outcome != runlog.Unchecked || rec.Steps[1].Outcome != runlog.Passed || !rec.Passed {
		t.Fatalf("outcomes %+v", rec.Steps)
	}
	if rec.Totals.Passed != 1 || rec.Totals.Unchecked != 1 {
		t.Errorf("totals %+v: an unchecked step must not count as passed", rec.Totals)
	}
}

// TestOneClockReading: every {{today}} of a run, and its startedAt, come
// from one reading of the clock, even if the clock moves during the run.
func TestOneClockReading(t *testing.T) {
	a := newAPI(t)
	day := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	calls := 0
	o := a.options()
	o.Clock = func() time.Time { calls++; return day.AddDate(0, 0, calls-1) }
	s := parse(t, skill(
		step{action: `http.get {"url": "{{base}}/items?d={{today}}"}`},
		step{action: `http.get {"url": "{{base}}/items?d={{today}}&w={{today+1d}}"}`},
	))
	res := replay.Run(context.Background(), s, o)
	for i, want := range []string{"d=2026-12-31", "d=2026-12-31&w=2027-01-01"} {
		if !strings.Contains(string(res.Steps[i].Action.Args), want) {
			t.Errorf("step %d args %s, want %s", i+1, res.Steps[i].Action.Args, want)
		}
	}
	if res.Record.StartedAt != "2026-12-31T23:59:59.000Z" || res.Record.FinishedAt != "2027-01-01T23:59:59.000Z" {
		t.Errorf("startedAt %s finishedAt %s", res.Record.StartedAt, res.Record.FinishedAt)
	}
	if calls != 2 {
		t.Errorf("clock read %d times, want 2 (start and finish)", calls)
	}
}

// TestDryRun fills every action, leaves run-time binds as holes, reports
// what cannot be filled and what the flags would refuse, and calls nothing.
func TestDryRun(t *testing.T) {
	a := newAPI(t)
	s := parse(t, skill(
		step{action: `http.get {"url": "{{base}}/items", "from": "{{today-7d}}"}`, binds: []string{"id = json.items.0.id"}},
		step{action: `http.post {"url": "{{base}}/items/{{id}}", "body": {"n": 1}}`, effect: "destructive"},
		step{action: `http.post {"url": "{{base}}/echo"}`, effect: "idempotent-write"},
		step{action: `http.get {"url": "{{base}}/{{nobody}}"}`},
		step{action: `crm.lookup {"id": 1}`},
	))
	plan := replay.DryRun(s, a.options())
	want := []struct{ args, err, needs string }{
		{args: `{"url":"SERVER/items","from":"2026-07-11"}`},
		{args: `{"url":"SERVER/items/{{id}}","body":{"n":1}}`, needs: "--yes"},
		{args: `{"url":"SERVER/echo"}`, needs: "--allow-writes"},
		{err: "Unbound template variable {{nobody}}"},
		{err: `Unknown tool "crm.lookup"; known tools: http.get, http.post`},
	}
	for i, w := range want {
		p := plan[i]
		gotErr := ""
		if p.Err != nil {
			gotErr = p.Err.Error()
		}
		if string(p.Action.Args) != strings.ReplaceAll(w.args, "SERVER", a.URL) || gotErr != w.err || p.NeedsFlag != w.needs {
			t.Errorf("step %d: args %s err %q needs %q; want %+v", i+1, p.Action.Args, gotErr, p.NeedsFlag, w)
		}
	}
	if a.total() != 0 {
		t.Errorf("a dry run made %d requests", a.total())
	}
}

// TestRunRecordGolden pins the run record of a run with every outcome.
func TestRunRecordGolden(t *testing.T) {
	a := newAPI(t)
	s := parse(t, skill(
		step{title: "List items", action: get("/items"), asserts: []string{"status == 200", "json.items length > 0"}, binds: []string{"id = json.items.0.id"}},
		step{title: "Fetch without checking", action: `http.get {"url": "{{base}}/items/{{id}}"}`},
		step{title: "Expect confirmed", action: get("/items"), asserts: []string{`json.status == "confirmed"`, "status == 200", "json.count > 5"}},
		step{title: "Cancel it", action: `http.post {"url": "{{base}}/echo"}`, effect: "destructive"},
	))
	res := replay.Run(context.Background(), s, a.options())
	for i := range res.Record.Steps {
		res.Record.Steps[i].Ms = 0
	}
	res.Record.Finish(false)
	line, err := runlog.Marshal(&res.Record)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t).Assert(t, "record", []byte(strings.ReplaceAll(string(line), a.URL, "http://127.0.0.1:PORT")))
}

// TestRefusalRecordGolden pins the record of a refused destructive step.
func TestRefusalRecordGolden(t *testing.T) {
	a := newAPI(t)
	s := parse(t, skill(step{title: "Delete everything", action: `http.post {"url": "{{base}}/echo", "body": {"all": true}}`, effect: "destructive"}))
	res := replay.Run(context.Background(), s, a.options())
	res.Record.Steps[0].Ms = 0
	res.Record.Finish(false)
	line, err := runlog.Marshal(&res.Record)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t).Assert(t, "record", []byte(strings.ReplaceAll(string(line), a.URL, "http://127.0.0.1:PORT")))
}

// TestCorpusNeverPanics replays every valid corpus skill, dry and for real,
// against tools that answer every call with a fixture response (the corpus
// names real hosts: nothing may leave the machine).
func TestCorpusNeverPanics(t *testing.T) {
	for _, f := range testutil.Corpus(t, "valid") {
		s := parse(t, string(f.Src))
		o := replay.Options{Tools: tool.Registry{}, Clock: fixedClock, Yes: true}
		for _, st := range s.Steps {
			o.Tools[st.Action.Tool] = fixedTool{}
		}
		replay.DryRun(s, o)
		res := replay.Run(context.Background(), s, o)
		if len(res.Record.Steps) != len(s.Steps) || res.Record.Totals.Steps != len(s.Steps) {
			t.Errorf("%s: %d step records for %d steps", f.Name, len(res.Record.Steps), len(s.Steps))
		}
	}
}

// fixedTool answers every call with the fixture JSON.
type fixedTool struct{}

func (fixedTool) Effect() ast.Effect { return ast.EffectRead }

func (fixedTool) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: itemsBody}, nil
}
