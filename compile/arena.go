package compile

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
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
	argNodes
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

// argNodes are the arena's chunks for a call's arguments.
type argNodes struct {
	objects []ast.Object
	members []ast.Member
	mptrs   []*ast.Member
	arrays  []ast.Array
	vals    []ast.Value
	bools   []ast.Bool
	nulls   []ast.Null
	// mstack and vstack gather an object's members and an array's
	// elements while they are read.
	mstack []*ast.Member
	vstack []ast.Value
}

func (n *argNodes) reset() {
	n.objects, n.members, n.mptrs, n.arrays = n.objects[:0], n.members[:0], n.mptrs[:0], n.arrays[:0]
	n.vals, n.bools, n.nulls = n.vals[:0], n.bools[:0], n.nulls[:0]
	clear(n.mstack[:cap(n.mstack)])
	clear(n.vstack[:cap(n.vstack)])
	n.mstack, n.vstack = n.mstack[:0], n.vstack[:0]
}

// args builds a call's recorded arguments, with the holes dataflow
// recovery chose put in, as the tree grammar.ParseArgs and mapLeaves
// make of them — the nodes format prints, positions aside. It reads only
// arguments without escapes or template holes (as rawArgLeaves does) and
// reports false for any other, which the parser then reads.
func (a *nodeArena) args(src string, holes []argHole, b *stepBuilder) (ast.Value, bool) {
	a.argNodes.reset()
	b.holes = slices.Grow(b.holes[:0], len(holes))[:len(holes)]
	r := argReader{a: a, b: b, holes: holes, s: src, ord: -1}
	r.space()
	v, ok := r.value(0)
	if !ok {
		return nil, false
	}
	r.space()
	return v, r.i == len(r.s)
}

// argReader reads arguments for nodeArena.args.
type argReader struct {
	a     *nodeArena
	b     *stepBuilder
	holes []argHole
	next  int // the next hole
	s     string
	i     int
	ord   int // the last scalar leaf's position
}

func (r *argReader) space() { r.i = jsondata.SpaceEnd(r.s, r.i) }

// leaf returns the scalar v, or the hole that replaces it.
func (r *argReader) leaf(v ast.Value) ast.Value {
	r.ord++
	if r.next < len(r.holes) && r.holes[r.next].ord == r.ord {
		h := r.holes[r.next]
		r.next++
		if h.composed != nil {
			s := take(&r.a.strs)
			*s = *h.composed
			return s
		}
		return r.b.holes[r.next-1].set(h.whole)
	}
	return v
}

func (r *argReader) value(depth int) (ast.Value, bool) {
	if r.i >= len(r.s) {
		return nil, false
	}
	n := &r.a.argNodes
	switch c := r.s[r.i]; {
	case c == '{':
		if depth++; depth > maxArgDepth {
			return nil, false
		}
		r.i++
		base := len(n.mstack)
		r.space()
		if r.i < len(r.s) && r.s[r.i] == '}' {
			r.i++
		} else {
			for {
				r.space()
				if r.i >= len(r.s) || r.s[r.i] != '"' {
					return nil, false
				}
				key, ok := r.str()
				if !ok {
					return nil, false
				}
				r.space()
				if r.i >= len(r.s) || r.s[r.i] != ':' {
					return nil, false
				}
				r.i++
				r.space()
				m := take(&n.members)
				m.Key = key
				if m.Value, ok = r.value(depth); !ok {
					return nil, false
				}
				n.mstack = append(n.mstack, m)
				r.space()
				if r.i >= len(r.s) {
					return nil, false
				}
				if r.s[r.i] == '}' {
					r.i++
					break
				}
				if r.s[r.i] != ',' {
					return nil, false
				}
				r.i++
			}
		}
		obj := take(&n.objects)
		if k := len(n.mstack) - base; k > 0 {
			obj.Members = takeN(&n.mptrs, k)
			copy(obj.Members, n.mstack[base:])
		}
		n.mstack = n.mstack[:base]
		return obj, true
	case c == '[':
		if depth++; depth > maxArgDepth {
			return nil, false
		}
		r.i++
		base := len(n.vstack)
		r.space()
		if r.i < len(r.s) && r.s[r.i] == ']' {
			r.i++
		} else {
			for {
				r.space()
				v, ok := r.value(depth)
				if !ok {
					return nil, false
				}
				n.vstack = append(n.vstack, v)
				r.space()
				if r.i >= len(r.s) {
					return nil, false
				}
				if r.s[r.i] == ']' {
					r.i++
					break
				}
				if r.s[r.i] != ',' {
					return nil, false
				}
				r.i++
			}
		}
		arr := take(&n.arrays)
		if k := len(n.vstack) - base; k > 0 {
			arr.Elements = takeN(&n.vals, k)
			copy(arr.Elements, n.vstack[base:])
		}
		n.vstack = n.vstack[:base]
		return arr, true
	case c == '"':
		v, ok := r.str()
		if !ok || strings.Contains(v, "{{") {
			return nil, false
		}
		s := take(&r.a.strs)
		s.Value = v
		return r.leaf(s), true
	case c == '-' || c >= '0' && c <= '9':
		w := leafWalker{s: r.s, i: r.i}
		raw, ok := w.number()
		if !ok {
			return nil, false
		}
		r.i = w.i
		num := take(&r.a.nums)
		num.Raw = raw
		return r.leaf(num), true
	case strings.HasPrefix(r.s[r.i:], "true"), strings.HasPrefix(r.s[r.i:], "false"):
		bv := take(&n.bools)
		bv.Value = c == 't'
		r.i += len("false")
		if bv.Value {
			r.i--
		}
		return r.leaf(bv), true
	case strings.HasPrefix(r.s[r.i:], "null"):
		r.i += len("null")
		return r.leaf(take(&n.nulls)), true
	}
	return nil, false
}

// str reads a string without escapes or control characters.
func (r *argReader) str() (string, bool) {
	w := leafWalker{s: r.s, i: r.i}
	v, ok := w.str()
	r.i = w.i
	return v, ok
}
