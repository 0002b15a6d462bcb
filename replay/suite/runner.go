package suite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/provenance"
	"github.com/reelier/reelier/replay/receipt"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/traceout"
)

// runner runs one or more skills and reports on them.
type runner struct {
	// ctx is the run's context (ended by Ctrl-C), which also bounds the
	// scrubbing of the responses its receipts show.
	ctx  context.Context
	opts Options
	base replay.Options
	out  io.Writer
	errw io.Writer
	// style is nil when stdout is not a terminal.
	style *receipt.Style
	// ladder gives a skill file its escalation ladder; nil at --max-level 0.
	ladder func(skillFile string) replay.Healer

	// broken are the skills that could not run at all; they are
	// reported and count in the exit status.
	broken []Broken

	runs []receipt.Run
	// code is the worst exit status so far.
	code int
}

// outcome is one skill's run and where its record went.
type outcome struct {
	skill     *loader.Skill
	res       *replay.Result
	recordAt  string
	recordErr error
	traceErr  error
	// signedAt and signErr are what Options.AfterRecord said.
	signedAt string
	signErr  error
}

// run executes the skills, at most opts.Jobs at a time, and reports each
// one in command-line order as soon as it and those before it are done.
func (s *runner) run(ctx context.Context, skills []*loader.Skill) {
	s.ctx = ctx
	// One skill at a time is reported as it runs, step by step — on a
	// terminal with a running line, in a log or a pipe as plain lines —
	// so a CI log is not silent until the end. Skills run in parallel
	// are reported whole, in command-line order.
	live := !s.opts.JSON && (s.opts.Jobs == 1 || len(skills) == 1)
	if live {
		for _, l := range skills {
			s.report(s.runLive(ctx, l))
		}
		s.summarize()
		return
	}
	done := make([]chan *outcome, len(skills))
	for i := range done {
		done[i] = make(chan *outcome, 1)
	}
	// Skills start in command-line order, at most jobs at a time; the loop
	// below waits for every result.
	sem := make(chan struct{}, s.opts.Jobs)
	go func() {
		for i, l := range skills {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				done[i] <- s.runOne(ctx, l, s.base)
			}()
		}
	}()
	for i := range skills {
		o := <-done[i]
		if !s.opts.JSON {
			receipt.Text(s.out, o.skill.Path, o.res, s.textStyle())
		}
		s.report(o)
	}
	s.summarize()
}

// runLive runs one skill with its receipt written step by step.
func (s *runner) runLive(ctx context.Context, l *loader.Skill) *outcome {
	p := &receipt.Progress{W: s.out, Style: s.textStyle(), File: l.Path, Terminal: s.style != nil}
	receipt.Header(s.out, l.Path, l.Skill.Name())
	opts := s.base
	opts.OnStepStart = p.Start
	opts.OnStep = p.Done
	done := s.runOne(ctx, l, opts)
	receipt.Footer(s.out, done.res, s.textStyle())
	return done
}

// runOne replays one skill and appends its run record; a heal has been
// written back to the skill file by then.
func (s *runner) runOne(ctx context.Context, l *loader.Skill, o replay.Options) *outcome {
	if s.ladder != nil {
		file := l.Path
		if file == loader.StdinName {
			file = ""
		}
		o.Healer = s.ladder(file)
	}
	if l.Path != loader.StdinName {
		o.Path = filepath.ToSlash(l.Path)
	}
	sum := sha256.Sum256(l.Src)
	o.SkillSHA256 = hex.EncodeToString(sum[:])
	o.OpenQuestions = OpenQuestions(l.Skill)
	var tr *traceout.Recorder
	if s.opts.Trace != "" {
		tr = traceout.Attach(&o, l.Skill, traceout.Options{Wrapped: len(s.opts.Servers) > 0})
	}
	finish := func() {}
	if s.errw != nil && !s.opts.DryRun {
		o.OnStepStart, o.OnStep, finish = s.waitNotices(l.Path, o.OnStepStart, o.OnStep)
	}
	res := replay.Run(ctx, l.Skill, o)
	finish() // a step the run left without its end (interrupted) stops waiting too
	res.Record.Provenance = provenance.FromEnv(s.opts.getenv)
	res.Record.Servers = ServersUsed(s.opts.Servers, l.Skill, o.Redactor)
	if res.Record.Injected == nil {
		res.Record.Injected = MockInjection(s.opts.Servers, l.Skill)
	}
	at, err := runlog.Append(s.opts.RunsDir, &res.Record)
	out := &outcome{skill: l, res: res, recordAt: at, recordErr: err}
	if err == nil && s.opts.AfterRecord != nil {
		out.signedAt, out.signErr = s.opts.AfterRecord(l, &res.Record)
	}
	if tr != nil {
		out.traceErr = tr.WriteFile(s.opts.Trace, res.Record.StartedAt)
	}
	return out
}

