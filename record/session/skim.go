package session

import (
	"bytes"
	"encoding/json"

	"github.com/reelier/reelier/tool/jsondata"
)

// The skimmer walks a JSON text without decoding it: it finds the members
// of an object and the elements of an array as byte ranges, and steps over
// every value it is not asked about. Strings are stepped over with
// bytes.IndexByte, so a transcript line whose bytes are mostly a long tool
// result costs little more than a memory scan.
//
// It is tolerant below the level it is asked about: a nested value is
// checked for balanced brackets and closed strings, not for commas and
// colons. Every value the session reader keeps (a call's input, a result's
// content) is checked with json.Valid before it is used, so tolerance never
// reaches a trace. On valid JSON it agrees with encoding/json (the fuzz
// target holds it to that).

// maxDepth bounds the nesting the skimmer follows; deeper input is refused
// rather than recursed into.
const maxDepth = 10000

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just after the string that opens at b[i]
// (a '"'), or -1 when it is not closed.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		end := i + j
		k := end - 1
		for k >= i && b[k] == '\\' {
			k--
		}
		if (end-1-k)%2 == 0 {
			return end + 1
		}
		i = end + 1
	}
}

// skipValue returns the index just after the value that starts at b[i],
// or -1 when there is none there.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			return i + len(lit)
		}
	}
	return -1
}

// skipNumber steps over the characters a JSON number can hold.
func skipNumber(b []byte, i int) int {
	j := i
	for j < len(b) {
		c := b[j]
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			break
		}
		j++
	}
	if j == i || b[j-1] == '-' {
		return -1
	}
	return j
}

// skipContainer steps over the object or array that opens at b[i],
// matching every bracket and stepping over strings.
func skipContainer(b []byte, i int) int {
	var fixed [64]byte
	stack := fixed[:0]
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = skipString(b, i)
			if i < 0 {
				return -1
			}
			continue
		case '{', '[':
			if len(stack) == maxDepth {
				return -1
			}
			stack = append(stack, c+2) // '{'+2 == '}', '['+2 == ']'
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// eachMember calls fn with the raw key (quotes removed, escapes kept) and
// the raw value of every member of the object that is all of b (blanks
// around it allowed). It returns false when b is not such an object.
func eachMember(b []byte, fn func(key, val []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend := skipString(b, i)
		if kend < 0 {
			return false
		}
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return false
		}
		fn(key, b[i:vend])
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// eachElement calls fn with every element of the array that is all of b.
// It returns false when b is not such an array.
func eachElement(b []byte, fn func(val []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		end := skipValue(b, i)
		if end < 0 {
			return false
		}
		fn(b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return false
		}
		if b[i] == ']' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// keyIs reports whether a raw key from eachMember names name, as
// jsondata reads keys: "typ\u0065" is "type".
func keyIs(key []byte, name string) bool { return jsondata.KeyIs(key, name) }

// str decodes a raw JSON string value; ok is false for any other value.
func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strIs reports whether a raw value is the JSON string s, without
// allocating in the common case.
func strIs(raw []byte, s string) bool {
	if len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	v, ok := str(raw)
	return ok && v == s
}
