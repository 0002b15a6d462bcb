package jsondata

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// errEOF is reported when the input ends inside a value.
var errEOF = errors.New("unexpected end of JSON input")

// Parse decodes one JSON document (RFC 8259; JSON.parse accepts the same
// texts). Anything after the document other than white space is an error.
// Invalid UTF-8 and lone surrogate escapes inside strings become U+FFFD.
// Decoded strings without escapes share memory with text.
func Parse(text string) (any, error) {
	p := parser{src: text}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.src) {
		return nil, p.invalid("after top-level value")
	}
	return v, nil
}

// parser is a recursive-descent JSON parser over a string.
type parser struct {
	src string
	i   int
}

func (p *parser) space() { p.i = SpaceEnd(p.src, p.i) }

// invalid reports the byte at p.i, or the end of input.
func (p *parser) invalid(context string) error {
	if p.i >= len(p.src) {
		return errEOF
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return fmt.Errorf("invalid character %s %s", quoteChar(r), context)
}

// quoteChar renders a character the way encoding/json's errors do.
func quoteChar(r rune) string {
	switch {
	case r == '\'':
		return `'\''`
	case r == '"':
		return `'"'`
	case strconv.IsPrint(r):
		return "'" + string(r) + "'"
	}
	s := strconv.Quote(string(r))
	return "'" + s[1:len(s)-1] + "'"
}

func (p *parser) value(depth int) (any, error) {
	if p.i >= len(p.src) {
		return nil, errEOF
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.invalid("looking for beginning of value")
}

func (p *parser) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.src) {
			return errEOF
		}
		if p.src[p.i] != word[k] {
			return p.invalid(fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar(rune(word[k]))))
		}
		p.i++
	}
	return nil
}

func (p *parser) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("exceeded max depth")
	}
	p.i++ // {
	obj := &Object{}
	p.space()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return obj, nil
	}
	for {
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.invalid("looking for beginning of object key string")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.invalid("after object key")
		}
		p.i++
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		obj.Members = append(obj.Members, Member{Key: key.(string), Value: v})
		if more, err := p.more('}', "after object key:value pair"); !more {
			if err != nil {
				return nil, err
			}
			return obj, nil
		}
	}
}

// more reads what follows a member or element: a comma (true, and the
// white space after it) or the closing byte (false); anything else is an
// error naming what it came after.
func (p *parser) more(closing byte, after string) (bool, error) {
	p.space()
	if p.i >= len(p.src) {
		return false, errEOF
	}
	switch p.src[p.i] {
	case ',':
		p.i++
		p.space()
		return true, nil
	case closing:
		p.i++
		return false, nil
	}
	return false, p.invalid(after)
}

func (p *parser) array(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("exceeded max depth")
	}
	p.i++ // [
	arr := []any{}
	p.space()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		return arr, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		if more, err := p.more(']', "after array element"); !more {
			if err != nil {
				return nil, err
			}
			return arr, nil
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.i
	if p.src[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.src) && p.src[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return nil, p.invalid("in numeric literal")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, p.invalid("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, p.invalid("in exponent of numeric literal")
		}
	}
	return Number(p.src[start:p.i]), nil
}

// digits skips a run of ASCII digits and returns its length.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// string decodes a string starting at the opening quote. A string of plain
// ASCII is a slice of the source; others are rebuilt.
func (p *parser) string() (any, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			s := p.src[start:p.i]
			p.i++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < 0x20:
			return nil, p.invalid("in string literal")
		}
		p.i++
	}
	return nil, errEOF
}

// slowString finishes a string that has escapes or non-ASCII bytes.
func (p *parser) slowString(start int) (any, error) {
	out := append(make([]byte, 0, p.i-start+16), p.src[start:p.i]...)
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c == '\\':
			var err error
			if out, err = p.escape(out); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, p.invalid("in string literal")
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(p.src[p.i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte
			p.i += size
		}
	}
	return nil, errEOF
}

// escape decodes the escape sequence at p.i.
func (p *parser) escape(out []byte) ([]byte, error) {
	p.i++ // backslash
	if p.i >= len(p.src) {
		return nil, errEOF
	}
	c := p.src[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		return append(out, c), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return nil, err
		}
		if utf16.IsSurrogate(r) {
			r = p.lowSurrogate(r)
		}
		return utf8.AppendRune(out, r), nil
	}
	p.i--
	return nil, p.invalid("in string escape code")
}

// lowSurrogate joins a high surrogate with a following \uXXXX low one; a
// lone surrogate becomes U+FFFD.
func (p *parser) lowSurrogate(high rune) rune {
	if p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
		save := p.i
		p.i += 2
		if low, err := p.hex4(); err == nil {
			if r := utf16.DecodeRune(high, low); r != utf8.RuneError {
				return r
			}
		}
		p.i = save
	}
	return utf8.RuneError
}

// hex4 reads four hex digits.
func (p *parser) hex4() (rune, error) {
	var r rune
	for k := 0; k < 4; k++ {
		if p.i >= len(p.src) {
			return 0, errEOF
		}
		c := p.src[p.i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, p.invalid("in \\u hexadecimal character escape")
		}
		p.i++
	}
	return r, nil
}
