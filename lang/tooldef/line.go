package tooldef

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A signature line is one tool of a skill's `reelier-tools` metadata:
//
//	search_nodes(query: string, limit?: integer) in=1a2b3c4d out=5e6f7a8b hints=readOnly,!destructive
//
// the tool's name; its arguments in parentheses, each `name: type`, with
// `?` after the name of an optional one; then `in=` and the input
// schema's digest, `out=` and the output schema's digest when it has one,
// and `hints=` with the annotation hints it declares (`!` before one
// declared false) when it declares any. A type is a word (string, number,
// integer, boolean, null, object, array, any), `{name: type, …}` for an
// object whose members are spelled out, `T[]` for an array of T, and
// `A|B` for a union; parentheses group a union inside an array. A name
// that is not made only of letters, digits and `_ $ . -` is written as a
// JSON string.

// Line writes the tool's signature line.
func (t Tool) Line() string {
	var b strings.Builder
	b.WriteString(quoteName(t.Name))
	b.WriteByte('(')
	writeFields(&b, t.Params)
	b.WriteString(") in=")
	b.WriteString(t.Input)
	if t.Output != "" {
		b.WriteString(" out=")
		b.WriteString(t.Output)
	}
	if h := t.Hints.String(); h != "" {
		b.WriteString(" hints=")
		b.WriteString(h)
	}
	return b.String()
}

// String writes the declared hints as a signature does: comma-separated,
// `!` before one declared false; "" when none is declared.
func (h Hints) String() string {
	var parts []string
	for i, n := range hintNames {
		if v := *h.at(i); v != nil {
			if *v {
				parts = append(parts, n.short)
			} else {
				parts = append(parts, "!"+n.short)
			}
		}
	}
	return strings.Join(parts, ",")
}

func writeFields(b *strings.Builder, fields []Field) {
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.String())
	}
}

// String writes the field as a signature does: `name: type`, `name?:
// type` when it is optional.
func (f Field) String() string {
	s := quoteName(f.Name)
	if !f.Required {
		s += "?"
	}
	return s + ": " + f.Type.String()
}

// String writes the type as a signature does.
func (t Type) String() string {
	switch {
	case t.Object:
		var b strings.Builder
		b.WriteByte('{')
		writeFields(&b, t.Fields)
		b.WriteByte('}')
		return b.String()
	case t.Elem != nil:
		if len(t.Elem.Alts) > 0 {
			return "(" + t.Elem.String() + ")[]"
		}
		return t.Elem.String() + "[]"
	case len(t.Alts) > 0:
		parts := make([]string, len(t.Alts))
		for i, a := range t.Alts {
			parts[i] = a.String()
		}
		return strings.Join(parts, "|")
	}
	return t.Word
}

// bareName reports a name written without quotes.
func bareName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func quoteName(s string) string {
	if bareName(s) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// SyntaxError is a signature line that does not read.
type SyntaxError struct {
	// Col is the byte offset in the line where reading stopped.
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col+1, e.Msg) }

// maxNesting bounds the nesting of types a line may write, so a hostile
// line cannot exhaust the stack.
const maxNesting = 64

// Parse reads one signature line.
func Parse(line string) (Tool, error) {
	p := &parser{s: line}
	t, err := p.tool()
	if err != nil {
		return Tool{}, err
	}
	return t, nil
}

type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{Col: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) blanks() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	p.blanks()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) want(c byte, what string) error {
	if !p.eat(c) {
		return p.fail("want %q %s", string(c), what)
	}
	return nil
}

