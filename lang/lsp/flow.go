package lsp

import (
	"sort"

	"github.com/reelier/reelier/lang/ast"
)

// binding is one bind bullet and the holes that read the value it binds.
type binding struct {
	step  *ast.Step
	field *ast.BindField
	uses  []*use
}

// name returns the bound variable.
func (b *binding) name() string { return b.field.Expr.BoundName() }

// use is one `{{name}}` hole in a step's arguments and the bind it reads,
// nil when no earlier step binds the name (an input given with --var, or
// a mistake).
type use struct {
	step *ast.Step
	hole *ast.Hole
	bind *binding
}

// dataflow links the holes of a skill to its binds the way a replay does:
// a step sees the binds of the steps before it, never its own or later
// ones, and the latest bind of a name wins.
type dataflow struct {
	binds []*binding
	uses  []*use
}

func flowOf(s *ast.Skill) *dataflow {
	f := &dataflow{}
	live := map[string]*binding{}
	for _, st := range s.Steps {
		read := func(h *ast.Hole) {
			if h.Kind == ast.HoleVar {
				u := &use{step: st, hole: h, bind: live[h.Name]}
				if u.bind != nil {
					u.bind.uses = append(u.bind.uses, u)
				}
				f.uses = append(f.uses, u)
			}
		}
		for _, h := range st.Holes() {
			read(h)
		}
		for _, bf := range st.Binds {
			b := &binding{step: st, field: bf}
			live[b.name()] = b
			f.binds = append(f.binds, b)
		}
	}
	return f
}

// symbol is a variable name under the cursor: in a bind or in a hole.
type symbol struct {
	name string
	at   ast.Range // where the name under the cursor is written
	bind *binding  // the bind it is or reads; nil for an unbound hole
	use  *use      // the hole under the cursor, if it is one
}

// symbolAt finds the variable name at a tree offset.
func (f *dataflow) symbolAt(off int) (symbol, bool) {
	for _, b := range f.binds {
		if r := b.field.Expr.BoundNameRange(); r.Contains(off) {
			return symbol{name: b.name(), at: r, bind: b}, true
		}
	}
	for _, u := range f.uses {
		if u.hole.Range.Contains(off) {
			return symbol{name: u.hole.Name, at: u.hole.NameRange, bind: u.bind, use: u}, true
		}
	}
	return symbol{}, false
}

// occurrences returns where the symbol's variable is written: its bind
// (when includeDecl is set and it has one) and every hole that reads the
// same value. Holes that no bind reaches are grouped by name.
func (f *dataflow) occurrences(s symbol, includeDecl bool) []ast.Range {
	var out []ast.Range
	if s.bind != nil {
		if includeDecl {
			out = append(out, s.bind.field.Expr.BoundNameRange())
		}
		for _, u := range s.bind.uses {
			out = append(out, u.hole.NameRange)
		}
		return out
	}
	for _, u := range f.uses {
		if u.bind == nil && u.hole.Name == s.name {
			out = append(out, u.hole.NameRange)
		}
	}
	return out
}

// boundBefore returns the binds a step can read, latest first: the last
// bind of each name in the steps before it. It looks at binds only, so it
// is cheaper than a whole dataflow.
func boundBefore(s *ast.Skill, step *ast.Step) []*binding {
	seen := map[string]bool{}
	var out []*binding
	for i := len(s.Steps) - 1; i >= 0; i-- {
		st := s.Steps[i]
		if st.HeaderRange.Start.Offset >= step.HeaderRange.Start.Offset {
			continue
		}
		for j := len(st.Binds) - 1; j >= 0; j-- {
			if name := st.Binds[j].Expr.BoundName(); !seen[name] {
				seen[name] = true
				out = append(out, &binding{step: st, field: st.Binds[j]})
			}
		}
	}
	return out
}

// stepAt returns the step whose block holds a tree offset: from its header
// line to where its interlude (or the trailing text) begins.
func stepAt(s *ast.Skill, off int) *ast.Step {
	i := sort.Search(len(s.Steps), func(i int) bool { return int(s.Steps[i].HeaderRange.Start.Offset) > off }) - 1
	if i < 0 || off > blockEnd(s, i) {
		return nil
	}
	return s.Steps[i]
}

// blockEnd returns the tree offset just past step i's block.
func blockEnd(s *ast.Skill, i int) int {
	if i == len(s.Steps)-1 {
		return int(s.Trailing.Range.Start.Offset)
	}
	return int(s.Steps[i].Interlude.Range.Start.Offset)
}
