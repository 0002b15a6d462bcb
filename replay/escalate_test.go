package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// healerFunc adapts a function to replay.Healer.
type healerFunc func(context.Context, *replay.Divergence) *replay.Healing

func (f healerFunc) Heal(ctx context.Context, d *replay.Divergence) *replay.Healing {
	return f(ctx, d)
}

func mustAssert(t *testing.T, src string) ast.Assert {
	t.Helper()
	a, d := grammar.ParseAssert(src, ast.Pos{})
	if d != nil {
		t.Fatal(d)
	}
	return a
}

func mustBind(t *testing.T, src string) ast.Bind {
	t.Helper()
	b, d := grammar.ParseBind(src, ast.Pos{})
	if d != nil {
		t.Fatal(d)
	}
	return b
}

// TestHealerOffered: only a step that diverged after its tool ran is
// offered to the Healer, with what it needs to know.
func TestHealerOffered(t *testing.T) {
	a := newAPI(t)
	tests := []struct {
		name    string
		step    step
		yes     bool
		offered bool
	}{
		{name: "assert failed", step: step{action: get("/items"), asserts: []string{"json.count == 3"}}, offered: true},
		{name: "bind failed", step: step{action: get("/items"), binds: []string{"x = json.nope"}}, offered: true},
		{name: "not JSON", step: step{action: get("/html"), asserts: []string{"json.x is set"}}, offered: true},
		{name: "unbound variable", step: step{action: get("/items/{{nobody}}"), asserts: []string{"status == 200"}}},
		{name: "destructive refused", step: step{action: get("/items"), effect: "destructive", asserts: []string{"json.count == 3"}}},
		{name: "unknown tool", step: step{action: `http.nope {"url": "x"}`}},
		{name: "tool error", step: step{action: `http.get {"href": "x"}`}},
		{name: "passed", step: step{action: get("/items"), asserts: []string{"json.count == 2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, skill(step{action: get("/items"), binds: []string{"first = json.items.0.id"}}, tt.step))
			var got *replay.Divergence
			o := a.options()
			o.Yes = tt.yes
			o.Healer = healerFunc(func(_ context.Context, d *replay.Divergence) *replay.Healing {
				if got != nil {
					t.Error("offered twice")
				}
				got = d
				return nil
			})
			res := replay.Run(context.Background(), s, o)
			if (got != nil) != tt.offered {
				t.Fatalf("offered %v, want %v", got != nil, tt.offered)
			}
			rec := res.Record.Steps[1]
			if rec.LLM != nil || rec.EscalationAttempted != nil || rec.Level != 0 || res.Steps[1].Heal != nil {
				t.Errorf("a nil healing changed the record: %+v", rec)
			}
			if got == nil {
				return
			}
			if got.Step != s.Steps[1] || got.Observation == nil || got.Action == nil || len(got.Failures) != len(rec.Failures) ||
				got.Failures[0].Message != rec.Failures[0] || !got.Now.Equal(fixedClock()) || got.Effect() != ast.EffectRead {
				t.Errorf("divergence %+v", got)
			}
			if names := strings.Join(got.BoundNames(), ","); names != "base,first" || !got.Bound("first") || got.Bound("x") {
				t.Errorf("bound names %q", names)
			}
		})
	}
}

// TestHealingVerdicts: what each kind of Healing does to the step record.
func TestHealingVerdicts(t *testing.T) {
	a := newAPI(t)
	usage := &runlog.LLMUsage{InputTokens: 100, OutputTokens: 20}
	tests := []struct {
		name    string
		healing func(t *testing.T) *replay.Healing
		check   func(t *testing.T, res *replay.Result)
	}{
		{name: "not healed", healing: func(t *testing.T) *replay.Healing {
			return &replay.Healing{Attempted: 2, Usage: usage, Failures: []replay.Failure{{Message: "Level 1 heal failed: x"}}}
		}, check: func(t *testing.T, res *replay.Result) {
			rec := res.Record.Steps[1]
			if rec.Outcome != runlog.Failed || rec.Level != 0 || *rec.EscalationAttempted != 2 || rec.LLM != usage ||
				len(rec.Failures) != 2 || rec.Failures[1] != "Level 1 heal failed: x" || rec.Why.Trigger != rec.Failures[0] {
				t.Errorf("record %+v", rec)
			}
			if res.Record.Totals.LLMInputTokens != 100 || res.Record.Steps[2].Outcome != runlog.Skipped {
				t.Errorf("totals %+v", res.Record.Totals)
			}
		}},
		{name: "healed", healing: func(t *testing.T) *replay.Healing {
			return &replay.Healing{Level: 1, Attempted: 1, Usage: usage, Reason: "count is 2 now",
				Asserts: []ast.Assert{mustAssert(t, "json.count == 2")}, Binds: []ast.Bind{mustBind(t, "id = json.items.1.id")}}
		}, check: func(t *testing.T, res *replay.Result) {
			rec := res.Record.Steps[1]
			if rec.Outcome != runlog.Passed || rec.Level != 1 || *rec.EscalationAttempted != 1 || len(rec.Failures) != 0 ||
				rec.Why == nil || rec.Why.Change != "L1: count is 2 now" || rec.Why.Trigger != "" {
				t.Errorf("record %+v", rec)
			}
			if !res.Record.Passed || res.Steps[2].Action == nil || !strings.HasSuffix(string(res.Steps[2].Action.Args), `/items/b2"}`) {
				t.Errorf("the heal's bind did not reach the next step: %+v", res.Steps[2].Action)
			}
		}},
		{name: "healed without asserts is unchecked", healing: func(t *testing.T) *replay.Healing {
			return &replay.Healing{Level: 1, Attempted: 1, Usage: usage, Reason: "r", Binds: []ast.Bind{mustBind(t, "id = json.items.1.id")}}
		}, check: func(t *testing.T, res *replay.Result) {
			if rec := res.Record.Steps[1]; rec.Outcome != runlog.Unchecked || rec.Level != 1 {
				t.Errorf("record %+v", rec)
			}
		}},
		{name: "a heal that does not hold is refused", healing: func(t *testing.T) *replay.Healing {
			return &replay.Healing{Level: 1, Attempted: 1, Usage: usage, Reason: "r", Asserts: []ast.Assert{mustAssert(t, "json.count == 9")}}
		}, check: func(t *testing.T, res *replay.Result) {
			rec := res.Record.Steps[1]
			want := "The Level 1 heal did not hold when the runner checked it: json.count == 9 failed: got 2"
			if rec.Outcome != runlog.Failed || rec.Level != 0 || rec.Failures[len(rec.Failures)-1] != want || rec.LLM != usage {
				t.Errorf("record %+v", rec)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, skill(
				step{action: get("/items")},
				step{title: "Check", action: get("/items"), asserts: []string{"json.count == 3"}, binds: []string{"id = json.items.0.id"}},
				step{action: get("/items/{{id}}")},
			))
			o := a.options()
			o.Healer = healerFunc(func(context.Context, *replay.Divergence) *replay.Healing { return tt.healing(t) })
			res := replay.Run(context.Background(), s, o)
			tt.check(t, res)
			if got := s.Steps[1].Asserts[0].Expr; strings.Contains(got.(*ast.JSONCompareAssert).Value.(*ast.Number).Raw, "2") {
				t.Error("the heal modified the skill's tree")
			}
		})
	}
}

// TestRerun: the one re-execution a Healer may ask for. It is refused for a
// destructive step whatever the flags, refused a second time, gated like
// the step itself, and its call and observation replace the step's when
// the heal holds.
func TestRerun(t *testing.T) {
	a := newAPI(t)
	itemsArgs, _ := grammar.ParseArgs(`{"url": "{{base}}/items/{{first}}"}`, ast.Pos{})
	unbound, _ := grammar.ParseArgs(`{"url": "{{base}}/items/{{nobody}}"}`, ast.Pos{})
	tests := []struct {
		name        string
		effect      string
		yes, writes bool
		args        ast.Value
		twice       bool
		approve     bool   // the skill keeps an approval of step 2
		want        string // error, or "" for success
	}{
		{name: "read", effect: "read", args: itemsArgs},
		{name: "destructive even with --yes", effect: "destructive", yes: true, args: itemsArgs, want: "a destructive step is never re-executed"},
		{name: "second call", effect: "read", args: itemsArgs, twice: true, want: "the step was already re-executed once"},
		{name: "unbound", effect: "read", args: unbound, want: "Unbound template variable {{nobody}}"},
		{name: "write with --allow-writes", effect: "idempotent-write", writes: true, args: itemsArgs},
		{name: "approved write, other arguments", effect: "idempotent-write", writes: true, args: itemsArgs, approve: true,
			want: "step 2 is held by the skill's approvals (metadata reelier-approvals): a heal may not change its arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := skill(
				step{action: get("/items"), binds: []string{"first = json.items.0.id"}},
				step{action: get("/items"), effect: tt.effect, asserts: []string{"json.status == \"confirmed\""}},
			)
			if tt.approve {
				src = approved(t, src, 2)
			}
			s := parse(t, src)
			o := a.options()
			o.Yes, o.AllowWrites = tt.yes, tt.writes
			var err error
			o.Healer = healerFunc(func(ctx context.Context, d *replay.Divergence) *replay.Healing {
				var act *replay.Action
				var obs *tool.Observation
				act, obs, err = d.Rerun(ctx, tt.args)
				if tt.twice && err == nil {
					_, _, err = d.Rerun(ctx, tt.args)
				}
				if err != nil {
					return &replay.Healing{Attempted: 2}
				}
				return &replay.Healing{Level: 2, Attempted: 2, Reason: "moved", Asserts: []ast.Assert{mustAssert(t, `json.status == "confirmed"`)},
					Action: act, Observation: obs, Args: tt.args}
			})
			before := a.hitCount("/items/a1")
			res := replay.Run(context.Background(), s, o)
			if got := errText(err); got != tt.want {
				t.Fatalf("Rerun error %q, want %q", got, tt.want)
			}
			calls := a.hitCount("/items/a1") - before
			if tt.want != "" {
				if calls > 1 || (tt.twice && calls != 1) || (!tt.twice && calls != 0) {
					t.Errorf("%d re-executions", calls)
				}
				return
			}
			sr := res.Steps[1]
			if calls != 1 || sr.Record.Level != 2 || sr.Action == nil || !strings.HasSuffix(string(sr.Action.Args), `/items/a1"}`) ||
				sr.Observation == nil || !strings.Contains(sr.Observation.Body, "confirmed") {
				t.Errorf("%d calls, record %+v, action %v", calls, sr.Record, sr.Action)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// stubTool answers with a fixed observation and error.
type stubTool struct {
	obs *tool.Observation
	err error
}

func (s stubTool) Effect() ast.Effect { return ast.EffectRead }

func (s stubTool) Call(context.Context, []byte) (*tool.Observation, error) { return s.obs, s.err }

// TestRerunToolFailures: a re-executed call that errors or returns nothing
// is reported like a Level-0 tool failure, with the filled call.
func TestRerunToolFailures(t *testing.T) {
	args, _ := grammar.ParseArgs(`{"q": "{{today}}"}`, ast.Pos{})
	for _, tt := range []struct {
		name string
		tool stubTool
		want string
	}{
		{"error", stubTool{err: context.DeadlineExceeded}, "Tool execution failed: context deadline exceeded"},
		{"no observation", stubTool{}, "Tool execution failed: the tool returned no observation"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first := true
			fake := healerTool{first: &first, then: tt.tool}
			s := parse(t, skill(step{action: `stub.call {"q": 1}`, asserts: []string{"status == 200"}}))
			var err error
			var act *replay.Action
			o := replay.Options{Tools: tool.Registry{"stub.call": fake}, Clock: fixedClock,
				Healer: healerFunc(func(ctx context.Context, d *replay.Divergence) *replay.Healing {
					act, _, err = d.Rerun(ctx, args)
					return nil
				})}
			replay.Run(context.Background(), s, o)
			if err == nil || err.Error() != tt.want || act == nil || string(act.Args) != `{"q":"2026-07-18"}` {
				t.Errorf("Rerun = %v, %v; want %q with the filled call", act, err, tt.want)
			}
		})
	}
}

// healerTool answers status 500 once (a divergence), then as then does.
type healerTool struct {
	first *bool
	then  stubTool
}

func (h healerTool) Effect() ast.Effect { return ast.EffectRead }

func (h healerTool) Call(ctx context.Context, args []byte) (*tool.Observation, error) {
	if *h.first {
		*h.first = false
		return &tool.Observation{Status: 500}, nil
	}
	return h.then.Call(ctx, args)
}
