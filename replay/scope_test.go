package replay_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
)

// echoTool answers with the arguments it was sent, so a step can bind what
// an earlier step's holes were filled with.
type echoTool struct{}

func (echoTool) Effect() ast.Effect { return ast.EffectRead }

func (echoTool) Call(_ context.Context, args []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Headers: map[string]string{"content-type": "application/json"}, Body: string(args)}, nil
}

// boundNamesHealer records what a diverged step can see and heals nothing.
type boundNamesHealer struct{ seen [][]string }

func (h *boundNamesHealer) Heal(_ context.Context, d *replay.Divergence) *replay.Healing {
	h.seen = append(h.seen, slices.Clone(d.BoundNames()))
	return nil
}

// TestScopeSemantics pins what each step sees now that the run keeps one
// flat scope instead of a chain of one scope per step: inputs, the latest
// bind of a name winning over earlier binds and over an input, a step not
// seeing its own binds, a failed step's binds never becoming visible.
func TestScopeSemantics(t *testing.T) {
	tests := []struct {
		name  string
		vars  map[string]string
		steps []step
		// want is each executed step's sent arguments, in order.
		want []string
		// failed is the 1-based step expected to fail ("" none); its
		// failure must contain failMsg.
		failed  int
		failMsg string
		// seen is what a Healer is shown as bound at the failed step.
		seen []string
	}{
		{
			name: "an input is seen by every step",
			vars: map[string]string{"x": "in"},
			steps: []step{
				{action: `echo {"v": "{{x}}"}`},
				{action: `echo {"v": "{{x}}"}`},
			},
			want: []string{`{"v":"in"}`, `{"v":"in"}`},
		},
		{
			name: "a later bind shadows an input and an earlier bind",
			vars: map[string]string{"x": "in"},
			steps: []step{
				{action: `echo {"v": "{{x}}", "n": "one"}`, binds: []string{"x = json.n"}},
				{action: `echo {"v": "{{x}}", "n": "two"}`, binds: []string{"x = json.n"}},
				{action: `echo {"v": "{{x}}"}`},
			},
			want: []string{`{"v":"in","n":"one"}`, `{"v":"one","n":"two"}`, `{"v":"two"}`},
		},
		{
			name: "a bound value keeps its JSON type in a whole-leaf hole",
			steps: []step{
				{action: `echo {"n": 42, "s": "a"}`, binds: []string{"n = json.n", "s = json.s"}},
				{action: `echo {"v": "{{n}}", "w": "{{n}}-{{s}}"}`},
			},
			want: []string{`{"n":42,"s":"a"}`, `{"v":42,"w":"42-a"}`},
		},
		{
			name: "binds of an unchecked step are visible later",
			steps: []step{
				{action: `echo {"id": "a1"}`, binds: []string{"id = json.id"}},
				{action: `echo {"id": "b2"}`, asserts: []string{`json.id == "b2"`}, binds: []string{"other = json.id"}},
				{action: `echo {"a": "{{id}}", "b": "{{other}}"}`},
			},
			want: []string{`{"id":"a1"}`, `{"id":"b2"}`, `{"a":"a1","b":"b2"}`},
		},
		{
			name: "a step does not see its own binds",
			steps: []step{
				{action: `echo {"v": "{{y}}"}`, binds: []string{"y = json.v"}},
			},
			failed:  1,
			failMsg: "Unbound template variable {{y}}",
		},
		{
			name: "a failed step's binds stay invisible; the healer sees what was committed",
			vars: map[string]string{"in": "v"},
			steps: []step{
				{action: `echo {"a": 1}`, binds: []string{"a = json.a"}},
				{action: `echo {"b": 2}`, asserts: []string{"json.b == 3"}, binds: []string{"b = json.b"}},
			},
			want:    []string{`{"a":1}`, `{"b":2}`},
			failed:  2,
			failMsg: "json.b",
			seen:    []string{"a", "in"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &boundNamesHealer{}
			o := replay.Options{Tools: tool.Registry{"echo": echoTool{}}, Vars: tt.vars, Clock: fixedClock, Healer: h}
			res := replay.Run(context.Background(), parse(t, skill(tt.steps...)), o)
			var got []string
			for _, sr := range res.Steps {
				if sr.Action != nil {
					got = append(got, string(sr.Action.Args))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("sent\n %q\nwant\n %q", got, tt.want)
			}
			failed := 0
			for i, rec := range res.Record.Steps {
				if rec.Outcome == "failed" {
					failed = i + 1
					if !strings.Contains(strings.Join(rec.Failures, "\n"), tt.failMsg) {
						t.Errorf("step %d failures %q, want one containing %q", i+1, rec.Failures, tt.failMsg)
					}
					break
				}
			}
			if failed != tt.failed {
				t.Errorf("failed step %d, want %d", failed, tt.failed)
			}
			if tt.seen != nil && (len(h.seen) != 1 || !slices.Equal(h.seen[0], tt.seen)) {
				t.Errorf("healer saw %q, want one divergence seeing %q", h.seen, tt.seen)
			}
		})
	}
}

// TestDryRunScope: in a dry run a name an earlier step binds is left as
// written, also when it shadows an input, and a step sees the input (not
// its own bind) in its own action.
func TestDryRunScope(t *testing.T) {
	s := parse(t, skill(
		step{action: `echo {"v": "{{x}}"}`, binds: []string{"x = json.v"}},
		step{action: `echo {"v": "{{x}}", "w": "{{y}}"}`},
	))
	plan := replay.DryRun(s, replay.Options{Vars: map[string]string{"x": "in", "y": "why"}, Clock: fixedClock})
	got := []string{string(plan[0].Action.Args), string(plan[1].Action.Args)}
	want := []string{`{"v":"in"}`, `{"v":"{{x}}","w":"why"}`}
	if !slices.Equal(got, want) {
		t.Errorf("dry run filled %q, want %q", got, want)
	}
}

// chainSkill is an n-step skill where each step sends what the step before
// bound and binds a new name, the shape that made the old scope chain
// quadratic.
func chainSkill(n int) string {
	steps := make([]step, n)
	steps[0] = step{action: `echo {"v": "{{base}}", "n": 0}`, binds: []string{"v0 = json.n"}}
	for i := 1; i < n; i++ {
		steps[i] = step{
			action: fmt.Sprintf(`echo {"v": "{{v%d}}", "n": %d, "b": "{{base}}"}`, i-1, i),
			binds:  []string{fmt.Sprintf("v%d = json.n", i)},
		}
	}
	return skill(steps...)
}

// reportPerStep reports wall-clock and process CPU time per step; the CPU
// figure is what other jobs on a shared machine do not inflate.
func reportPerStep(b *testing.B, n int, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/step")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/step")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScopeScaling replays and dry-runs chain skills of 1k, 10k and
// 50k steps; ns/step must stay flat (it grew with n under the scope chain).
func BenchmarkScopeScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		s := parse(b, chainSkill(n))
		o := replay.Options{Tools: tool.Registry{"echo": echoTool{}}, Vars: map[string]string{"base": "b"}, Clock: fixedClock}
		b.Run(fmt.Sprintf("dryrun/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if plan := replay.DryRun(s, o); plan[n-1].Err != nil {
					b.Fatal(plan[n-1].Err)
				}
			}
			reportPerStep(b, n, cpu0)
		})
		b.Run(fmt.Sprintf("run/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if res := replay.Run(context.Background(), s, o); res.Record.Steps[n-1].Outcome != "unchecked" {
					b.Fatal(res.Record.Steps[n-1])
				}
			}
			reportPerStep(b, n, cpu0)
		})
	}
}

// BenchmarkDryRunWorkingSet dry-runs the 1k-step chain of
// BenchmarkScopeScaling, cycling over k separate parses of it: the same
// work per step on a working set k times the size. One parse stays in the
// CPU caches from one iteration to the next, as the 10k- and 50k-step
// skills cannot; with 16 or more copies cpu-ns/step is what the larger
// skills show, so the 1k-to-10k difference in BenchmarkScopeScaling is
// the caches, not work that grows with the step number.
func BenchmarkDryRunWorkingSet(b *testing.B) {
	for _, k := range []int{1, 4, 16, 64} {
		skills := make([]*ast.Skill, k)
		for i := range skills {
			skills[i] = parse(b, chainSkill(1000))
		}
		o := replay.Options{Tools: tool.Registry{"echo": echoTool{}}, Vars: map[string]string{"base": "b"}, Clock: fixedClock}
		b.Run(fmt.Sprintf("copies/%d", k), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				if plan := replay.DryRun(skills[i%k], o); plan[999].Err != nil {
					b.Fatal(plan[999].Err)
				}
				i++
			}
			reportPerStep(b, 1000, cpu0)
		})
	}
}