// report prints what follows a receipt (or the record, with --json) and
// notes failures.
func (s *runner) report(o *outcome) {
	s.runs = append(s.runs, receipt.Run{File: o.skill.Path, Result: o.res, FailOpenQuestions: s.opts.FailOnOpenQuestions})
	s.worst(RunExit(&o.res.Record, s.opts.FailOnUnchecked, s.opts.FailOnOpenQuestions))
	if s.opts.JSON {
		if line, err := runlog.Marshal(&o.res.Record); err == nil {
			s.out.Write(line)
		}
	} else if o.recordErr == nil {
		fmt.Fprintf(s.out, "  run record:   %s\n", o.recordAt)
	}
	switch {
	case o.signErr != nil:
		s.worst(exitstatus.Tool)
		fmt.Fprintf(s.errw, "reelier run: WARNING: the run record of %q was NOT signed: %s\n", o.res.Record.Skill, termtext.Line(o.signErr.Error()))
	case o.signedAt != "" && !s.opts.JSON:
		fmt.Fprintf(s.out, "  signed:       %s\n", o.signedAt)
	}
	s.showProposal(o)
	if o.recordErr != nil {
		s.worst(exitstatus.Tool)
		fmt.Fprintf(s.errw, "reelier run: WARNING: the run record of %q was NOT saved to %s: %v\n", o.res.Record.Skill, o.recordAt, o.recordErr)
	}
	switch {
	case o.traceErr != nil:
		s.worst(exitstatus.Tool)
		fmt.Fprintf(s.errw, "reelier run: WARNING: the replay trace was NOT written to %s: %v\n", s.opts.Trace, o.traceErr)
	case s.opts.Trace != "" && !s.opts.JSON:
		fmt.Fprintf(s.out, "  replay trace: %s\n", s.opts.Trace)
	}
	for _, sr := range o.res.Steps {
		if h := sr.Heal; h != nil && h.Level > 0 && h.NotSaved != nil {
			fmt.Fprintf(s.errw, "reelier run: WARNING: step %d of %s healed at L%d for this run only; the heal was NOT written back (%v), so the next run will escalate again\n",
				sr.Record.N, o.skill.Path, h.Level, h.NotSaved)
		}
	}
}

// summarize prints the suite line when several skills ran.
func (s *runner) summarize() {
	if s.opts.JSON || len(s.runs) < 2 {
		return
	}
	receipt.Suite(s.out, s.runs)
}

func (s *runner) textStyle() receipt.Style {
	st := receipt.Style{Verbose: s.opts.Verbose, Context: s.ctx}
	if s.style != nil {
		st.Color = s.style.Color
	}
	return st
}

// finish writes the JUnit report and settles the exit status: the worst
// of the skills' (interrupted, then a tool or environment error, then bad
// input, then drift).
func (s *runner) finish(ctx context.Context) error {
	for _, b := range s.broken {
		s.runs = append(s.runs, receipt.Run{File: b.Path, Err: b.Err})
		s.worst(exitstatus.Usage)
	}
	if s.opts.JUnit != "" {
		if err := writeJUnit(s.opts.JUnit, s.runs); err != nil {
			fmt.Fprintln(s.errw, "reelier run:", err)
			s.worst(exitstatus.Tool)
		}
	}
	if ctx.Err() != nil {
		s.worst(exitstatus.Interrupted)
	}
	if s.code != exitstatus.OK {
		return exitstatus.Silent(s.code)
	}
	return nil
}

// worst keeps the more serious of two exit statuses.
func (s *runner) worst(code int) {
	if exitstatus.Severity(code) > exitstatus.Severity(s.code) {
		s.code = code
	}
}

