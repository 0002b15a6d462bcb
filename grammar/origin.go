package grammar

import "github.com/reelier/reelier/ast"

// origin is the file position of the first byte of a one-line fragment,
// with the fragment's text. Fragments never span lines, so a byte k into
// the fragment sits on the same line, as many columns further on as there
// are characters in the fragment before k. Callers count in bytes; only
// the column counts characters.
type origin struct {
	ast.Pos
	text  string // the fragment from Pos on (its line's rest may follow)
	ascii bool   // text is all ASCII: columns are byte counts
}

// fragment returns the origin of text, a fragment whose first byte is at
// base in its file.
func fragment(base ast.Pos, text string) origin {
	return origin{Pos: base, text: text, ascii: isASCII(text)}
}

// at returns the position of byte k of the fragment.
func (o origin) at(k int) ast.Pos {
	col := k
	if !o.ascii {
		col = ast.Column(o.text, k) - 1
	}
	return ast.Pos{Offset: o.Offset + k, Line: o.Line, Column: o.Column + col}
}

// span returns the range of bytes [start, end) of the fragment.
func (o origin) span(start, end int) ast.Range {
	return ast.Range{Start: o.at(start), End: o.at(end)}
}

// from returns the origin of the fragment's tail that starts at byte k.
func (o origin) from(k int) origin {
	return origin{Pos: o.at(k), text: o.text[min(max(k, 0), len(o.text)):], ascii: o.ascii}
}
