package compile

import (
	"errors"
	"fmt"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
	"github.com/reelier/reelier/trace"
)

// dataflow is the second walk over the records: each result with a value
// a later call sends is indexed, and each call's literals that an earlier
// result held become holes filled by a bind on the source step. The
// literals that stay are entered in the literal table as they are met.
// The walk stops where the first one did, and a call that is not the one
// the first walk saw there means the trace changed in between.
func (c *compiler) dataflow() error {
	idx := c.idx
	c.idx = nil
	b := newBinder()
	seen, calls := 0, 0
	err := c.src.walk(func(rec trace.Record, at trace.Place) error {
		line := at.Line
		if seen == c.records {
			return errWalked
		}
		seen++
		switch rec := rec.(type) {
		case *trace.Result:
			st := c.byI[rec.I]
			if st == nil || st.resultLine != line {
				return ErrTraceChanged
			}
			if text, ok := c.result(st, rec); ok && !idx.empty() {
				idx.mine(st.n-1, []byte(text))
			}
		case *trace.Call:
			if calls == len(c.steps) {
				return ErrTraceChanged
			}
			st := c.steps[calls]
			calls++
			if !st.same(rec, line, c.seed) {
				return ErrTraceChanged
			}
			args, _ := grammar.ParseArgs(string(rec.Args), ast.Pos{}) // valid: the first walk parsed it
			c.leaves = argLeaves(args, c.leaves[:0])
			for _, l := range c.leaves {
				src := idx.lookup(l)
				switch {
				case src == nil:
					c.lits.see(st.n, l, c.recorded, c.haveRecorded)
				case !src.bindable:
					c.unbindable(st, l, src)
				default:
					st.holes = append(st.holes, argHole{ord: l.ord, name: b.use(c.steps, src, st.n).name})
				}
			}
			for _, l := range c.leaves {
				idx.done(l, st.n)
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errWalked):
	case err != nil:
		return err
	case seen != c.records:
		return ErrTraceChanged
	}
	for _, bd := range b.all {
		if bd.array {
			from := c.steps[bd.step]
			c.q.add(from.n, KindArrayIndexBind, "%s: the bind %s reads json.%s, a position in an array; if the array comes back in another order or length, %s would receive a different value — is the order guaranteed?", ref(from), bd.name, bd.path, stepsPhrase(b.consumers[bd]))
		}
	}
	c.binds = len(b.all)
	return nil
}

var (
	// errWalked ends the second walk where the first one ended.
	errWalked = errors.New("walked every record the first walk saw")
	// ErrTraceChanged is returned when a trace file's calls differ from
	// one read to the next.
	ErrTraceChanged = errors.New("the trace changed while it was being compiled (is it still being recorded?); compile it again once it is complete")
)

// unbindable asks about a value step st sends that an earlier result held
// where no json path can reach it.
func (c *compiler) unbindable(st *step, l argLeaf, src *source) {
	from := c.steps[int(src.step)].n
	where := fmt.Sprintf("came from step %d's result at %s, but a skill path can name only keys made of letters, digits and _", from, src.display())
	if len(src.path) == 0 {
		where = fmt.Sprintf("is the whole result of step %d, and a json path needs at least one key", from)
	}
	c.q.add(st.n, KindUnbindablePath, "%s: %s %s, so it stays a literal and replay sends the recorded value — bind it with `body match` or make it an input.", ref(st), quote(l.value()), where)
}
