package compile

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/ast"
)

// minLiteralLen is the shortest string (in characters) or number (in
// decimal characters) that dataflow recovery and the repeated-literal
// question consider; shorter values match by coincidence too often.
const minLiteralLen = 4

// pathSeg is one segment of a source path: an object key, or an array
// index when index >= 0.
type pathSeg struct {
	key   string
	index int
}

// source is a place in an earlier step's result where a value was seen.
//
// A trace has one for every sighting of a value some call sends, so it is
// kept small: the path's text is made only for the places that are bound.
type source struct {
	path []pathSeg
	// bound is the bind made for this place, once a call uses the value:
	// a place in a result holds one value, so it is seen by one source.
	bound *binding
	step  int32 // index into the compiler's steps
	// array is set when the path crosses an array (an index segment).
	array bool
	// bindable is set when every key fits the path grammar
	// ([A-Za-z0-9_]+) and the path is not empty.
	bindable bool
}

// dotted renders a bindable path as the skill writes it: `items.0.id`.
func (s *source) dotted() string {
	var b strings.Builder
	for i, seg := range s.path {
		if i > 0 {
			b.WriteByte('.')
		}
		if seg.index >= 0 {
			b.WriteString(strconv.Itoa(seg.index))
		} else {
			b.WriteString(seg.key)
		}
	}
	return b.String()
}

// display renders a path for a person: keys that do not fit the path
// grammar are quoted.
func (s *source) display() string {
	var b strings.Builder
	for i, seg := range s.path {
		if i > 0 {
			b.WriteByte('.')
		}
		switch {
		case seg.index >= 0:
			b.WriteString(strconv.Itoa(seg.index))
		case isPathKey(seg.key):
			b.WriteString(seg.key)
		default:
			q, _ := json.Marshal(seg.key)
			b.Write(q)
		}
	}
	return b.String()
}

// isPathKey reports whether a key can be a path segment: [A-Za-z0-9_]+.
func isPathKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isWordByte(k[i]) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// slot is one value that some call's arguments hold. src is the most
// recent place an earlier result held it, as the records are walked.
type slot struct {
	src    *source
	rank   int32 // how good src is within its result; lower is better
	result int32 // which result src came from (1-based ordinal)
	last   int32 // the number of the last step that sends the value
}

// pending is a sighting inside the result being mined; sightings are kept
// only once the whole result has been read.
type pending struct {
	slot *slot
	src  *source
	rank int32
	dead bool
}

// valueIndex maps the scalar values that calls send to where earlier
// results held them. Only values some call sends are indexed, so a result
// costs one walk and a map lookup per leaf, and the index stays as small
// as the arguments.
type valueIndex struct {
	strs    map[string]*slot
	nums    map[string]*slot
	pending []pending
	results int32
	// mineStep is the step whose result is being mined.
	mineStep int
	// keys interns the object keys of sightings' paths: results of one
	// tool repeat the same few keys thousands of times.
	keys map[string]string
	scan scanner
}

func newValueIndex() *valueIndex {
	x := &valueIndex{strs: map[string]*slot{}, nums: map[string]*slot{}, keys: map[string]string{}}
	x.scan.leaf = x.leaf
	x.scan.kill = func(from, to int) {
		for i := from; i < to; i++ {
			x.pending[i].dead = true
		}
	}
	return x
}

// argLeaf is one string or number a call sends, as dataflow recovery and
// the literal questions need it. Nothing keeps them: each walk lists a
// call's leaves afresh from its arguments.
type argLeaf struct {
	ord      int    // which scalar leaf of the arguments it is, in document order
	num      bool   // a number, not a string
	template bool   // a string with a {{…}} hole inside
	eligible bool   // long enough to be recovered or asked about as repeated
	raw      string // the string's value, or the number as written
	key      string // what it matches: the string, or the number's canonical text
}

// argLeaves lists the leaves of a call's arguments that recovery or a
// question could be about: strings and numbers of at least minLiteralLen
// characters, and strings holding a template hole. They are appended to
// out, which the caller may reuse.
func argLeaves(args ast.Value, out []argLeaf) []argLeaf {
	ord := 0
	mapLeaves(args, func(v ast.Value) ast.Value {
		if l := leafOf(v); l.eligible || l.template {
			l.ord = ord
			out = append(out, l)
		}
		ord++
		return v
	})
	return out
}

