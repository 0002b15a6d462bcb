package policy

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fixed is a Decider that decides every call the same way and counts.
type fixed struct {
	d Decision
	n atomic.Int32
}

func (f *fixed) Decide(Call) Decision { f.n.Add(1); return f.d }

// TestDecideWithoutCEL: what Policy.Decide settles before any engine —
// no policy allows, no rules is the default, rules with no Decider deny
// (a policy never fails open) — and that it hands every other call to
// the engine's Decider.
func TestDecideWithoutCEL(t *testing.T) {
	engine := &fixed{d: Decision{Action: DryRun, Rule: "r", Digest: "sha256:e"}}
	rules := []Rule{{Name: "r", When: "true", Action: DryRun}}
	tests := []struct {
		name      string
		p         *Policy
		want      Action
		rule      string
		msg       string
		engineRan bool
	}{
		{"no policy", nil, Allow, "", "", false},
		{"no rules, default deny", &Policy{Default: Deny, Digest: "sha256:d"}, Deny, "", "", false},
		{"no rules, default allow", &Policy{Default: Allow, Digest: "sha256:d"}, Allow, "", "", false},
		{"rules, no engine", &Policy{Default: Allow, Digest: "sha256:d", Rules: rules}, Deny, "", "no policy engine", false},
		{"rules, an engine", &Policy{Default: Allow, Digest: "sha256:d", Rules: rules, Decider: engine}, DryRun, "r", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := engine.n.Load()
			d := tt.p.Decide(Call{Tool: "write_file"})
			if d.Action != tt.want || d.Rule != tt.rule || !strings.Contains(d.Message, tt.msg) {
				t.Fatalf("Decide = %+v, want %s by %q saying %q", d, tt.want, tt.rule, tt.msg)
			}
			if ran := engine.n.Load() != before; ran != tt.engineRan {
				t.Fatalf("the engine ran: %v, want %v", ran, tt.engineRan)
			}
		})
	}
}

// TestStaticPrepared: however many calls ask at once for an engine's
// form of a tool's server and annotations, every caller gets the same
// value, and once it is kept it is never built again.
func TestStaticPrepared(t *testing.T) {
	s := NewStatic(Server{Name: "fs"}, map[string]any{"readOnlyHint": true})
	var builds atomic.Int32
	build := func(s *Static) any {
		builds.Add(1)
		return &struct{ name string }{s.Server.Name}
	}
	var wg sync.WaitGroup
	got := make([]any, 16)
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[k] = s.Prepared(build)
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatalf("callers got different values: %p, %p", g, got[0])
		}
	}
	if n := builds.Load(); n < 1 || n > int32(len(got)) {
		t.Fatalf("%d builds", n)
	}
	builds.Store(0)
	if s.Prepared(build) != got[0] || builds.Load() != 0 {
		t.Fatal("a later call built again")
	}
}
