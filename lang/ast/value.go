package ast

// Value is a JSON value from an action's arguments or an assert's
// right-hand side. Object members keep the order they were written in.
type Value interface {
	Node
	valueNode()
}

// Object is a JSON object; Members keep file order and duplicates.
type Object struct {
	Range   Range
	Members []*Member
}

// Member is one `"key": value` pair of an object.
type Member struct {
	Key      string
	KeyRange Range
	Value    Value
}

// Array is a JSON array.
type Array struct {
	Range    Range
	Elements []Value
}

// String is a JSON string with its decoded value and the template holes
// found inside it.
type String struct {
	Range Range
	Value string
	Holes []*Hole
}

// Number is a JSON number, kept as written.
type Number struct {
	Range Range
	Raw   string
}

// Bool is a JSON true or false.
type Bool struct {
	Range Range
	Value bool
}

// Null is the JSON null.
type Null struct {
	Range Range
}

// Span implements Node.
func (v *Object) Span() Range { return v.Range }

// Span implements Node.
func (v *Array) Span() Range { return v.Range }

// Span implements Node.
func (v *String) Span() Range { return v.Range }

// Span implements Node.
func (v *Number) Span() Range { return v.Range }

// Span implements Node.
func (v *Bool) Span() Range { return v.Range }

// Span implements Node.
func (v *Null) Span() Range { return v.Range }

func (*Object) valueNode() {}
func (*Array) valueNode()  {}
func (*String) valueNode() {}
func (*Number) valueNode() {}
func (*Bool) valueNode()   {}
func (*Null) valueNode()   {}

// HoleKind tells how a template hole is resolved.
type HoleKind int

// The hole kinds.
const (
	// HoleVar is `{{name}}`, looked up in the run's bindings.
	HoleVar HoleKind = iota
	// HoleToday is `{{today}}`, the run's UTC date.
	HoleToday
	// HoleTodayOffset is `{{today+Nd}}` or `{{today-Nd}}`.
	HoleTodayOffset
	// HoleMalformedDate is text that starts like a computed date and is
	// not one (`{{today+3}}`, `{{today+3x}}`): a replay fails it rather
	// than sending it as written.
	HoleMalformedDate
)

// Hole is one `{{…}}` template hole inside a string leaf.
type Hole struct {
	Kind HoleKind
	// Name is the variable name for HoleVar, "today" otherwise.
	Name string
	// Days is the signed day offset of HoleTodayOffset.
	Days int
	// Written is the name as written, with any offset: "today-7d".
	Written string
	// Start and End are byte offsets of the hole within the decoded string.
	Start, End int
	// Range is where the hole is in the file.
	Range Range
	// NameRange is where the name is in the file.
	NameRange Range
}

// Span implements Node.
func (h *Hole) Span() Range { return h.Range }

// Text returns the hole's name as written between the braces, such as
// "id", "today" or "today-7d".
func (h *Hole) Text() string { return h.Written }

// Walk calls fn for v and every value nested inside it, depth first, in
// file order. Returning false from fn skips the children of that value.
func Walk(v Value, fn func(Value) bool) {
	if v == nil || !fn(v) {
		return
	}
	switch v := v.(type) {
	case *Object:
		for _, m := range v.Members {
			Walk(m.Value, fn)
		}
	case *Array:
		for _, e := range v.Elements {
			Walk(e, fn)
		}
	}
}

// WalkLeaves calls fn with every scalar leaf of v, depth first, and the
// object key it is the value of ("" at the top; an array's elements take
// the array's key).
func WalkLeaves(v Value, key string, fn func(leaf Value, key string)) {
	switch v := v.(type) {
	case nil:
	case *Object:
		for _, m := range v.Members {
			WalkLeaves(m.Value, m.Key, fn)
		}
	case *Array:
		for _, e := range v.Elements {
			WalkLeaves(e, key, fn)
		}
	default:
		fn(v, key)
	}
}

// Holes returns every template hole in the string leaves of v, in file order.
func Holes(v Value) []*Hole {
	var out []*Hole
	Walk(v, func(v Value) bool {
		if s, ok := v.(*String); ok {
			out = append(out, s.Holes...)
		}
		return true
	})
	return out
}
