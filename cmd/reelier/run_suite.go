package main

import (
	"context"
	"fmt"
	"io"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/receipt"
	"github.com/reelier/reelier/runtime/runlog"
)

// suite runs one or more skills and reports on them.
type suite struct {
	opts runOptions
	base runtime.Options
	out  io.Writer
	errw io.Writer
	// style is nil when stdout is not a terminal.
	style *receipt.Style
	// ladder gives a skill file its escalation ladder; nil at --max-level 0.
	ladder func(skillFile string) runtime.Healer

	runs   []receipt.Run
	failed bool
}

// outcome is one skill's run and where its record went.
type outcome struct {
	skill     *loadedSkill
	res       *runtime.Result
	recordAt  string
	recordErr error
}

// run executes the skills, at most opts.jobs at a time, and reports each
// one in command-line order as soon as it and those before it are done.
func (s *suite) run(ctx context.Context, skills []*loadedSkill) {
	live := s.style != nil && !s.opts.json && (s.opts.jobs == 1 || len(skills) == 1)
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
	sem := make(chan struct{}, s.opts.jobs)
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
		if !s.opts.json {
			receipt.Text(s.out, o.skill.path, o.res, s.textStyle())
		}
		s.report(o)
	}
	s.summarize()
}

// runLive runs one skill with its receipt written step by step.
func (s *suite) runLive(ctx context.Context, l *loadedSkill) *outcome {
	p := &receipt.Progress{W: s.out, Style: *s.style}
	receipt.Header(s.out, l.path, l.skill.Name())
	opts := s.base
	opts.OnStepStart = p.Start
	opts.OnStep = p.Done
	done := s.runOne(ctx, l, opts)
	receipt.Footer(s.out, done.res, *s.style)
	return done
}

// runOne replays one skill and appends its run record; a heal has been
// written back to the skill file by then.
func (s *suite) runOne(ctx context.Context, l *loadedSkill, o runtime.Options) *outcome {
	if s.ladder != nil {
		file := l.path
		if file == stdinName {
			file = ""
		}
		o.Healer = s.ladder(file)
	}
	res := runtime.Run(ctx, l.skill, o)
	at, err := runlog.Append(s.opts.runsDir, &res.Record)
	return &outcome{skill: l, res: res, recordAt: at, recordErr: err}
}

// report prints what follows a receipt (or the record, with --json) and
// notes failures.
func (s *suite) report(o *outcome) {
	s.runs = append(s.runs, receipt.Run{File: o.skill.path, Result: o.res})
	s.failed = s.failed || !o.res.Record.Passed
	if s.opts.json {
		if line, err := runlog.Marshal(&o.res.Record); err == nil {
			s.out.Write(line)
		}
	} else if o.recordErr == nil {
		fmt.Fprintf(s.out, "  run record:   %s\n", o.recordAt)
	}
	if o.recordErr != nil {
		s.failed = true
		fmt.Fprintf(s.errw, "reelier run: WARNING: the run record of %q was NOT saved to %s: %v\n", o.res.Record.Skill, o.recordAt, o.recordErr)
	}
	for _, sr := range o.res.Steps {
		if h := sr.Heal; h != nil && h.Level > 0 && h.NotSaved != nil {
			fmt.Fprintf(s.errw, "reelier run: WARNING: step %d of %s healed at L%d for this run only; the heal was NOT written back (%v), so the next run will escalate again\n",
				sr.Record.N, o.skill.path, h.Level, h.NotSaved)
		}
	}
}

// summarize prints the suite line when several skills ran.
func (s *suite) summarize() {
	if s.opts.json || len(s.runs) < 2 {
		return
	}
	passed := 0
	for _, r := range s.runs {
		if r.Result.Record.Passed {
			passed++
		}
	}
	fmt.Fprintf(s.out, "suite: %d skills, %d passed, %d failed\n", len(s.runs), passed, len(s.runs)-passed)
}

func (s *suite) textStyle() receipt.Style {
	if s.style == nil {
		return receipt.Style{}
	}
	return *s.style
}

// finish writes the JUnit report and settles the exit status.
func (s *suite) finish() error {
	if s.opts.junit != "" {
		if err := writeJUnit(s.opts.junit, s.runs); err != nil {
			fmt.Fprintln(s.errw, "reelier run:", err)
			s.failed = true
		}
	}
	if s.failed {
		return silentExit(exitFailed)
	}
	return nil
}
