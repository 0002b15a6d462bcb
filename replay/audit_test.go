package replay_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// scripted is a tool whose answers come from a function of the call number
// (1-based) and the arguments.
type scripted struct {
	effect ast.Effect
	mu     sync.Mutex
	calls  int
	answer func(ctx context.Context, n int, args []byte) (*tool.Observation, error)
}

func (s *scripted) Effect() ast.Effect { return s.effect }

func (s *scripted) Call(ctx context.Context, args []byte) (*tool.Observation, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	return s.answer(ctx, n, args)
}

func body(s string) *tool.Observation { return &tool.Observation{Status: 200, Body: s} }

func run(t *testing.T, src string, o replay.Options) *replay.Result {
	t.Helper()
	if o.Clock == nil {
		o.Clock = fixedClock
	}
	return replay.Run(context.Background(), parse(t, src), o)
}

// TestCallTimeout: a tool that never answers fails the step as a tool
// error naming the limit, and the run goes on to no later step.
func TestCallTimeout(t *testing.T) {
	hang := &scripted{effect: ast.EffectRead, answer: func(ctx context.Context, _ int, _ []byte) (*tool.Observation, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	src := skill(step{action: `hang {}`, asserts: []string{"status == 200"}}, step{action: `hang {}`})
	for _, tc := range []struct {
		name   string
		limits replay.Limits
		meta   string
		want   string
	}{
		{name: "flag", limits: replay.Limits{Timeout: 20 * time.Millisecond, From: "--timeout"}, want: "Tool execution failed: no answer within 20ms (the limit set by --timeout)"},
		{name: "skill metadata", meta: "metadata:\n  reelier-timeout: 30ms\n", want: "Tool execution failed: no answer within 30ms (the limit set by metadata reelier-timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Replace(src, "description: a test skill\n", "description: a test skill\n"+tc.meta, 1)
			res := run(t, s, replay.Options{Tools: tool.Registry{"hang": hang}, Limits: tc.limits})
			st := res.Record.Steps[0]
			if st.Outcome != runlog.Failed || st.Kind != runlog.KindTool || len(st.Failures) != 1 || st.Failures[0] != tc.want {
				t.Fatalf("step 1: %s %s %q, want failed tool %q", st.Outcome, st.Kind, st.Failures, tc.want)
			}
			if res.Record.Verdict != runlog.VerdictFailed || res.Record.Steps[1].Skip != replay.SkipAfterFailure {
				t.Fatalf("verdict %s, step 2 skip %q", res.Record.Verdict, res.Record.Steps[1].Skip)
			}
		})
	}
}

// TestInterrupted: a run stopped from outside while a step runs is
// interrupted, never failed. A step whose call was sent is interrupted in
// flight, with the action that was sent on its record; a step the stop
// reached before its call went out, and every later one, is skipped as
// interrupted with no action.
func TestInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		// beforeSend cancels as step 2 starts, before its call is made;
		// otherwise the cancel comes while step 2's call is in flight.
		beforeSend bool
		calls      int
		outcome    runlog.Outcome
		skips      []string
	}{
		{name: "in flight", calls: 2, outcome: runlog.Interrupted, skips: []string{"", "", replay.SkipInterrupted}},
		{name: "before the call was sent", beforeSend: true, calls: 1, outcome: runlog.Skipped, skips: []string{"", replay.SkipInterrupted, replay.SkipInterrupted}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fake := &scripted{effect: ast.EffectRead, answer: func(c context.Context, n int, _ []byte) (*tool.Observation, error) {
				if n == 1 {
					return body(`{"ok": true}`), nil
				}
				cancel() // Ctrl-C while the second call is in flight
				<-c.Done()
				return nil, c.Err()
			}}
			opts := replay.Options{Tools: tool.Registry{"t": fake}, Clock: fixedClock}
			if tc.beforeSend {
				opts.OnStepStart = func(st *ast.Step) {
					if st.Number == 2 {
						cancel()
					}
				}
			}
			src := skill(step{action: `t {}`, asserts: []string{"status == 200"}}, step{action: `t {"id": 7}`, asserts: []string{"status == 200"}}, step{action: `t {}`})
			res := replay.Run(ctx, parse(t, src), opts)
			rec := res.Record
			if rec.Verdict != runlog.VerdictInterrupted || rec.Passed || rec.Totals.Failed != 0 {
				t.Fatalf("verdict %s passed %v failed %d", rec.Verdict, rec.Passed, rec.Totals.Failed)
			}
			for i, want := range tc.skips {
				if rec.Steps[i].Skip != want {
					t.Errorf("step %d skip %q, want %q", i+1, rec.Steps[i].Skip, want)
				}
			}
			if rec.Steps[0].Outcome != runlog.Passed || fake.calls != tc.calls {
				t.Fatalf("step 1 %s, %d calls, want %d", rec.Steps[0].Outcome, fake.calls, tc.calls)
			}
			s2 := rec.Steps[1]
			if s2.Outcome != tc.outcome || len(s2.Failures) != 0 || s2.Kind != "" {
				t.Fatalf("step 2 %+v, want %s", s2, tc.outcome)
			}
			sent := s2.Action != nil && s2.Action.Tool == "t" && string(s2.Action.Args) == `{"id":7}`
			if sent != (tc.outcome == runlog.Interrupted) {
				t.Errorf("step 2 action %+v: the record must keep what was sent, and only what was sent", s2.Action)
			}
			if want := map[bool]int{true: 1}[tc.outcome == runlog.Interrupted]; rec.Totals.Interrupted != want {
				t.Errorf("totals.interrupted %d, want %d", rec.Totals.Interrupted, want)
			}
		})
	}
}

