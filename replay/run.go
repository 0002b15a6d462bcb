package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/approval"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// Options configure a run.
type Options struct {
	// Tools are the tools actions may call.
	Tools tool.Registry
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
	// ran (the escalation ladder, replay/heal). Nil is Level 0: no step
	// ever escalates. A heal does not modify the skill's tree.
	Healer Healer
	// SkillServers makes DryRun count a tool that the skill's Servers
	// section lists (ast.Skill.Servers) as known though Tools lacks it:
	// the dry run that starts no server stands in for the servers the
	// skill would start. Run ignores it.
	SkillServers bool
	// Limits bound each call and retry checks; the skill's own limits
	// (SkillLimits) fill in what these leave zero.
	Limits Limits
	// SkipWrites records a step the effect gate refuses as skipped
	// ("write gate") instead of failing the run; later steps that do not
	// need its binds still run.
	SkipWrites bool
	// Redactor blanks secrets in what the record keeps of each step (the
	// filled action, the values binds took, the failures) and in what a
	// Healer shows a model (Divergence.Redactor). Nil means the one
	// configured by the environment (trace.RedactorFromEnv).
	Redactor *redact.Redactor
	// Path and SkillSHA256 identify the skill file on the record.
	Path        string
	SkillSHA256 string
	// OpenQuestions are the skill's unresolved open questions
	// (grammar.OpenQuestions), put on the record as they are.
	OpenQuestions []runlog.OpenQuestion
	// IgnoreToolDrift runs the steps even when the tools the skill's
	// reelier-tools metadata keeps differ from those the servers offer
	// now (CheckTools); the record keeps the drift, marked ignored.
	// Without it such a run executes no step and fails.
	IgnoreToolDrift bool
	// RunID names the run on its record; write steps' idempotency keys
	// are derived from it. Empty means a fresh one (NewRunID); a retry of
	// an earlier run passes that run's ID so that its writes carry the
	// same keys.
	RunID string
	// Policy, when set, is put each step's filled call before it runs
	// (policy.go): a step it does not allow is refused (dry-run: skipped,
	// "policy dry-run"), and every decision is on the step's record.
	Policy *policy.Policy
	// Inject, when set, fails one step on purpose (reelier run --fail):
	// its call is not sent but answered with an error result (error) or
	// its time limit (timeout), or its tool is reported drifted before
	// step 1 (schema). The record keeps it (Record.Injected).
	Inject *runlog.Injection
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
	Observation *tool.Observation
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
	// limits are the run's call limit and retries.
	limits Limits
	// unavailable maps a name a skipped step would have bound to that
	// step's number (--skip-writes).
	unavailable map[string]int
	// skill is the skill run; approvals its approvals, checked once.
	skill     *ast.Skill
	approvals *approval.Checked
	runID     string
}

func (o Options) now() time.Time {
	if o.Clock != nil {
		return o.Clock()
	}
	return time.Now()
}

// countBinds is the number of binds in the skill's steps.
func countBinds(skill *ast.Skill) int {
	n := 0
	for _, st := range skill.Steps {
		n += len(st.Binds)
	}
	return n
}

// rootScope holds the input variables, with room for binds more names
// (the run's binds, so its map never grows step by step).
func (o Options) rootScope(binds int) *scope {
	s := &scope{vars: make(map[string]any, len(o.Vars)+binds)}
	for k, v := range o.Vars {
		s.set(k, v)
	}
	return s
}

// Skip reasons on the record.
const (
	SkipAfterFailure = "an earlier step failed"
	SkipWriteGate    = "write gate"
	SkipPolicyDryRun = "policy dry-run"
	SkipInterrupted  = "interrupted"
)

