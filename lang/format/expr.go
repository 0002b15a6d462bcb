package format

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// Assert prints an assert expression in canonical form.
func Assert(a ast.Assert) string { return shared(appendAssert(make([]byte, 0, 64), a)) }

// appendAssert appends Assert's text of a to b.
func appendAssert(b []byte, a ast.Assert) []byte {
	switch a := a.(type) {
	case *ast.StatusAssert:
		b = append(b, "status "...)
		b = append(b, a.Op...)
		b = append(b, ' ')
		return strconv.AppendInt(b, int64(a.Code), 10)
	case *ast.BodyContainsAssert:
		if a.Negated {
			b = append(b, `body not contains "`...)
		} else {
			b = append(b, `body contains "`...)
		}
		b = append(b, a.Text...)
		return append(b, '"')
	case *ast.JSONIsAssert:
		b = appendPath(b, a.Path)
		b = append(b, " is "...)
		return append(b, a.Type...)
	case *ast.JSONMatchesAssert:
		b = appendPath(b, a.Path)
		b = append(b, " matches /"...)
		b = append(b, a.Pattern...)
		return append(b, '/')
	case *ast.JSONLengthAssert:
		b = appendPath(b, a.Path)
		b = append(b, " length "...)
		b = append(b, a.Op...)
		b = append(b, ' ')
		return strconv.AppendInt(b, int64(a.Length), 10)
	case *ast.JSONCompareAssert:
		b = appendPath(b, a.Path)
		b = append(b, ' ')
		b = append(b, a.Op...)
		b = append(b, ' ')
		return appendValue(b, a.Value)
	case *ast.SelectionAssert:
		b = appendSelection(b, a.Sel)
		switch a.Kind {
		case ast.SelCompare:
			b = append(b, ' ')
			b = append(b, a.Op...)
			b = append(b, ' ')
			return appendValue(b, a.Value)
		case ast.SelIs:
			b = append(b, " is "...)
			return append(b, a.Type...)
		case ast.SelMatches:
			b = append(b, " matches /"...)
			b = appendSelRegex(b, a.Pattern)
			return append(b, '/')
		}
	}
	return b
}

// Selection prints a selection expression in canonical form: one blank
// around keywords and operators, the parentheses tight, strings as JSON,
// the ordering in lower case.
func Selection(s *ast.Selection) string { return shared(appendSelection(make([]byte, 0, 64), s)) }

// appendSelection appends Selection's text of s to b.
func appendSelection(b []byte, s *ast.Selection) []byte {
	b = append(b, s.Pick...)
	b = append(b, '(')
	switch s.Source.Kind {
	case ast.SourceJSON:
		b = append(b, "json"...)
		for _, e := range s.Source.Path.Elements {
			b = append(b, '.')
			b = append(b, e.Name...)
		}
	case ast.SourceLines:
		b = append(b, "lines"...)
		if s.Source.Pattern != "" {
			b = append(b, " /"...)
			b = appendSelRegex(b, s.Source.Pattern)
			b = append(b, '/')
		}
	}
	for i, c := range s.Where {
		if i == 0 {
			b = append(b, " where "...)
		} else {
			b = append(b, " and "...)
		}
		b = appendKey(b, c.Key)
		b = append(b, ' ')
		b = append(b, c.Op...)
		b = append(b, ' ')
		if c.Op == ast.CondMatches {
			b = append(b, '/')
			b = appendSelRegex(b, c.Pattern)
			b = append(b, '/')
		} else {
			b = appendValue(b, c.Value)
		}
	}
	if s.HasBy {
		b = append(b, " by "...)
		b = appendKey(b, s.By)
		if s.Order != ast.OrderNone {
			b = append(b, " as "...)
			b = append(b, strings.ToLower(string(s.Order))...)
		}
	}
	if s.HasSep {
		b = append(b, " sep "...)
		b = jsondata.AppendStringAsIs(b, s.Sep)
	}
	b = append(b, ')')
	for _, e := range s.Field.Elements {
		b = append(b, '.')
		b = append(b, e.Name...)
	}
	return b
}

// appendSelRegex appends a selection's regex between its slashes. A
// selection's regex ends at the first unescaped `/` outside a class, so
// one built by a program (the compiler) that holds such a slash has it
// escaped, which means the same in JavaScript; a pattern read from a file
// never holds one and prints as written.
func appendSelRegex(b []byte, pat string) []byte {
	class := false
	run := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				b = append(b, pat[run:i]...)
				b = append(b, `\/`...)
				run = i + 1
			}
		}
	}
	return append(b, pat[run:]...)
}

// appendKey appends a key read in each element: its segments joined by
// dots, without a prefix.
func appendKey(b []byte, p ast.Path) []byte {
	for i, e := range p.Elements {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, e.Name...)
	}
	return b
}

// Bind prints a bind expression in canonical form.
func Bind(b ast.Bind) string { return shared(appendBind(make([]byte, 0, 64), b)) }

// appendBind appends Bind's text of x to b.
func appendBind(b []byte, x ast.Bind) []byte {
	switch x := x.(type) {
	case *ast.JSONBind:
		b = append(b, x.Name...)
		b = append(b, " = "...)
		return appendPath(b, x.Path)
	case *ast.BodyMatchBind:
		b = append(b, x.Name...)
		b = append(b, " = body match /"...)
		b = append(b, x.Pattern...)
		return append(b, '/')
	case *ast.SelectionBind:
		b = append(b, x.Name...)
		b = append(b, " = "...)
		return appendSelection(b, x.Sel)
	}
	return b
}

// Path prints a JSON path with its `json.` prefix.
func Path(p ast.Path) string {
	n := len("json")
	for _, e := range p.Elements {
		n += 1 + len(e.Name)
	}
	return shared(appendPath(make([]byte, 0, n), p))
}

// appendPath appends Path's text of p to b.
func appendPath(b []byte, p ast.Path) []byte {
	b = append(b, "json."...)
	for i, e := range p.Elements {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, e.Name...)
	}
	return b
}

// shared returns b as a string without copying it: b is not touched
// again (as a strings.Builder's String does).
func shared(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Value prints a JSON value on one line: members separated by ", ", keys
// by ": ", key order as written, numbers as written, strings re-escaped
// minimally (quote, backslash and control characters only).
func Value(v ast.Value) string {
	return shared(appendValue(nil, v))
}

// appendValue appends Value's text of v to b.
func appendValue(b []byte, v ast.Value) []byte {
	switch v := v.(type) {
	case *ast.Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = jsondata.AppendStringAsIs(b, m.Key)
			b = append(b, ": "...)
			b = appendValue(b, m.Value)
		}
		b = append(b, '}')
	case *ast.Array:
		b = append(b, '[')
		for i, e := range v.Elements {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendValue(b, e)
		}
		b = append(b, ']')
	case *ast.String:
		b = jsondata.AppendStringAsIs(b, v.Value)
	case *ast.Number:
		b = append(b, v.Raw...)
	case *ast.Bool:
		b = strconv.AppendBool(b, v.Value)
	case *ast.Null:
		b = append(b, "null"...)
	}
	return b
}
