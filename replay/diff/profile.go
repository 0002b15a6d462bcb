package diff

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// Profile is what a skill says about which values matter: for each step,
// the paths whose value it only type-checks. A diff with a profile does
// not count a value change there, only a type change.
type Profile struct {
	// Steps are the skill's steps that have an action, in file order.
	Steps []*StepProfile
	byN   map[int]*StepProfile
}

// StepProfile is one step's part of a Profile.
type StepProfile struct {
	N     int
	Title string
	Tool  string
	// TypeOnly holds the observation's json paths (as the skill writes
	// them, without `json.`) whose every assert is `is <type>`, `is set`
	// or `matches /re/`: the skill holds the value to a type or a shape,
	// never to itself.
	TypeOnly map[string]bool
	// Shapes are the `matches` patterns of the type-only paths that have
	// any: a new value there must still match them.
	Shapes map[string][]string
	// ArgsTypeOnly holds the argument paths whose string holds a hole
	// that changes from run to run by design: a computed date
	// (`{{today}}`, `{{today-7d}}`) or a value an earlier step bound from
	// a type-only path. Everything under such a path is type-only too.
	ArgsTypeOnly map[string]bool
	// BindsTypeOnly holds the names the step binds from a type-only
	// path, with the path's segments.
	BindsTypeOnly map[string][]string
}

// NewProfile reads a skill's asserts, binds and arguments.
func NewProfile(s *ast.Skill) *Profile {
	p := &Profile{byN: map[int]*StepProfile{}}
	if s == nil {
		return p
	}
	// volatile names the bound values that are type-only where they
	// were bound, as the steps go (a later bind of the name wins).
	volatile := map[string]bool{}
	for _, st := range s.Steps {
		sp := &StepProfile{N: st.Number, Title: st.Title, TypeOnly: map[string]bool{}, Shapes: map[string][]string{},
			ArgsTypeOnly: map[string]bool{}, BindsTypeOnly: map[string][]string{}}
		if st.Action != nil {
			sp.Tool = st.Action.Tool
			argPaths(st.Action.Args, nil, func(path string, s *ast.String) {
				for _, h := range s.Holes {
					if h.Kind == ast.HoleToday || h.Kind == ast.HoleTodayOffset || h.Kind == ast.HoleVar && volatile[h.Name] {
						sp.ArgsTypeOnly[path] = true
					}
				}
			})
		}
		kinds := map[string]bool{} // path → only type and shape asserts so far
		// selKinds is kinds for the step's selections, by their text.
		selKinds := map[string]bool{}
		for _, a := range st.Asserts {
			if sa, ok := a.Expr.(*ast.SelectionAssert); ok {
				key := format.Selection(sa.Sel)
				isType := sa.Kind == ast.SelIs || sa.Kind == ast.SelMatches
				if prev, seen := selKinds[key]; seen {
					isType = prev && isType
				}
				selKinds[key] = isType
				continue
			}
			path := ast.AssertPath(a.Expr)
			if path == nil {
				continue
			}
			key := path.String()
			isType := false
			switch e := a.Expr.(type) {
			case *ast.JSONIsAssert:
				isType = true
			case *ast.JSONMatchesAssert:
				isType = true
				sp.Shapes[key] = append(sp.Shapes[key], e.Pattern)
			}
			if prev, seen := kinds[key]; seen {
				kinds[key] = prev && isType
			} else {
				kinds[key] = isType
			}
		}
		for k, only := range kinds {
			if only {
				sp.TypeOnly[k] = true
			} else {
				delete(sp.Shapes, k)
			}
		}
		for _, b := range st.Binds {
			name := b.Expr.BoundName()
			if sb, ok := b.Expr.(*ast.SelectionBind); ok {
				// A value picked by a selection the step holds only to a
				// type changes by design, like a type-only path's; what
				// takes it is type-only too.
				volatile[name] = selKinds[format.Selection(sb.Sel)]
				continue
			}
			jb, ok := b.Expr.(*ast.JSONBind)
			volatile[name] = ok && sp.TypeOnly[jb.Path.String()]
			if volatile[name] {
				segs := make([]string, len(jb.Path.Elements))
				for i, e := range jb.Path.Elements {
					segs[i] = e.Name
				}
				sp.BindsTypeOnly[name] = segs
			}
		}
		if st.Action != nil {
			p.Steps = append(p.Steps, sp)
		}
		p.byN[st.Number] = sp
	}
	return p
}

// Step returns the profile of step n, or nil.
func (p *Profile) Step(n int) *StepProfile {
	if p == nil {
		return nil
	}
	return p.byN[n]
}

// obsTypeOnly is the typeOnly function for a step's observation.
func (sp *StepProfile) obsTypeOnly() func(string) bool {
	if sp == nil || len(sp.TypeOnly) == 0 {
		return nil
	}
	return func(path string) bool { return sp.TypeOnly[path] }
}

// misfit returns, for a value at a type-only path of the observation, the
// first `matches` pattern there it does not match, if any.
func (sp *StepProfile) misfit() func(path string, v any) (string, bool) {
	if sp == nil || len(sp.Shapes) == 0 {
		return nil
	}
	return func(path string, v any) (string, bool) {
		s, isString := v.(string)
		for _, p := range sp.Shapes[path] {
			re, err := jsregex.Compile(p)
			if err != nil {
				continue // the replay reports a bad pattern itself
			}
			if !isString {
				return p, true
			}
			if ok, err := re.MatchString(s); err == nil && !ok {
				return p, true
			}
		}
		return "", false
	}
}

// argsTypeOnly is the typeOnly function for a step's arguments: a path at
// or under a type-only argument path.
func (sp *StepProfile) argsTypeOnly() func(string) bool {
	if sp == nil || len(sp.ArgsTypeOnly) == 0 {
		return nil
	}
	return func(path string) bool {
		for p := path; ; {
			if sp.ArgsTypeOnly[p] {
				return true
			}
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				return false
			}
			p = p[:i]
		}
	}
}

// bindTypeOnly is the typeOnly function for the value bound to name.
func (sp *StepProfile) bindTypeOnly(name string) func(string) bool {
	if sp == nil || sp.BindsTypeOnly[name] == nil {
		return nil
	}
	return func(string) bool { return true }
}

// argPaths calls fn for every string leaf of an action's arguments with
// its path (segments joined with ".", array indexes as numbers).
func argPaths(v ast.Value, path []string, fn func(path string, s *ast.String)) {
	switch v := v.(type) {
	case *ast.Object:
		for _, m := range v.Members {
			argPaths(m.Value, append(path, m.Key), fn)
		}
	case *ast.Array:
		for i, e := range v.Elements {
			argPaths(e, append(path, strconv.Itoa(i)), fn)
		}
	case *ast.String:
		fn(strings.Join(path, "."), v)
	}
}
