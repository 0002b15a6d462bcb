package ast

import "fmt"

// Pos is one place in a file: a byte offset plus the 1-based line and
// 1-based byte column derived from it.
type Pos struct {
	Offset int `json:"offset"`
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Range is the half-open byte span [Start, End) of a node in its file.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

// String renders the start of the range as line:col.
func (r Range) String() string { return fmt.Sprintf("%d:%d", r.Start.Line, r.Start.Column) }

// Contains reports whether the byte offset lies inside the range (the end
// offset included, so a cursor right after a node still touches it).
func (r Range) Contains(offset int) bool {
	return r.Start.Offset <= offset && offset <= r.End.Offset
}

// Node is implemented by every syntax node that carries a range.
type Node interface {
	// Span returns the node's full range in the file.
	Span() Range
}
