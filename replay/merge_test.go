package replay

import (
	"context"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// stubTool answers every call with the same JSON body.
type stubTool struct{ body string }

func (stubTool) Effect() ast.Effect { return ast.EffectRead }

func (s stubTool) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{Status: 200, Body: s.body}, nil
}

// TestBindsMergeOnlyWhenTheStepHolds: binds made by a step that fails are
// dropped, even the ones that succeeded; those of a passed or unchecked
// step reach the run's scope.
func TestBindsMergeOnlyWhenTheStepHolds(t *testing.T) {
	src := `---
name: merge
description: binds merge rule
---

### Step 1 — Fails after binding
- intent: bind then fail
- action: stub {}
- assert: json.ok == true
- bind: early = json.id
- effect: read

### Step 2 — Passes
- intent: bind and pass
- action: stub {}
- assert: json.id == "x1"
- bind: kept = json.id
- effect: read

### Step 3 — Unchecked
- intent: bind without asserts
- action: stub {}
- bind: loose = json.id
- effect: read
`
	s, diags := grammar.Parse("merge.skill.md", []byte(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	r := &runner{opts: Options{Tools: tool.Registry{"stub": stubTool{`{"id":"x1","ok":false}`}}}, fill: filler{env: newScope()}}
	want := []struct {
		outcome runlog.Outcome
		name    string
		bound   bool
	}{
		{runlog.Failed, "early", false},
		{runlog.Passed, "kept", true},
		{runlog.Unchecked, "loose", true},
	}
	for i, w := range want {
		sr := &StepResult{Step: s.Steps[i], Record: &runlog.StepRecord{}}
		r.step(context.Background(), sr)
		if sr.Record.Outcome != w.outcome {
			t.Errorf("step %d outcome %s, want %s", i+1, sr.Record.Outcome, w.outcome)
		}
		if _, ok := r.fill.env.lookup(w.name); ok != w.bound {
			t.Errorf("after step %d, %s bound = %v, want %v", i+1, w.name, ok, w.bound)
		}
	}
	if _, ok := r.fill.env.lookup("kept"); !ok {
		t.Error("a later step lost an earlier step's bind")
	}
}

// TestObservationParsedOnce: all json expressions of a step share one parse.
func TestObservationParsedOnce(t *testing.T) {
	o := &tool.Observation{Body: `{"a":1}`}
	v1, _ := o.JSON()
	o.Body = "changed after the first parse"
	v2, err := o.JSON()
	if err != nil || v1 != v2 {
		t.Errorf("second JSON() = %v, %v; want the cached first parse", v2, err)
	}
}
