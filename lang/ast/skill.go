package ast

import (
	"encoding/json"
	"strings"
)

// Skill is a whole SKILL.md file.
type Skill struct {
	// BOM records that the file began with a UTF-8 byte order mark.
	BOM bool
	// CRLF records that the file's first line ended in "\r\n"; the printer
	// then ends every line it generates the same way.
	CRLF bool
	// Frontmatter is the fenced key/value header; nil when it is missing.
	Frontmatter *Frontmatter
	// Preamble is everything between the frontmatter and the first step
	// header, kept byte for byte.
	Preamble Verbatim
	// Servers are the MCP servers listed in the preamble's `## Servers`
	// section, in file order; nil when it has none. They are read from
	// the preamble's text, which is what gets printed.
	Servers []*Server
	// Steps are the numbered steps in file order.
	Steps []*Step
	// Trailing is everything after the last step's field block, kept byte
	// for byte.
	Trailing Verbatim
}

// Name returns the frontmatter's name value, or "".
func (s *Skill) Name() string { return s.Frontmatter.Get("name") }

// Description returns the frontmatter's description value, or "".
func (s *Skill) Description() string { return s.Frontmatter.Get("description") }

// Verbatim is Markdown the parser keeps but does not interpret.
type Verbatim struct {
	Text  string
	Range Range
	// Headings are the Markdown headings inside the text (for outlines).
	Headings []Heading
}

// Heading is a Markdown heading found inside verbatim text.
type Heading struct {
	Level int
	Text  string
	Range Range
}

// Frontmatter is the `---` fenced block at the top of the file: the YAML
// subset Agent Skills use (SPEC.md §2).
type Frontmatter struct {
	Range Range
	// Text is the block as written, both fences and every line end
	// included. The printer writes it back unchanged; a frontmatter built
	// in code leaves it empty and is printed from Entries.
	Text string
	// Entries are the top-level keys in file order.
	Entries []*FrontmatterEntry
}

// ValueKind is the shape of a frontmatter value.
type ValueKind int

// The shapes the frontmatter subset allows.
const (
	// ScalarValue is one string (or a number, a boolean or null, as YAML
	// reads it; see Type).
	ScalarValue ValueKind = iota
	// ListValue is a list of scalars, such as allowed-tools.
	ListValue
	// MapValue is a map of scalars, such as metadata.
	MapValue
)

// MetadataPrefix starts every key Reelier keeps under `metadata`.
const MetadataPrefix = "reelier-"

// MetadataKeys are the metadata keys Reelier defines (SPEC.md §2.1).
var MetadataKeys = []string{MetadataPrefix + "inputs", MetadataPrefix + "timeout", MetadataPrefix + "retry", MetadataPrefix + "retry-interval", MetadataPrefix + "retry-steps", MetadataPrefix + "tools", MetadataPrefix + "approvals"}

// FrontmatterEntry is one key and its value: a top-level entry, an entry
// of a map value (Key set) or an item of a list value (Key empty).
type FrontmatterEntry struct {
	Key  string
	Kind ValueKind
	// Value is a scalar's text as YAML reads it (quotes and escapes
	// resolved); empty for lists and maps.
	Value string
	// Type is the YAML type a scalar reads as: "str", "int", "float",
	// "bool", "null" or "timestamp".
	Type string
	// Flat reports a line YAML cannot read that was taken the way the
	// original format reads it: the text after the first colon.
	Flat bool
	// Items are a list's items or a map's entries, in file order.
	Items []*FrontmatterEntry
	// Range covers the key through the end of the value; KeyRange is
	// empty for a list item; ValueRange covers the value as written
	// (quotes included).
	Range      Range
	KeyRange   Range
	ValueRange Range
	// KeyType is the YAML type a map entry's key reads as ("str" for
	// every top-level key).
	KeyType string
}

// Span implements Node.
func (e *FrontmatterEntry) Span() Range { return e.Range }

// Lookup returns the entry with the key, or nil. A key written twice is
// rejected; in the partial tree the later entry wins.
func (f *Frontmatter) Lookup(key string) *FrontmatterEntry {
	if f == nil {
		return nil
	}
	return lookup(f.Entries, key)
}

// Lookup returns the entry of a map value with the key, or nil.
func (e *FrontmatterEntry) Lookup(key string) *FrontmatterEntry {
	if e == nil || e.Kind != MapValue {
		return nil
	}
	return lookup(e.Items, key)
}

func lookup(entries []*FrontmatterEntry, key string) *FrontmatterEntry {
	var found *FrontmatterEntry
	for _, e := range entries {
		if e.Key == key {
			found = e
		}
	}
	return found
}

// Metadata returns the entry of the `metadata` map with the key, or nil.
func (f *Frontmatter) Metadata(key string) *FrontmatterEntry {
	return f.Lookup("metadata").Lookup(key)
}

// Data returns the frontmatter as plain data for JSON, as a host reading
// the YAML gets it: text as a string, a number as a json.Number, a boolean
// as a bool, null as nil, a date as the text written; a slice for a list
// and an ordered map for a map, keys in file order.
func (f *Frontmatter) Data() OrderedMap {
	if f == nil {
		return nil
	}
	return entriesData(f.Entries)
}

func entriesData(entries []*FrontmatterEntry) OrderedMap {
	m := make(OrderedMap, 0, len(entries))
	for _, e := range entries {
		// A later duplicate replaces the earlier one, as Lookup does.
		m = m.without(e.Key)
		m = append(m, KeyValue{Key: e.Key, Value: e.data()})
	}
	return m
}

