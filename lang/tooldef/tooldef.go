// Package tooldef reads MCP tool definitions for the drift check: the
// digests of a tool's inputSchema, outputSchema and annotations, the
// one-line signature a compiled skill keeps of each tool it calls (its
// `reelier-tools` metadata, SPEC.md §2.1), and the comparison that says
// what changed between two definitions.
//
// A digest is the SHA-256 of the value's canonical JSON (RFC 8785: members
// sorted, numbers and strings in one spelling), so key order and spacing
// never count as a change. Text that only describes a schema — the
// keywords description, title, examples, $comment and $schema, wherever a
// schema sits — is left out first: a reworded description does not change
// what a call accepts, and a server upgrade rewords them often. What is
// left (names, types, required, enum, const, default, format, bounds,
// additionalProperties…) is the contract a replay relies on.
package tooldef

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

// MetadataKey is the frontmatter metadata key under which a compiled
// skill keeps the signature line of each MCP tool it calls (SPEC.md §2.1),
// for the drift check `reelier run` makes before the first step.
const MetadataKey = ast.MetadataPrefix + "tools"

// DigestLen is how many hex digits of a digest a signature line keeps.
const DigestLen = 8

// MaxDepth is how many levels of nested objects a signature spells out:
// the arguments, the members of an object argument and theirs. Deeper
// objects are written `object`; the input digest still covers them.
const MaxDepth = 3

// Digests are the hex SHA-256 digests of a tool definition's parts.
type Digests struct {
	// Input digests the inputSchema ("null" digested when there is none).
	Input string
	// Output digests the outputSchema; "" when there is none.
	Output string
	// Annotations digests the annotations without their title; "" when
	// there are none.
	Annotations string
}

// definition is the part of a tool definition this package reads.
type definition struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
}

func readDef(def []byte) (definition, error) {
	var d definition
	if err := json.Unmarshal(def, &d); err != nil {
		return d, fmt.Errorf("not a tool definition: %v", err)
	}
	return d, nil
}

// Digest computes the digests of a tool definition (a tools/list entry):
// of its inputSchema and outputSchema with their descriptive keywords
// left out, and of its annotations without their title, each as
// canonical JSON. It is the one place digests are made.
func Digest(def json.RawMessage) (Digests, error) {
	d, err := readDef(def)
	if err != nil {
		return Digests{}, err
	}
	return digests(d)
}

func digests(d definition) (Digests, error) {
	var out Digests
	in, err := schemaDigest(d.InputSchema)
	if err != nil {
		return out, fmt.Errorf("inputSchema: %v", err)
	}
	out.Input = in
	if present(d.OutputSchema) {
		if out.Output, err = schemaDigest(d.OutputSchema); err != nil {
			return out, fmt.Errorf("outputSchema: %v", err)
		}
	}
	if present(d.Annotations) {
		var a any
		if err := decode(d.Annotations, &a); err != nil {
			return out, fmt.Errorf("annotations: %v", err)
		}
		if m, ok := a.(map[string]any); ok {
			delete(m, "title")
		}
		if out.Annotations, err = digestOf(a); err != nil {
			return out, fmt.Errorf("annotations: %v", err)
		}
	}
	return out, nil
}

// present reports a member that is there and not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(bytes.TrimSpace(raw)) != "null"
}

func decode(raw []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// schemaDigest digests a schema without its descriptive keywords.
func schemaDigest(raw json.RawMessage) (string, error) {
	var s any
	if present(raw) {
		if err := decode(raw, &s); err != nil {
			return "", err
		}
	}
	return digestOf(contract(s))
}

// digestOf is the hex SHA-256 of v's canonical JSON.
func digestOf(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	val := jsontext.Value(b)
	if err := val.Canonicalize(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(val)
	return hex.EncodeToString(sum[:]), nil
}

// descriptive are the schema keywords that describe and do not constrain.
var descriptive = map[string]bool{"description": true, "title": true, "examples": true, "$comment": true, "$schema": true}

// Keywords whose value is a schema, a list of schemas, or a map of names
// to schemas; every other keyword's value is data (enum, const, default…)
// and is kept as it is.
var (
	schemaValued = map[string]bool{"items": true, "additionalProperties": true, "not": true, "if": true, "then": true, "else": true,
		"contains": true, "propertyNames": true, "unevaluatedItems": true, "unevaluatedProperties": true, "additionalItems": true, "contentSchema": true}
	schemaListed = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMapped = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}
)

// contract returns the schema s without its descriptive keywords, at every
// place a schema sits.
func contract(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case descriptive[k]:
		case schemaValued[k]:
			if list, ok := v.([]any); ok { // the tuple form of items
				out[k] = mapList(list)
			} else {
				out[k] = contract(v)
			}
		case schemaListed[k]:
			if list, ok := v.([]any); ok {
				out[k] = mapList(list)
			} else {
				out[k] = v
			}
		case schemaMapped[k]:
			if mm, ok := v.(map[string]any); ok {
				cp := make(map[string]any, len(mm))
				for name, sub := range mm {
					cp[name] = contract(sub)
				}
				out[k] = cp
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	return out
}

func mapList(list []any) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = contract(v)
	}
	return out
}