// Run replays the skill once. It never returns an error: everything that
// goes wrong is a failed step in the result. When ctx is cancelled (Ctrl-C)
// the step whose request is with its tool is interrupted in flight
// (runlog.Interrupted, what was sent on its record), every later one is
// skipped as interrupted, and the verdict is interrupted, never failed.
func Run(ctx context.Context, skill *ast.Skill, opts Options) *Result {
	began := time.Now()
	start := opts.now()
	if opts.Redactor == nil {
		opts.Redactor = redact.RedactorFromEnv()
	}
	limits, _ := SkillLimits(skill)
	r := &runner{opts: opts, servers: skill.Servers, fill: filler{env: opts.rootScope(countBinds(skill)), today: dayOf(start)}, start: start,
		limits: opts.Limits.Or(limits), unavailable: map[string]int{}, skill: skill, approvals: approval.Check(skill), runID: opts.RunID}
	if r.runID == "" {
		r.runID = NewRunID()
	}
	res := &Result{
		Record: runlog.Record{Skill: skill.Name(), StartedAt: runlog.Timestamp(start), Steps: make([]runlog.StepRecord, len(skill.Steps)),
			Path: opts.Path, SkillSHA256: opts.SkillSHA256, OpenQuestions: opts.OpenQuestions, RunID: r.runID},
		Steps: make([]*StepResult, len(skill.Steps)),
	}
	// The drift check, before any step: the tools the skill was compiled
	// against, compared with what the servers offer now.
	drift := CheckTools(skill, opts.Tools, opts.Redactor)
	if inj := opts.Inject; inj != nil {
		res.Record.Injected = inj
		if inj.Kind == runlog.InjectSchema {
			if drift == nil {
				drift = &runlog.ToolDrift{}
			}
			drift.Tools = append(drift.Tools, injectedDrift(skill, inj))
		}
	}
	if drift != nil {
		drift.Ignored = opts.IgnoreToolDrift
		res.Record.ToolDrift = drift
	}
	stopped := drift != nil && !drift.Ignored
	diverged, interrupted := false, false
	for i, st := range skill.Steps {
		rec := &res.Record.Steps[i]
		*rec = runlog.StepRecord{N: st.Number, Title: st.Title, Outcome: runlog.Skipped, Failures: []string{}}
		sr := &StepResult{Step: st, Record: rec}
		res.Steps[i] = sr
		switch {
		case interrupted || ctx.Err() != nil:
			interrupted = true
			rec.Skip = SkipInterrupted
		case stopped:
			rec.Skip = SkipToolDrift
		case diverged:
			rec.Skip = SkipAfterFailure
		default:
			if opts.OnStepStart != nil {
				opts.OnStepStart(st)
			}
			t0 := time.Now()
			r.step(ctx, sr)
			rec.Ms = runlog.Millis(time.Since(t0))
			if ctx.Err() != nil && rec.Outcome == runlog.Failed {
				// Stopped from outside while it ran: not a failure. A
				// step whose request was sent is interrupted in flight
				// (the server may have acted on it: what was sent stays
				// on the record); one stopped before it was sent is
				// not run.
				interrupted = true
				if sr.Action != nil {
					*rec = runlog.StepRecord{N: st.Number, Title: st.Title, Outcome: runlog.Interrupted, Failures: []string{},
						Ms: rec.Ms, Action: rec.Action, Write: rec.Write, Policy: rec.Policy, Approval: rec.Approval,
						Observation: rec.Observation, Attempts: rec.Attempts, Tries: rec.Tries}
				} else {
					*rec = runlog.StepRecord{N: st.Number, Title: st.Title, Outcome: runlog.Skipped, Failures: []string{},
						Skip: SkipInterrupted, Ms: rec.Ms, Policy: rec.Policy, Approval: rec.Approval}
				}
				sr.Failures = nil
			}
			diverged = rec.Outcome == runlog.Failed
		}
		if opts.OnStep != nil {
			opts.OnStep(sr)
		}
	}
	res.Record.FinishedAt = runlog.Timestamp(opts.now())
	res.Record.Finish(interrupted)
	res.Elapsed = time.Since(began)
	return res
}

