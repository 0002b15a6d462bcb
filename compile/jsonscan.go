package compile

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/reelier/reelier/tool/jsondata"
)

// A segment of a path into a result: an object key or an array index.
type segment struct {
	raw   []byte // the key as written between its quotes (escapes kept)
	esc   bool   // raw holds a backslash escape
	index int    // the array index, or -1 for a key
}

// keyName decodes the segment's key.
func (s segment) keyName() string {
	if !s.esc {
		return string(s.raw)
	}
	return unquote(s.raw)
}

// unquote decodes the inside of a JSON string.
func unquote(raw []byte) string {
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(raw)
	}
	return s
}

// scanner walks a JSON document already checked with json.Valid, without
// building a tree: it tells leaf about every string and number, in
// document order, with the path to it.
//
// A key written twice in one object hides the earlier member (lookups see
// the later one, as in JavaScript). Each leaf the caller keeps is a mark;
// when a later duplicate key hides a member whose value left marks, kill
// is told which marks to forget.
type scanner struct {
	s    []byte
	i    int
	path []segment
	// leaf is told a leaf's kind ('s' or 'n'), its text (a string's
	// inside with escapes kept, or a number as written) and its path,
	// valid only during the call; it returns true when it kept a mark.
	leaf  func(kind byte, raw []byte, esc bool, path []segment) bool
	kill  func(from, to int)
	marks int
	// node, when set, is told about every value as it starts: 'o' an
	// object, 'a' an array, 's' a string, 'n' a number, 't' and 'f' the
	// booleans, 'z' null; raw is a string's inside or a number's text.
	node func(kind byte, raw []byte, esc bool, path []segment)
}

// emit passes a leaf on and counts its mark.
func (x *scanner) emit(kind byte, raw []byte, esc bool) {
	if x.leaf(kind, raw, esc, x.path) {
		x.marks++
	}
}

func (x *scanner) ws() { x.i = jsondata.SpaceEnd(x.s, x.i) }

func (x *scanner) value() {
	x.ws()
	if x.i >= len(x.s) {
		return
	}
	switch c := x.s[x.i]; {
	case c == '{':
		x.tell('o', nil, false)
		x.object()
	case c == '[':
		x.tell('a', nil, false)
		x.array()
	case c == '"':
		raw, esc := x.str()
		x.tell('s', raw, esc)
		x.emit('s', raw, esc)
	case c == 't':
		x.tell('t', nil, false)
		x.i += len("true")
	case c == 'f':
		x.tell('f', nil, false)
		x.i += len("false")
	case c == 'n':
		x.tell('z', nil, false)
		x.i += len("null")
	default:
		start := x.i
		for x.i < len(x.s) && isNumberByte(x.s[x.i]) {
			x.i++
		}
		x.tell('n', x.s[start:x.i], false)
		x.emit('n', x.s[start:x.i], false)
	}
}

// tell passes a value's start to node, when set.
func (x *scanner) tell(kind byte, raw []byte, esc bool) {
	if x.node != nil {
		x.node(kind, raw, esc, x.path)
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads a string starting at its opening quote and returns its inside.
func (x *scanner) str() ([]byte, bool) {
	x.i++ // opening quote
	start := x.i
	esc := false
	for x.i < len(x.s) {
		switch x.s[x.i] {
		case '\\':
			esc = true
			x.i += 2
			continue
		case '"':
			raw := x.s[start:x.i]
			x.i++
			return raw, esc
		}
		x.i++
	}
	return x.s[start:], esc
}

func (x *scanner) object() {
	x.i++ // {
	depth := len(x.path)
	var marked memberMarks
	for {
		x.ws()
		if x.i >= len(x.s) || x.s[x.i] == '}' {
			x.i++
			return
		}
		if x.s[x.i] == ',' {
			x.i++
			continue
		}
		raw, esc := x.str()
		x.ws()
		x.i++ // :
		key := segment{raw: raw, esc: esc, index: -1}
		if !marked.empty() {
			// A later duplicate key hides the earlier member.
			if from, to, ok := marked.take(key.keyName()); ok {
				x.kill(from, to)
			}
		}
		from := x.marks
		x.path = append(x.path, key)
		x.value()
		x.path = x.path[:depth]
		if x.marks > from {
			marked.add(key.keyName(), from, x.marks)
		}
	}
}

// memberMarks records, for the members of one object whose values left
// marks, the key and the marks of its latest member: a short list while it
// is short (the common case, no allocation per object without marks), a
// map beyond that so a huge object stays linear.
type memberMarks struct {
	list  []markedMember
	byKey map[string][2]int
}

type markedMember struct {
	key      string
	from, to int
}

// maxMarkList is how long the list grows before the map takes over.
const maxMarkList = 8

func (m *memberMarks) empty() bool { return len(m.list) == 0 && len(m.byKey) == 0 }

func (m *memberMarks) add(key string, from, to int) {
	if m.byKey == nil && len(m.list) < maxMarkList {
		m.list = append(m.list, markedMember{key, from, to})
		return
	}
	if m.byKey == nil {
		m.byKey = make(map[string][2]int, 2*maxMarkList)
		for _, e := range m.list {
			m.byKey[e.key] = [2]int{e.from, e.to}
		}
		m.list = nil
	}
	m.byKey[key] = [2]int{from, to}
}

// take removes and returns the marks recorded for key.
func (m *memberMarks) take(key string) (from, to int, ok bool) {
	if m.byKey != nil {
		span, ok := m.byKey[key]
		delete(m.byKey, key)
		return span[0], span[1], ok
	}
	for i, e := range m.list {
		if e.key == key {
			m.list = append(m.list[:i], m.list[i+1:]...)
			return e.from, e.to, true
		}
	}
	return 0, 0, false
}

func (x *scanner) array() {
	x.i++ // [
	depth := len(x.path)
	n := 0
	for {
		x.ws()
		if x.i >= len(x.s) || x.s[x.i] == ']' {
			x.i++
			return
		}
		if x.s[x.i] == ',' {
			x.i++
			continue
		}
		x.path = append(x.path, segment{index: n})
		x.value()
		x.path = x.path[:depth]
		n++
	}
}

// numberKey returns the form numbers are matched by: an integer as written,
// any other number as the shortest decimal of its float64 value (so 1e3
// matches 1000, as the two are the same JavaScript number).
func numberKey(raw []byte) string {
	if isInteger(raw) {
		return string(raw)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return string(raw)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func isInteger(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
