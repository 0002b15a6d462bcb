package compile

import (
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
)

// rawArgLeaves lists the string and number leaves of a call's recorded
// arguments straight from their JSON text, appended to out, as argLeaves
// lists them from the parsed arguments — without building the syntax
// tree (#20: the walks read every call's arguments twice). kind is the
// arguments' first byte ('{' for an object).
//
// It reads only what it can read exactly as grammar.ParseArgs would:
// strings without escapes or template holes, within the parser's depth.
// Anything else — an escape, a `{{`, invalid JSON — gives ok false, and
// the caller parses the arguments instead.
func rawArgLeaves(src string, out []argLeaf) (leaves []argLeaf, kind byte, ok bool) {
	w := leafWalker{s: src, out: out}
	w.space()
	if w.i < len(w.s) {
		kind = w.s[w.i]
	}
	if !w.value("") {
		return out, 0, false
	}
	w.space()
	if w.i != len(w.s) {
		return out, 0, false
	}
	return w.out, kind, true
}

// leafWalker reads one JSON value for rawArgLeaves.
type leafWalker struct {
	s     string
	i     int
	ord   int
	depth int
	out   []argLeaf
}

func (w *leafWalker) space() { w.i = jsondata.SpaceEnd(w.s, w.i) }

// value reads the value at w.i, a member of the object key member.
func (w *leafWalker) value(member string) bool {
	if w.i >= len(w.s) {
		return false
	}
	switch c := w.s[w.i]; {
	case c == '{':
		return w.object()
	case c == '[':
		return w.array(member)
	case c == '"':
		v, ok := w.str()
		if !ok || strings.Contains(v, "{{") {
			return false
		}
		if v != "" {
			w.out = append(w.out, argLeaf{ord: w.ord, raw: v, key: v, eligible: utf8.RuneCountInString(v) >= minLiteralLen, member: member})
		}
		w.ord++
		return true
	case c == '-' || c >= '0' && c <= '9':
		raw, ok := w.number()
		if !ok {
			return false
		}
		l := argLeaf{ord: w.ord, num: true, raw: raw, key: numberKey([]byte(raw)), member: member}
		l.eligible = len(l.key) >= minLiteralLen
		w.out = append(w.out, l)
		w.ord++
		return true
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if strings.HasPrefix(w.s[w.i:], lit) {
			w.i += len(lit)
			w.ord++
			return true
		}
	}
	return false
}

func (w *leafWalker) object() bool {
	if w.depth++; w.depth > maxArgDepth {
		return false
	}
	w.i++
	w.space()
	if w.i < len(w.s) && w.s[w.i] == '}' {
		w.i++
		w.depth--
		return true
	}
	for {
		w.space()
		if w.i >= len(w.s) || w.s[w.i] != '"' {
			return false
		}
		key, ok := w.str()
		if !ok {
			return false
		}
		w.space()
		if w.i >= len(w.s) || w.s[w.i] != ':' {
			return false
		}
		w.i++
		w.space()
		if !w.value(key) {
			return false
		}
		if more, ok := w.more('}'); !more {
			return ok
		}
	}
}

// more reads what follows a member or element: a comma (more) or the
// closing byte (done, ok, one level up); anything else is not JSON.
func (w *leafWalker) more(closing byte) (more, ok bool) {
	w.space()
	if w.i >= len(w.s) {
		return false, false
	}
	switch w.s[w.i] {
	case ',':
		w.i++
		return true, true
	case closing:
		w.i++
		w.depth--
		return false, true
	}
	return false, false
}

func (w *leafWalker) array(member string) bool {
	if w.depth++; w.depth > maxArgDepth {
		return false
	}
	w.i++
	w.space()
	if w.i < len(w.s) && w.s[w.i] == ']' {
		w.i++
		w.depth--
		return true
	}
	for {
		w.space()
		if !w.value(member) {
			return false
		}
		if more, ok := w.more(']'); !more {
			return ok
		}
	}
}

// str reads a string without escapes or control characters and returns
// its text.
func (w *leafWalker) str() (string, bool) {
	w.i++
	start := w.i
	for w.i < len(w.s) {
		switch c := w.s[w.i]; {
		case c == '"':
			w.i++
			return w.s[start : w.i-1], true
		case c == '\\' || c < 0x20:
			return "", false
		}
		w.i++
	}
	return "", false
}

// number reads a JSON number as grammar reads one.
func (w *leafWalker) number() (string, bool) {
	start := w.i
	if w.s[w.i] == '-' {
		w.i++
	}
	digits := func() int {
		from := w.i
		for w.i < len(w.s) && w.s[w.i] >= '0' && w.s[w.i] <= '9' {
			w.i++
		}
		return w.i - from
	}
	n := digits()
	if n == 0 || n > 1 && w.s[w.i-n] == '0' {
		return "", false
	}
	if w.i < len(w.s) && w.s[w.i] == '.' {
		w.i++
		if digits() == 0 {
			return "", false
		}
	}
	if w.i < len(w.s) && (w.s[w.i] == 'e' || w.s[w.i] == 'E') {
		w.i++
		if w.i < len(w.s) && (w.s[w.i] == '+' || w.s[w.i] == '-') {
			w.i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return w.s[start:w.i], true
}

// maxArgDepth is grammar's nesting limit for JSON arguments: deeper
// arguments are left to grammar.ParseArgs, which rejects them.
const maxArgDepth = 128

// kindPhrase names the JSON type of arguments that start with c, as
// describeValue does, with an article.
func kindPhrase(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "an object"
}

// callLeaves lists the leaves of arguments the first walk found valid.
func callLeaves(args []byte, out []argLeaf) []argLeaf {
	if leaves, _, ok := rawArgLeaves(string(args), out); ok {
		return leaves
	}
	v, _ := grammar.ParseArgs(string(args), ast.Pos{})
	return argLeaves(v, out)
}
