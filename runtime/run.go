package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/runtime/runlog"
)

// Options configure a run.
type Options struct {
	// Tools are the tools actions may call.
	Tools Registry
	// Vars are the run's input variables (--var name=value).
	Vars map[string]string
	// AllowWrites lets idempotent-write steps run.
	AllowWrites bool
	// Yes lets destructive steps run; it implies AllowWrites.
	Yes bool
	// Clock is read once at the start of the run for {{today}} and the
	// record's startedAt, and once at the end for finishedAt. Nil means
	// time.Now. Step durations always use the real monotonic clock.
	Clock func() time.Time
	// OnStepStart, if set, is called before a step is attempted.
	OnStepStart func(*ast.Step)
	// OnStep, if set, is called with each step's result, skipped steps
	// included, as soon as it is known.
	OnStep func(*StepResult)
	// Healer, if set, is offered each step that diverges after its tool
	// ran (the escalation ladder, runtime/heal). Nil is Level 0: no step
	// ever escalates. A heal does not modify the skill's tree.
	Healer Healer
	// SkillServers makes DryRun count a tool that the skill's Servers
	// section lists (ast.Skill.Servers) as known though Tools lacks it:
	// the dry run that starts no server stands in for the servers the
	// skill would start. Run ignores it.
	SkillServers bool
}

// Result is a finished run: its record and the details behind it.
type Result struct {
	Record runlog.Record
	// Steps parallel Record.Steps.
	Steps []*StepResult
	// Elapsed is the run's measured wall time.
	Elapsed time.Duration
}

// StepResult is what happened to one step.
type StepResult struct {
	Step *ast.Step
	// Record points at the step's entry in the run record.
	Record *runlog.StepRecord
	// Action is the filled tool call; nil when the step was skipped or its
	// action could not be filled.
	Action *Action
	// Observation is what the tool returned; nil when it never ran.
	Observation *Observation
	// Failures explain a failed step; Record.Failures holds their messages.
	Failures []Failure
	// Heal is what escalation did for the step; nil when it was not
	// offered to a Healer. After a Level 2 heal, Action and Observation
	// are the re-executed call.
	Heal *Healing
}

// Action is a filled tool call.
type Action struct {
	Tool string
	// Args is the filled arguments as compact JSON.
	Args []byte
}

// String renders the call as `tool {json}`.
func (a Action) String() string { return a.Tool + " " + string(a.Args) }

// runner carries one run's state.
type runner struct {
	opts Options
	// servers are the skill's recorded servers, named when a tool is
	// unknown.
	servers []*ast.Server
	fill    filler
	// start is the run's one clock reading.
	start time.Time
}

func (o Options) now() time.Time {
	if o.Clock != nil {
		return o.Clock()
	}
	return time.Now()
}

// rootScope holds the input variables.
func (o Options) rootScope() *scope {
	s := newScope(nil)
	for k, v := range o.Vars {
		s.set(k, v)
	}
	return s
}

// Run replays the skill once. It never returns an error: everything that
// goes wrong is a failed step in the result.
func Run(ctx context.Context, skill *ast.Skill, opts Options) *Result {
	began := time.Now()
	start := opts.now()
	r := &runner{opts: opts, servers: skill.Servers, fill: filler{env: opts.rootScope(), today: dayOf(start)}, start: start}
	res := &Result{
		Record: runlog.Record{Skill: skill.Name(), StartedAt: runlog.Timestamp(start), Steps: make([]runlog.StepRecord, len(skill.Steps))},
		Steps:  make([]*StepResult, len(skill.Steps)),
	}
	diverged := false
	for i, st := range skill.Steps {
		rec := &res.Record.Steps[i]
		*rec = runlog.StepRecord{N: st.Number, Title: st.Title, Outcome: runlog.Skipped, Failures: []string{}}
		sr := &StepResult{Step: st, Record: rec}
		res.Steps[i] = sr
		if !diverged {
			if opts.OnStepStart != nil {
				opts.OnStepStart(st)
			}
			t0 := time.Now()
			r.step(ctx, sr)
			rec.Ms = runlog.Millis(time.Since(t0))
			diverged = rec.Outcome == runlog.Failed
		}
		if opts.OnStep != nil {
			opts.OnStep(sr)
		}
	}
	res.Record.FinishedAt = runlog.Timestamp(opts.now())
	res.Record.Finish(false)
	res.Elapsed = time.Since(began)
	return res
}

