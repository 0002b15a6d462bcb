package compile

import (
	"bufio"
	"errors"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
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

// records is a trace as the compiler reads it: walked whole, twice, and
// then one call at a time.
type records struct {
	// walk hands every record, with its place, to fn in file order,
	// stopping at fn's first error. fn must not keep a record, a call's
	// Args or a result's Body past its return: a file's walks lend them
	// (trace.ScanBorrowed).
	walk func(fn func(rec trace.Record, at trace.Place) error) error
	// open returns a reader of single records by the place walk gave
	// them, and a function that releases it. A record it reads may be
	// lent: valid, with its Args or Body, only until the next read.
	open func() (read func(at trace.Place) (trace.Record, error), done func(), err error)
	// know, when not nil, tells later walks which records an earlier one
	// checked (trace.Reader.Known).
	know func(known func(trace.Place) bool)
}

// compiler carries one compilation's state.
type compiler struct {
	src     records
	meta    *trace.Meta
	records int // how many records the first walk saw
	// idx holds the values calls send, from the first walk to the end of
	// the second.
	idx *valueIndex
	// leaves is the list of one call's argument leaves, reused call after
	// call.
	leaves       []argLeaf
	seed         maphash.Seed
	opts         Options
	steps        []*step
	byI          stepIndex
	recorded     time.Time // the recording's UTC date, at midnight
	haveRecorded bool
	binds        int
	lits         literalTable
	// written are the literal strings writing steps sent, in order, for
	// the read-back checks of later reads; wrote holds the same strings,
	// to find one without a scan.
	written []string
	wrote   map[string]bool
	classes map[string]*Classification // by tool, shared by its steps
	q       questions
	binder  *binder
	// inputs are the variables a run supplies, by the key they replace.
	inputs     map[string]*input
	inputOrder []*input
	// sums are the line sums of the records the first walk read, in order.
	sums []uint64
	// recent holds the last parsed results, by step index, in the order
	// recentOrder kept them.
	recent      map[int]*recentResult
	recentOrder []int
	// bindOf finds a bind by its name, for the facts a string's other
	// parts tell (rowfacts.go); callWords are the words the last reading
	// steps' string arguments held, by step index.
	bindOf    map[string]*binding
	callWords map[int]string
	// paths interns the paths of the result checks; collector derives
	// them, result after result.
	paths     pathInterner
	collector docCollector

	// argReadings are what calls' arguments say about their effect, by
	// step number, for the calls whose arguments say something
	// (argeffects.go); toolCalls counts each tool's steps, for their
	// questions.
	argReadings map[int]*argReading
	toolCalls   map[string]int
	// fixed holds, by tool, the argument members its schema fixes
	// (fixedargs.go).
	fixed map[string]map[string]bool
}

// Compile turns a trace into a skill, deterministically and without any
// model: one step per call in call order, binds where a value a call sends
// came from an earlier result, a success assert where the recording saw
// success, an effect class per tool, and an open question for everything
// it will not guess. An error names the trace line it is about when there
// is one (*trace.LineError), or is ErrNoCalls.
//
// Compile returns the whole syntax tree; to write the skill to a file, New
// and Compilation.Write print the same bytes without holding it.
func Compile(tr *trace.Trace, opts Options) (*Output, error) {
	x, err := New(tr, opts)
	if err != nil {
		return nil, err
	}
	s, err := x.Skill()
	if err != nil {
		return nil, err
	}
	return &Output{Skill: s, Summary: x.Summary()}, nil
}

// Compilation is a trace analysed for compiling: every decision is made
// (steps, binds, effect classes, open questions), and the skill can be
// built as a tree or printed.
type Compilation struct{ c *compiler }

// New analyses a trace for compiling. Its errors are Compile's.
func New(tr *trace.Trace, opts Options) (*Compilation, error) {
	return analyse(memoryRecords(tr), opts)
}

// memoryRecords reads a trace in memory; a place's Offset is the record's
// index.
func memoryRecords(tr *trace.Trace) records {
	return records{
		walk: func(fn func(trace.Record, trace.Place) error) error {
			for k, rec := range tr.Records {
				if err := fn(rec, trace.Place{Line: tr.Lines[k], Offset: int64(k)}); err != nil {
					return err
				}
			}
			return nil
		},
		open: func() (func(trace.Place) (trace.Record, error), func(), error) {
			read := func(at trace.Place) (trace.Record, error) {
				if at.Offset < 0 || at.Offset >= int64(len(tr.Records)) {
					return nil, ErrTraceChanged
				}
				return tr.Records[at.Offset], nil
			}
			return read, func() {}, nil
		},
	}
}

// NewFile analyses the trace file at path for compiling, reading it
// instead of loading it: two walks over the file, and later each call's
// line again where the first walk found it. The compiler keeps what each
// step needs, never the result bodies or arguments, so memory grows with
// the skill rather than with the recording. The file's errors are
// trace.Read's (the first problem, as a *trace.LineError); a file whose
// calls change between the reads is an error too.
func NewFile(path string, opts Options) (*Compilation, error) {
	return analyse(fileRecords(path), opts)
}

// fileRecords reads a trace file.
func fileRecords(path string) records {
	var known func(trace.Place) bool
	return records{
		walk: func(fn func(trace.Record, trace.Place) error) error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			return trace.ScanBorrowed(f, known, fn)
		},
		know: func(k func(trace.Place) bool) { known = k },
		open: func() (func(trace.Place) (trace.Record, error), func(), error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, nil, err
			}
			return trace.NewLineReader(f).Read, func() { f.Close() }, nil
		},
	}
}