// Tool is what the drift check knows of one tool: its signature and the
// short digests of the rest.
type Tool struct {
	// Name is the tool's name as exposed (and called by the skill).
	Name string
	// Params are the input schema's properties, sorted by name; nil when
	// it declares none.
	Params []Field
	// Input and Output are the first DigestLen hex digits of the digests
	// of the inputSchema and outputSchema; Output is "" when the tool has
	// no outputSchema.
	Input, Output string
	// Hints are the annotation hints the tool declares.
	Hints Hints
}

// Hints are the four MCP annotation hints; nil is not declared.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

// hintNames are the hints as a signature writes them, with their MCP
// names, in the order written.
var hintNames = []struct{ short, mcp string }{
	{"readOnly", "readOnlyHint"}, {"destructive", "destructiveHint"}, {"idempotent", "idempotentHint"}, {"openWorld", "openWorldHint"},
}

func (h *Hints) at(i int) **bool {
	return [...]**bool{&h.ReadOnly, &h.Destructive, &h.Idempotent, &h.OpenWorld}[i]
}

// Field is one property of an object: an argument of the tool, or a
// member of an object argument.
type Field struct {
	Name     string
	Required bool
	Type     Type
}

// Type is a schema's type as a signature writes it: exactly one of a word
// (string, number, integer, boolean, null, object, array, any, or a type
// word of the schema's own), an object with its fields, an array of an
// element type, or a union of alternatives.
type Type struct {
	Word string
	// Object is set for `{…}`; Fields are its members, sorted by name.
	Object bool
	Fields []Field
	// Elem is the element type of `T[]`.
	Elem *Type
	// Alts are the alternatives of `A|B`.
	Alts []Type
}

// Read reads a tool definition (a tools/list entry, or a trace's
// meta.servers[].toolDefs entry).
func Read(def json.RawMessage) (Tool, error) {
	d, err := readDef(def)
	if err != nil {
		return Tool{}, err
	}
	dg, err := digests(d)
	if err != nil {
		return Tool{}, err
	}
	t := Tool{Name: d.Name, Input: dg.Input[:DigestLen]}
	if dg.Output != "" {
		t.Output = dg.Output[:DigestLen]
	}
	var in any
	if present(d.InputSchema) {
		_ = decode(d.InputSchema, &in) // it decoded for the digest
	}
	if m, ok := in.(map[string]any); ok {
		t.Params = fieldsOf(m, 1, 0)
	}
	if present(d.Annotations) {
		var a map[string]any
		if json.Unmarshal(d.Annotations, &a) == nil {
			for i, h := range hintNames {
				if b, ok := a[h.mcp].(bool); ok {
					*t.Hints.at(i) = &b
				}
			}
		}
	}
	return t, nil
}

// fieldsOf reads an object schema's properties, sorted by name.
func fieldsOf(m map[string]any, depth, nest int) []Field {
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return nil
	}
	req := map[string]bool{}
	if list, ok := m["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
	}
	fields := make([]Field, 0, len(props))
	for name, sub := range props {
		fields = append(fields, Field{Name: name, Required: req[name], Type: typeOf(sub, depth, nest+1)})
	}
	slices.SortFunc(fields, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	return fields
}

// maxTypeNesting bounds how deeply a signature nests types (arrays,
// unions, objects), well under what Parse accepts; a deeper schema is
// `any` there, and the input digest still covers it.
const maxTypeNesting = 16

// typeOf reads the type of a schema at an object depth and a nesting.
func typeOf(s any, depth, nest int) Type {
	m, ok := s.(map[string]any)
	if !ok || nest > maxTypeNesting {
		return Type{Word: "any"}
	}
	switch t := m["type"].(type) {
	case string:
		return shaped(t, m, depth, nest)
	case []any:
		var alts []Type
		for _, w := range t {
			if w, ok := w.(string); ok {
				alts = append(alts, shaped(w, m, depth, nest))
			}
		}
		return union(alts)
	}
	switch {
	case m["properties"] != nil:
		return shaped("object", m, depth, nest)
	case m["items"] != nil:
		return shaped("array", m, depth, nest)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok && len(list) > 0 {
			alts := make([]Type, len(list))
			for i, sub := range list {
				alts[i] = typeOf(sub, depth, nest+1)
			}
			return union(alts)
		}
	}
	if list, ok := m["enum"].([]any); ok && len(list) > 0 {
		var alts []Type
		for _, v := range list {
			alts = append(alts, Type{Word: kindOf(v)})
		}
		return union(alts)
	}
	if v, ok := m["const"]; ok {
		return Type{Word: kindOf(v)}
	}
	return Type{Word: "any"}
}