// step attempts one step and settles its outcome. The step's binds live in
// a child scope that becomes the run's scope only if the step did not fail.
// A step that diverged after its tool ran is offered to the Healer, whose
// heal starts from a fresh child scope.
func (r *runner) step(ctx context.Context, sr *StepResult) {
	outer := r.fill.env
	local := newScope(outer)
	failures, asserted := r.execute(ctx, sr, local)
	if len(failures) > 0 && sr.Observation != nil && r.opts.Healer != nil {
		local = newScope(outer)
		failures, asserted = r.escalate(ctx, sr, failures, local)
	}
	sr.Failures = failures
	rec := sr.Record
	switch {
	case len(failures) > 0:
		rec.Outcome = runlog.Failed
		for _, f := range failures {
			rec.Failures = append(rec.Failures, f.Message)
		}
		rec.Why = &runlog.Why{Trigger: failures[0].Message}
	case asserted:
		rec.Outcome = runlog.Passed
	default:
		rec.Outcome = runlog.Unchecked
	}
	if rec.Outcome != runlog.Failed && !local.empty() {
		r.fill.env = local
	}
}

// execute fills, gates and calls the step's action and evaluates its
// asserts and binds, binding into local. It reports the failures and
// whether the step had any asserts.
func (r *runner) execute(ctx context.Context, sr *StepResult, local *scope) ([]Failure, bool) {
	st := sr.Step
	if st.Action == nil {
		return stepFailure(msgNoAction), false
	}
	tool, ok := r.opts.Tools[st.Action.Tool]
	if !ok {
		return stepFailure(unknownTool(st.Action.Tool, r.opts.Tools, r.servers)), false
	}
	args, fillErr := r.fill.fill(nil, st.Action.Args)
	if refusal := r.gate(st, tool, args, fillErr); refusal != "" {
		return stepFailure(refusal), false
	}
	if fillErr != nil {
		return stepFailure(fillErr.Error()), false
	}
	sr.Action = &Action{Tool: st.Action.Tool, Args: args}
	obs, err := tool.Call(ctx, args)
	if err != nil {
		return stepFailure("Tool execution failed: " + err.Error()), false
	}
	if obs == nil {
		return stepFailure("Tool execution failed: the tool returned no observation"), false
	}
	sr.Observation = obs
	ev := evaluation{obs: obs}
	for _, a := range st.Asserts {
		ev.assert(a.Expr)
	}
	for _, b := range st.Binds {
		ev.bind(b.Expr)
	}
	for _, b := range ev.binds {
		local.set(b.name, b.value)
	}
	return ev.failures, len(st.Asserts) > 0
}

// gate returns the refusal message for a step whose effect the run does not
// allow, or "". The step's own effect wins; the tool's applies only when
// the step declares none.
func (r *runner) gate(st *ast.Step, tool Tool, args []byte, fillErr error) string {
	effect := st.EffectValue()
	if effect == "" {
		effect = tool.Effect()
	}
	var refusal string
	switch {
	case effect == ast.EffectDestructive && !r.opts.Yes:
		refusal = "Refusing to execute destructive step without --yes. Filled action: "
	case effect == ast.EffectIdempotentWrite && !r.opts.Yes && !r.opts.AllowWrites:
		refusal = "Refusing to execute a write step (effect: idempotent-write) — replay is read-only by default. " +
			"Pass --allow-writes to execute it. Filled action: "
	default:
		return ""
	}
	if fillErr != nil {
		return refusal + st.Action.Tool + " <error: " + fillErr.Error() + ">"
	}
	return refusal + st.Action.Tool + " " + string(args)
}

// msgNoAction reports a step built without an action (the parser never
// produces one).
const msgNoAction = "Step has no action to execute"

// unknownTool names the missing tool and the ones there are. When one of
// the skill's recorded servers lists the tool, it names that server too,
// and says how to start it — or, when the server's other tools are there,
// that it was started but no longer offers the tool.
func unknownTool(name string, tools Registry, servers []*ast.Server) string {
	known := strings.Join(tools.Names(), ", ")
	if known == "" {
		known = "none"
	}
	var sv *ast.Server
	for _, s := range servers {
		if s.Offers(name) {
			sv = s
			break
		}
	}
	if sv == nil {
		return fmt.Sprintf("Unknown tool %q; known tools: %s", name, known)
	}
	for _, t := range sv.Tools {
		if tools[t.Name] != nil {
			return fmt.Sprintf("Unknown tool %q (recorded from server %s: %s); known tools: %s — server %s is running but no longer offers it",
				name, sv.Name, sv.Command, known, sv.Name)
		}
	}
	return fmt.Sprintf("Unknown tool %q (recorded from server %s: %s); known tools: %s — start it with --wrap %s",
		name, sv.Name, sv.Command, known, shellArg(sv.Command))
}

// shellArg quotes a command as one shell word: in double quotes when
// nothing in it is special there, else in single quotes.
func shellArg(s string) string {
	if !strings.ContainsAny(s, "\\\"$`!") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func stepFailure(msg string) []Failure { return []Failure{{Message: msg}} }
