package ast

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

// Frontmatter is the `---` fenced block of `key: value` lines.
type Frontmatter struct {
	Range   Range
	Entries []*FrontmatterEntry
}

// FrontmatterEntry is one `key: value` line, in file order.
type FrontmatterEntry struct {
	Key        string
	Value      string
	Range      Range
	KeyRange   Range
	ValueRange Range
}

// Span implements Node.
func (e *FrontmatterEntry) Span() Range { return e.Range }

// Lookup returns the entry with the key, or nil. When a key is written
// twice the later line wins, as it does for the original's parser.
func (f *Frontmatter) Lookup(key string) *FrontmatterEntry {
	if f == nil {
		return nil
	}
	var found *FrontmatterEntry
	for _, e := range f.Entries {
		if e.Key == key {
			found = e
		}
	}
	return found
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

// EffectValue returns the step's effect, or "" when it has none.
func (s *Step) EffectValue() Effect {
	if s.Effect == nil {
		return ""
	}
	return s.Effect.Value
}
