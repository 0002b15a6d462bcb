package compile

import (
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/grammar"
)

// nodeArena is the storage Write builds each step's nodes in: chunks of
// each node type, emptied for the next step, so printing a skill of
// thousands of steps allocates about one step's nodes, not every step's
// (#20). A node taken from it is valid until reset.
//
// A nil *nodeArena allocates every node on its own, as Skill's tree
// needs; its nodes are exactly those the parser would make of the
// printed text, positions aside.
type nodeArena struct {
	steps    []ast.Step
	intents  []ast.IntentField
	actions  []ast.ActionField
	effects  []ast.EffectField
	afields  []ast.AssertField
	bfields  []ast.BindField
	aptrs    []*ast.AssertField
	bptrs    []*ast.BindField
	asserts  []ast.Assert
	status   []ast.StatusAssert
	compares []ast.JSONCompareAssert
	iss      []ast.JSONIsAssert
	matches  []ast.JSONMatchesAssert
	contains []ast.BodyContainsAssert
	jbinds   []ast.JSONBind
	mbinds   []ast.BodyMatchBind
	elems    []ast.PathElement
	strs     []ast.String
	nums     []ast.Number
	covered  map[string]bool
	done     map[string]bool
}

// reset empties the arena for the next step; the nodes of the last one
// are overwritten from here on.
func (a *nodeArena) reset() {
	if a == nil {
		return
	}
	a.steps, a.intents, a.actions, a.effects = a.steps[:0], a.intents[:0], a.actions[:0], a.effects[:0]
	a.afields, a.bfields, a.aptrs, a.bptrs = a.afields[:0], a.bfields[:0], a.aptrs[:0], a.bptrs[:0]
	a.asserts, a.status, a.compares, a.iss = a.asserts[:0], a.status[:0], a.compares[:0], a.iss[:0]
	a.matches, a.contains, a.jbinds, a.mbinds = a.matches[:0], a.contains[:0], a.jbinds[:0], a.mbinds[:0]
	a.elems, a.strs, a.nums = a.elems[:0], a.strs[:0], a.nums[:0]
}

// take returns a zeroed element of the chunk *s, starting a new chunk
// when it is full: elements already handed out never move.
func take[T any](s *[]T) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, max(8, 2*cap(*s)))
	}
	*s = (*s)[:len(*s)+1]
	p := &(*s)[len(*s)-1]
	var zero T
	*p = zero
	return p
}

// takeN returns n zeroed elements of the chunk *s, its capacity capped.
func takeN[T any](s *[]T, n int) []T {
	if len(*s)+n > cap(*s) {
		*s = make([]T, 0, max(8, 2*cap(*s), n))
	}
	from := len(*s)
	*s = (*s)[:from+n]
	out := (*s)[from : from+n : from+n]
	clear(out)
	return out
}

// assertList returns an empty list to append a step's asserts to.
func (a *nodeArena) assertList() []ast.Assert {
	if a == nil {
		return nil
	}
	return a.asserts[:0]
}

// keep hands the grown assert list back for the next step.
func (a *nodeArena) keep(out []ast.Assert) {
	if a != nil {
		a.asserts = out[:0]
	}
}

// coveredSet and doneSet return an empty set of strings: the arena's
// own, cleared, or a new one.
func (a *nodeArena) coveredSet() map[string]bool {
	if a == nil {
		return map[string]bool{}
	}
	return emptied(&a.covered)
}

func (a *nodeArena) doneSet() map[string]bool {
	if a == nil {
		return map[string]bool{}
	}
	return emptied(&a.done)
}

func emptied(m *map[string]bool) map[string]bool {
	if *m == nil {
		*m = map[string]bool{}
	}
	clear(*m)
	return *m
}

func (a *nodeArena) statusAssert() *ast.StatusAssert {
	if a == nil {
		return &ast.StatusAssert{}
	}
	return take(&a.status)
}

func (a *nodeArena) compareAssert() *ast.JSONCompareAssert {
	if a == nil {
		return &ast.JSONCompareAssert{}
	}
	return take(&a.compares)
}

func (a *nodeArena) isAssert() *ast.JSONIsAssert {
	if a == nil {
		return &ast.JSONIsAssert{}
	}
	return take(&a.iss)
}

func (a *nodeArena) matchesAssert() *ast.JSONMatchesAssert {
	if a == nil {
		return &ast.JSONMatchesAssert{}
	}
	return take(&a.matches)
}

func (a *nodeArena) containsAssert() *ast.BodyContainsAssert {
	if a == nil {
		return &ast.BodyContainsAssert{}
	}
	return take(&a.contains)
}

// compare is `json.<path> == v`.
func (a *nodeArena) compare(path string, v ast.Value) *ast.JSONCompareAssert {
	x := a.compareAssert()
	x.Path, x.Op, x.Value = a.path(path), ast.OpEq, v
	return x
}

// is is `json.<path> is typ`.
func (a *nodeArena) is(path string, typ ast.TypeName) *ast.JSONIsAssert {
	x := a.isAssert()
	x.Path, x.Type = a.path(path), typ
	return x
}

// path returns a dotted path as a syntax node, as the parser would read
// its text.
func (a *nodeArena) path(dotted string) ast.Path {
	if a == nil {
		return pathNode(dotted)
	}
	els := takeN(&a.elems, strings.Count(dotted, ".")+1)
	fillPath(els, dotted)
	return ast.Path{Elements: els}
}

// scalar parses a recorded JSON scalar as a syntax node, or nil. The
// arena makes the plain ones itself, printing as the parser's would:
// numbers, and strings with no escape and no hole.
func (a *nodeArena) scalar(raw string) ast.Value {
	if a == nil {
		return scalarNode(raw)
	}
	switch {
	case raw == "":
		return nil
	case raw[0] == '"' && len(raw) >= 2 && raw[len(raw)-1] == '"' && plainString(raw[1:len(raw)-1]):
		s := take(&a.strs)
		s.Value = raw[1 : len(raw)-1]
		return s
	case looksNumeric(raw):
		n := take(&a.nums)
		n.Raw = raw
		return n
	}
	return scalarNode(raw)
}

// plainString reports the text of a JSON string that is its own value:
// valid UTF-8 without escapes, control characters, quotes or braces.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '{', c == '}':
			return false
		case c >= 0x80:
			return utf8.ValidString(s[i:]) && !strings.ContainsAny(s[i:], "\"\\{}") && !hasControl(s[i:])
		}
	}
	return true
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// unquoteRaw decodes a recorded JSON string's text.
func unquoteRaw(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plainString(raw[1:len(raw)-1]) {
		return raw[1 : len(raw)-1]
	}
	return unquoteSlow(raw)
}

// scalarNode parses a recorded JSON scalar as a syntax node, or nil.
func scalarNode(raw string) ast.Value {
	if raw == "" {
		return nil
	}
	v, d := grammar.ParseArgs(raw, ast.Pos{})
	if d != nil {
		return nil
	}
	switch v.(type) {
	case *ast.String, *ast.Number, *ast.Bool, *ast.Null:
		return v
	}
	return nil
}
