package jsondata

import (
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// shortEscape gives the letter of a two-character escape (`\n`) for the
// bytes JSON.stringify writes that way; the other bytes below 0x20 are
// written `\u00XX`.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

// String returns v as compact JSON text. Object members keep their order,
// numbers their text, and strings are escaped as JSON.stringify escapes them.
func String(v any) string { return string(Append(nil, v)) }

// Append appends the compact JSON text of v to b. Go values outside the data
// model are written as null.
func Append(b []byte, v any) []byte {
	switch v := v.(type) {
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Number:
		return append(b, v...)
	case string:
		return AppendString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = Append(b, e)
		}
		return append(b, ']')
	case *Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, m.Key)
			b = append(b, ':')
			b = Append(b, m.Value)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// AppendString appends s as a quoted JSON string: quote, backslash and
// control characters are escaped, everything else is copied. Bytes that are
// not UTF-8 become U+FFFD so the output is always valid JSON.
//
// Runs of characters that need no escaping are copied at once; only an
// escape or a byte that is not UTF-8 ends a run.
func AppendString(b []byte, s string) []byte { return appendString(b, s, true) }

// AppendStringAsIs is AppendString except that bytes that are not UTF-8
// are copied as they are (JSON.stringify's form of a JavaScript string;
// the formatter writes a skill's values with it).
func AppendStringAsIs(b []byte, s string) []byte { return appendString(b, s, false) }

// appendString is AppendString, replacing bytes that are not UTF-8 with
// U+FFFD when fix is set and copying them otherwise.
func appendString(b []byte, s string, fix bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if !fix {
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = utf8.AppendRune(b, utf8.RuneError)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if e := shortEscape[c]; e != 0 {
			b = append(b, '\\', e)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStringBytes is AppendString of the text in s, which it only reads
// (a filled template is built in a reused buffer and escaped from there,
// without a string of its own).
func AppendStringBytes(b, s []byte) []byte {
	return AppendString(b, unsafe.String(unsafe.SliceData(s), len(s)))
}
