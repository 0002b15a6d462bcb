package jsondata

// Valid reports whether b is one valid JSON value, as json.Valid does
// (bytes of any value inside strings, nesting to 10,000 levels), in one
// pass without json's per-byte state machine (#20: the first walk of a
// compile checks every trace line, the proxy every message).
func Valid(b []byte) bool {
	v := jsonChecker{b: b}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

// maxValidDepth is encoding/json's nesting limit.
const maxValidDepth = 10000

type jsonChecker struct {
	b []byte
	i int
}

func (v *jsonChecker) space() { v.i = SpaceEnd(v.b, v.i) }

func (v *jsonChecker) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		if depth++; depth > maxValidDepth {
			return false
		}
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == '}' {
			v.i++
			return true
		}
		for {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
			if !v.value(depth) {
				return false
			}
			if more, ok := v.more('}'); !more {
				return ok
			}
		}
	case c == '[':
		if depth++; depth > maxValidDepth {
			return false
		}
		v.i++
		v.space()
		if v.i < len(v.b) && v.b[v.i] == ']' {
			v.i++
			return true
		}
		for {
			if !v.value(depth) {
				return false
			}
			if more, ok := v.more(']'); !more {
				return ok
			}
		}
	case c == '"':
		return v.str()
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

// more reads what follows a member or element: a comma (more, and the
// white space after it) or the closing byte (done, ok); anything else is
// not JSON.
func (v *jsonChecker) more(closing byte) (more, ok bool) {
	v.space()
	if v.i >= len(v.b) {
		return false, false
	}
	switch v.b[v.i] {
	case ',':
		v.i++
		v.space()
		return true, true
	case closing:
		v.i++
		return false, true
	}
	return false, false
}

func (v *jsonChecker) literal(lit string) bool {
	if len(v.b)-v.i < len(lit) || string(v.b[v.i:v.i+len(lit)]) != lit {
		return false
	}
	v.i += len(lit)
	return true
}

// str reads a string at v.i (a quote).
func (v *jsonChecker) str() bool {
	v.i++
	for v.i < len(v.b) {
		c := v.b[v.i]
		switch {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i++
			case 'u':
				if len(v.b)-v.i < 5 {
					return false
				}
				for _, h := range v.b[v.i+1 : v.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				v.i += 5
			default:
				return false
			}
		default:
			v.i++
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *jsonChecker) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	digits := func() int {
		from := v.i
		for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
			v.i++
		}
		return v.i - from
	}
	if v.i < len(v.b) && v.b[v.i] == '0' {
		v.i++
	} else if digits() == 0 {
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