// step attempts one step and settles its outcome. The step's binds live in
// a local scope that is committed to the run's scope only if the step did
// not fail.
// A step that diverged after its tool ran is offered to the Healer, whose
// heal starts from a fresh local scope.
func (r *runner) step(ctx context.Context, sr *StepResult) {
	rec := sr.Record
	if name, n := r.needsSkipped(sr.Step); n > 0 {
		rec.Skip = fmt.Sprintf("needs {{%s}}, which step %d would have bound", name, n)
		r.markUnavailable(sr.Step)
		return
	}
	local := newScope()
	failures, asserted := r.attempts(ctx, sr, local)
	if len(failures) == 1 && failures[0].Kind == runlog.KindPolicy && rec.Policy != nil && rec.Policy.Action == string(policy.DryRun) {
		rec.Skip = SkipPolicyDryRun
		r.markUnavailable(sr.Step)
		return
	}
	if len(failures) == 1 && failures[0].Kind == runlog.KindGate && r.opts.SkipWrites {
		rec.Skip = SkipWriteGate
		r.markUnavailable(sr.Step)
		return
	}
	if len(failures) > 0 && sr.Observation != nil && r.opts.Healer != nil && ctx.Err() == nil {
		local = newScope()
		failures, asserted = r.escalate(ctx, sr, failures, local)
	}
	failures = redactFailures(r.opts.Redactor, failures)
	sr.Failures = failures
	r.record(sr, local)
	switch {
	case len(failures) > 0:
		rec.Outcome = runlog.Failed
		for _, f := range failures {
			rec.Failures = append(rec.Failures, f.Message)
		}
		rec.Why = &runlog.Why{Trigger: failures[0].Message}
		rec.Kind = failures[0].Kind
		if rec.Kind == "" {
			rec.Kind = runlog.KindCheck
		}
	case asserted:
		rec.Outcome = runlog.Passed
	default:
		rec.Outcome = runlog.Unchecked
	}
	if rec.Outcome != runlog.Failed && !local.empty() {
		r.fill.env.commit(local)
	}
}

// attempts executes the step, again up to the retry limit while it is a
// read step whose checks did not hold (never a write: a write is not safe
// to repeat), waiting the retry interval between attempts. Every attempt's
// observation digest goes on the record when there was more than one.
func (r *runner) attempts(ctx context.Context, sr *StepResult, local *scope) ([]Failure, bool) {
	failures, asserted := r.execute(ctx, sr, local)
	if r.limits.Retry <= 0 || !r.retryable(sr, failures) {
		return failures, asserted
	}
	rec := sr.Record
	rec.Attempts = 1
	rec.Tries = append(rec.Tries, digest(sr.Observation))
	for n := 0; n < r.limits.Retry && r.retryable(sr, failures); n++ {
		if r.limits.RetryInterval > 0 {
			t := time.NewTimer(r.limits.RetryInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				return failures, asserted
			case <-t.C:
			}
		}
		local.vars = nil
		sr.Action, sr.Observation = nil, nil
		failures, asserted = r.execute(ctx, sr, local)
		rec.Attempts++
		if sr.Observation != nil {
			rec.Tries = append(rec.Tries, digest(sr.Observation))
		}
	}
	return failures, asserted
}

// retryable reports a read step whose tool answered and whose checks did
// not hold.
func (r *runner) retryable(sr *StepResult, failures []Failure) bool {
	if len(failures) == 0 || sr.Observation == nil || failures[0].Kind != "" {
		return false
	}
	if r.limits.RetrySteps != nil && !r.limits.RetrySteps[sr.Step.Number] {
		return false
	}
	effect := sr.Step.EffectValue()
	if effect == "" {
		if tool := r.opts.Tools[sr.Step.Action.Tool]; tool != nil {
			effect = tool.Effect()
		}
	}
	return effect == ast.EffectRead
}