// RunExit is the exit status one run earns (SPEC.md §14): its verdict, and
// for a failed run the kind of its failing step.
func RunExit(rec *runlog.Record, failOnUnchecked, failOnOpenQuestions bool) int {
	open := failOnOpenQuestions && len(rec.OpenQuestions) > 0
	switch rec.RunVerdict() {
	case runlog.VerdictPassed:
		if open {
			return exitstatus.Failed
		}
		return exitstatus.OK
	case runlog.VerdictUnchecked:
		if failOnUnchecked || open {
			return exitstatus.Failed
		}
		return exitstatus.OK
	case runlog.VerdictInterrupted:
		return exitstatus.Interrupted
	}
	for _, st := range rec.Steps {
		if st.Outcome != runlog.Failed {
			continue
		}
		switch st.Kind {
		case runlog.KindTool:
			return exitstatus.Tool
		case runlog.KindGate, runlog.KindInput, runlog.KindApproval, runlog.KindPolicy:
			return exitstatus.Usage
		}
	}
	return exitstatus.Failed
}

// OpenQuestions are the skill's unresolved open questions as the run
// record keeps them.
func OpenQuestions(skill *ast.Skill) []runlog.OpenQuestion {
	qs := grammar.OpenQuestions(skill)
	if len(qs) == 0 {
		return nil
	}
	out := make([]runlog.OpenQuestion, len(qs))
	for i, q := range qs {
		out[i] = runlog.OpenQuestion{Line: int(q.Range.Start.Line), Step: q.Step}
	}
	return out
}

// waitNotices wraps a run's step hooks so that a step whose call runs
// longer than mcpx.WaitNotice prints, to errw, every WaitNotice, that it
// is still waiting and what bounds the wait — so a log is not silent for
// the length of a slow call.
func (s *runner) waitNotices(name string, start func(*ast.Step), done func(*replay.StepResult)) (func(*ast.Step), func(*replay.StepResult), func()) {
	bound := "--timeout bounds a call, " + replay.DefaultTimeout.String() + " unless set"
	if s.opts.Timeout > 0 {
		bound = "--timeout " + s.opts.Timeout.String() + " bounds it"
	}
	var stop func()
	finish := func() {
		if stop != nil {
			stop()
			stop = nil
		}
	}
	onStart := func(st *ast.Step) {
		if start != nil {
			start(st)
		}
		finish() // a step started again before it ended
		stop = mcpx.StillWaiting(s.errw, s.opts.NoticeAfter, func(waited time.Duration) string {
			return fmt.Sprintf("[reelier] %s: still waiting for step %d (%s) to answer (%s so far; %s)",
				termtext.Line(name), st.Number, termtext.Line(st.Title), waited, bound)
		})
	}
	onDone := func(sr *replay.StepResult) {
		finish()
		if done != nil {
			done(sr)
		}
	}
	return onStart, onDone, finish
}

// ServersUsed is what a run record keeps of the MCP servers a run of
// skill ran against: the --wrap servers when there are any (they replace
// the recorded ones), else the skill's recorded servers; each one's label,
// program or host, redacted with r (nil: the environment's), and whether
// it was `reelier mock`. Nil when there are none.
func ServersUsed(wrap []mcpx.ServerSpec, skill *ast.Skill, r *redact.Redactor) []runlog.ServerUse {
	specs := serverSpecs(wrap, skill)
	if len(specs) == 0 {
		return nil
	}
	if r == nil {
		r = redact.RedactorFromEnv()
	}
	out := make([]runlog.ServerUse, len(specs))
	for i, sp := range specs {
		out[i] = runlog.ServerUse{
			Name: redact.Text(r, "", sp.Label()), Command: redact.Text(r, "", sp.Program()), Host: redact.Text(r, "", sp.Host()),
			Mock: sp.IsMock(),
		}
	}
	return out
}

// serverSpecs are the servers a run of skill ran against: the --wrap ones,
// else the skill's recorded ones.
func serverSpecs(wrap []mcpx.ServerSpec, skill *ast.Skill) []mcpx.ServerSpec {
	if len(wrap) > 0 {
		return wrap
	}
	var specs []mcpx.ServerSpec
	for _, sv := range skill.Servers {
		spec := mcpx.ParseServer(sv.Command)
		spec.Name = sv.Name
		specs = append(specs, spec)
	}
	return specs
}

// MockInjection is the failure a `reelier mock --fail STEP[=KIND]` the run
// ran against injected, for the record (runlog.Record.Injected): a step
// of a skill is its call of that number. Nil when no server was such a
// mock (or its --fail does not read; the mock refused to start then).
func MockInjection(wrap []mcpx.ServerSpec, skill *ast.Skill) *runlog.Injection {
	for _, sp := range serverSpecs(wrap, skill) {
		if v := sp.MockFail(); v != "" {
			if inj, err := replay.ParseInjection(v); err == nil {
				return inj
			}
		}
	}
	return nil
}
