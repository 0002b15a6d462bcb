package jsondata

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

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
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			if r < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
				continue
			}
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
