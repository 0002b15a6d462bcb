package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// jsonError is a JSON syntax error at a byte offset of the fragment, or
// nesting past maxJSONDepth (deep).
type jsonError struct {
	at   int
	msg  string
	deep bool
}

func (e *jsonError) Error() string { return e.msg }

// jsonParser reads one JSON value keeping object member order, duplicate
// keys and the exact range of every value. encoding/json cannot report
// member order with positions, hence this small reader.
type jsonParser struct {
	src   string
	i     int
	org   origin
	depth int
	holes *exprCache // finds template holes in string leaves; nil for none

	// Members and elements are gathered here while an object or array is
	// read, then copied into slices of their exact size: one allocation
	// per object or array for the members rather than one per member and
	// one per growth of the slice (#20).
	members  []ast.Member
	elements []ast.Value
}

// jsonStacks is a parser's members and elements stacks, kept from one
// parse to the next.
type jsonStacks struct {
	members  []ast.Member
	elements []ast.Value
}

var jsonScratch = sync.Pool{New: func() any { return new(jsonStacks) }}

// parseJSON parses src as exactly one JSON value.
func parseJSON(src string, org origin, holes *exprCache) (ast.Value, *jsonError) {
	p := &jsonParser{src: src, org: org, holes: holes}
	sc := jsonScratch.Get().(*jsonStacks)
	p.members, p.elements = sc.members[:0], sc.elements[:0]
	p.space()
	v, err := p.value()
	// A finished object or array clears what it took from the stacks;
	// after an error they may still hold values: cleared, so the pool
	// keeps no part of a tree alive.
	if err != nil {
		clear(p.members[:cap(p.members)])
		clear(p.elements[:cap(p.elements)])
	}
	sc.members, sc.elements = p.members[:0], p.elements[:0]
	jsonScratch.Put(sc)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.src) {
		return nil, p.errf("unexpected %s after the JSON value", p.describe())
	}
	return v, nil
}

func (p *jsonParser) errf(format string, args ...any) *jsonError {
	return &jsonError{at: p.i, msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at column %d", p.org.at(p.i).Column)}
}

func (p *jsonParser) describe() string {
	if p.i >= len(p.src) {
		return "end of line"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return fmt.Sprintf("%q", r)
}

func (p *jsonParser) space() { p.i = jsondata.SpaceEnd(p.src, p.i) }

func (p *jsonParser) value() (ast.Value, *jsonError) {
	if p.i >= len(p.src) {
		return nil, p.errf("unexpected end of line, expected a value")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case strings.HasPrefix(p.src[p.i:], "true"):
		return &ast.Bool{Range: p.take(4), Value: true}, nil
	case strings.HasPrefix(p.src[p.i:], "false"):
		return &ast.Bool{Range: p.take(5), Value: false}, nil
	case strings.HasPrefix(p.src[p.i:], "null"):
		return &ast.Null{Range: p.take(4)}, nil
	}
	return nil, p.errf("unexpected %s, expected a value", p.describe())
}

func (p *jsonParser) take(n int) ast.Range {
	r := p.org.span(p.i, p.i+n)
	p.i += n
	return r
}

func (p *jsonParser) enter() *jsonError {
	p.depth++
	if p.depth > maxJSONDepth {
		e := p.errf("nesting deeper than %d levels", maxJSONDepth)
		e.deep = true
		return e
	}
	return nil
}

func (p *jsonParser) object() (ast.Value, *jsonError) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	start := p.i
	p.i++
	obj := p.holes.newObject()
	base := len(p.members)
	p.space()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		obj.Range = p.org.span(start, p.i)
		return obj, nil
	}
	for {
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.errf("unexpected %s, expected a string key", p.describe())
		}
		keyStart := p.i
		key, _, err := p.stringBody()
		if err != nil {
			return nil, err
		}
		m := ast.Member{Key: key, KeyRange: p.org.span(keyStart, p.i)}
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.errf("unexpected %s, expected ':' after object key", p.describe())
		}
		p.i++
		p.space()
		if m.Value, err = p.value(); err != nil {
			return nil, err
		}
		p.members = append(p.members, m)
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			obj.Range = p.org.span(start, p.i)
			ms := p.members[base:]
			var store []ast.Member
			if p.holes != nil && p.holes.chunked {
				store, obj.Members = p.holes.members.take(len(ms)), p.holes.memberPs.take(len(ms))
			} else {
				store, obj.Members = make([]ast.Member, len(ms)), make([]*ast.Member, len(ms))
			}
			copy(store, ms)
			clear(ms) // the values are referenced from store now
			p.members = p.members[:base]
			for i := range store {
				obj.Members[i] = &store[i]
			}
			return obj, nil
		}
		return nil, p.errf("unexpected %s, expected ',' or '}'", p.describe())
	}
}