// needsSkipped returns a name the step's action uses that a skipped step
// would have bound (and no input supplies), with that step's number; 0
// when there is none.
func (r *runner) needsSkipped(st *ast.Step) (string, int) {
	if len(r.unavailable) == 0 || st.Action == nil {
		return "", 0
	}
	name, n := "", 0
	ast.WalkLeaves(st.Action.Args, "", func(leaf ast.Value, _ string) {
		s, ok := leaf.(*ast.String)
		if !ok || n > 0 {
			return
		}
		for _, h := range s.Holes {
			if k, ok := r.unavailable[h.Name]; ok && h.Kind == ast.HoleVar {
				if _, bound := r.fill.env.lookup(h.Name); !bound {
					name, n = h.Name, k
					return
				}
			}
		}
	})
	return name, n
}

// markUnavailable notes the names a skipped step would have bound.
func (r *runner) markUnavailable(st *ast.Step) {
	if r.unavailable == nil {
		r.unavailable = map[string]int{}
	}
	for _, b := range st.Binds {
		r.unavailable[b.Expr.BoundName()] = st.Number
	}
}

// recordAction puts the filled call on the record, redacted.
func (r *runner) recordAction(rec *runlog.StepRecord, a *Action) {
	if r.opts.Redactor == nil {
		r.opts.Redactor = redact.RedactorFromEnv()
	}
	args, err := r.opts.Redactor.JSON(a.Args)
	if err != nil {
		args = json.RawMessage(`"` + redact.Redacted + `"`)
	}
	rec.Action = &runlog.ActionRecord{Tool: a.Tool, Args: args}
}

// record puts what the step did on its record: the filled action and the
// values its binds took (both redacted) and the observation's digest.
func (r *runner) record(sr *StepResult, local *scope) {
	rec := sr.Record
	if r.opts.Redactor == nil {
		r.opts.Redactor = redact.RedactorFromEnv()
	}
	if sr.Action != nil {
		r.recordAction(rec, sr.Action)
	}
	if sr.Observation != nil {
		d := digest(sr.Observation)
		rec.Observation = &d
	}
	if len(local.vars) == 0 {
		return
	}
	rec.Binds = make(map[string]json.RawMessage, len(local.vars))
	var obj []byte
	for name, v := range local.vars {
		// Each value is redacted under its own name, as a member of a
		// one-member object, so a secret-named bind is blanked whole.
		obj = append(jsondata.AppendString(append(obj[:0], '{'), name), ':')
		prefix := len(obj)
		obj = append(jsondata.Append(obj, v), '}')
		redacted, err := r.opts.Redactor.JSON(obj)
		if err != nil || len(redacted) < prefix+1 {
			rec.Binds[name] = json.RawMessage(`"` + redact.Redacted + `"`)
			continue
		}
		rec.Binds[name] = json.RawMessage(redacted[prefix : len(redacted)-1])
	}
}

