package replay

// scope holds template variables in one flat map, so a lookup costs the
// same at step 50,000 as at step 1.
//
// A run has one scope (the inputs and every committed bind) and each step
// binds into a fresh local scope that is merged into it with commit only
// once the step is settled, so a step's binds are visible to later steps
// only. A later bind of a name overwrites the earlier value, which is what
// the chain of one scope per step this replaced did by shadowing: the
// innermost (latest) binding won a lookup.
type scope struct {
	vars map[string]any
}

func newScope() *scope { return &scope{} }

// lookup finds name in s.
func (s *scope) lookup(name string) (any, bool) {
	v, ok := s.vars[name]
	return v, ok
}

func (s *scope) set(name string, v any) {
	if s.vars == nil {
		s.vars = make(map[string]any)
	}
	s.vars[name] = v
}

// commit makes every binding of local visible in s, over any earlier
// binding of the same name.
func (s *scope) commit(local *scope) {
	for name, v := range local.vars {
		s.set(name, v)
	}
}

// empty reports whether s defines nothing itself.
func (s *scope) empty() bool { return len(s.vars) == 0 }
