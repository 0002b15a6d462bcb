package compile

import (
	"fmt"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/trace"
)

// dataflow walks the records in file order: each result with a value a
// later call sends is indexed, and each call's literals that an earlier
// result held become holes filled by a bind on the source step. The
// literals that stay are entered in the literal table as they are met.
func (c *compiler) dataflow() {
	idx := newValueIndex()
	for _, st := range c.steps {
		mapLeaves(st.args, func(v ast.Value) ast.Value { idx.want(v); return v })
	}
	b := newBinder()
	for _, rec := range c.tr.Records {
		switch rec := rec.(type) {
		case *trace.Result:
			st := c.byI[rec.I]
			if text, ok := c.result(st, rec); ok && !idx.empty() {
				idx.mine(st.n-1, []byte(text))
			}
		case *trace.Call:
			st := c.byI[rec.I]
			st.args = mapLeaves(st.args, func(v ast.Value) ast.Value {
				src := idx.lookup(v)
				switch {
				case src == nil:
					c.lits.see(st.n, v, c.recorded, c.haveRecorded)
					return v
				case !src.bindable:
					c.unbindable(st, v, src)
					return v
				}
				return holeString(b.use(c.steps, src, st.n).name)
			})
		}
	}
	for _, bd := range b.all {
		if bd.src.array {
			from := c.steps[bd.src.step]
			c.q.add(from.n, KindArrayIndexBind, "%s: the bind %s reads json.%s, a position in an array; if the array comes back in another order or length, %s would receive a different value — is the order guaranteed?", ref(from), bd.name, bd.path, stepsPhrase(bd.consumers))
		}
	}
	c.binds = len(b.all)
}

// unbindable asks about a value step st sends that an earlier result held
// where no json path can reach it.
func (c *compiler) unbindable(st *step, v ast.Value, src *source) {
	from := c.steps[src.step].n
	where := fmt.Sprintf("came from step %d's result at %s, but a skill path can name only keys made of letters, digits and _", from, src.display())
	if len(src.path) == 0 {
		where = fmt.Sprintf("is the whole result of step %d, and a json path needs at least one key", from)
	}
	c.q.add(st.n, KindUnbindablePath, "%s: %s %s, so it stays a literal and replay sends the recorded value — bind it with `body match` or make it an input.", ref(st), quote(v), where)
}
