package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// Healer is offered every step that diverges after its tool ran (a step
// refused by gating or whose action could not be filled has no observation
// and is never offered). replay/heal implements it: the escalation ladder.
//
// A run without a Healer (Options.Healer nil) never escalates; that is
// Level 0, and nothing an LLM needs is built.
type Healer interface {
	// Heal tries to heal the step. A nil result means no escalation ran.
	Heal(ctx context.Context, d *Divergence) *Healing
}

// Divergence is a diverged step offered to a Healer. Run makes them; only
// one made by Run can answer Bound or Rerun.
type Divergence struct {
	Step *ast.Step
	// Action is the filled call that ran; Observation is what it returned.
	Action      *Action
	Observation *tool.Observation
	// Failures are why the step failed.
	Failures []Failure
	// Now is the run's one clock reading.
	Now time.Time

	r       *runner
	tool    tool.Tool
	reruns  int
	visible []string
}

// Effect returns the step's effective effect: its own, else its tool's.
func (d *Divergence) Effect() ast.Effect {
	if e := d.Step.EffectValue(); e != "" {
		return e
	}
	return d.tool.Effect()
}

// Bound reports whether {{name}} can be filled in this step: name is an
// input variable or was bound by an earlier step.
func (d *Divergence) Bound(name string) bool {
	_, ok := d.r.fill.env.lookup(name)
	return ok
}

// Check evaluates asserts and binds against obs as the run would at this
// step: the holes of a selection's conditions are filled from the run's
// bindings so far (the package's Check has none).
func (d *Divergence) Check(obs *tool.Observation, asserts []ast.Assert, binds []ast.Bind) []Failure {
	if d.r == nil {
		return Check(obs, asserts, binds)
	}
	return evaluate(obs, asserts, binds, &d.r.fill).failures
}

// BoundNames returns every name Bound accepts, sorted.
func (d *Divergence) BoundNames() []string {
	if d.visible == nil {
		d.visible = []string{}
		for name := range d.r.fill.env.vars {
			d.visible = append(d.visible, name)
		}
		slices.Sort(d.visible)
	}
	return d.visible
}

// Rerun fills args the way the step's own action is filled (the bindings so
// far, the run's clock reading) and calls the step's tool once more. It
// refuses a destructive step whatever the run's flags, and a second call: a
// step is re-executed at most once. (The step already passed the run's
// effect gating when it ran.) The returned action is set whenever args
// could be filled.
func (d *Divergence) Rerun(ctx context.Context, args ast.Value) (*Action, *tool.Observation, error) {
	if d.Effect() == ast.EffectDestructive {
		return nil, nil, errors.New("a destructive step is never re-executed")
	}
	if d.reruns > 0 {
		return nil, nil, errors.New("the step was already re-executed once")
	}
	if err := d.r.approvedArgs(d.Step, d.Effect(), args); err != nil {
		return nil, nil, err
	}
	d.reruns++
	filled, err := d.r.fill.fill(nil, args)
	if err != nil {
		return nil, nil, err
	}
	act := &Action{Tool: d.Step.Action.Tool, Args: filled}
	if approval.IsWrite(d.Effect()) {
		// The same step of the same run: the same idempotency key.
		ctx = tool.WithIdempotencyKey(ctx, IdempotencyKey(d.r.runID, d.r.skill.Name(), d.Step.Number))
	}
	var obs *tool.Observation
	if inj := d.r.injection(d.Step); inj != nil {
		// The injected failure holds for the step's re-execution too:
		// the server is never asked.
		obs, err = d.r.injectedCall(inj, d.tool)
	} else {
		obs, err = d.r.call(ctx, d.tool, filled)
	}
	switch {
	case err != nil:
		return act, nil, fmt.Errorf("Tool execution failed: %w", err)
	case obs == nil:
		return act, nil, errors.New("Tool execution failed: the tool returned no observation")
	}
	return act, obs, nil
}

// Healing is what a Healer did for a step.
type Healing struct {
	// Level is the level that healed the step; 0 when none did.
	Level int
	// Attempted is the highest level tried; 0 when no escalation ran.
	Attempted int
	// Usage is the tokens summed over every LLM call for the step; nil when
	// no call was made.
	Usage *runlog.LLMUsage
	// Reason is the accepted patch's one-line reason.
	Reason string
	// Asserts, Binds and Args are the healed step's new content. Args is
	// nil when the action's arguments did not change.
	Asserts []ast.Assert
	Binds   []ast.Bind
	Args    ast.Value
	// Action and Observation are the call Level 2 re-executed, whether or
	// not it healed; nil when Level 2 never called the tool.
	Action      *Action
	Observation *tool.Observation
	// Failures explain, for a step that stays failed, why escalation did
	// not heal it; they follow the step's own failures.
	Failures []Failure
	// NotSaved is why a heal was not written back to the skill file; nil
	// when it was written, or when nothing healed.
	NotSaved error
	// Before and After are the step's lines, as its skill prints them
	// (`- assert: …`), that the heal replaced and the lines replacing them;
	// the run record's why carries them.
	Before []string
	After  []string
	// Proposal is set when the heal was proposed and not written (reelier
	// run --heal=propose): the unified diff of the skill file with every
	// heal of the run so far. The file itself was left as it was.
	Proposal string
}

// escalate offers a diverged step to the Healer. A heal counts only if its
// patch holds when the runner evaluates it itself; its binds then go into
// local. It returns the step's failures and whether it had asserts.
func (r *runner) escalate(ctx context.Context, sr *StepResult, failures []Failure, local *scope) ([]Failure, bool) {
	d := &Divergence{Step: sr.Step, Action: sr.Action, Observation: sr.Observation, Failures: failures,
		Now: r.start, r: r, tool: r.opts.Tools[sr.Step.Action.Tool]}
	h := r.opts.Healer.Heal(ctx, d)
	if h == nil {
		return failures, false
	}
	sr.Heal = h
	rec := sr.Record
	if h.Attempted > 0 {
		attempted := h.Attempted
		rec.EscalationAttempted = &attempted
	}
	rec.LLM = h.Usage
	if h.Level == 0 {
		return append(failures, h.Failures...), false
	}
	obs := sr.Observation
	if h.Observation != nil {
		obs = h.Observation
	}
	ev := evaluate(obs, h.Asserts, h.Binds, &d.r.fill)
	if len(ev.failures) > 0 {
		return append(failures, Failure{Message: fmt.Sprintf("The Level %d heal did not hold when the runner checked it: %s",
			h.Level, ev.failures[0].Message)}), false
	}
	if h.Observation != nil {
		sr.Action, sr.Observation = h.Action, h.Observation
	}
	for _, b := range ev.binds {
		local.set(b.name, b.value)
	}
	rec.Level = h.Level
	rec.Why = &runlog.Why{Change: fmt.Sprintf("L%d: %s", h.Level, h.Reason), Before: h.Before, After: h.After}
	return nil, len(h.Asserts) > 0
}

// Check evaluates asserts and binds against an observation exactly as a run
// does (every expression, no short cut) and returns the failures; none means
// every one held.
func Check(obs *tool.Observation, asserts []ast.Assert, binds []ast.Bind) []Failure {
	return evaluate(obs, asserts, binds, nil).failures
}

// evaluate runs asserts, then binds, against obs.
func evaluate(obs *tool.Observation, asserts []ast.Assert, binds []ast.Bind, fill *filler) *evaluation {
	ev := &evaluation{obs: obs, fill: fill}
	for _, a := range asserts {
		ev.assert(a)
	}
	for _, b := range binds {
		ev.bind(b)
	}
	return ev
}