// TestRetry: a read step whose checks do not hold is executed again, up to
// the limit, each attempt on the record; a write step never is.
func TestRetry(t *testing.T) {
	ready := func(after int) func(context.Context, int, []byte) (*tool.Observation, error) {
		return func(_ context.Context, n int, _ []byte) (*tool.Observation, error) {
			if n >= after {
				return body(`{"state": "done"}`), nil
			}
			return body(`{"state": "running"}`), nil
		}
	}
	for _, tc := range []struct {
		name     string
		effect   string
		after    int
		retry    int
		meta     string // reelier-retry-steps, when set
		outcome  runlog.Outcome
		calls    int
		attempts int
	}{
		{name: "ready on the third try", effect: "read", after: 3, retry: 5, outcome: runlog.Passed, calls: 3, attempts: 3},
		{name: "never ready", effect: "read", after: 99, retry: 2, outcome: runlog.Failed, calls: 3, attempts: 3},
		{name: "no retry", effect: "read", after: 2, retry: 0, outcome: runlog.Failed, calls: 1, attempts: 0},
		{name: "a write is never repeated", effect: "idempotent-write", after: 2, retry: 5, outcome: runlog.Failed, calls: 1, attempts: 0},
		{name: "the step the skill names", effect: "read", after: 2, retry: 3, meta: "1", outcome: runlog.Passed, calls: 2, attempts: 2},
		{name: "a step the skill does not name", effect: "read", after: 2, retry: 3, meta: "2", outcome: runlog.Failed, calls: 1, attempts: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &scripted{effect: ast.EffectRead, answer: ready(tc.after)}
			src := skill(step{action: `poll {}`, effect: tc.effect, asserts: []string{`json.state == "done"`}}, step{action: `noop {}`})
			if tc.meta != "" {
				src = strings.Replace(src, "description: a test skill\n", "description: a test skill\nmetadata:\n  reelier-retry-steps: \""+tc.meta+"\"\n", 1)
			}
			noop := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) { return body("{}"), nil }}
			res := run(t, src, replay.Options{Tools: tool.Registry{"poll": fake, "noop": noop}, AllowWrites: true, Limits: replay.Limits{Retry: tc.retry}})
			st := res.Record.Steps[0]
			if st.Outcome != tc.outcome || fake.calls != tc.calls || st.Attempts != tc.attempts || len(st.Tries) != tc.attempts {
				t.Fatalf("outcome %s calls %d attempts %d tries %d; want %s %d %d", st.Outcome, fake.calls, st.Attempts, len(st.Tries), tc.outcome, tc.calls, tc.attempts)
			}
			if tc.attempts > 1 && st.Tries[0].SHA256 == st.Tries[len(st.Tries)-1].SHA256 && tc.outcome == runlog.Passed {
				t.Fatal("the first and last attempts saw different answers but share a digest")
			}
		})
	}
}