func (e *FrontmatterEntry) data() any {
	switch e.Kind {
	case ListValue:
		out := make([]any, len(e.Items))
		for i, it := range e.Items {
			out[i] = it.data()
		}
		return out
	case MapValue:
		return entriesData(e.Items)
	}
	switch e.Type {
	case "null":
		return nil
	case "bool":
		return strings.EqualFold(e.Value, "true")
	case "int", "float":
		// YAML spells some numbers JSON does not (0x1F, .inf): those stay
		// text.
		if json.Valid([]byte(e.Value)) {
			return json.Number(e.Value)
		}
	}
	return e.Value
}

// KeyValue is one entry of an OrderedMap.
type KeyValue struct {
	Key   string
	Value any
}

// OrderedMap is a map that keeps its keys in order; it marshals to a JSON
// object with its keys in that order.
type OrderedMap []KeyValue

func (m OrderedMap) without(key string) OrderedMap {
	for i, kv := range m {
		if kv.Key == key {
			return append(m[:i:i], m[i+1:]...)
		}
	}
	return m
}

// Get returns the value of key, or nil.
func (m OrderedMap) Get(key string) any {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// MarshalJSON writes the map as a JSON object in key order.
func (m OrderedMap) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range m {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// Get returns the value of the entry with the key, or "".
func (f *Frontmatter) Get(key string) string {
	if e := f.Lookup(key); e != nil {
		return e.Value
	}
	return ""
}

// Effect is the closed set of step side-effect classes.
type Effect string

// The three effects, from harmless to irreversible.
const (
	EffectRead            Effect = "read"
	EffectIdempotentWrite Effect = "idempotent-write"
	EffectDestructive     Effect = "destructive"
)

// Effects lists the valid effects in the order the specification gives them.
var Effects = []Effect{EffectRead, EffectIdempotentWrite, EffectDestructive}

// Valid reports whether e is one of the three effects.
func (e Effect) Valid() bool {
	for _, v := range Effects {
		if e == v {
			return true
		}
	}
	return false
}

// Step is one `### Step N — Title` block.
type Step struct {
	// Range covers the header through the last non-blank line of the block.
	Range       Range
	HeaderRange Range
	Number      int
	NumberRange Range
	Title       string
	TitleRange  Range

	Intent  *IntentField
	Action  *ActionField
	Asserts []*AssertField
	Binds   []*BindField
	Effect  *EffectField

	// LeadingProse holds prose lines between the header and the first
	// bullet: a description of the step, printed right under its header.
	LeadingProse []Prose
	// TrailingProse holds prose lines after the step's last bullet.
	TrailingProse []Prose
	// Interlude is Markdown that closes this step with a `##` heading and
	// runs to the next step header. It is empty for the last step, whose
	// following text is the skill's Trailing.
	Interlude Verbatim
}

// Span implements Node.
func (s *Step) Span() Range { return s.Range }

// Prose is a free-text line inside a step block. The parser ignores its
// meaning but keeps it: above the first bullet it belongs to the step,
// between bullets to the bullet it precedes, after the last to the step's
// end.
type Prose struct {
	Text  string
	Range Range
}

// Bullet is what every step field shares: where the `- key: value` line is
// and which prose lines stood right before it.
type Bullet struct {
	Range      Range
	KeyRange   Range
	ValueRange Range
	// Leading are prose lines directly above this bullet.
	Leading []Prose
}

// Span implements Node.
func (b *Bullet) Span() Range { return b.Range }

// IntentField is `- intent: <sentence>`.
type IntentField struct {
	Bullet
	Text string
}

// ActionField is `- action: <tool> <json-args>`.
type ActionField struct {
	Bullet
	Tool      string
	ToolRange Range
	Args      Value
}

// AssertField is one `- assert: <expr>` bullet.
type AssertField struct {
	Bullet
	Expr Assert
}

// BindField is one `- bind: <expr>` bullet.
type BindField struct {
	Bullet
	Expr Bind
}

// EffectField is `- effect: <effect>`.
type EffectField struct {
	Bullet
	Value Effect
}

// Fields returns the step's bullets in canonical order: intent, action,
// asserts, binds, effect. Missing fields are left out.
func (s *Step) Fields() []*Bullet {
	var out []*Bullet
	if s.Intent != nil {
		out = append(out, &s.Intent.Bullet)
	}
	if s.Action != nil {
		out = append(out, &s.Action.Bullet)
	}
	for _, a := range s.Asserts {
		out = append(out, &a.Bullet)
	}
	for _, b := range s.Binds {
		out = append(out, &b.Bullet)
	}
	if s.Effect != nil {
		out = append(out, &s.Effect.Bullet)
	}
	return out
}

// Holes returns the template holes the step fills from inputs and the
// earlier steps' binds, in file order: those of the action's arguments,
// then those of its selection asserts and binds (in `where` values and in
// an assert's compared value).
func (s *Step) Holes() []*Hole {
	var out []*Hole
	if s.Action != nil {
		out = Holes(s.Action.Args)
	}
	for _, af := range s.Asserts {
		sa, ok := af.Expr.(*SelectionAssert)
		if !ok {
			continue
		}
		out = append(out, sa.Sel.Holes()...)
		if str, ok := sa.Value.(*String); ok {
			out = append(out, str.Holes...)
		}
	}
	for _, bf := range s.Binds {
		if sb, ok := bf.Expr.(*SelectionBind); ok {
			out = append(out, sb.Sel.Holes()...)
		}
	}
	return out
}

// EffectValue returns the step's effect, or "" when it has none.
func (s *Step) EffectValue() Effect {
	if s.Effect == nil {
		return ""
	}
	return s.Effect.Value
}