// execute fills, gates and calls the step's action and evaluates its
// asserts and binds, binding into local. It reports the failures and
// whether the step had any asserts.
func (r *runner) execute(ctx context.Context, sr *StepResult, local *scope) ([]Failure, bool) {
	st := sr.Step
	if st.Action == nil {
		return stepFailure(runlog.KindTool, msgNoAction), false
	}
	tool, ok := r.opts.Tools[st.Action.Tool]
	if !ok {
		return stepFailure(runlog.KindTool, unknownTool(st.Action.Tool, r.opts.Tools, r.servers)), false
	}
	args, fillErr := r.fill.fill(nil, st.Action.Args)
	if fillErr == nil {
		fillErr = placeholderError(st.Number, args)
	}
	effect := st.EffectValue()
	if effect == "" {
		effect = tool.Effect()
	}
	if refusal := r.approve(sr.Record, st, effect); refusal != "" {
		if fillErr == nil {
			r.recordAction(sr.Record, &Action{Tool: st.Action.Tool, Args: args})
		}
		return stepFailure(runlog.KindApproval, refusal), false
	}
	if refusal := r.gate(st, tool, args, fillErr); refusal != "" {
		if fillErr == nil {
			// On the record what would have been sent; sr.Action stays
			// nil, since nothing was.
			r.recordAction(sr.Record, &Action{Tool: st.Action.Tool, Args: args})
		}
		return stepFailure(runlog.KindGate, refusal), false
	}
	if fillErr != nil {
		return stepFailure(runlog.KindInput, fillErr.Error()), false
	}
	if refusal := r.policyGate(sr.Record, st, tool, args); refusal != "" {
		r.recordAction(sr.Record, &Action{Tool: st.Action.Tool, Args: args})
		return stepFailure(runlog.KindPolicy, refusal), false
	}
	if ctx.Err() != nil {
		// Stopped before the request went out: nothing was sent, so the
		// step is not run (Run records it skipped, "interrupted").
		return stepFailure(runlog.KindTool, "interrupted before the call was sent"), false
	}
	sr.Action = &Action{Tool: st.Action.Tool, Args: args}
	obs, err := r.send(ctx, sr, tool, effect, args)
	if w := sr.Record.Write; w != nil {
		w.Resource = r.resourceOf(obs)
	}
	if err != nil {
		return stepFailure(runlog.KindTool, "Tool execution failed: "+err.Error()), false
	}
	if obs == nil {
		return stepFailure(runlog.KindTool, "Tool execution failed: the tool returned no observation"), false
	}
	sr.Observation = obs
	ev := evaluation{obs: obs, fill: &r.fill}
	for _, a := range st.Asserts {
		ev.assert(a.Expr)
	}
	for _, b := range st.Binds {
		ev.bind(b.Expr)
	}
	for _, b := range ev.binds {
		local.set(b.name, b.value)
	}
	if r.injection(st) != nil && len(ev.failures) == 0 {
		// No check caught the injected error result: the step fails on
		// it anyway, as a tool error.
		ev.failures = stepFailure(runlog.KindTool, "Tool returned an error result: "+obs.Body)
	}
	return ev.failures, len(st.Asserts) > 0
}

// send makes the step's call — or, for the step a failure is injected at,
// stands in for it (nothing is sent).
func (r *runner) send(ctx context.Context, sr *StepResult, t tool.Tool, effect ast.Effect, args []byte) (*tool.Observation, error) {
	if inj := r.injection(sr.Step); inj != nil {
		return r.injectedCall(inj, t)
	}
	if approval.IsWrite(effect) {
		ctx = r.writeReceipt(ctx, sr.Record, sr.Step)
	}
	return r.call(ctx, t, args)
}

// injection is the run's injected failure when it names st and stands in
// for its call (error, timeout); nil otherwise.
func (r *runner) injection(st *ast.Step) *runlog.Injection {
	if inj := r.opts.Inject; inj != nil && inj.Step == st.Number && inj.Kind != runlog.InjectSchema {
		return inj
	}
	return nil
}

// gate returns the refusal message for a step whose effect the run does not
// allow, or "". The step's own effect wins; the tool's applies only when
// the step declares none.
func (r *runner) gate(st *ast.Step, tool tool.Tool, args []byte, fillErr error) string {
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
func unknownTool(name string, tools tool.Registry, servers []*ast.Server) string {
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

func stepFailure(kind runlog.Kind, msg string) []Failure {
	return []Failure{{Message: msg, Kind: kind}}
}

// call calls the tool within the run's limit. A call that runs out of time
// fails naming the limit and where it came from.
func (r *runner) call(ctx context.Context, tool tool.Tool, args []byte) (*tool.Observation, error) {
	limit := r.callLimit(tool)
	callCtx, cancel := context.WithTimeoutCause(ctx, limit, errTimedOut)
	defer cancel()
	obs, err := tool.Call(callCtx, args)
	if err != nil && ctx.Err() == nil && context.Cause(callCtx) == errTimedOut {
		return nil, fmt.Errorf("no answer within %s (%s)", limit, r.limits.source(limit))
	}
	return obs, err
}

// callLimit is a call's time limit: the run's, else the tool's own, else
// DefaultTimeout.
func (r *runner) callLimit(t tool.Tool) time.Duration {
	limit := r.limits.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
		if tt, ok := t.(interface{ Timeout() time.Duration }); ok {
			limit = tt.Timeout()
		}
	}
	return limit
}

var errTimedOut = errors.New("the call's time limit passed")
