package ast

// Path is a dot path into a JSON document, such as `items.0.id`.
type Path struct {
	Range    Range
	Elements []PathElement
}

// PathElement is one segment of a Path.
type PathElement struct {
	// Name is the segment as written.
	Name string
	// Index is the array index for an all-digit segment, or -1.
	Index int
	Range Range
}

// String renders the path as written, without the `json.` prefix.
func (p Path) String() string {
	n := 0
	for _, e := range p.Elements {
		n += len(e.Name) + 1
	}
	b := make([]byte, 0, n)
	for i, e := range p.Elements {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, e.Name...)
	}
	return string(b)
}

// Op is a comparison operator.
type Op string

// The comparison operators of the assert language.
const (
	OpEq Op = "=="
	OpNe Op = "!="
	OpGt Op = ">"
	OpLt Op = "<"
	OpGe Op = ">="
	OpLe Op = "<="
)

// TypeName is the right-hand side of a `json.<path> is <type>` assert.
type TypeName string

// The type names of the `is` assert form.
const (
	TypeArray   TypeName = "array"
	TypeSet     TypeName = "set"
	TypeNumber  TypeName = "number"
	TypeString  TypeName = "string"
	TypeBoolean TypeName = "boolean"
	TypeNull    TypeName = "null"
)

// Assert is one assert expression; each form of the language is its own type.
type Assert interface {
	Node
	assertNode()
}

// StatusAssert is `status == <int>` or `status != <int>`.
type StatusAssert struct {
	Range     Range
	Op        Op
	OpRange   Range
	Code      int
	CodeRange Range
}

// BodyContainsAssert is `body contains "<text>"` or `body not contains "<text>"`.
type BodyContainsAssert struct {
	Range     Range
	Negated   bool
	Text      string
	TextRange Range
}

// JSONIsAssert is `json.<path> is <type>`.
type JSONIsAssert struct {
	Range     Range
	Path      Path
	Type      TypeName
	TypeRange Range
}

// JSONMatchesAssert is `json.<path> matches /<regex>/`.
type JSONMatchesAssert struct {
	Range        Range
	Path         Path
	Pattern      string
	PatternRange Range
}

// JSONLengthAssert is `json.<path> length <op> <int>` with op one of > < >= <=.
type JSONLengthAssert struct {
	Range    Range
	Path     Path
	Op       Op
	OpRange  Range
	Length   int
	LenRange Range
}

// JSONCompareAssert is `json.<path> <op> <json-scalar>`.
type JSONCompareAssert struct {
	Range   Range
	Path    Path
	Op      Op
	OpRange Range
	Value   Value
}

// Span implements Node.
func (a *StatusAssert) Span() Range { return a.Range }

// Span implements Node.
func (a *BodyContainsAssert) Span() Range { return a.Range }

// Span implements Node.
func (a *JSONIsAssert) Span() Range { return a.Range }

// Span implements Node.
func (a *JSONMatchesAssert) Span() Range { return a.Range }

// Span implements Node.
func (a *JSONLengthAssert) Span() Range { return a.Range }

// Span implements Node.
func (a *JSONCompareAssert) Span() Range { return a.Range }

func (*StatusAssert) assertNode()       {}
func (*BodyContainsAssert) assertNode() {}
func (*JSONIsAssert) assertNode()       {}
func (*JSONMatchesAssert) assertNode()  {}
func (*JSONLengthAssert) assertNode()   {}
func (*JSONCompareAssert) assertNode()  {}

// Bind is one bind expression; each form of the language is its own type.
type Bind interface {
	Node
	// BoundName returns the variable the bind defines.
	BoundName() string
	// BoundNameRange returns where that name is written.
	BoundNameRange() Range
}

// JSONBind is `<name> = json.<path>`.
type JSONBind struct {
	Range     Range
	Name      string
	NameRange Range
	Path      Path
}

// BodyMatchBind is `<name> = body match /<regex>/`; it binds capture group 1.
type BodyMatchBind struct {
	Range        Range
	Name         string
	NameRange    Range
	Pattern      string
	PatternRange Range
}

// Span implements Node.
func (b *JSONBind) Span() Range { return b.Range }

// Span implements Node.
func (b *BodyMatchBind) Span() Range { return b.Range }

// BoundName implements Bind.
func (b *JSONBind) BoundName() string { return b.Name }

// BoundName implements Bind.
func (b *BodyMatchBind) BoundName() string { return b.Name }

// BoundNameRange implements Bind.
func (b *JSONBind) BoundNameRange() Range { return b.NameRange }

// BoundNameRange implements Bind.
func (b *BodyMatchBind) BoundNameRange() Range { return b.NameRange }

// AssertPath returns the JSON path an assert reads, or nil for the status
// and body forms.
func AssertPath(a Assert) *Path {
	switch a := a.(type) {
	case *JSONIsAssert:
		return &a.Path
	case *JSONMatchesAssert:
		return &a.Path
	case *JSONLengthAssert:
		return &a.Path
	case *JSONCompareAssert:
		return &a.Path
	}
	return nil
}
