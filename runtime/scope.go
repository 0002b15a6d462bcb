package runtime

// scope holds template variables. Each step evaluates in a child of the
// scope before it, so a step's binds are visible to later steps only, and
// only once the step is committed.
type scope struct {
	parent *scope
	vars   map[string]any
}

func newScope(parent *scope) *scope { return &scope{parent: parent} }

// lookup finds name in s or its ancestors.
func (s *scope) lookup(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) set(name string, v any) {
	if s.vars == nil {
		s.vars = make(map[string]any)
	}
	s.vars[name] = v
}

// empty reports whether s defines nothing itself.
func (s *scope) empty() bool { return len(s.vars) == 0 }