func (p *parser) tool() (Tool, error) {
	var t Tool
	name, err := p.name("a tool name")
	if err != nil {
		return t, err
	}
	t.Name = name
	if err := p.want('(', "after the tool name"); err != nil {
		return t, err
	}
	if t.Params, err = p.fields(')'); err != nil {
		return t, err
	}
	seen := map[string]bool{}
	for {
		p.blanks()
		if p.i == len(p.s) {
			break
		}
		start := p.i
		eq := strings.IndexByte(p.s[p.i:], '=')
		if eq < 0 {
			return t, p.fail("want in=, out= or hints=")
		}
		key := p.s[p.i : p.i+eq]
		p.i += eq + 1
		end := strings.IndexByte(p.s[p.i:], ' ')
		if end < 0 {
			end = len(p.s) - p.i
		}
		val := p.s[p.i : p.i+end]
		if seen[key] {
			p.i = start
			return t, p.fail("%s= given twice", key)
		}
		seen[key] = true
		switch key {
		case "in", "out":
			if !IsLowerHex(val, DigestLen) {
				return t, p.fail("%s= wants %d hex digits, got %q", key, DigestLen, val)
			}
			if key == "in" {
				t.Input = val
			} else {
				t.Output = val
			}
		case "hints":
			if err := p.hints(&t.Hints, val); err != nil {
				return t, err
			}
		default:
			p.i = start
			return t, p.fail("unknown %q; want in=, out= or hints=", key+"=")
		}
		p.i += end
	}
	if t.Input == "" {
		return t, p.fail("want in= and the input schema's digest")
	}
	return t, nil
}

func (p *parser) hints(h *Hints, val string) error {
	base := p.i
	for _, part := range strings.Split(val, ",") {
		v := true
		name := part
		if strings.HasPrefix(name, "!") {
			v, name = false, name[1:]
		}
		k := -1
		for i, n := range hintNames {
			if n.short == name {
				k = i
			}
		}
		if k < 0 {
			return p.fail("unknown hint %q; want readOnly, destructive, idempotent or openWorld, each with ! when false", part)
		}
		if *h.at(k) != nil {
			return p.fail("hint %s given twice", name)
		}
		*h.at(k) = &v
		p.i += len(part) + 1
	}
	p.i = base
	return nil
}

func wordByte(c byte, first bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || !first && c >= '0' && c <= '9'
}

// IsLowerHex reports whether s is exactly n lower-case hex digits, the
// form every digest in a skill file is written in (a signature's, an
// approval's).
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// name reads a bare or JSON-quoted name.
func (p *parser) name(what string) (string, error) {
	p.blanks()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '"' {
		end := p.i + 1
		for end < len(p.s) && p.s[end] != '"' {
			if p.s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(p.s) {
			return "", p.fail("unterminated quoted name")
		}
		var s string
		if json.Unmarshal([]byte(p.s[start:end+1]), &s) != nil {
			return "", p.fail("bad quoted name")
		}
		p.i = end + 1
		return s, nil
	}
	for p.i < len(p.s) && bareName(p.s[p.i:p.i+1]) {
		p.i++
	}
	if p.i == start {
		return "", p.fail("want %s", what)
	}
	return p.s[start:p.i], nil
}

// fields reads `name?: type, …` up to the closing byte.
func (p *parser) fields(closing byte) ([]Field, error) {
	var out []Field
	if p.eat(closing) {
		return out, nil
	}
	seen := map[string]bool{}
	for {
		name, err := p.name("a field name")
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, p.fail("field %s given twice", quoteName(name))
		}
		seen[name] = true
		f := Field{Name: name, Required: true}
		if p.eat('?') {
			f.Required = false
		}
		if err := p.want(':', "after a field name"); err != nil {
			return nil, err
		}
		if f.Type, err = p.typ(); err != nil {
			return nil, err
		}
		out = append(out, f)
		if p.eat(closing) {
			return out, nil
		}
		if err := p.want(',', "or "+strconv.Quote(string(closing))+" after a field"); err != nil {
			return nil, err
		}
	}
}

// typ reads a union: alternatives separated by '|'.
func (p *parser) typ() (Type, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return Type{}, p.fail("types nested more than %d deep", maxNesting)
	}
	var alts []Type
	for {
		t, err := p.alt()
		if err != nil {
			return Type{}, err
		}
		alts = append(alts, t)
		if !p.eat('|') {
			break
		}
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return Type{Alts: alts}, nil
}

