package replay

import (
	"errors"
	"fmt"

	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/replay/runlog"
)

// PlannedStep is one step of a dry run: its filled action and whether the
// run's flags would let it execute.
type PlannedStep struct {
	Step *ast.Step
	// Action is the filled call. Holes naming a variable that an earlier
	// step binds at run time are left as written, since no step has run.
	Action Action
	// Err is why the action could not be filled (an unbound variable, a
	// date offset out of range, an unknown tool); Action.Args is nil then.
	Err error
	// Effect is the step's effect.
	Effect ast.Effect
	// NeedsFlag names the flag the step's effect requires ("--yes" or
	// "--allow-writes") when the run's options do not give it, else "".
	NeedsFlag string
	// Picks are the step's selection binds as the skill writes them
	// (`newest = max(json.items by modified as date).id`): what the run
	// will pick from the step's result, which a dry run cannot know.
	Picks []string
}

// A dry run's filled arguments are written into chunks of dryArgsChunk
// bytes; a step starts a new chunk when fewer than dryArgsReserve are left
// (a longer action grows the chunk it is written into).
const (
	dryArgsChunk   = 32 << 10
	dryArgsReserve = 2 << 10
)

// DryRun fills every step's action from opts.Vars and one reading of
// opts.Clock without calling any tool or writing anything. When opts.Tools
// is set, an action naming a tool it lacks is reported as an error —
// unless opts.SkillServers is set and one of the skill's recorded servers
// lists the tool.
func DryRun(skill *ast.Skill, opts Options) []PlannedStep {
	f := filler{env: opts.rootScope(countBinds(skill)), today: dayOf(opts.now())}
	plan := make([]PlannedStep, 0, len(skill.Steps))
	// Every step's filled arguments go into shared chunks, each step's
	// slice capped at its end, rather than one growing slice a step.
	var args []byte
	// The approvals the run would hold each step to.
	ar := &runner{opts: opts, skill: skill, approvals: approval.Check(skill)}
	for _, st := range skill.Steps {
		p := PlannedStep{Step: st, Effect: st.EffectValue()}
		switch {
		case st.Action == nil:
			p.Err = errors.New(msgNoAction)
		case opts.Tools != nil && opts.Tools[st.Action.Tool] == nil && !(opts.SkillServers && skill.ServerOf(st.Action.Tool) != nil):
			p.Action.Tool = st.Action.Tool
			p.Err = errors.New(unknownTool(st.Action.Tool, opts.Tools, skill.Servers))
		default:
			p.Action.Tool = st.Action.Tool
			if cap(args)-len(args) < dryArgsReserve {
				args = make([]byte, 0, dryArgsChunk)
			}
			start := len(args)
			filled, err := f.fill(args, st.Action.Args)
			if err != nil {
				p.Err = err
				args = filled[:start]
				break
			}
			p.Action.Args = filled[start:len(filled):len(filled)]
			args = filled
			// What the replay would refuse to send, the dry run reports.
			p.Err = placeholderError(st.Number, p.Action.Args)
		}
		for _, b := range st.Binds {
			if sb, ok := b.Expr.(*ast.SelectionBind); ok {
				p.Picks = append(p.Picks, format.Bind(sb))
			}
		}
		if p.Err == nil {
			p.Err = unboundSelectionHole(st, f.env)
		}
		if p.Err == nil && st.Action != nil {
			if refusal := ar.approve(&runlog.StepRecord{}, st, p.Effect); refusal != "" {
				p.Err = errors.New(refusal)
			}
		}
		switch {
		case p.Effect == ast.EffectDestructive && !opts.Yes:
			p.NeedsFlag = "--yes"
		case p.Effect == ast.EffectIdempotentWrite && !opts.Yes && !opts.AllowWrites:
			p.NeedsFlag = "--allow-writes"
		}
		for _, b := range st.Binds {
			f.env.set(b.Expr.BoundName(), pending{})
		}
		plan = append(plan, p)
	}
	return plan
}

// unboundSelectionHole reports a hole in one of the step's selections (a
// condition's value, a selection assert's value) that names a variable
// neither an input nor an earlier step binds: the run would fail there.
func unboundSelectionHole(st *ast.Step, env *scope) error {
	check := func(expr string, holes []*ast.Hole) error {
		for _, h := range holes {
			if h.Kind != ast.HoleVar {
				continue
			}
			if _, ok := env.lookup(h.Name); !ok {
				return fmt.Errorf("Unbound template variable {{%s}} in %s", h.Name, expr)
			}
		}
		return nil
	}
	for _, a := range st.Asserts {
		sa, ok := a.Expr.(*ast.SelectionAssert)
		if !ok {
			continue
		}
		holes := sa.Sel.Holes()
		if v, ok := sa.Value.(*ast.String); ok {
			holes = append(holes, v.Holes...)
		}
		if err := check(format.Assert(sa), holes); err != nil {
			return err
		}
	}
	for _, b := range st.Binds {
		if sb, ok := b.Expr.(*ast.SelectionBind); ok {
			if err := check(format.Bind(sb), sb.Sel.Holes()); err != nil {
				return err
			}
		}
	}
	return nil
}
