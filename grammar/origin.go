package grammar

import "github.com/reelier/reelier/ast"

// origin is the file position of the first byte of a one-line fragment.
// Fragments never span lines, so a byte k into the fragment sits at the
// same line, k columns further on.
type origin ast.Pos

func (o origin) at(k int) ast.Pos {
	return ast.Pos{Offset: o.Offset + k, Line: o.Line, Column: o.Column + k}
}

func (o origin) span(start, end int) ast.Range {
	return ast.Range{Start: o.at(start), End: o.at(end)}
}