func (p *jsonParser) array() (ast.Value, *jsonError) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	start := p.i
	p.i++
	var arr *ast.Array
	if p.holes != nil && p.holes.chunked {
		arr = p.holes.arrays.new()
	} else {
		arr = &ast.Array{}
	}
	base := len(p.elements)
	p.space()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		arr.Range = p.org.span(start, p.i)
		return arr, nil
	}
	for {
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.elements = append(p.elements, v)
		p.space()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			arr.Range = p.org.span(start, p.i)
			es := p.elements[base:]
			if p.holes != nil && p.holes.chunked {
				arr.Elements = p.holes.elements.take(len(es))
			} else {
				arr.Elements = make([]ast.Value, len(es))
			}
			copy(arr.Elements, es)
			clear(es)
			p.elements = p.elements[:base]
			return arr, nil
		}
		return nil, p.errf("unexpected %s, expected ',' or ']'", p.describe())
	}
}

func (p *jsonParser) number() (ast.Value, *jsonError) {
	start := p.i
	if p.src[p.i] == '-' {
		p.i++
	}
	if !p.digits() {
		return nil, p.errf("invalid number, expected a digit")
	}
	if first := p.src[start:p.i]; len(strings.TrimPrefix(first, "-")) > 1 && strings.TrimPrefix(first, "-")[0] == '0' {
		return nil, &jsonError{at: start, msg: fmt.Sprintf("invalid number %q: leading zero at column %d", first, p.org.at(start).Column)}
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, p.errf("invalid number, expected a digit after '.'")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, p.errf("invalid number, expected an exponent")
		}
	}
	if p.holes == nil || !p.holes.chunked {
		return &ast.Number{Range: p.org.span(start, p.i), Raw: p.src[start:p.i]}, nil
	}
	num := p.holes.numbers.new()
	*num = ast.Number{Range: p.org.span(start, p.i), Raw: p.src[start:p.i]}
	return num, nil
}

func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *jsonParser) string() (ast.Value, *jsonError) {
	start := p.i
	val, offsets, err := p.stringBody()
	if err != nil {
		return nil, err
	}
	s := p.holes.newString()
	s.Range, s.Value = p.org.span(start, p.i), val
	if p.holes != nil && strings.Contains(val, "{{") {
		s.Holes = p.holes.findHoles(val, func(k int) ast.Pos {
			if offsets == nil {
				return p.org.at(start + 1 + k)
			}
			return p.org.at(start + 1 + offsets[k])
		})
	}
	return s, nil
}

// stringBody reads a quoted string at p.i and returns its decoded value.
// When the string contains escapes it also returns, for every byte of the
// decoded value (and one past its end), the byte offset in the raw text
// after the opening quote, so holes map back to file columns.
func (p *jsonParser) stringBody() (string, []int, *jsonError) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '"' {
			s := p.src[start:p.i]
			p.i++
			return s, nil, nil
		}
		if c == '\\' {
			p.i = start
			return p.escapedBody()
		}
		if c < 0x20 {
			return "", nil, p.errf("control character %q in string", c)
		}
		p.i++
	}
	return "", nil, p.errf("unterminated string")
}

func (p *jsonParser) escapedBody() (string, []int, *jsonError) {
	start := p.i
	var b strings.Builder
	var offsets []int
	mark := func(n int) {
		for ; n > 0; n-- {
			offsets = append(offsets, p.i-start)
		}
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			offsets = append(offsets, p.i-start)
			p.i++
			return b.String(), offsets, nil
		case c < 0x20:
			return "", nil, p.errf("control character %q in string", c)
		case c != '\\':
			mark(1)
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.src) {
			break
		}
		esc := p.src[p.i+1]
		var r rune
		width := 2
		switch esc {
		case '"', '\\', '/':
			r = rune(esc)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			var ok bool
			if r, width, ok = p.unicodeEscape(); !ok {
				return "", nil, p.errf("invalid \\u escape")
			}
		default:
			return "", nil, p.errf("invalid escape '\\%c'", esc)
		}
		mark(utf8.RuneLen(r))
		b.WriteRune(r)
		p.i += width
	}
	return "", nil, p.errf("unterminated string")
}

// unicodeEscape decodes \uXXXX at p.i, joining a surrogate pair. A lone
// surrogate decodes to U+FFFD (Go strings hold UTF-8 only).
func (p *jsonParser) unicodeEscape() (rune, int, bool) {
	hex := func(at int) (rune, bool) {
		if at+6 > len(p.src) || p.src[at] != '\\' || p.src[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(p.src[at+2:at+6], 16, 32)
		return rune(v), err == nil
	}
	r1, ok := hex(p.i)
	if !ok {
		return 0, 0, false
	}
	if utf16.IsSurrogate(r1) {
		if r2, ok := hex(p.i + 6); ok {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 12, true
			}
		}
		return utf8.RuneError, 6, true
	}
	return r1, 6, true
}