// leafOf describes a string or number leaf; any other value gives the zero
// argLeaf, which nothing looks at.
func leafOf(v ast.Value) argLeaf {
	switch v := v.(type) {
	case *ast.String:
		return argLeaf{raw: v.Value, key: v.Value, template: len(v.Holes) > 0,
			eligible: utf8.RuneCountInString(v.Value) >= minLiteralLen}
	case *ast.Number:
		l := argLeaf{num: true, raw: v.Raw, key: numberKey([]byte(v.Raw))}
		l.eligible = len(l.key) >= minLiteralLen
		return l
	}
	return argLeaf{}
}

// value rebuilds the leaf as a syntax node, for quoting it.
func (l argLeaf) value() ast.Value {
	if l.num {
		return &ast.Number{Raw: l.raw}
	}
	return &ast.String{Value: l.raw}
}

// slots returns the index map the leaf belongs to.
func (x *valueIndex) slots(l argLeaf) map[string]*slot {
	if l.num {
		return x.nums
	}
	return x.strs
}

// want registers a value that step n sends.
func (x *valueIndex) want(l argLeaf, n int) {
	if !l.eligible {
		return
	}
	m := x.slots(l)
	s := m[l.key]
	if s == nil {
		// A copy of the text, so the index does not keep the whole
		// argument string it was cut from.
		s = &slot{}
		m[strings.Clone(l.key)] = s
	}
	s.last = int32(n)
}

// done forgets a value once step n, the last step that sends it, has
// looked it up: no later call can use where it was seen, so the index
// holds only the values the calls still to come send.
func (x *valueIndex) done(l argLeaf, n int) {
	if !l.eligible {
		return
	}
	m := x.slots(l)
	if s := m[l.key]; s != nil && s.last == int32(n) {
		delete(m, l.key)
	}
}

// lookup returns where the most recent earlier result held the value, or nil.
func (x *valueIndex) lookup(l argLeaf) *source {
	if !l.eligible {
		return nil
	}
	if s := x.slots(l)[l.key]; s != nil {
		return s.src
	}
	return nil
}

// empty reports whether no call sends anything worth looking for.
func (x *valueIndex) empty() bool { return len(x.strs) == 0 && len(x.nums) == 0 }

// mine indexes the leaves of one result's text, which belongs to step.
// Text that is not JSON is skipped: the runtime's json paths could not read
// it either.
func (x *valueIndex) mine(step int, text []byte) {
	if !json.Valid(text) {
		return
	}
	x.results++
	x.pending = x.pending[:0]
	x.scan.s, x.scan.i, x.scan.path, x.scan.marks = text, 0, x.scan.path[:0], 0
	x.mineStep = step
	x.scan.value()
	for _, p := range x.pending {
		if p.dead {
			continue
		}
		if p.slot.result != x.results || p.rank < p.slot.rank {
			p.slot.src, p.slot.rank, p.slot.result = p.src, p.rank, x.results
		}
	}
	x.scan.s = nil
}

// key returns a path segment's key, decoded and interned.
func (x *valueIndex) key(seg segment) string {
	if !seg.esc {
		if k, ok := x.keys[string(seg.raw)]; ok {
			return k
		}
	}
	k := seg.keyName()
	x.keys[k] = k
	return k
}

// leaf is the scanner's callback: it keeps a sighting of a wanted value.
func (x *valueIndex) leaf(kind byte, raw []byte, esc bool, path []segment) bool {
	var s *slot
	switch {
	case kind == 'n' && isInteger(raw):
		s = x.nums[string(raw)]
	case kind == 'n':
		s = x.nums[numberKey(raw)]
	case esc:
		s = x.strs[unquote(raw)]
	default:
		s = x.strs[string(raw)]
	}
	if s == nil {
		return false
	}
	src := &source{step: int32(x.mineStep), path: make([]pathSeg, len(path)), bindable: len(path) > 0}
	for i, seg := range path {
		if seg.index >= 0 {
			src.path[i] = pathSeg{index: seg.index}
			src.array = true
			continue
		}
		k := x.key(seg)
		src.path[i] = pathSeg{key: k, index: -1}
		src.bindable = src.bindable && isPathKey(k)
	}
	rank := int32(0)
	if !src.bindable {
		rank += 2
	}
	if src.array {
		rank++
	}
	x.pending = append(x.pending, pending{slot: s, src: src, rank: rank})
	return true
}
