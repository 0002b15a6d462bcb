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
type source struct {
	step int // index into the compiler's steps
	path []pathSeg
	// array is set when the path crosses an array (an index segment).
	array bool
	// bindable is set when every key fits the path grammar
	// ([A-Za-z0-9_]+) and the path is not empty.
	bindable bool
	dot      string // dotted(), once asked for
}

// dotted renders a bindable path as the skill writes it: `items.0.id`.
// Every step that uses the value asks, so the text is kept.
func (s *source) dotted() string {
	if s.dot != "" || len(s.path) == 0 {
		return s.dot
	}
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
	s.dot = b.String()
	return s.dot
}

// astPath returns the path as a syntax node.
func (s *source) astPath() ast.Path {
	els := make([]ast.PathElement, len(s.path))
	for i, seg := range s.path {
		if seg.index >= 0 {
			els[i] = ast.PathElement{Name: strconv.Itoa(seg.index), Index: seg.index}
		} else {
			els[i] = ast.PathElement{Name: seg.key, Index: -1}
		}
	}
	return ast.Path{Elements: els}
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
	rank   int // how good src is within its result; lower is better
	result int // which result src came from (1-based ordinal)
}

// pending is a sighting inside the result being mined; sightings are kept
// only once the whole result has been read.
type pending struct {
	slot *slot
	src  *source
	rank int
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
	results int
	// mineStep is the step whose result is being mined.
	mineStep int
	scan     scanner
}

func newValueIndex() *valueIndex {
	x := &valueIndex{strs: map[string]*slot{}, nums: map[string]*slot{}}
	x.scan.leaf = x.leaf
	x.scan.kill = func(from, to int) {
		for i := from; i < to; i++ {
			x.pending[i].dead = true
		}
	}
	return x
}

// eligible reports whether an argument leaf may be recovered, and returns
// its match key and which map it belongs to.
func eligible(v ast.Value) (key string, num bool, ok bool) {
	switch v := v.(type) {
	case *ast.String:
		return v.Value, false, utf8.RuneCountInString(v.Value) >= minLiteralLen
	case *ast.Number:
		k := numberKey([]byte(v.Raw))
		return k, true, len(k) >= minLiteralLen
	}
	return "", false, false
}

// want registers a value a call sends.
func (x *valueIndex) want(v ast.Value) {
	key, num, ok := eligible(v)
	if !ok {
		return
	}
	m := x.strs
	if num {
		m = x.nums
	}
	if m[key] == nil {
		m[key] = &slot{}
	}
}

// lookup returns where the most recent earlier result held the value, or nil.
func (x *valueIndex) lookup(v ast.Value) *source {
	key, num, ok := eligible(v)
	if !ok {
		return nil
	}
	m := x.strs
	if num {
		m = x.nums
	}
	if s := m[key]; s != nil {
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
	src := &source{step: x.mineStep, path: make([]pathSeg, len(path)), bindable: len(path) > 0}
	for i, seg := range path {
		if seg.index >= 0 {
			src.path[i] = pathSeg{index: seg.index}
			src.array = true
			continue
		}
		k := seg.keyName()
		src.path[i] = pathSeg{key: k, index: -1}
		src.bindable = src.bindable && isPathKey(k)
	}
	rank := 0
	if !src.bindable {
		rank += 2
	}
	if src.array {
		rank++
	}
	x.pending = append(x.pending, pending{slot: s, src: src, rank: rank})
	return true
}