// alt reads an atom and its `[]` suffixes.
func (p *parser) alt() (Type, error) {
	var t Type
	p.blanks()
	switch {
	case p.eat('{'):
		fields, err := p.fields('}')
		if err != nil {
			return t, err
		}
		t = Type{Object: true, Fields: fields}
	case p.eat('('):
		inner, err := p.typ()
		if err != nil {
			return t, err
		}
		if err := p.want(')', "to close a group"); err != nil {
			return t, err
		}
		if len(inner.Alts) == 0 {
			return t, p.fail("parentheses group a union only")
		}
		t = inner
		if !strings.HasPrefix(p.s[p.i:], "[]") {
			return t, p.fail("a group is an array's element: want []")
		}
	default:
		start := p.i
		for p.i < len(p.s) && wordByte(p.s[p.i], p.i == start) {
			p.i++
		}
		if p.i == start {
			return t, p.fail("want a type")
		}
		t = Type{Word: p.s[start:p.i]}
	}
	for strings.HasPrefix(p.s[p.i:], "[]") {
		p.i += 2
		e := t
		t = Type{Elem: &e}
	}
	return t, nil
}

// ListError is a line of a `reelier-tools` value that does not read.
type ListError struct {
	// Line is the line's index in the value, from 0; Col the byte offset
	// in the line where reading stopped.
	Line, Col int
	Msg       string
}

func (e *ListError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line+1, e.Col+1, e.Msg)
}

// ParseList reads a `reelier-tools` value: one signature line per tool,
// blank lines ignored. Each line that does not read, or names a tool a
// line before it named, is an error; the tools that did read are
// returned too.
func ParseList(value string) ([]Tool, []*ListError) {
	var tools []Tool
	var errs []*ListError
	seen := map[string]bool{}
	for i, line := range strings.Split(value, "\n") {
		line = strings.TrimRight(line, " \r\t")
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if lead == len(line) {
			continue
		}
		t, err := Parse(line[lead:])
		if err != nil {
			col := lead
			var se *SyntaxError
			msg := err.Error()
			if e, ok := err.(*SyntaxError); ok {
				se = e
				col += se.Col
				msg = se.Msg
			}
			errs = append(errs, &ListError{Line: i, Col: col, Msg: msg})
			continue
		}
		if seen[t.Name] {
			errs = append(errs, &ListError{Line: i, Col: lead, Msg: fmt.Sprintf("tool %s is listed twice", quoteName(t.Name))})
			continue
		}
		seen[t.Name] = true
		tools = append(tools, t)
	}
	return tools, errs
}

// List writes tools as a `reelier-tools` value, one line each.
func List(tools []Tool) string {
	lines := make([]string, len(tools))
	for i, t := range tools {
		lines[i] = t.Line()
	}
	return strings.Join(lines, "\n")
}

// Explain says in words what a signature line keeps, for a reader (the
// language server's hover): each argument with its type and whether it
// is required, the digests, and the hints.
func (t Tool) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**tool** `%s`, as the skill was compiled against it.", t.Name)
	if len(t.Params) == 0 {
		b.WriteString("\n\nArguments: none declared.")
	} else {
		b.WriteString("\n\nArguments:")
		for _, f := range t.Params {
			fmt.Fprintf(&b, "\n- `%s`: `%s`, %s", f.Name, f.Type, requiredness(f))
		}
	}
	fmt.Fprintf(&b, "\n\nInput schema digest `%s`", t.Input)
	if t.Output != "" {
		fmt.Fprintf(&b, "; output schema digest `%s`", t.Output)
	} else {
		b.WriteString("; no output schema")
	}
	b.WriteString(" (the first 8 hex digits of the SHA-256 of the schema's canonical JSON, its descriptions left out).")
	if h := t.Hints.String(); h != "" {
		fmt.Fprintf(&b, "\n\nAnnotation hints: `%s` (`!` is declared false).", h)
	} else {
		b.WriteString("\n\nNo annotation hints declared.")
	}
	b.WriteString("\n\n`reelier run` compares this with what the server offers before step 1 and stops on a difference (`--ignore-tool-drift` runs anyway).")
	return b.String()
}