// TestSkipWrites: with SkipWrites a refused write is skipped, later steps
// that do not need its binds still run, and one that does is skipped too.
func TestSkipWrites(t *testing.T) {
	fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
		return body(`{"id": "n1"}`), nil
	}}
	src := skill(
		step{action: `t {"op": "create"}`, effect: "destructive", binds: []string{"id = json.id"}},
		step{action: `t {"op": "list"}`, asserts: []string{"status == 200"}},
		step{action: `t {"op": "read", "id": "{{id}}"}`, asserts: []string{"status == 200"}},
	)
	res := run(t, src, replay.Options{Tools: tool.Registry{"t": fake}, SkipWrites: true})
	rec := res.Record
	want := []struct {
		outcome runlog.Outcome
		skip    string
	}{{runlog.Skipped, replay.SkipWriteGate}, {runlog.Passed, ""}, {runlog.Skipped, "needs {{id}}, which step 1 would have bound"}}
	for i, w := range want {
		if rec.Steps[i].Outcome != w.outcome || rec.Steps[i].Skip != w.skip {
			t.Errorf("step %d: %s %q, want %s %q", i+1, rec.Steps[i].Outcome, rec.Steps[i].Skip, w.outcome, w.skip)
		}
	}
	if fake.calls != 1 || rec.Verdict != runlog.VerdictPassed {
		t.Fatalf("%d calls, verdict %s", fake.calls, rec.Verdict)
	}
	// Without SkipWrites the refusal fails the run as a gate.
	res = run(t, src, replay.Options{Tools: tool.Registry{"t": fake}})
	if st := res.Record.Steps[0]; st.Outcome != runlog.Failed || st.Kind != runlog.KindGate || st.Action == nil {
		t.Fatalf("step 1 without SkipWrites: %s %s action %v", st.Outcome, st.Kind, st.Action)
	}
}

// TestVerdicts: one word per run.
func TestVerdicts(t *testing.T) {
	fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
		return body(`{"n": 1}`), nil
	}}
	for _, tc := range []struct {
		name  string
		steps []step
		want  runlog.Verdict
	}{
		{"checked", []step{{action: `t {}`, asserts: []string{"json.n == 1"}}, {action: `t {}`}}, runlog.VerdictPassed},
		{"nothing checked", []step{{action: `t {}`}}, runlog.VerdictUnchecked},
		{"a check failed", []step{{action: `t {}`, asserts: []string{"json.n == 2"}}}, runlog.VerdictFailed},
		{"an input missing", []step{{action: `t {"x": "{{nobody}}"}`}}, runlog.VerdictConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := run(t, skill(tc.steps...), replay.Options{Tools: tool.Registry{"t": fake}}).Record
			if rec.Verdict != tc.want || rec.Passed != (tc.want == runlog.VerdictPassed) {
				t.Fatalf("verdict %s passed %v, want %s", rec.Verdict, rec.Passed, tc.want)
			}
		})
	}
}

// TestRecordedStep: the record keeps the filled action and the values
// binds took, secrets blanked by the redactor, and a digest of the answer
// instead of the answer.
func TestRecordedStep(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	fake := &scripted{effect: ast.EffectRead, answer: func(context.Context, int, []byte) (*tool.Observation, error) {
		return body(`{"token": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "id": 7, "blob": "` + big + `"}`), nil
	}}
	src := skill(step{action: `t {"api_key": "sk-live-0123456789abcdefghijklmnop", "q": "{{who}}"}`, binds: []string{"token = json.token", "id = json.id"}})
	res := run(t, src, replay.Options{Tools: tool.Registry{"t": fake}, Vars: map[string]string{"who": "ada"}})
	st := res.Record.Steps[0]
	line, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	got := string(line)
	for _, secret := range []string{"sk-live-0123456789abcdefghijklmnop", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", big[:100]} {
		if strings.Contains(got, secret) {
			t.Fatalf("the record holds %q: %s", secret[:20], got[:300])
		}
	}
	if st.Action == nil || !strings.Contains(string(st.Action.Args), `"q":"ada"`) || string(st.Binds["id"]) != "7" {
		t.Fatalf("action %+v binds %v", st.Action, st.Binds)
	}
	if st.Observation == nil || st.Observation.Size < 1<<20 || len(st.Observation.SHA256) != 64 || len(line) > 4096 {
		t.Fatalf("observation %+v, record %d bytes", st.Observation, len(line))
	}
}

// TestInputs lists the holes a skill needs from outside, in order of first
// use, and only those no variable supplies.
func TestInputs(t *testing.T) {
	src := skill(
		step{action: `t {"a": "{{root}}/{{today}}"}`, binds: []string{"id = json.id"}},
		step{action: `t {"b": "{{id}}", "c": "{{pattern}}", "d": "{{root}}"}`},
	)
	s := parse(t, src)
	var names []string
	for _, in := range replay.Inputs(s) {
		names = append(names, in.Name)
	}
	if strings.Join(names, ",") != "root,pattern" {
		t.Fatalf("inputs %v", names)
	}
	missing := replay.MissingInputs(s, map[string]string{"root": "/"})
	if len(missing) != 1 || missing[0].Name != "pattern" || missing[0].Step != 2 {
		t.Fatalf("missing %+v", missing)
	}
}