// shaped is a schema of the type word w: an object with properties is
// spelled out (down to MaxDepth), an array of one item schema is T[].
func shaped(w string, m map[string]any, depth, nest int) Type {
	switch w {
	case "object":
		if _, ok := m["properties"].(map[string]any); ok && depth < MaxDepth {
			return Type{Object: true, Fields: fieldsOf(m, depth+1, nest+1)}
		}
	case "array":
		if items, ok := m["items"].(map[string]any); ok {
			e := typeOf(items, depth, nest+1)
			return Type{Elem: &e}
		}
	}
	if !isWord(w) {
		w = "any"
	}
	return Type{Word: w}
}

// union joins alternatives, flattened and without repeats, in order.
func union(alts []Type) Type {
	var out []Type
	seen := map[string]bool{}
	var add func(t Type)
	add = func(t Type) {
		if len(t.Alts) > 0 {
			for _, a := range t.Alts {
				add(a)
			}
			return
		}
		if s := t.String(); !seen[s] {
			seen[s] = true
			out = append(out, t)
		}
	}
	for _, a := range alts {
		add(a)
	}
	switch len(out) {
	case 0:
		return Type{Word: "any"}
	case 1:
		return out[0]
	}
	return Type{Alts: out}
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// isWord reports a type word: letters, digits and '_', starting with a
// letter.
func isWord(w string) bool { return words.IsIdent(w) }

// Problem is a line of a skill's reelier-tools metadata that does not
// read, placed in the skill file.
type Problem struct {
	Pos ast.Pos
	Msg string
}

// FromSkill reads the skill's reelier-tools metadata: its entry (nil when
// the skill has none, and then no tools and no problems), the tools of
// the lines that read, and a problem placed at each line that does not.
func FromSkill(skill *ast.Skill) (*ast.FrontmatterEntry, []Tool, []Problem) {
	if skill == nil || skill.Frontmatter == nil {
		return nil, nil, nil
	}
	fm := skill.Frontmatter
	e := fm.Metadata(MetadataKey)
	if e == nil {
		return nil, nil, nil
	}
	if e.Kind != ast.ScalarValue {
		return e, nil, []Problem{{Pos: e.ValueRange.Start, Msg: "metadata " + MetadataKey + " is not a text"}}
	}
	tools, errs := ParseList(e.Value)
	var problems []Problem
	for _, le := range errs {
		problems = append(problems, Problem{Pos: ValuePos(fm, e, le.Line, le.Col), Msg: le.Msg})
	}
	if len(tools) == 0 && len(errs) == 0 {
		problems = append(problems, Problem{Pos: e.ValueRange.Start, Msg: "metadata " + MetadataKey + " lists no tool"})
	}
	return e, tools, problems
}

// ValuePos places byte col of line (from 0) of a metadata value in the
// file: in a block scalar, the line's own line of the file after its
// indentation; in a one-line value, that line; without the frontmatter's
// text (a tree built in code), the value's start.
func ValuePos(fm *ast.Frontmatter, e *ast.FrontmatterEntry, line, col int) ast.Pos {
	start := e.ValueRange.Start
	base := int(fm.Range.Start.Offset)
	lo, hi := int(e.ValueRange.Start.Offset)-base, int(e.ValueRange.End.Offset)-base
	if fm.Text == "" || lo < 0 || hi > len(fm.Text) || lo > hi {
		return start
	}
	raw := fm.Text[lo:hi]
	if raw == "" || (raw[0] != '|' && raw[0] != '>') {
		off := int(start.Offset) + col
		if raw != "" && (raw[0] == '"' || raw[0] == '\'') {
			off++
		}
		return ast.NewPos(off, int(start.Line), int(start.Column)+(off-int(start.Offset)))
	}
	rows := strings.Split(raw, "\n")
	if line+1 >= len(rows) {
		return start
	}
	row := strings.TrimRight(rows[line+1], "\r")
	indent := len(row) - len(strings.TrimLeft(row, " "))
	off := int(start.Offset)
	for _, r := range rows[:line+1] {
		off += len(r) + 1
	}
	at := min(indent+col, len(row))
	return ast.NewPos(off+at, int(start.Line)+line+1, ast.Column(row, at))
}
