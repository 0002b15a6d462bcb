package lint

import (
	"github.com/reelier/reelier/lang/ast"
)

// facts is the dataflow of a skill's variables, computed once per run and
// shared by the rules about binds, uses and inputs.
type facts struct {
	// binds lists every bind in file order.
	binds []*bindSite
	// uses lists every `{{name}}` hole (not the computed dates) in action
	// arguments and in the conditions and compared values of selections
	// (SPEC.md §5.1), in file order.
	uses []*useSite
	// inputs is the preamble's Inputs documentation.
	inputs inputsDoc
	// unresolved lists the uses that no earlier step binds and that the
	// Inputs line does not document, with what they most likely meant.
	unresolved []*unresolvedUse
}

// bindSite is one bind bullet.
type bindSite struct {
	step  *ast.Step
	field *ast.BindField
	name  string
	// used records whether a later step reads this binding before another
	// bind of the same name replaces it.
	used bool
	// replacedBy is the bind that overwrote this one, if any.
	replacedBy *bindSite
	// shadows is the earlier bind of the same name, if any.
	shadows *bindSite
}

// useSite is one template hole naming a variable.
type useSite struct {
	step *ast.Step
	hole *ast.Hole
}

// unresolvedUse is a use with nothing bound under its name beforehand.
type unresolvedUse struct {
	*useSite
	// suggestion is a close name bound earlier (or "today"), or "".
	suggestion string
	// later is the first bind of the name at or after the using step.
	later *bindSite
}

// facts returns the dataflow facts of the skill, computing them on first use.
func (p *Pass) dataflow() *facts {
	if p.facts == nil {
		p.facts = computeFacts(p.Skill)
	}
	return p.facts
}

func computeFacts(s *ast.Skill) *facts {
	f := &facts{inputs: findInputs(s), binds: make([]*bindSite, 0, len(s.Steps))}
	live := make(map[string]*bindSite, len(s.Steps))
	for _, st := range s.Steps {
		use := func(h *ast.Hole) {
			if h.Kind != ast.HoleVar {
				return
			}
			u := &useSite{step: st, hole: h}
			f.uses = append(f.uses, u)
			if b := live[h.Name]; b != nil {
				b.used = true
			} else if !f.inputs.words[h.Name] {
				f.unresolved = append(f.unresolved, &unresolvedUse{useSite: u, suggestion: closest(h.Name, live, f.inputs.vars)})
			}
		}
		for _, h := range st.Holes() {
			use(h)
		}
		for _, bf := range st.Binds {
			b := &bindSite{step: st, field: bf, name: bf.Expr.BoundName()}
			if prev := live[b.name]; prev != nil {
				prev.replacedBy = b
				b.shadows = prev
			}
			live[b.name] = b
			f.binds = append(f.binds, b)
		}
	}
	for _, u := range f.unresolved {
		u.later = f.firstBindFrom(u.hole.Name, u.step.Number)
	}
	return f
}

// firstBindFrom returns the first bind of name in step n or later.
func (f *facts) firstBindFrom(name string, n int) *bindSite {
	for _, b := range f.binds {
		if b.name == name && b.step.Number >= n {
			return b
		}
	}
	return nil
}

// dateWords are names people write for the computed dates.
var dateWords = map[string]string{
	"now": "today", "date": "today", "current_date": "today",
	"yesterday": "today-1d", "tomorrow": "today+1d",
}

// closest returns the name among the live bindings, the `{{name}}`s of the
// Inputs line and "today" nearest to name by edit distance, or "" when none
// is close enough to be a plausible typo. Common words for dates map to
// the computed date they mean.
func closest(name string, live map[string]*bindSite, inputs map[string]bool) string {
	if d, ok := dateWords[name]; ok {
		return d
	}
	cands := make([]string, 0, len(live)+len(inputs)+1)
	for n := range live {
		cands = append(cands, n)
	}
	for n := range inputs {
		cands = append(cands, n)
	}
	cands = append(cands, "today")
	return suggest(name, cands)
}
