package jsondata

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// RawAt returns the text of the value at the path segs in doc, which
// should be valid JSON (check it with json.Valid first; on anything else
// it returns some text or false, never panics): an object member by
// key — the last one when a key is repeated, as Object.Get does — or an
// array element by its decimal index. It reports false when the path
// leads nowhere. Nothing is decoded or copied.
func RawAt(doc []byte, segs []string) ([]byte, bool) {
	i := SpaceEnd(doc, 0)
	for _, seg := range segs {
		if i >= len(doc) {
			return nil, false
		}
		switch doc[i] {
		case '{':
			found := -1
			j := SpaceEnd(doc, i+1)
			for j < len(doc) && doc[j] != '}' {
				if doc[j] != '"' {
					return nil, false // not valid JSON
				}
				kStart := j + 1
				kEnd := StringEnd(doc, j)
				if kEnd-1 < kStart {
					return nil, false
				}
				key := doc[kStart : kEnd-1]
				j = SpaceEnd(doc, kEnd)
				j = SpaceEnd(doc, j+1) // the colon
				if KeyIs(key, seg) {
					found = j
				}
				j = SpaceEnd(doc, ValueEnd(doc, j))
				if j < len(doc) && doc[j] == ',' {
					j = SpaceEnd(doc, j+1)
				}
			}
			if found < 0 {
				return nil, false
			}
			i = found
		case '[':
			n, ok := index(seg)
			if !ok {
				return nil, false
			}
			j := SpaceEnd(doc, i+1)
			for k := 0; ; k++ {
				if j >= len(doc) || doc[j] == ']' {
					return nil, false
				}
				if k == n {
					break
				}
				j = SpaceEnd(doc, ValueEnd(doc, j))
				if j < len(doc) && doc[j] == ',' {
					j = SpaceEnd(doc, j+1)
				}
			}
			i = j
		default:
			return nil, false
		}
	}
	if i >= len(doc) {
		return nil, false
	}
	return doc[i:ValueEnd(doc, i)], true
}

// index reads an array index: decimal digits only.
func index(seg string) (int, bool) {
	if seg == "" || len(seg) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return 0, false
		}
		n = n*10 + int(seg[i]-'0')
	}
	return n, true
}

// KeyIs compares a key as written between its quotes (escapes kept) with
// a name, as Parse would decode the key (escapes resolved, invalid UTF-8
// replaced), so "typ\u0065" is "type". Without an escape it does not
// allocate.
func KeyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw) == name
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return false
	}
	return s == name
}

// SpaceEnd returns the index of the first byte at or after i that is not
// JSON white space (len(doc) when there is none). It is the one rule for
// JSON white space of every reader in the module, over bytes or text.
func SpaceEnd[T ~string | ~[]byte](doc T, i int) int {
	if i > len(doc) {
		return len(doc)
	}
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index just past the JSON string token starting at
// i (a quote), or len(doc) when it is not closed.
func StringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// ValueEnd returns the index just after the JSON value starting at i: a
// string or a container closed as its brackets and quotes say, a scalar
// at the next delimiter. It does not check the syntax; on bytes that are
// not JSON it stops at len(doc) without a panic.
func ValueEnd(doc []byte, i int) int {
	if i >= len(doc) {
		return i
	}
	switch doc[i] {
	case '"':
		return StringEnd(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				j = StringEnd(doc, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(doc)
	}
	j := i
	for j < len(doc) {
		switch doc[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// EachMember calls fn with each member of the JSON object doc, in order:
// its key as written between the quotes (escapes kept, esc set when it has
// one) and its value's text. doc must be valid JSON (check it with
// json.Valid first); it reports false when doc is not an object or fn
// stops the walk.
func EachMember(doc []byte, fn func(key []byte, esc bool, value []byte) bool) bool {
	i := SpaceEnd(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return false
	}
	j := SpaceEnd(doc, i+1)
	for j < len(doc) && doc[j] != '}' {
		if doc[j] != '"' {
			return false // not valid JSON
		}
		kEnd := StringEnd(doc, j)
		if kEnd-1 < j+1 {
			return false
		}
		key := doc[j+1 : kEnd-1]
		esc := false
		for _, c := range key {
			if c == '\\' {
				esc = true
				break
			}
		}
		j = SpaceEnd(doc, kEnd)
		j = SpaceEnd(doc, j+1) // the colon
		end := ValueEnd(doc, j)
		if !fn(key, esc, doc[j:end]) {
			return false
		}
		j = SpaceEnd(doc, end)
		if j < len(doc) && doc[j] == ',' {
			j = SpaceEnd(doc, j+1)
		}
	}
	return true
}
