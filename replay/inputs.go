package replay

import (
	"github.com/reelier/reelier/lang/ast"
)

// Input is a variable a skill needs from outside: a `{{name}}` hole (in
// an action, or in a selection's condition or compared value) that no
// earlier step binds and that is not a computed date.
type Input struct {
	Name string
	// Step and Range are the first use of the hole.
	Step  int
	Range ast.Range
}

// Inputs lists the skill's inputs in order of first use.
func Inputs(skill *ast.Skill) []Input {
	bound := make(map[string]bool, countBinds(skill))
	seen := map[string]bool{}
	var out []Input
	var st *ast.Step
	visit := func(leaf ast.Value, _ string) {
		s, ok := leaf.(*ast.String)
		if !ok {
			return
		}
		for _, h := range s.Holes {
			if h.Kind == ast.HoleVar && !bound[h.Name] && !seen[h.Name] {
				seen[h.Name] = true
				out = append(out, Input{Name: h.Name, Step: st.Number, Range: h.Range})
			}
		}
	}
	for _, st = range skill.Steps {
		if st.Action != nil {
			ast.WalkLeaves(st.Action.Args, "", visit)
		}
		// A selection's condition (and a selection assert's value) is
		// filled before the step's own binds exist, as the action is.
		for _, a := range st.Asserts {
			if sa, ok := a.Expr.(*ast.SelectionAssert); ok {
				for _, c := range sa.Sel.Where {
					visit(c.Value, "")
				}
				visit(sa.Value, "")
			}
		}
		for _, b := range st.Binds {
			if sb, ok := b.Expr.(*ast.SelectionBind); ok {
				for _, c := range sb.Sel.Where {
					visit(c.Value, "")
				}
			}
		}
		for _, b := range st.Binds {
			bound[b.Expr.BoundName()] = true
		}
	}
	return out
}

// MissingInputs lists the inputs vars does not supply.
func MissingInputs(skill *ast.Skill, vars map[string]string) []Input {
	var out []Input
	for _, in := range Inputs(skill) {
		if _, ok := vars[in.Name]; !ok {
			out = append(out, in)
		}
	}
	return out
}