// analyse runs the compiler's walks over a trace's records.
func analyse(src records, opts Options) (*Compilation, error) {
	if opts.MaxMinedBody <= 0 {
		opts.MaxMinedBody = DefaultMaxMinedBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Source == "" {
		opts.Source = "trace"
	}
	c := &compiler{src: src, opts: opts, seed: maphash.MakeSeed(), idx: newValueIndex(), classes: map[string]*Classification{}, inputs: map[string]*input{},
		lits: literalTable{strs: map[string]literalRef{}, nums: map[string]literalRef{}}}
	trailing, err := c.pairReadingArguments()
	if err != nil {
		return nil, err
	}
	if len(c.steps) == 0 {
		return nil, ErrNoCalls
	}
	if c.src.know != nil {
		// The second walk reads the same lines again: a line whose bytes
		// have the sum the first walk saw there was checked then.
		k := 0
		sums := c.sums
		c.src.know(func(p trace.Place) bool {
			ok := k < len(sums) && p.Sum != 0 && sums[k] == p.Sum
			k++
			return ok
		})
	}
	c.recordingDate()
	if err := c.dataflow(); err != nil {
		return nil, err
	}
	if c.src.know != nil {
		c.src.know(nil)
	}
	c.sums = nil
	c.recent, c.recentOrder = nil, nil
	c.paths, c.collector = pathInterner{}, docCollector{}
	if err := c.readPicks(); err != nil {
		return nil, err
	}
	c.bindQuestions()
	c.stepQuestions()
	c.inputQuestions()
	c.rerunQuestions()
	c.literalQuestions()
	if len(trailing) > 0 {
		last := c.steps[len(c.steps)-1]
		c.q.add(0, KindTrailingNote, "After step %d: a note follows the last call (%s) and no step was made from it — did the recording stop before the call it describes?", last.n, quoteText(joinNotes(trailing)))
	}
	// What only the analysis needed goes before the skill is built.
	c.lits, c.byI = literalTable{}, stepIndex{}
	c.written, c.wrote = nil, nil
	// The binder's names and consumers served the questions; the binds
	// stay with their steps.
	c.binder, c.inputs = nil, nil
	return &Compilation{c}, nil
}

// Meta returns the trace's meta record.
func (x *Compilation) Meta() *trace.Meta { return x.c.meta }

// Summary returns the review summary; its Output is left for the caller.
// Called after Write or Skill, it counts the asserts those built instead
// of building every step's asserts again.
func (x *Compilation) Summary() Summary { return x.c.summary() }

// Name is the skill's name, the summary's Name.
func (x *Compilation) Name() string { return x.c.name() }

// Skill builds the compiled skill's syntax tree. Its nodes carry no file
// positions (parse the printed bytes for those). It reads the calls'
// arguments again, so for a compilation made by NewFile it fails when the
// file cannot be read or has changed; one made by New does not fail.
func (x *Compilation) Skill() (*ast.Skill, error) {
	var err error
	s := x.c.skeleton()
	s.Steps = slices.Collect(x.c.stepNodes(&err, false))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Write prints the compiled skill to w in canonical form, the bytes
// format.Source prints for Skill's tree. Each step's nodes are built, printed
// and dropped in turn (in the same storage), so the skill's whole tree is
// never in memory. It returns w's first error, or Skill's: the calls are
// read again, and stop the printing part way if the trace file cannot be
// read or has changed.
//
// The open questions after the steps are written once the steps are, the
// bytes format.Write would print for them as the skill's trailing text,
// so that their text is not held while the steps are printed.
func (x *Compilation) Write(w io.Writer) error {
	var err error
	now := x.c.opts.Now()
	printed := false
	steps := func(yield func(*ast.Step) bool) {
		for st := range x.c.stepNodes(&err, true) {
			printed = true
			if !yield(st) {
				return
			}
		}
	}
	if werr := format.Write(w, x.c.head(), steps); werr != nil {
		return werr
	}
	bw := bufio.NewWriter(w)
	if printed {
		// The blank line format.Write owes a step before what follows.
		bw.WriteString("\n")
	}
	x.c.writeTrailing(bw, now)
	if werr := bw.Flush(); werr != nil {
		return werr
	}
	return err
}

// recordingDate reads meta.startedAt; without it date literals go unchecked.
func (c *compiler) recordingDate() {
	t, err := time.Parse(time.RFC3339Nano, c.meta.StartedAt)
	if err != nil {
		c.q.add(0, KindNoRecordingDate, "The trace's meta.startedAt %s is not a timestamp, so date literals were not checked against the recording date.", quoteText(c.meta.StartedAt))
		return
	}
	c.recorded, c.haveRecorded = dayOf(t), true
}

// stepIndex finds a step by its call's index i. Indexes are mostly 0, 1,
// 2…, so a slice holds nearly all of them, a map the rest.
type stepIndex struct {
	dense  []*step
	sparse map[int]*step
}

func (x *stepIndex) get(i int) *step {
	if i >= 0 && i < len(x.dense) && x.dense[i] != nil {
		return x.dense[i]
	}
	return x.sparse[i]
}

// set files st under i; n is how many steps there are so far.
func (x *stepIndex) set(i int, st *step, n int) {
	if i >= 0 && i < 2*n+1024 {
		if i >= len(x.dense) {
			x.dense = append(x.dense, make([]*step, max(i+1, 2*len(x.dense))-len(x.dense))...)
		}
		x.dense[i] = st
		return
	}
	if x.sparse == nil {
		x.sparse = map[int]*step{}
	}
	x.sparse[i] = st
}
