package format

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/ast"
)

// Assert prints an assert expression in canonical form.
func Assert(a ast.Assert) string {
	switch a := a.(type) {
	case *ast.StatusAssert:
		return "status " + string(a.Op) + " " + strconv.Itoa(a.Code)
	case *ast.BodyContainsAssert:
		if a.Negated {
			return `body not contains "` + a.Text + `"`
		}
		return `body contains "` + a.Text + `"`
	case *ast.JSONIsAssert:
		return Path(a.Path) + " is " + string(a.Type)
	case *ast.JSONMatchesAssert:
		return Path(a.Path) + " matches /" + a.Pattern + "/"
	case *ast.JSONLengthAssert:
		return Path(a.Path) + " length " + string(a.Op) + " " + strconv.Itoa(a.Length)
	case *ast.JSONCompareAssert:
		return Path(a.Path) + " " + string(a.Op) + " " + Value(a.Value)
	}
	return ""
}

// Bind prints a bind expression in canonical form.
func Bind(b ast.Bind) string {
	switch b := b.(type) {
	case *ast.JSONBind:
		return b.Name + " = " + Path(b.Path)
	case *ast.BodyMatchBind:
		return b.Name + " = body match /" + b.Pattern + "/"
	}
	return ""
}

// Path prints a JSON path with its `json.` prefix.
func Path(p ast.Path) string { return "json." + p.String() }

// Value prints a JSON value on one line: members separated by ", ", keys
// by ": ", key order as written, numbers as written, strings re-escaped
// minimally (quote, backslash and control characters only).
func Value(v ast.Value) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v ast.Value) {
	switch v := v.(type) {
	case *ast.Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, m.Key)
			b.WriteString(": ")
			writeValue(b, m.Value)
		}
		b.WriteByte('}')
	case *ast.Array:
		b.WriteByte('[')
		for i, e := range v.Elements {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case *ast.String:
		writeString(b, v.Value)
	case *ast.Number:
		b.WriteString(v.Raw)
	case *ast.Bool:
		b.WriteString(strconv.FormatBool(v.Value))
	case *ast.Null:
		b.WriteString("null")
	}
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string the way JavaScript's
// JSON.stringify does.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
