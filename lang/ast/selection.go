package ast

// A selection picks from a collection — a JSON array, or the lines of a
// text result — by a rule instead of a position, or computes a value
// from the elements it keeps:
//
//	first|last|only|max|min|count|sum|join ( <source>
//	    [where <cond> {and <cond>}]
//	    [by <key> [as number|date|version|name|text]]
//	    [sep "<text>"] ) [.<path>]
//
// `only` fails unless exactly one element is kept; `max` and `min` need a
// key (`by`) unless the elements are scalars; `count` takes no trailing
// path; for `sum` and `join` the trailing path is read in each kept
// element before they are added up or joined. SPEC.md §5.1 is the
// contract.

// Pick names what a selection returns.
type Pick string

// The picks of the selection language.
const (
	PickFirst Pick = "first"
	PickLast  Pick = "last"
	PickOnly  Pick = "only"
	PickMax   Pick = "max"
	PickMin   Pick = "min"
	PickCount Pick = "count"
	PickSum   Pick = "sum"
	PickJoin  Pick = "join"
)

// Picks lists every pick in the order SPEC.md gives them.
var Picks = []Pick{PickFirst, PickLast, PickOnly, PickMax, PickMin, PickCount, PickSum, PickJoin}

// Aggregate reports whether the pick computes a value from every kept
// element instead of returning one of them.
func (p Pick) Aggregate() bool { return p == PickCount || p == PickSum || p == PickJoin }

// Ordering names how the keys of `by` compare.
type Ordering string

// The orderings of `by … as <ordering>`.
const (
	// OrderNone is a `by` without `as`: numbers when every key is a JSON
	// number, text when every key is a string, an error otherwise.
	OrderNone Ordering = ""
	// OrderNumber compares JSON numbers, or strings that read as decimal
	// numbers.
	OrderNumber Ordering = "number"
	// OrderDate compares RFC 3339 / ISO 8601 dates and times (a date
	// alone is midnight UTC).
	OrderDate Ordering = "date"
	// OrderVersion compares dotted versions (`v1.10.0` > `v1.9.2`),
	// pre-releases before their release.
	OrderVersion Ordering = "version"
	// OrderName compares names naturally: runs of digits as numbers,
	// the rest byte by byte (`file2` < `file10`).
	OrderName Ordering = "name"
	// OrderText compares strings byte by byte.
	OrderText Ordering = "text"
)

// Orderings lists every ordering that can be written after `as`.
var Orderings = []Ordering{OrderNumber, OrderDate, OrderVersion, OrderName, OrderText}

// SourceKind tells where a selection's elements come from.
type SourceKind int

// The source kinds.
const (
	// SourceJSON is `json` or `json.<path>`: the elements of the array
	// found there.
	SourceJSON SourceKind = iota
	// SourceLines is `lines` or `lines /<regex>/`: the body's non-blank
	// lines, or only those the regex matches. With a regex each element
	// is an object of its captures: `0` the whole match, `1`, `2`, … the
	// groups, and each named group by its name.
	SourceLines
)

// Source is the collection a selection reads.
type Source struct {
	Range Range
	Kind  SourceKind
	// Path is the array's path for SourceJSON; it has no elements for
	// `json` alone (the document is the array).
	Path Path
	// Pattern is the regex of `lines /<regex>/`, "" for plain lines.
	Pattern      string
	PatternRange Range
}

// CondOp is the operator of a `where` condition.
type CondOp string

// The condition operators: the comparisons of the assert language, and
// `matches`, `contains` and `not contains`.
const (
	CondEq          CondOp = "=="
	CondNe          CondOp = "!="
	CondGt          CondOp = ">"
	CondLt          CondOp = "<"
	CondGe          CondOp = ">="
	CondLe          CondOp = "<="
	CondMatches     CondOp = "matches"
	CondContains    CondOp = "contains"
	CondNotContains CondOp = "not contains"
)

// Condition is one `<key> <op> <value>` of a `where` clause.
type Condition struct {
	Range Range
	// Key is read in each element: a path relative to it (`name`,
	// `meta.created`, a capture's number or name), or `it`, the element
	// itself (Key.Elements holds the single segment "it").
	Key     Path
	Op      CondOp
	OpRange Range
	// Value is the JSON scalar compared with (a string may hold template
	// holes, filled from the run's bindings before the selection is
	// evaluated); nil for `matches`.
	Value Value
	// Pattern is the regex of `matches`.
	Pattern      string
	PatternRange Range
}

// Span implements Node.
func (c *Condition) Span() Range { return c.Range }

// IsIt reports whether a key names the element itself.
func IsIt(p Path) bool { return len(p.Elements) == 1 && p.Elements[0].Name == "it" }

// Selection is one selection expression.
type Selection struct {
	Range     Range
	Pick      Pick
	PickRange Range
	Source    Source
	Where     []*Condition
	// By is the ordering key; HasBy is false when there is no `by`.
	By         Path
	HasBy      bool
	Order      Ordering
	OrderRange Range
	// Sep is `join`'s separator (`sep "<text>"`); HasSep is false when it
	// is not written (the separator is then ",").
	Sep      string
	HasSep   bool
	SepRange Range
	// Field is the trailing `.<path>` after the closing parenthesis; no
	// elements when there is none. Its Range starts at the first dot.
	Field Path
}

// Span implements Node.
func (s *Selection) Span() Range { return s.Range }

// Holes returns the template holes in the selection's condition values,
// in file order.
func (s *Selection) Holes() []*Hole {
	var out []*Hole
	for _, c := range s.Where {
		if str, ok := c.Value.(*String); ok {
			out = append(out, str.Holes...)
		}
	}
	return out
}

// SelectionAssertKind tells which test a SelectionAssert applies to the
// selection's value.
type SelectionAssertKind int

// The tests of a selection assert.
const (
	// SelCompare is `<selection> <op> <json-scalar>`.
	SelCompare SelectionAssertKind = iota
	// SelIs is `<selection> is <type>`.
	SelIs
	// SelMatches is `<selection> matches /<regex>/`.
	SelMatches
)

// SelectionAssert is an assert over a selection's value: a comparison,
// a type test or a regex.
type SelectionAssert struct {
	Range Range
	Sel   *Selection
	Kind  SelectionAssertKind
	// Op and Value are set for SelCompare (the value is a JSON scalar,
	// a string may hold holes).
	Op      Op
	OpRange Range
	Value   Value
	// Type is set for SelIs.
	Type      TypeName
	TypeRange Range
	// Pattern is set for SelMatches.
	Pattern      string
	PatternRange Range
}

// SelectionBind is `<name> = <selection>`.
type SelectionBind struct {
	Range     Range
	Name      string
	NameRange Range
	Sel       *Selection
}

// Span implements Node.
func (a *SelectionAssert) Span() Range { return a.Range }

func (*SelectionAssert) assertNode() {}

// Span implements Node.
func (b *SelectionBind) Span() Range { return b.Range }

// BoundName implements Bind.
func (b *SelectionBind) BoundName() string { return b.Name }

// BoundNameRange implements Bind.
func (b *SelectionBind) BoundNameRange() Range { return b.NameRange }

// StepSelection returns the selection of an assert or bind expression,
// or nil when it is not a selection form.
func StepSelection(n Node) *Selection {
	switch n := n.(type) {
	case *SelectionAssert:
		return n.Sel
	case *SelectionBind:
		return n.Sel
	}
	return nil
}
