package compile

import (
	"errors"
	"time"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/trace"
)

// DefaultMaxMinedBody is the largest result body, in bytes, that dataflow
// recovery searches when Options.MaxMinedBody is zero.
const DefaultMaxMinedBody = 8 << 20

// ErrNoCalls is returned for a trace without a single call: there is
// nothing to make a step from.
var ErrNoCalls = errors.New("the trace has no calls, so there is nothing to compile: record at least one tool call between reelier_start_recording and reelier_stop_recording")

// Options configure Compile.
type Options struct {
	// Source is the trace's file name as the changelog line shows it;
	// empty means "trace".
	Source string
	// Now gives the date of the changelog line; nil means time.Now.
	Now func() time.Time
	// MaxMinedBody is the largest result body, in bytes, searched for
	// values later calls use; 0 means DefaultMaxMinedBody. A larger body
	// gets an open question instead.
	MaxMinedBody int
}

// Output is a compiled skill and the review summary of what was derived.
type Output struct {
	// Skill is the compiled skill; print it with format.Source. Its
	// nodes carry no file positions (parse the printed bytes for those).
	Skill   *ast.Skill
	Summary Summary
}

// compiler carries one compilation's state.
type compiler struct {
	tr           *trace.Trace
	opts         Options
	steps        []*step
	byI          map[int]*step
	recorded     time.Time // the recording's UTC date, at midnight
	haveRecorded bool
	binds        int
	lits         literalTable
	classes      map[string]Classification // by tool
	q            questions
}

// Compile turns a trace into a skill, deterministically and without any
// model: one step per call in call order, binds where a value a call sends
// came from an earlier result, a success assert where the recording saw
// success, an effect class per tool, and an open question for everything
// it will not guess. An error names the trace line it is about when there
// is one (*trace.LineError), or is ErrNoCalls.
func Compile(tr *trace.Trace, opts Options) (*Output, error) {
	if opts.MaxMinedBody <= 0 {
		opts.MaxMinedBody = DefaultMaxMinedBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Source == "" {
		opts.Source = "trace"
	}
	c := &compiler{tr: tr, opts: opts, classes: map[string]Classification{},
		lits: literalTable{strs: map[string]*literalUse{}, nums: map[string]*literalUse{}}}
	steps, byI, trailing, err := pair(tr)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, ErrNoCalls
	}
	c.steps, c.byI = steps, byI
	for _, st := range steps {
		args, d := grammar.ParseArgs(string(st.call.Args), ast.Pos{})
		if d != nil {
			return nil, &trace.LineError{Line: st.line, Field: "args", Msg: d.Message}
		}
		st.args = args
	}
	c.recordingDate()
	c.dataflow()
	c.stepQuestions()
	c.literalQuestions()
	if len(trailing) > 0 {
		last := steps[len(steps)-1]
		c.q.add(0, KindTrailingNote, "After step %d: a note follows the last call (%s) and no step was made from it — did the recording stop before the call it describes?", last.n, quoteText(joinNotes(trailing)))
	}
	return &Output{Skill: c.skill(), Summary: c.summary()}, nil
}

// recordingDate reads meta.startedAt; without it date literals go unchecked.
func (c *compiler) recordingDate() {
	t, err := time.Parse(time.RFC3339Nano, c.tr.Meta.StartedAt)
	if err != nil {
		c.q.add(0, KindNoRecordingDate, "The trace's meta.startedAt %s is not a timestamp, so date literals were not checked against the recording date.", quoteText(c.tr.Meta.StartedAt))
		return
	}
	c.recorded, c.haveRecorded = dayOf(t), true
}
